package store

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/groupcommit"
)

// statusBatch coalesces concurrent status reads into one indexed query (`id = ANY($1)` over the
// primary key). The status endpoint is the hottest read path: a polling client asks for one row
// at a time, and at thousands of requests a second the cost of a query is the round trip (a
// write and a read on the socket, a backend's parse, bind and execute), not the row. A read
// that finds no query in flight goes out at once, alone; reads that arrive while maxInFlight
// queries are running wait for the next one and share it (groupcommit.Rounds). So a quiet API answers as
// fast as a single lookup, and a busy one sends one query per batch instead of one per request.
type statusBatch struct {
	run    func(ctx context.Context, ids []string) (map[string]*StatusRow, error)
	groups groupcommit.Rounds[*statusAsk]
}

// statusAsk is one caller's read, answered when done is closed.
type statusAsk struct {
	id   string
	row  *StatusRow
	err  error
	done chan struct{}
}

// statusBatchTimeout bounds one batched query: it is not tied to any one caller's context, so
// a caller that gives up does not cancel the reads of the others in its batch.
const statusBatchTimeout = 5 * time.Second

func newStatusBatch(run func(ctx context.Context, ids []string) (map[string]*StatusRow, error), maxInFlight, maxBatch int) *statusBatch {
	b := &statusBatch{run: run}
	b.groups = groupcommit.Rounds[*statusAsk]{Run: b.flush, MaxInFlight: maxInFlight, MaxBatch: maxBatch}
	return b
}

// get reads one request's status row through the next batch.
func (b *statusBatch) get(ctx context.Context, id string) (*StatusRow, error) {
	a := &statusAsk{id: id, done: make(chan struct{})}
	if err := b.groups.Ask(ctx, a, a.done); err != nil {
		return nil, err
	}
	return a.row, a.err
}

// flush runs one query for a batch and answers each read of it.
func (b *statusBatch) flush(batch []*statusAsk) {
	ids := make([]string, len(batch))
	for i, a := range batch {
		ids[i] = a.id
	}
	ctx, cancel := context.WithTimeout(context.Background(), statusBatchTimeout)
	rows, err := b.run(ctx, ids)
	cancel()
	for _, a := range batch {
		switch row := rows[a.id]; {
		case err != nil:
			a.err = err
		case row == nil:
			a.err = ErrNotFound
		default:
			// Two reads of one id in a batch share the row: StatusRow is never written after
			// it is read.
			a.row = row
		}
		close(a.done)
	}
}

// statusRows is the batched query behind Status.
func (s *Store) statusRows(ctx context.Context, ids []string) (map[string]*StatusRow, error) {
	const cols = `id, status, in_tx_hashes, out_tx_hashes, updated_at, origin_chain_id,
		destination_chain_id, fail_reason, refund_fail_reason, created_at`
	var rows pgx.Rows
	var err error
	if len(ids) == 1 {
		// One id uses the plain primary-key lookup, the plan of a quiet API.
		rows, err = s.pool.Query(ctx, `SELECT `+cols+` FROM requests WHERE id = $1`, ids[0])
	} else {
		rows, err = s.pool.Query(ctx, `SELECT `+cols+` FROM requests WHERE id = ANY($1)`, ids)
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]*StatusRow, len(ids))
	for rows.Next() {
		var r StatusRow
		var id, status, fail, refundFail string
		var origin, dest int64
		if err := rows.Scan(&id, &status, &r.InTxHashes, &r.TxHashes, &r.UpdatedAt, &origin, &dest, &fail,
			&refundFail, &r.CreatedAt); err != nil {
			return nil, err
		}
		r.Status, r.FailReason, r.RefundFailReason = intent.Status(status), intent.FailReason(fail), intent.RefundFailReason(refundFail)
		r.OriginChainID, r.DestinationChainID = uint64(origin), uint64(dest)
		out[id] = &r
	}
	return out, rows.Err()
}
