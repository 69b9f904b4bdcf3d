package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/intentd/intentd/records"
)

// RecordRow is one request of a search: its stored v3 record and the integrator that owns it
// ("" for a request quoted without a key).
type RecordRow struct {
	ID         string
	Record     []byte
	Integrator string
	Status     string
	OrderData  []byte // nil unless the query asked (WithOrderData)
}

// RecordPage is one page of a search: its requests, the position after the last one when there
// are more (nil on the last page), and the exact count of every match when the query asked.
type RecordPage struct {
	Rows  []RecordRow
	Next  *records.Cursor
	Total *int64
}

// SearchRecords runs a search of the request records (records.Compile): one indexed page by
// keyset, and the count in the same snapshot when q.Total is set.
func (s *Store) SearchRecords(ctx context.Context, q records.Query) (*RecordPage, error) {
	c := records.Compile(q)
	page := &RecordPage{}
	run := func(db interface {
		Query(context.Context, string, ...any) (pgx.Rows, error)
		QueryRow(context.Context, string, ...any) pgx.Row
	}) error {
		rows, err := db.Query(ctx, c.Page, c.PageArgs...)
		if err != nil {
			return err
		}
		var last any
		for rows.Next() {
			var r RecordRow
			var sortTime time.Time
			var sortText string
			dest := []any{&r.Record, &r.ID, &r.Integrator, &r.Status, &r.OrderData, &sortText}
			if c.SortIsTime {
				dest[5] = &sortTime
			}
			if err := rows.Scan(dest...); err != nil {
				rows.Close()
				return err
			}
			if len(page.Rows) == q.Limit { // the extra row: there is a next page
				page.Next = &records.Cursor{Sort: q.Sort, Desc: q.Desc, ID: page.Rows[len(page.Rows)-1].ID, Value: cursorValue(last)}
				break
			}
			page.Rows = append(page.Rows, r)
			if c.SortIsTime {
				last = sortTime
			} else {
				last = sortText
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if q.Total {
			var n int64
			if err := db.QueryRow(ctx, c.Count, c.CountArgs...).Scan(&n); err != nil {
				return err
			}
			page.Total = &n
		}
		return nil
	}
	var err error
	if q.Total {
		// The page and the count see one snapshot, so the total agrees with the pages.
		err = pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
			func(tx pgx.Tx) error { return run(tx) })
	} else {
		err = run(s.pool)
	}
	if err != nil {
		return nil, fmt.Errorf("search records: %w", unavailable(err))
	}
	return page, nil
}

func cursorValue(v any) string {
	if t, ok := v.(time.Time); ok {
		return t.UTC().Format(time.RFC3339Nano)
	}
	s, _ := v.(string)
	return s
}
