package integration

import (
	"context"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/e2e"
)

// waitAttempts polls the stored attempts of a request's fill until cond holds.
func (s *stack) waitAttempts(t *testing.T, ctx context.Context, requestID string, cond func([]store.SolverTx) bool) []store.SolverTx {
	t.Helper()
	for {
		got, err := s.Sys.Store.SolverTxAttempts(ctx, requestID, "fill")
		if err != nil {
			t.Fatal(err)
		}
		if cond(got) {
			return got
		}
		select {
		case <-ctx.Done():
			st, _, _ := s.API.Status(context.Background(), requestID)
			t.Fatalf("fill attempts of %s: %+v stored, condition not met: %v; status %+v", requestID, got, ctx.Err(), st)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func decodeTx(t *testing.T, raw []byte) *types.Transaction {
	t.Helper()
	var tx types.Transaction
	if err := tx.UnmarshalBinary(raw); err != nil {
		t.Fatal(err)
	}
	return &tx
}

// A fill that is not included (the destination chain stops including transactions) is
// replaced with the same nonce and a higher fee after FILL_BUMP_AFTER, the request is delayed
// meanwhile, and once the chain includes again exactly one attempt lands; after FILL_MAX_BUMPS
// replacements the fill is cancelled at its nonce and, once the cancellation is mined, the
// deposit is refunded with TRANSACTION_NOT_INCLUDED (spec, Errors). Money is checked on chain.
func TestFillNotIncludedIsReplacedThenCancelledAndRefunded(t *testing.T) {
	s := startStack(t, map[string]string{"FILL_BUMP_AFTER": "2s", "FILL_MAX_BUMPS": "2"})
	dest := s.Devnet.Chain(31338)
	t.Cleanup(dest.Resume)
	start := func(t *testing.T, ctx context.Context, i int, refundTo, recipient common.Address) (*quote.Response, *big.Int) {
		acct := devnet.TestAccounts()[1+i]
		q := s.ethBridge(t, ctx, acct.Address, recipient, refundTo, "200000000000000000")
		dest.Pause()
		if _, err := (&e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}).ExecuteSteps(ctx, q); err != nil {
			t.Fatal(err)
		}
		in, _ := new(big.Int).SetString(q.Details.CurrencyIn.Amount, 10)
		return q, in
	}

	t.Run("replaced with the same nonce and a higher fee, then one attempt lands", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		defer cancel()
		recipient := freshAddress(t)
		q, _ := start(t, ctx, 0, freshAddress(t), recipient)
		s.waitAttempts(t, ctx, q.RequestID, func(a []store.SolverTx) bool { return len(a) >= 2 })
		dest.Resume()
		final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
		if err != nil {
			t.Fatal(err)
		}
		s.recordHistory(t, q.RequestID, "fill-replaced-then-mined")
		if final.Status != "success" || !slices.Contains(seen, "delayed") {
			t.Fatalf("final %+v, seen %v: want delayed, then success", final, seen)
		}
		attempts := s.waitAttempts(t, ctx, q.RequestID, func([]store.SolverTx) bool { return true })
		first, second := decodeTx(t, attempts[0].Raw), decodeTx(t, attempts[1].Raw)
		if attempts[1].Nonce != attempts[0].Nonce || second.Nonce() != first.Nonce() || attempts[1].Cancel {
			t.Fatalf("replacement nonce %d (cancel %v), first %d", second.Nonce(), attempts[1].Cancel, first.Nonce())
		}
		// Nodes accept a replacement only at 10% more tip and fee cap.
		minBump := func(v *big.Int) *big.Int {
			return new(big.Int).Div(new(big.Int).Mul(v, big.NewInt(110)), big.NewInt(100))
		}
		if second.GasTipCap().Cmp(minBump(first.GasTipCap())) < 0 || second.GasFeeCap().Cmp(minBump(first.GasFeeCap())) < 0 {
			t.Fatalf("replacement fees tip %s cap %s, first tip %s cap %s: not 10%% higher",
				second.GasTipCap(), second.GasFeeCap(), first.GasTipCap(), first.GasFeeCap())
		}
		if n := s.fills(t, 31338, common.HexToHash(q.Protocol.V2.OrderID)); n != 1 {
			t.Fatalf("order filled %d times, want exactly 1", n)
		}
		mined := final.TxHashes[len(final.TxHashes)-1]
		if !slices.ContainsFunc(attempts, func(a store.SolverTx) bool { return strings.EqualFold(a.Hash, mined) }) {
			t.Fatalf("the mined fill %s is none of the stored attempts", mined)
		}
		if got := s.balance(t, 31338, common.Address{}, recipient); got.String() != q.Details.CurrencyOut.Amount {
			t.Fatalf("recipient received %s, quoted %s", got, q.Details.CurrencyOut.Amount)
		}
		checkAttemptItems(t, storedRecord(t, s, q.RequestID), attempts, mined, 0)
	})

	t.Run("TRANSACTION_NOT_INCLUDED: cancelled after the last bump, then refunded", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		defer cancel()
		refundTo, recipient := freshAddress(t), freshAddress(t)
		q, in := start(t, ctx, 1, refundTo, recipient)
		attempts := s.waitAttempts(t, ctx, q.RequestID, func(a []store.SolverTx) bool { return len(a) > 0 && a[len(a)-1].Cancel })
		if len(attempts) != 4 {
			t.Fatalf("%d attempts before the cancellation, want the fill and 2 bumps, then the cancel", len(attempts))
		}
		dest.Resume()
		final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
		if err != nil {
			t.Fatal(err)
		}
		s.recordHistory(t, q.RequestID, "fill-cancelled-then-refunded")
		if final.Status != "refund" || final.FailReason != string(intent.FailReasonTransactionNotIncluded) || !slices.Contains(seen, "delayed") {
			t.Fatalf("final %+v, seen %v: want delayed, then refund with TRANSACTION_NOT_INCLUDED", final, seen)
		}
		if n := s.fills(t, 31338, common.HexToHash(q.Protocol.V2.OrderID)); n != 0 {
			t.Fatalf("a cancelled fill landed %d times", n)
		}
		if got := s.balance(t, 31338, common.Address{}, recipient); got.Sign() != 0 {
			t.Fatalf("the recipient of a cancelled fill received %s", got)
		}
		if got := s.balance(t, 31337, common.Address{}, refundTo); got.Cmp(in) != 0 {
			t.Fatalf("refundTo got %s back, deposited %s", got, in)
		}
		if n := s.Refunds(t, 31337, q.RequestID); n != 1 {
			t.Fatalf("%d refunds, want exactly 1", n)
		}
		checkAttemptItems(t, storedRecord(t, s, q.RequestID), attempts, "", 1)
	})
}

// checkAttemptItems checks the record's outTxs against a fill's broadcast attempts (spec,
// transaction item: status success or failure): one item per attempt, the mined fill success
// with its receipt's block, fee and timestamp, every other attempt failure; then refunds more
// items (the refund, success).
func checkAttemptItems(t *testing.T, rec obj, attempts []store.SolverTx, mined string, refunds int) {
	t.Helper()
	out := isArray(t, rec, "data.outTxs")
	if len(out) != len(attempts)+refunds {
		t.Fatalf("outTxs %v: want one item per fill attempt (%d) and %d refunds", out, len(attempts), refunds)
	}
	for _, a := range attempts {
		i := slices.IndexFunc(out, func(it any) bool { return strings.EqualFold(isString(t, it, "txHash"), a.Hash) })
		if i < 0 {
			t.Fatalf("attempt %s has no item in outTxs %v", a.Hash, out)
		}
		want := "failure"
		if strings.EqualFold(a.Hash, mined) {
			want = "success"
			if isNumber(t, out[i], "block") == 0 || isNumber(t, out[i], "timestamp") == 0 || isString(t, out[i], "fee") == "0" {
				t.Fatalf("the mined fill's item %v lacks its block, timestamp or fee", out[i])
			}
		}
		if got := isString(t, out[i], "status"); got != want {
			t.Fatalf("attempt %s (mined %s) has status %q, want %q", a.Hash, mined, got, want)
		}
	}
}

// Confirmations per chain come from configuration (31337 needs 2 on the devnet); a deposit that
// never gets them fails with DEPOSIT_CONFIRMATION_TIMEOUT after DEPOSIT_CONFIRMATION_TIMEOUT,
// and nothing is filled or refunded (the deposit is not final).
func TestDepositConfirmationTimeout(t *testing.T) {
	s := startStack(t, map[string]string{"DEPOSIT_CONFIRMATION_TIMEOUT": "3s"})
	origin := s.Devnet.Chain(31337)
	t.Cleanup(origin.Resume)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	acct := devnet.TestAccounts()[3]
	q := s.ethBridge(t, ctx, acct.Address, freshAddress(t), common.Address{}, "200000000000000000")
	c, err := origin.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	nonce, err := c.PendingNonceAt(ctx, acct.Address)
	if err != nil {
		t.Fatal(err)
	}
	origin.Pause()
	sent := make(chan error, 1)
	go func() { _, err := (&e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}).ExecuteSteps(ctx, q); sent <- err }()
	// Seal exactly one block, once the deposit is in the pool: it is mined with no confirmation
	// after it.
	for {
		n, err := c.PendingNonceAt(ctx, acct.Address)
		if err != nil {
			t.Fatal(err)
		}
		if n > nonce {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	origin.Mine()
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
	if err != nil {
		t.Fatal(err)
	}
	s.recordHistory(t, q.RequestID, "deposit-confirmation-timeout")
	if final.Status != "failure" || final.FailReason != string(intent.FailReasonDepositConfirmationTimeout) || len(final.InTxHashes) != 1 {
		t.Fatalf("final %+v (seen %v), want failure with DEPOSIT_CONFIRMATION_TIMEOUT", final, seen)
	}
	if n := s.fills(t, 31338, common.HexToHash(q.Protocol.V2.OrderID)); n != 0 {
		t.Fatalf("an unconfirmed deposit was filled %d times", n)
	}
	if n := s.Refunds(t, 31337, q.RequestID); n != 0 {
		t.Fatalf("an unconfirmed deposit was refunded %d times", n)
	}
}

// TRANSACTION_SUBMISSION_FAILED (spec: "fill could not be broadcast: RPC or signer unavailable,
// or pre-broadcast rejection; no hash exists"): the destination's RPC is down from the deposit
// on, every attempt to sign and send the fill fails before anything is signed, and after
// FILL_SUBMIT_ATTEMPTS the deposit is refunded; the fill is never signed, so it can never land.
func TestFillSubmissionFailedIsRefunded(t *testing.T) {
	var dest *rpcProxy
	s := startStackWith(t, stackOptions{env: map[string]string{"FILL_SUBMIT_ATTEMPTS": "3"},
		rpc: func(id uint64, url string) string {
			if id != 31338 {
				return url
			}
			dest = newRPCProxy(t, url)
			return dest.URL
		}})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	acct, refundTo := devnet.TestAccounts()[7], freshAddress(t)
	q := s.ethBridge(t, ctx, acct.Address, freshAddress(t), refundTo, "100000000000000000")
	dest.down.Store(true)
	if _, err := (&e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}).ExecuteSteps(ctx, q); err != nil {
		t.Fatal(err)
	}
	final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
	if err != nil {
		t.Fatal(err)
	}
	s.recordHistory(t, q.RequestID, "fill-submission-failed-refunded")
	if final.Status != "refund" || final.FailReason != string(intent.FailReasonTransactionSubmissionFailed) {
		t.Fatalf("final %+v (seen %v), want refund with TRANSACTION_SUBMISSION_FAILED", final, seen)
	}
	if txs, err := s.Sys.Store.SolverTxAttempts(ctx, q.RequestID, "fill"); err != nil || len(txs) != 0 {
		t.Fatalf("%d fills stored (%v): no hash may exist", len(txs), err)
	}
	dest.down.Store(false)
	if n := s.fills(t, 31338, common.HexToHash(q.Protocol.V2.OrderID)); n != 0 {
		t.Fatalf("order filled %d times", n)
	}
	v, _ := new(big.Int).SetString(q.Details.CurrencyIn.Amount, 10)
	if got := s.balance(t, 31337, common.Address{}, refundTo); got.Cmp(v) != 0 {
		t.Fatalf("refundTo got %s back, deposited %s", got, v)
	}
	if n := s.Refunds(t, 31337, q.RequestID); n != 1 {
		t.Fatalf("%d refunds, want exactly 1", n)
	}
}
