package store_test

import (
	"context"
	"errors"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// groups counts the Postgres transactions that stored the solver transactions: the distinct
// inserting transaction ids (xmin) of their rows.
func groups(t *testing.T, st *store.Store) int64 {
	t.Helper()
	var n int64
	if err := st.Pool().QueryRow(context.Background(),
		`SELECT count(DISTINCT xmin::text) FROM solver_transactions`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Issue 18, the engine's share under a burst: the fills of one process that are signed at the
// same time share one Postgres transaction (a group commit) instead of queueing one transaction
// each on the nonce row. 40 fills asked for at once, each signing taking 2 ms, are stored at the
// consecutive nonces 0..39 in a handful of transactions (one alone, then the ones that queued
// meanwhile), not 40, and while they wait the callers hold no pooled connection: at most one is
// taken at a time.
func TestABurstOfSigningsSharesItsTransactions(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Pool(t)
	st := store.New(pool)
	const n = 40
	ids := insertRequests(t, pool, n)
	var wg sync.WaitGroup
	got := make([]*store.SolverTx, n)
	errs := make([]error, n)
	mostAcquired := testenv.MostAcquired(pool)
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = st.PrepareSolverTx(ctx, id, "fill", 31338, "0xSolver", 0, intent.Commitment{}, nil,
				func(nonce uint64) (string, []byte, error) {
					time.Sleep(2 * time.Millisecond)
					return signAs(id)(nonce)
				})
		}()
	}
	wg.Wait()
	most := mostAcquired()
	txs := groups(t, st)
	nonces := map[uint64]bool{}
	for i := range ids {
		if errs[i] != nil {
			t.Fatalf("fill %d: %v", i, errs[i])
		}
		stored, err := st.SolverTx(ctx, ids[i], "fill")
		if err != nil || stored.Hash != got[i].Hash || nonces[stored.Nonce] {
			t.Fatalf("fill %d: got %+v, stored %+v (%v), nonces so far %v", i, got[i], stored, err, nonces)
		}
		nonces[stored.Nonce] = true
	}
	for nonce := range uint64(n) {
		if !nonces[nonce] {
			t.Fatalf("nonces %v: %d skipped", nonces, nonce)
		}
	}
	if txs > 8 {
		t.Errorf("%d fills took %d Postgres transactions, want a few shared ones", n, txs)
	}
	if most > 1 {
		t.Errorf("%d pooled connections taken at once during the burst, want 1: waiting fills hold none", most)
	}
	t.Logf("%d fills in %d transactions", n, txs)
}

// In one group, a fill whose signing fails and a fill the inventory does not cover are each
// refused without failing the others or taking a nonce, and a request asked for twice gets one
// transaction.
func TestAGroupRefusesOneSigningAlone(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Pool(t)
	st := store.New(pool)
	ids := insertRequests(t, pool, 5)
	held := &intent.Holdings{Native: big.NewInt(1000), Token: big.NewInt(100)}
	pays := intent.Commitment{Currency: testUSDC, Amount: big.NewInt(60), MaxGasCost: big.NewInt(1)}
	// The first signing holds the row while the others queue behind it: they form one group.
	release := make(chan struct{})
	var wg sync.WaitGroup
	type answer struct {
		tx  *store.SolverTx
		err error
	}
	answers := make([]answer, 6)
	ask := func(slot int, id string, p intent.Commitment, sign func(uint64) (string, []byte, error)) {
		defer wg.Done()
		tx, err := st.PrepareSolverTx(ctx, id, "fill", 31338, "0xSolver", 0, p, held, sign)
		answers[slot] = answer{tx, err}
	}
	wg.Add(1)
	go ask(0, ids[0], intent.Commitment{Currency: testUSDC, Amount: big.NewInt(1), MaxGasCost: big.NewInt(1)},
		func(nonce uint64) (string, []byte, error) { <-release; return signAs(ids[0])(nonce) })
	time.Sleep(100 * time.Millisecond)
	wg.Add(5)
	go ask(1, ids[1], pays, signAs(ids[1]))
	go ask(2, ids[2], intent.Commitment{Currency: testUSDC, Amount: big.NewInt(1), MaxGasCost: big.NewInt(1)},
		func(uint64) (string, []byte, error) { return "", nil, errors.New("signer unavailable") })
	go ask(3, ids[3], pays, signAs(ids[3]))
	go ask(4, ids[4], intent.Commitment{Currency: testUSDC, Amount: big.NewInt(1), MaxGasCost: big.NewInt(1)}, signAs(ids[4]))
	go ask(5, ids[4], intent.Commitment{Currency: testUSDC, Amount: big.NewInt(1), MaxGasCost: big.NewInt(1)}, signAs(ids[4]))
	time.Sleep(100 * time.Millisecond)
	close(release)
	wg.Wait()
	if a := answers[0]; a.err != nil || a.tx.Nonce != 0 {
		t.Fatalf("the first fill: %+v %v", a.tx, a.err)
	}
	// Of fills 1 and 3 (60 each of the 99 left), whichever the group took first is signed and
	// the other is short; fill 2's signer failed; fill 4, asked twice, is signed once.
	signed, short := 0, 0
	for _, i := range []int{1, 3} {
		switch a := answers[i]; {
		case a.err == nil:
			signed++
		case shortfallOf(a.err) != nil:
			short++
		default:
			t.Fatalf("fill %d: %v", i, a.err)
		}
	}
	if signed != 1 || short != 1 {
		t.Fatalf("of two fills of 60 against 99: %d signed, %d short", signed, short)
	}
	if a := answers[2]; a.err == nil || shortfallOf(a.err) != nil {
		t.Fatalf("the fill whose signer failed: %+v %v", a.tx, a.err)
	}
	if a, b := answers[4], answers[5]; a.err != nil || b.err != nil || a.tx.Hash != b.tx.Hash {
		t.Fatalf("fill 4 asked twice: %+v %v and %+v %v", a.tx, a.err, b.tx, b.err)
	}
	var next, stored int64
	if err := pool.QueryRow(ctx, `SELECT (SELECT next_nonce FROM solver_nonces WHERE chain_id = 31338), count(*) FROM solver_transactions`).
		Scan(&next, &stored); err != nil || next != 3 || stored != 3 {
		t.Fatalf("next nonce %d, %d stored (%v): want 3 and 3, refused fills taking no nonce", next, stored, err)
	}
}

// A signer that panics fails the callers of its group, not the queue: they are answered with an
// error, nothing of the group is stored, and the next signing goes on.
func TestASignerThatPanicsFailsItsGroupOnly(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Pool(t)
	st := store.New(pool)
	ids := insertRequests(t, pool, 2)
	_, err := st.PrepareSolverTx(ctx, ids[0], "fill", 31338, "0xSolver", 0, intent.Commitment{}, nil,
		func(uint64) (string, []byte, error) { panic("signer broke") })
	if err == nil {
		t.Fatal("a signing that panicked was answered without an error")
	}
	done := make(chan error, 1)
	go func() {
		tx, err := st.PrepareSolverTx(ctx, ids[1], "fill", 31338, "0xSolver", 0, intent.Commitment{}, nil, signAs(ids[1]))
		if err == nil && tx.Nonce != 0 {
			err = errors.New("the next signing did not take nonce 0")
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the next signing waits behind the group that panicked")
	}
}

// A signing on a pool of its own (SignOn) never waits for the store's pool: with every
// connection of that pool held by others (a burst of read-model writes and reads), a fill is
// still signed and stored at once.
func TestASigningOnItsOwnPoolDoesNotWaitForTheStoresPool(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Pool(t)
	ids := insertRequests(t, pool, 1)
	busy := testenv.PoolOn(t, pool, 1)
	held, err := busy.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	st := store.New(busy).SignOn(testenv.PoolOn(t, pool, 2))
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	tx, err := st.PrepareSolverTx(sctx, ids[0], "fill", 31338, "0xSolver", 0, intent.Commitment{}, nil, signAs(ids[0]))
	if err != nil {
		t.Fatalf("signing while the store's pool is taken: %v", err)
	}
	if tx.Nonce != 0 {
		t.Fatalf("nonce %d", tx.Nonce)
	}
}
