package store_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// Issue 4, exactly one fill: "nonces per solver address and chain are allocated in Postgres.
// Two workers never reuse a nonce." Two stores on separate pools (two worker processes) sign
// 40 fills for 20 requests at once, each request from both: every request gets one stored
// transaction, both callers get the same one, and the 20 nonces are 0..19 with none reused.
func TestTwoWorkersNeverReuseANonce(t *testing.T) {
	ctx := context.Background()
	pool, workers := twoWorkers(t)
	const n = 20
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("0x%064x", i+1)
		if _, err := pool.Exec(ctx, `INSERT INTO requests (id, status, "user", recipient, origin_chain_id,
			destination_chain_id, order_id, record) VALUES ($1, 'pending', '0xu', '0xr', 31337, 31338, $1, '{}')`, ids[i]); err != nil {
			t.Fatal(err)
		}
	}
	got := make([][2]*store.SolverTx, n)
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range ids {
		for w, st := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tx, err := st.PrepareSolverTx(ctx, ids[i], "fill", 31338, "0xSolver", 0, intent.Commitment{}, nil, func(nonce uint64) (string, []byte, error) {
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
	first, err := st.PrepareSolverTx(ctx, testRequestID, "fill", 31338, "0xSolver", 7, intent.Commitment{}, nil, func(nonce uint64) (string, []byte, error) {
		return "0xfirst", []byte{1}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	signs := 0
	replace := func(after int, cancel bool) *store.SolverTx {
		tx, err := st.ReplaceSolverTx(ctx, testRequestID, "fill", after, cancel, func(prev store.SolverTx) (string, []byte, *big.Int, error) {
			signs++
			return fmt.Sprintf("0xattempt-%d", prev.Attempt+1), []byte{byte(prev.Attempt + 1)}, big.NewInt(1), nil
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

// insertRequests writes n requests for solver transactions to refer to and returns their ids.
func insertRequests(t *testing.T, pool *pgxpool.Pool, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("0x%064x", i+1)
		if _, err := pool.Exec(context.Background(), `INSERT INTO requests (id, status, "user", recipient, origin_chain_id,
			destination_chain_id, order_id, record) VALUES ($1, 'pending', '0xu', '0xr', 31337, 31338, $1, '{}')`, ids[i]); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

// signAs returns a signing function that signs nothing but names the request and nonce.
func signAs(id string) func(uint64) (string, []byte, error) {
	return func(nonce uint64) (string, []byte, error) {
		return fmt.Sprintf("0xhash-%s-%d", id, nonce), []byte{byte(nonce)}, nil
	}
}

func shortfallOf(err error) *intent.InventoryShortfall {
	var s *intent.InventoryShortfall
	if errors.As(err, &s) {
		return s
	}
	return nil
}

const testUSDC = "0x5FbDB2315678afecb367f032d93F642f64180aa3"

// Issue 18, solver inventory under load: "capacity committed to fills in flight is accounted
// for". Two stores on separate pools (two worker processes) prepare 10 fills at once against
// the same balance, which covers exactly 3 of them; signing is slow, so every caller checks while
// others are signing. Exactly 3 are stored, at nonces 0..2; the other 7 are refused with the
// shortfall, store nothing and allocate no nonce. The amounts are beyond what a float holds.
func TestFillsInFlightCommitInventoryUnderTheNonceLock(t *testing.T) {
	ctx := context.Background()
	pool, workers := twoWorkers(t)
	const n = 10
	ids := insertRequests(t, pool, n)
	amount, _ := new(big.Int).SetString("1000000000000000000000000000007", 10)
	held := &intent.Holdings{Native: big.NewInt(1_000_000), Token: new(big.Int).Mul(amount, big.NewInt(3))}
	pays := intent.Commitment{Currency: testUSDC, Amount: amount, MaxGasCost: big.NewInt(1000)}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = workers[i%2].PrepareSolverTx(ctx, id, "fill", 31338, "0xSolver", 0, pays, held,
				func(nonce uint64) (string, []byte, error) {
					time.Sleep(20 * time.Millisecond) // a slow signer: the others wait on the lock meanwhile
					return signAs(id)(nonce)
				})
		}()
	}
	wg.Wait()
	nonces := map[uint64]bool{}
	for i, err := range errs {
		stored, lookup := workers[0].SolverTx(ctx, ids[i], "fill")
		if err == nil {
			if lookup != nil || nonces[stored.Nonce] {
				t.Fatalf("fill %d: stored %+v, %v (nonces so far %v)", i, stored, lookup, nonces)
			}
			nonces[stored.Nonce] = true
			continue
		}
		s := shortfallOf(err)
		if s == nil || !strings.EqualFold(s.Currency, testUSDC) ||
			s.Balance.Cmp(held.Token) != 0 || s.InFlight.Cmp(held.Token) != 0 || s.Need.Cmp(amount) != 0 {
			t.Fatalf("fill %d refused with %v, want the USDC shortfall with all %s in flight", i, err, held.Token)
		}
		if !errors.Is(lookup, intent.ErrNotFound) {
			t.Fatalf("refused fill %d: stored %+v, %v", i, stored, lookup)
		}
	}
	if len(nonces) != 3 || !nonces[0] || !nonces[1] || !nonces[2] {
		t.Fatalf("stored fills at nonces %v, want exactly 0, 1 and 2", nonces)
	}
	var next int64
	if err := pool.QueryRow(ctx, `SELECT next_nonce FROM solver_nonces WHERE chain_id = 31338 AND address = '0xsolver'`).
		Scan(&next); err != nil || next != 3 {
		t.Fatalf("next nonce %d (%v), want 3: a refused fill must not take a nonce", next, err)
	}
	var committed string
	if err := pool.QueryRow(ctx, `SELECT sum(pays_amount)::text FROM solver_transactions WHERE pays_currency = lower($1)`, testUSDC).
		Scan(&committed); err != nil || committed != held.Token.String() {
		t.Fatalf("stored commitments sum to %s (%v), want %s", committed, err, held.Token)
	}
}

// Only transactions not yet mined commit inventory: those with a nonce at or above the chain's
// nonce of the block the balances were read at. A native fill needs its amount and its gas; a
// refund (paid by the depository) commits its gas, which a later fill's gas must leave room for.
func TestFillsInFlightCommitInventoryUntilMined(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Pool(t)
	st := store.New(pool)
	ids := insertRequests(t, pool, 4)
	native := func(amount, gas int64) intent.Commitment {
		return intent.Commitment{Currency: "0x0000000000000000000000000000000000000000", Amount: big.NewInt(amount), MaxGasCost: big.NewInt(gas)}
	}
	holds := func(wei int64) *intent.Holdings {
		return &intent.Holdings{Native: big.NewInt(wei), Token: big.NewInt(10)}
	}
	prepare := func(id string, kind intent.TxKind, mined uint64, pays intent.Commitment, held *intent.Holdings) (*store.SolverTx, error) {
		return st.PrepareSolverTx(ctx, id, kind, 31338, "0xSolver", mined, pays, held, signAs(id))
	}
	// The solver holds 100 wei at nonce 5: a fill of 60 with 10 of gas fits, a second does not.
	if tx, err := prepare(ids[0], "fill", 5, native(60, 10), holds(100)); err != nil || tx.Nonce != 5 {
		t.Fatalf("first fill: %+v %v", tx, err)
	}
	s := shortfallOf(func() error { _, err := prepare(ids[1], "fill", 5, native(60, 10), holds(100)); return err }())
	if s == nil || s.InFlight.Int64() != 70 || s.Need.Int64() != 70 || s.Balance.Int64() != 100 {
		t.Fatalf("second fill while the first is in flight: %+v, want refused with 70 in flight", s)
	}
	// Once the first is mined (the chain's nonce is 6), the balance read at that block no longer
	// holds it, and it no longer counts.
	if tx, err := prepare(ids[1], "fill", 6, native(60, 10), holds(100)); err != nil || tx.Nonce != 6 {
		t.Fatalf("second fill after the first is mined: %+v %v", tx, err)
	}
	// A refund is not checked, and commits its gas.
	if tx, err := prepare(ids[2], "refund", 6, native(0, 25), nil); err != nil || tx.Nonce != 7 {
		t.Fatalf("refund: %+v %v", tx, err)
	}
	// A USDC fill needs 10 wei of gas; 70 + 25 of the 100 are in flight.
	usdc := intent.Commitment{Currency: testUSDC, Amount: big.NewInt(1), MaxGasCost: big.NewInt(10)}
	s = shortfallOf(func() error { _, err := prepare(ids[3], "fill", 6, usdc, holds(100)); return err }())
	if s == nil || s.Currency != "0x0000000000000000000000000000000000000000" || s.InFlight.Int64() != 95 {
		t.Fatalf("token fill short of gas: %+v, want refused with 95 wei in flight", s)
	}
	if tx, err := prepare(ids[3], "fill", 6, usdc, holds(105)); err != nil || tx.Nonce != 8 {
		t.Fatalf("token fill with gas: %+v %v", tx, err)
	}
}

// The attempts of one nonce replace each other, so a nonce commits the most any of its attempts
// can take, not their sum: a bump raises its gas, a cancellation pays nothing but the attempt
// it cancels may still be mined instead.
func TestFillsInFlightCommitInventoryOncePerNonce(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Pool(t)
	st := store.New(pool)
	ids := insertRequests(t, pool, 3)
	held := &intent.Holdings{Native: big.NewInt(100), Token: big.NewInt(100)}
	fill := func(id string, amount, gas int64) error {
		_, err := st.PrepareSolverTx(ctx, id, "fill", 31338, "0xSolver", 0,
			intent.Commitment{Currency: testUSDC, Amount: big.NewInt(amount), MaxGasCost: big.NewInt(gas)}, held, signAs(id))
		return err
	}
	if err := fill(ids[0], 50, 10); err != nil {
		t.Fatal(err)
	}
	for after, gas := range []int64{30, 40} {
		if _, err := st.ReplaceSolverTx(ctx, ids[0], "fill", after, after == 1, func(prev store.SolverTx) (string, []byte, *big.Int, error) {
			return fmt.Sprintf("0xreplacement-%d", after), []byte{2}, big.NewInt(gas), nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	// In flight: 50 USDC and 40 wei (the most of 10, 30, 40), so 60 wei of gas still fit.
	if err := fill(ids[1], 50, 60); err != nil {
		t.Fatalf("a fill that fits beside the replaced one: %v", err)
	}
	if s := shortfallOf(fill(ids[2], 1, 0)); s == nil || s.InFlight.Int64() != 100 {
		t.Fatalf("a fill beyond the USDC in flight: %+v", s)
	}
}

// twoWorkers returns a test database's pool and two stores on separate pools of it, as two
// worker processes have.
func twoWorkers(t *testing.T) (*pgxpool.Pool, []*store.Store) {
	pool := testenv.Pool(t)
	return pool, []*store.Store{store.New(pool), store.New(testenv.PoolOn(t, pool, 0))}
}
