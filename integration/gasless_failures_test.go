package integration

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/e2e"
)

// Issue 37, point 4: "TRANSACTION_SUBMISSION_FAILED and TRANSACTION_NOT_INCLUDED exactly as the
// spec defines them for gasless": the relayed transaction could not be broadcast ("RPC or signer
// unavailable, or pre-broadcast rejection; no hash exists"), or was broadcast and "never included
// before the retry and gas-bump window ended". Both on the devnet through the real API and
// worker; neither costs the user anything, and the integrator pays only gas that was spent.
func TestGaslessRelaysThatCannotBeSentOrIncludedFailAsTheSpecSays(t *testing.T) {
	var origin *rpcProxy
	s := startStackWith(t, stackOptions{
		env: map[string]string{"FILL_SUBMIT_ATTEMPTS": "3", "FILL_BUMP_AFTER": "2s", "FILL_MAX_BUMPS": "2"},
		rpc: func(id uint64, url string) string {
			if id != 31337 {
				return url
			}
			if origin == nil {
				origin = newRPCProxy(t, url)
			}
			return origin.URL
		}})
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	start := func(t *testing.T, integrator string) (*e2e.Client, *ecdsa.PrivateKey, *quote.Response, *big.Int) {
		t.Helper()
		keyed := s.sponsorKey(t, integrator, "5")
		amount := big.NewInt(20_000_000)
		user := s.gaslessUser(t, ctx, amount)
		q, err := keyed.Quote(ctx, map[string]any{"user": crypto.PubkeyToAddress(user.PublicKey).Hex(), "recipient": freshAddress(t).Hex(),
			"originChainId": 31337, "destinationChainId": 31338, "originCurrency": devnet.USDCAddress.Hex(),
			"destinationCurrency": devnet.USDCAddress.Hex(), "amount": amount.String(), "tradeType": "EXACT_INPUT"})
		if err != nil {
			t.Fatal(err)
		}
		return keyed, user, q, amount
	}
	post := func(t *testing.T, keyed *e2e.Client, user *ecdsa.PrivateKey, q *quote.Response) {
		t.Helper()
		var out map[string]any
		if code, err := keyed.Do(ctx, http.MethodPost, "/execute", gaslessBody(t, user, user, q, true), &out); err != nil || code != http.StatusOK {
			t.Fatalf("POST /execute: %d %v %v", code, out, err)
		}
	}
	final := func(t *testing.T, q *quote.Response) *e2e.Status {
		t.Helper()
		final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %v", q.RequestID, seen)
		return final
	}
	untouched := func(t *testing.T, user *ecdsa.PrivateKey, amount *big.Int) {
		t.Helper()
		addr := crypto.PubkeyToAddress(user.PublicKey)
		if got := s.balance(t, 31337, devnet.USDCAddress, addr); got.Cmp(amount) != 0 {
			t.Errorf("the user holds %s USDC, want its %s untouched", got, amount)
		}
		if eth := s.balance(t, 31337, common.Address{}, addr); eth.Sign() != 0 {
			t.Errorf("the user holds %s wei", eth)
		}
	}

	t.Run("TRANSACTION_SUBMISSION_FAILED: the origin's node refuses the signing's reads, no hash exists", func(t *testing.T) {
		const integrator = "gasless-unsent"
		keyed, user, q, amount := start(t, integrator)
		// The node still simulates (the API's check passes) but answers none of the reads a
		// signing needs: every attempt fails before anything is signed.
		origin.refuse.Store(&[]string{"eth_getTransactionCount"})
		defer origin.refuse.Store(nil)
		post(t, keyed, user, q)
		final := final(t, q)
		if final.Status != "failure" || final.FailReason != string(intent.FailReasonTransactionSubmissionFailed) {
			t.Fatalf("final %+v, want failure TRANSACTION_SUBMISSION_FAILED", final)
		}
		if txs, err := s.Sys.Store.SolverTxAttempts(ctx, q.RequestID, intent.TxKindRelay); err != nil || len(txs) != 0 {
			t.Fatalf("%d relayed transactions kept (%v): no hash may exist", len(txs), err)
		}
		if b := s.sponsorBalance(t, integrator); !b.Equal(decimal.NewFromInt(5)) {
			t.Errorf("the integrator's balance moved to %s for a call never sent", b)
		}
		if kinds, _ := s.ledger(t, q.RequestID, integrator); len(kinds) != 0 && !slices.Equal(kinds, []string{"relay_reserve", "relay_release"}) {
			t.Errorf("ledger %v: a reservation, if any, is released whole", kinds)
		}
		untouched(t, user, amount)
	})

	t.Run("TRANSACTION_NOT_INCLUDED: broadcast, bumped, cancelled at its nonce; the integrator pays the cancellation's gas", func(t *testing.T) {
		const integrator = "gasless-unmined"
		keyed, user, q, amount := start(t, integrator)
		chain := s.Devnet.Chain(31337)
		chain.Pause()
		defer chain.Resume()
		post(t, keyed, user, q)
		attempts := waitRelayAttempts(t, ctx, s, q.RequestID, func(a []store.SolverTx) bool { return len(a) > 0 && a[len(a)-1].Cancel })
		if len(attempts) != 4 {
			t.Fatalf("%d attempts before the cancellation, want the relay and 2 bumps, then the cancel", len(attempts))
		}
		chain.Resume()
		final := final(t, q)
		if final.Status != "failure" || final.FailReason != string(intent.FailReasonTransactionNotIncluded) {
			t.Fatalf("final %+v, want failure TRANSACTION_NOT_INCLUDED", final)
		}
		untouched(t, user, amount)
		cancelTx := attempts[len(attempts)-1].Hash
		gas := s.txFee(t, 31337, cancelTx)
		want := decimal.NewFromBigInt(gas, -18).Mul(decimal.NewFromInt(devnet.ETHUSDPrice)).RoundCeil(6)
		if charged := decimal.NewFromInt(5).Sub(s.sponsorBalance(t, integrator)); !charged.Equal(want) {
			t.Errorf("the integrator paid USD %s, want the cancellation's gas %s wei = USD %s", charged, gas, want)
		}
		if kinds, _ := s.ledger(t, q.RequestID, integrator); !slices.Equal(kinds, []string{"relay_reserve", "relay_charge"}) {
			t.Errorf("ledger %v, want relay_reserve, relay_charge", kinds)
		}
	})
}

// waitRelayAttempts polls the stored attempts of a request's relayed transaction until cond holds.
func waitRelayAttempts(t *testing.T, ctx context.Context, s *stack, requestID string, cond func([]store.SolverTx) bool) []store.SolverTx {
	t.Helper()
	for {
		got, err := s.Sys.Store.SolverTxAttempts(ctx, requestID, intent.TxKindRelay)
		if err != nil {
			t.Fatal(err)
		}
		if cond(got) {
			return got
		}
		select {
		case <-ctx.Done():
			t.Fatalf("relay attempts of %s: %+v stored, condition not met: %v", requestID, got, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
