package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/intentd/intentd/usage"
)

// anonymousKeyID is the api_usage key of calls without a key: the nil UUID, which no key has.
const anonymousKeyID = "00000000-0000-0000-0000-000000000000"

// AddUsage adds a batch of usage counts (package usage) in one multi-row upsert, once: the
// batch id is recorded in the same transaction, so a batch retried after an error that hid its
// commit finds its id and adds nothing twice.
func (s *Store) AddUsage(ctx context.Context, batchID string, counts []usage.Count) error {
	n := len(counts)
	keys, minutes, endpoints := make([]string, n), make([]time.Time, n), make([]string, n)
	statuses, codes, ns := make([]int16, n), make([]string, n), make([]int64, n)
	for i, c := range counts {
		keys[i], minutes[i], endpoints[i], statuses[i], codes[i], ns[i] = c.KeyID, c.Time, c.Endpoint, int16(c.Status), c.ErrorCode, c.N
		if c.KeyID == "" {
			keys[i] = anonymousKeyID
		}
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO api_usage_batches (id) VALUES ($1) ON CONFLICT DO NOTHING`, batchID)
		if err != nil || tag.RowsAffected() == 0 {
			return err // added before
		}
		_, err = tx.Exec(ctx, `INSERT INTO api_usage (api_key_id, minute, endpoint, status, error_code, count)
			SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::text[], $4::smallint[], $5::text[], $6::bigint[])
			ON CONFLICT (api_key_id, minute, endpoint, status, error_code) DO UPDATE SET count = api_usage.count + EXCLUDED.count`,
			keys, minutes, endpoints, statuses, codes, ns)
		return err
	})
	if err != nil {
		return fmt.Errorf("add usage batch %s: %w", batchID, unavailable(err))
	}
	return nil
}

// usageBatchRetention is how long a batch id is remembered: a batch is retried within seconds.
const usageBatchRetention = 24 * time.Hour

// PruneUsage deletes the usage counts of minutes before before, and batch ids older than a
// day; it returns how many counts it deleted.
func (s *Store) PruneUsage(ctx context.Context, before time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM api_usage WHERE minute < $1`, before)
	if err != nil {
		return 0, fmt.Errorf("prune usage: %w", unavailable(err))
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM api_usage_batches WHERE applied_at < $1`, time.Now().Add(-usageBatchRetention)); err != nil {
		return tag.RowsAffected(), fmt.Errorf("prune usage batches: %w", unavailable(err))
	}
	return tag.RowsAffected(), nil
}

// UsageQuery selects the counts of some keys, summed into buckets of Step (a minute, an hour
// or a day, aligned to UTC), over the minutes from From to To, both included.
type UsageQuery struct {
	KeyIDs   []string
	From, To time.Time
	Step     time.Duration
}

// Usage answers q, ordered by bucket, key, endpoint, status and errorCode; each Count's Time
// is its bucket's start.
func (s *Store) Usage(ctx context.Context, q UsageQuery) ([]usage.Count, error) {
	rows, err := s.pool.Query(ctx, `SELECT api_key_id::text, date_bin($4 * interval '1 second', minute, 'epoch'::timestamptz) AS bucket,
			endpoint, status, error_code, sum(count)::bigint
		FROM api_usage WHERE api_key_id = ANY($1::uuid[]) AND minute >= $2 AND minute <= $3
		GROUP BY 1, 2, 3, 4, 5 ORDER BY 2, 1, 3, 4, 5`, q.KeyIDs, q.From, q.To, int64(q.Step/time.Second))
	if err != nil {
		return nil, fmt.Errorf("usage: %w", unavailable(err))
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (usage.Count, error) {
		var c usage.Count
		var status int16
		err := row.Scan(&c.KeyID, &c.Time, &c.Endpoint, &status, &c.ErrorCode, &c.N)
		c.Status, c.Time = int(status), c.Time.UTC()
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("usage: %w", unavailable(err))
	}
	return out, nil
}

// UsageKey is what GET /metrics/usage needs of a key it is asked about: its id, the prefix it
// is shown by, the integrator that owns it, and its hash (to match a key given by value).
type UsageKey struct {
	ID         string
	Prefix     string
	Integrator string // the owning integrator's id
	Hash       []byte
}

// UsageKeys finds the keys named by id or by hash, revoked ones included (their usage is kept
// like any other's).
func (s *Store) UsageKeys(ctx context.Context, ids []string, hashes [][]byte) ([]UsageKey, error) {
	rows, err := s.pool.Query(ctx, `SELECT id::text, key_prefix, integrator_id::text, key_hash FROM api_keys
		WHERE id = ANY($1::uuid[]) OR key_hash = ANY($2::bytea[])`, ids, hashes)
	if err != nil {
		return nil, fmt.Errorf("usage keys: %w", unavailable(err))
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[UsageKey])
	if err != nil {
		return nil, fmt.Errorf("usage keys: %w", unavailable(err))
	}
	return out, nil
}
