package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/testkit/testenv"
)

// newRequests inserts n requests with empty records and returns their ids.
func newRequests(t *testing.T, s *Store, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("0x%064x", i+1)
		if _, err := s.pool.Exec(context.Background(), `INSERT INTO requests (id, status, "user", recipient, origin_chain_id,
			destination_chain_id, order_id, record) VALUES ($1, 'waiting', '0xu', '0xr', 31337, 31338, $1, '{}')`, ids[i]); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

func deposited(id string, version int64, at time.Time) intent.Transition {
	return intent.Transition{RequestID: id, Version: version, Status: intent.StatusPending, At: at,
		Txs: []intent.Tx{{Direction: intent.TxIn, ChainID: 31337, Hash: "0xdeposit-" + id, LogIndex: 0}}}
}

// statusOf reads a request's status, version and the events written for it.
func statusOf(t *testing.T, s *Store, id string) (status string, version int64, events int) {
	t.Helper()
	if err := s.pool.QueryRow(context.Background(), `SELECT status, version,
		(SELECT count(*) FROM outbox WHERE request_id = $1) FROM requests WHERE id = $1`, id).Scan(&status, &version, &events); err != nil {
		t.Fatal(err)
	}
	return status, version, events
}

// Issue 18, the engine's share under a burst: the read-model writes of one process that arrive
// at the same time share Postgres transactions (a group commit) instead of queueing one
// transaction each for a pooled connection. 60 transitions of 60 requests written at once land
// in a few transactions (one alone, then groups of those that queued meanwhile), each with its
// outbox event, and never more than maxTransitionRounds connections are taken for them.
func TestABurstOfTransitionsSharesItsTransactions(t *testing.T) {
	ctx := context.Background()
	s := New(testenv.Pool(t))
	const n = 60
	ids := newRequests(t, s, n)
	at := time.Now()
	mostAcquired := testenv.MostAcquired(s.pool)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			applied, err := s.ApplyTransition(ctx, deposited(id, 10, at))
			if err == nil && !applied {
				err = errors.New("not applied")
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	most := mostAcquired()
	for i, id := range ids {
		if errs[i] != nil {
			t.Fatalf("transition %d: %v", i, errs[i])
		}
		if status, version, events := statusOf(t, s, id); status != "pending" || version != 10 || events != 1 {
			t.Fatalf("request %d: status %s version %d events %d, want pending 10 1", i, status, version, events)
		}
	}
	var txs int
	if err := s.pool.QueryRow(ctx, `SELECT count(DISTINCT xmin::text) FROM requests`).Scan(&txs); err != nil {
		t.Fatal(err)
	}
	if txs > n/4 {
		t.Errorf("%d transitions took %d transactions, want a few groups", n, txs)
	}
	if most > maxTransitionRounds {
		t.Errorf("%d pooled connections taken at once, want at most %d", most, maxTransitionRounds)
	}
	t.Logf("%d transitions in %d transactions", n, txs)
}

// Two transitions of one request in one group apply in the order they were asked for, the
// second from the first's result, and an older one that comes after a newer changes only the
// facts it brings: the same as written one transaction after the other.
func TestTransitionsOfOneRequestInAGroupApplyInOrder(t *testing.T) {
	ctx := context.Background()
	s := New(testenv.Pool(t))
	id := newRequests(t, s, 1)[0]
	at := time.Now()
	fill := intent.Transition{RequestID: id, Version: 30, Status: intent.StatusSubmitted, At: at.Add(time.Second),
		Txs: []intent.Tx{{Direction: intent.TxOut, ChainID: 31338, Hash: "0xfill", LogIndex: -1, Status: intent.TxPending}}}
	stale := intent.Transition{RequestID: id, Version: 5, Status: intent.StatusWaiting, At: at}
	batch := []*transitionAsk{{t: deposited(id, 20, at)}, {t: fill}, {t: stale}}
	if err := s.writeTransitions(ctx, batch); err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, true, false} {
		if batch[i].err != nil || batch[i].applied != want {
			t.Fatalf("transition %d: applied %v %v, want %v", i, batch[i].applied, batch[i].err, want)
		}
	}
	if status, version, events := statusOf(t, s, id); status != "submitted" || version != 30 || events != 2 {
		t.Fatalf("status %s version %d events %d, want submitted 30 2", status, version, events)
	}
	st, err := s.Status(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.InTxHashes) != 1 || len(st.TxHashes) != 1 {
		t.Fatalf("in %v out %v: each transition's transactions are kept", st.InTxHashes, st.TxHashes)
	}
}

// A transition that cannot be written fails alone: an unknown request is answered not found
// while the rest of its group commits, and one whose write Postgres refuses (here a transaction
// with a direction the schema does not allow) fails the group's transaction, which is then run
// one transition at a time so that only that one fails.
func TestATransitionThatCannotBeWrittenFailsAlone(t *testing.T) {
	s := New(testenv.Pool(t))
	ids := newRequests(t, s, 3)
	at := time.Now()
	bad := deposited(ids[1], 10, at)
	bad.Txs[0].Direction = "sideways"
	batch := []*transitionAsk{{t: deposited(ids[0], 10, at)}, {t: deposited("0xunknown", 10, at)}, {t: bad},
		{t: deposited(ids[2], 10, at)}}
	for _, a := range batch {
		a.done = make(chan struct{})
	}
	s.runTransitions(batch)
	for i, a := range batch {
		<-a.done
		switch i {
		case 1:
			if !errors.Is(a.err, ErrNotFound) {
				t.Errorf("unknown request: %v, want not found", a.err)
			}
		case 2:
			if a.err == nil || a.applied {
				t.Errorf("refused write: applied %v %v, want an error", a.applied, a.err)
			}
		default:
			if a.err != nil || !a.applied {
				t.Errorf("transition %d: applied %v %v", i, a.applied, a.err)
			}
		}
	}
	for i, want := range []string{"pending", "waiting", "pending"} {
		if status, _, _ := statusOf(t, s, ids[i]); status != want {
			t.Errorf("request %d: %s, want %s", i, status, want)
		}
	}
}

// A record large enough to be compressed (a filled request's is about 12 kB) is written with lz4,
// which Postgres compresses about twice as fast as its default (migration 0013).
func TestALargeRecordIsCompressedWithLZ4(t *testing.T) {
	ctx := context.Background()
	s := New(testenv.Pool(t))
	id := newRequests(t, s, 1)[0]
	var txs []intent.Tx
	for i := range 60 {
		txs = append(txs, intent.Tx{Direction: intent.TxIn, ChainID: 31337, Hash: fmt.Sprintf("0x%064x", i), LogIndex: i, Block: uint64(i),
			Fee: fmt.Sprintf("%d", 1000+i), Timestamp: int64(1_800_000_000 + i)})
	}
	if _, err := s.ApplyTransition(ctx, intent.Transition{RequestID: id, Version: 1, Status: intent.StatusPending, At: time.Now(), Txs: txs}); err != nil {
		t.Fatal(err)
	}
	var method *string
	var size int
	if err := s.pool.QueryRow(ctx, `SELECT pg_column_compression(record), length(record::text) FROM requests WHERE id = $1`, id).Scan(&method, &size); err != nil {
		t.Fatal(err)
	}
	if got := "none"; method == nil || *method != "lz4" {
		if method != nil {
			got = *method
		}
		t.Fatalf("a record of %d bytes compressed with %s, want lz4", size, got)
	}
}

// A transition's lock on its request's row does not wait for, nor hold up, the transactions
// that only reference the row: a solver transaction stored for the request takes the row's key
// share lock (its foreign key), which FOR UPDATE would wait for, and a group of transitions
// waiting on one group commit while that group waits on a row the transitions hold is a
// deadlock that Postgres breaks only after a second (deadlock_timeout): fills were delayed by
// a second and retried at 30 intents/s (BENCHMARKS.md). The transition locks FOR NO KEY UPDATE.
func TestATransitionDoesNotWaitForATransactionThatReferencesItsRequest(t *testing.T) {
	ctx := context.Background()
	s := New(testenv.Pool(t))
	id := newRequests(t, s, 1)[0]
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `INSERT INTO solver_transactions (request_id, kind, attempt, chain_id, from_address, nonce, tx_hash, raw_tx)
		VALUES ($1, 'fill', 0, 31338, '0xsolver', 0, '0xfill', '\x00')`, id); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := s.ApplyTransition(wctx, deposited(id, 10, time.Now())); err != nil {
		t.Fatalf("the transition waited for the transaction that references its request: %v", err)
	}
}
