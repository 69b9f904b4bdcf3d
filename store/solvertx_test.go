package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/testkit/testenv"
	"github.com/intentd/intentd/store"
)

// Issue 4, exactly one fill: "nonces per solver address and chain are allocated in Postgres.
// Two workers never reuse a nonce." Two stores on separate pools (two worker processes) sign
// 40 fills for 20 requests at once, each request from both: every request gets one stored
// transaction, both callers get the same one, and the 20 nonces are 0..19 with none reused.
func TestTwoWorkersNeverReuseANonce(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Pool(t)
	other, err := pgxpool.New(ctx, pool.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	workers := []*store.Store{store.New(pool), store.New(other)}
	const n = 20
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("0x%064x", i+1)
		if _, err := pool.Exec(ctx, `INSERT INTO requests (id, status, "user", recipient, origin_chain_id,
			destination_chain_id, order_id, record) VALUES ($1, 'pending', '0xu', '0xr', 31337, 31338, $1, '{}')`, ids[i]); err != nil {
			t.Fatal(err)
		}
	}
	got := make([][2]*intent.SolverTx, n)
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range ids {
		for w, st := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tx, err := st.PrepareSolverTx(ctx, ids[i], "fill", 31338, "0xSolver", 0, func(nonce uint64) (string, []byte, error) {
					return fmt.Sprintf("0xhash-%d", nonce), []byte{byte(nonce)}, nil
				})
				if err != nil {
					errs <- err
					return
				}
				got[i][w] = tx
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("a concurrent caller failed: %v", err)
	}
	seen := map[uint64]string{}
	for i, pair := range got {
		stored, err := workers[0].SolverTx(ctx, ids[i], "fill")
		if err != nil {
			t.Fatalf("request %d has no stored fill: %v", i, err)
		}
		for _, tx := range pair {
			if tx != nil && (tx.Nonce != stored.Nonce || tx.Hash != stored.Hash) {
				t.Fatalf("request %d: a caller got nonce %d, the stored fill has %d", i, tx.Nonce, stored.Nonce)
			}
		}
		if prev, dup := seen[stored.Nonce]; dup {
			t.Fatalf("nonce %d used by %s and %s", stored.Nonce, prev, ids[i])
		}
		seen[stored.Nonce] = ids[i]
	}
	for nonce := range uint64(n) {
		if _, ok := seen[nonce]; !ok {
			t.Fatalf("nonces %v: %d skipped", seen, nonce)
		}
	}
}

// A replacement keeps the nonce, counts the attempt up, and is made once per attempt however
// often it is asked for (a retried activity).
func TestReplaceSolverTxKeepsTheNonceAndIsMadeOnce(t *testing.T) {
	ctx := context.Background()
	st := newStoreWithRequest(t)
	first, err := st.PrepareSolverTx(ctx, testRequestID, "fill", 31338, "0xSolver", 7, func(nonce uint64) (string, []byte, error) {
		return "0xfirst", []byte{1}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	signs := 0
	replace := func(after int, cancel bool) *intent.SolverTx {
		tx, err := st.ReplaceSolverTx(ctx, testRequestID, "fill", after, cancel, func(prev intent.SolverTx) (string, []byte, error) {
			signs++
			return fmt.Sprintf("0xattempt-%d", prev.Attempt+1), []byte{byte(prev.Attempt + 1)}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return tx
	}
	bump := replace(0, false)
	again := replace(0, false)
	cancel := replace(1, true)
	if bump.Attempt != 1 || bump.Nonce != first.Nonce || again.Hash != bump.Hash || cancel.Attempt != 2 || !cancel.Cancel ||
		cancel.Nonce != first.Nonce || signs != 2 {
		t.Fatalf("first %+v, bump %+v, again %+v, cancel %+v, %d signings", first, bump, again, cancel, signs)
	}
	all, err := st.SolverTxAttempts(ctx, testRequestID, "fill")
	if err != nil || len(all) != 3 || all[0].Hash != "0xfirst" || !all[2].Cancel {
		t.Fatalf("attempts %+v, %v", all, err)
	}
}
