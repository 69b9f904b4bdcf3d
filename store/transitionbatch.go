package store

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/intentd/intentd/intent"
)

// Read-model writes are committed in groups. Every transition of every request is one
// transaction (read the row under its lock, write the row, its transactions and an outbox event),
// two round trips to Postgres that hold a pooled connection while the process waits for a CPU
// between them. A block's burst (fifty deposits routed, fifty attested, fifty fills mined, all
// on one new head) asked for a hundred and fifty of them at once, and they queued for the
// process's sixteen connections: the write that marks an intent pending waited 120–200 ms for a
// connection and used it for 20 (BENCHMARKS.md).
//
// So the transitions a process writes at the same time share transactions: the first runs at
// once, alone, as before; those that arrive while maxTransitionRounds transactions run queue in
// memory, without a connection, and the next transaction takes up to maxTransitionBatch of them.
// It locks their rows in one statement (in the order of their ids, so two groups never wait on
// each other in a cycle; FOR NO KEY UPDATE, the lock of an update that changes no key, so that
// the transactions that only reference a request, a solver transaction stored for it, neither
// wait for it nor make it wait), applies each transition to its row in order (two of one request in a
// group apply one after the other, the second from the first's result), and sends every write
// with COMMIT in one round trip. A transition that cannot be applied (its request unknown, its
// record unreadable) is answered alone and the others commit; a transaction that fails for a
// reason of its own, not the server's being unavailable, is run again one transition at a time,
// so one bad write never holds up the writes that shared its transaction.

// maxTransitionBatch bounds the transitions one transaction writes.
const maxTransitionBatch = 64

// maxTransitionRounds is how many group transactions a process runs at once: more than one, so
// that the writes of unrelated requests do not wait for one round trip after another, few enough
// to leave most of the pool to the rest of the process.
const maxTransitionRounds = 3

// transitionBatchTimeout bounds one group's transaction: it belongs to no one caller, so a caller
// that gives up does not cancel the others' writes.
const transitionBatchTimeout = 30 * time.Second

// transitionAsk is one caller's transition, answered when done is closed.
type transitionAsk struct {
	t intent.Transition

	applied bool
	seen    observation
	err     error
	done    chan struct{}
}

// runTransitions writes one group and answers each of its callers.
func (s *Store) runTransitions(batch []*transitionAsk) {
	ctx, cancel := context.WithTimeout(context.Background(), transitionBatchTimeout)
	defer cancel()
	err := s.writeTransitions(ctx, batch)
	if err != nil && len(batch) > 1 && !errors.Is(unavailable(err), intent.ErrUnavailable) {
		// Something in the group failed the whole transaction: each alone, so that it fails alone.
		for _, a := range batch {
			a.applied, a.seen, a.err = false, observation{}, nil
			if err := s.writeTransitions(ctx, []*transitionAsk{a}); err != nil {
				a.applied, a.err = false, err
			}
		}
	} else if err != nil {
		for _, a := range batch {
			a.applied, a.err = false, err
		}
	}
	for _, a := range batch {
		if a.err == nil && a.applied {
			a.seen.record()
		}
		close(a.done)
	}
}

// writeTransitions writes batch in one transaction. An ask that cannot be applied gets its own
// error and the rest are written; the error returned is the transaction's, and with it nothing
// was written.
func (s *Store) writeTransitions(ctx context.Context, batch []*transitionAsk) error {
	ids := make([]string, 0, len(batch))
	for _, a := range batch {
		ids = append(ids, a.t.RequestID)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	return inPipeTx(ctx, s.pool, func(tx *pipeTx) error {
		rows := make(map[string]*requestRow, len(ids))
		read := &pgx.Batch{}
		read.Queue(`SELECT id, record, version, in_tx_hashes, out_tx_hashes, origin_chain_id, destination_chain_id,
				api_key_id::text, deposit_seen_at FROM requests WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE`, ids).
			Query(func(rs pgx.Rows) error {
				for rs.Next() {
					var id string
					r := &requestRow{}
					if err := rs.Scan(&id, &r.raw, &r.version, &r.in, &r.out, &r.origin, &r.dest, &r.keyID, &r.depositSeen); err != nil {
						return err
					}
					rows[id] = r
				}
				return rs.Err()
			})
		if err := tx.send(ctx, read); err != nil {
			return err
		}
		writes := &pgx.Batch{}
		for _, a := range batch {
			row, ok := rows[a.t.RequestID]
			if !ok {
				a.err = ErrNotFound
				continue
			}
			a.applied, a.seen, a.err = applyTransition(row, a.t, writes)
		}
		return tx.commit(ctx, writes)
	})
}
