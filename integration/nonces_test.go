package integration

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/testkit/e2e"
)

// bridged quotes and deposits 0.1 ETH from 31337 to 31338 for test account i, to recipient.
func (s *stack) bridged(t *testing.T, ctx context.Context, i int, recipient common.Address) string {
	t.Helper()
	acct := devnet.TestAccounts()[i]
	q := s.ethBridge(t, ctx, acct.Address, recipient, common.Address{}, "100000000000000000")
	if _, err := (&e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}).ExecuteSteps(ctx, q); err != nil {
		t.Fatal(err)
	}
	return q.RequestID
}

// succeeds waits for the request to end in success.
func (s *stack) succeeds(t *testing.T, ctx context.Context, requestID string) {
	t.Helper()
	st, seen, err := s.API.WaitStatus(ctx, requestID, "success", "failure", "refund")
	if err != nil || st.Status != "success" {
		t.Fatalf("request %s: %+v (statuses seen %v), %v", requestID, st, seen, err)
	}
}

// Issue 33, point 10: "A second `make run` fills again … A new genesis must reset what the
// engine holds for the old chain". The devnet is restarted under the engine (a new genesis, the
// solver's nonce back at 0) while one request's fill waits, signed and sent, on the old chain.
// The first intent after the restart fills to success with the new chain's nonce, not the
// next nonce of the old chain (which left it behind a gap, bumped, cancelled and delayed). The
// fill signed for the old chain is never sent to the new one: its recipient is not paid there,
// and its request ends in failure (TRANSACTION_NOT_INCLUDED) waiting for an operator, not
// refunded automatically and not filled again.
func TestAFirstIntentAfterTheDevnetRestartsFillsWithTheNewChainsNonce(t *testing.T) {
	s := startStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	first := freshAddress(t)
	s.succeeds(t, ctx, s.bridged(t, ctx, 1, first))

	// A fill signed and sent on the old chain, never mined there.
	s.Devnet.Chain(31338).Pause()
	waiting := freshAddress(t)
	pending := s.bridged(t, ctx, 2, waiting)
	if _, seen, err := s.API.WaitStatus(ctx, pending, "submitted"); err != nil {
		t.Fatalf("the fill before the restart was not submitted (seen %v): %v", seen, err)
	}
	old, err := s.Sys.Store.SolverTx(ctx, pending, intent.TxKindFill)
	if err != nil || old.Nonce == 0 {
		t.Fatalf("the fill before the restart: %+v, %v", old, err)
	}

	s.StopWorker()
	s.RestartDevnet(t)
	s.StartWorker(t)
	cl, err := s.Devnet.Chain(31338).Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	fresh, err := cl.NonceAt(ctx, devnet.SolverAddress(), nil)
	if err != nil {
		t.Fatal(err)
	}

	after := s.bridged(t, ctx, 3, freshAddress(t))
	s.succeeds(t, ctx, after)
	fill, err := s.Sys.Store.SolverTx(ctx, after, intent.TxKindFill)
	if err != nil {
		t.Fatal(err)
	}
	if fill.Nonce != fresh || fill.Attempt != 0 {
		t.Fatalf("the first fill on the new chain went out at nonce %d, attempt %d: want %d, the new chain's, first attempt", fill.Nonce, fill.Attempt, fresh)
	}

	// The fill signed for the old chain: voided, never paid on the new one, not refunded by itself.
	st, seen, err := s.API.WaitStatus(ctx, pending, "failure", "refund", "success")
	if err != nil || st.Status != "failure" || st.FailReason != string(intent.FailReasonTransactionNotIncluded) ||
		st.RefundFailReason != string(intent.RefundFailReasonManualRefundRequired) {
		t.Fatalf("the request whose fill was signed for the old chain: %+v (seen %v), %v", st, seen, err)
	}
	if got, err := s.Sys.Store.SolverTxAttempts(ctx, pending, intent.TxKindFill); err != nil || len(got) == 0 || !got[len(got)-1].Voided {
		t.Fatalf("its stored fill: %+v, %v; want voided", got, err)
	}
	for _, a := range []common.Address{first, waiting} {
		if b := s.balance(t, 31338, common.Address{}, a); b.Cmp(new(big.Int)) != 0 {
			t.Fatalf("recipient %s holds %s on the new chain: a fill signed for the old chain was sent to it", a.Hex(), b)
		}
	}
}

// Issue 33, point 10: "when the chain's pending nonce for a solver stays below the lowest nonce
// the engine has outstanding … the engine detects the gap and fills it … instead of waiting out
// every request behind it". A nonce is handed out and never used (the engine's next nonce moved
// on by one with nothing signed at it): the fills after it wait behind the gap until the worker
// cancels the missing nonce. FILL_BUMP_AFTER is an hour, so only the gap's filling lets them land.
func TestANonceGapIsFilledAndTheRequestsBehindItSucceed(t *testing.T) {
	s := startStack(t, map[string]string{"NONCE_GAP_AFTER": "1s", "FILL_BUMP_AFTER": "1h"})
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	s.succeeds(t, ctx, s.bridged(t, ctx, 1, freshAddress(t)))

	cl, err := s.Devnet.Chain(31338).Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	solver := devnet.SolverAddress()
	before, err := cl.NonceAt(ctx, solver, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sys.Store.Pool().Exec(ctx, `UPDATE solver_nonces SET next_nonce = next_nonce + 1 WHERE chain_id = 31338`); err != nil {
		t.Fatal(err)
	}
	behind := []string{s.bridged(t, ctx, 2, freshAddress(t)), s.bridged(t, ctx, 3, freshAddress(t))}
	for _, id := range behind {
		s.succeeds(t, ctx, id)
	}
	// The cancellation at the gap and the two fills behind it.
	if n, err := cl.NonceAt(ctx, solver, nil); err != nil || n != before+3 {
		t.Fatalf("the solver's nonce on 31338 is %d (%v), %d before the gap: want the gap's cancellation and two fills", n, err, before)
	}
}
