package activities

import (
	"context"
	"errors"
	"math/big"
	"testing"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"go.temporal.io/sdk/temporal"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/intent"
)

// fakeSolverChain answers the calls before a signing (the gas estimate with the test's error,
// the fees and balances with fixed values); any other call
// panics (the embedded interface is nil).
type fakeSolverChain struct {
	solverChain
	chain     *chains.Chain
	estimate  error
	send      error
	estimates int // EstimateGas calls
}

func (f *fakeSolverChain) Chain() *chains.Chain                                    { return f.chain }
func (f *fakeSolverChain) NonceAt(context.Context, common.Address) (uint64, error) { return 0, nil }
func (f *fakeSolverChain) EstimateGas(context.Context, ethereum.CallMsg) (uint64, error) {
	f.estimates++
	return 0, f.estimate
}
func (f *fakeSolverChain) SendTransaction(context.Context, *types.Transaction) error { return f.send }
func (f *fakeSolverChain) SuggestFees(context.Context) (evm.Fees, error) {
	return evm.Fees{Tip: big.NewInt(1), BaseFee: big.NewInt(1)}, nil
}
func (f *fakeSolverChain) BalanceNow(context.Context, string, string) (*big.Int, error) {
	return big.NewInt(1e18), nil
}

// noStoredTx is a store in which no transaction was signed yet.
type noStoredTx struct{ SolverTxs }

func (noStoredTx) SolverTx(context.Context, string, intent.TxKind) (*intent.SolverTx, error) {
	return nil, intent.ErrNotFound
}

// chainActivitiesOn returns ChainActivities whose chain 31338 is fake, reached through a
// chains.Clients set as in production.
func chainActivitiesOn(t *testing.T, fake *fakeSolverChain) *ChainActivities {
	t.Helper()
	reg, err := chains.NewRegistry([]chains.Chain{{ID: 31338, HTTPRPCURL: "http://127.0.0.1:1",
		OutputSettler: "0x93F90B891e88ED37dECC5FA687E5d510d015AA3e", Depository: "0xB9733560ecF2E4E9C9d8c21B6b34B7A4f25277AA",
		Currency: chains.Currency{Symbol: "ETH", Decimals: 18}}})
	if err != nil {
		t.Fatal(err)
	}
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	cs := chains.NewClients(reg, chains.VM{Type: chains.VMTypeEVM, Open: func(ch *chains.Chain) (chains.Client, error) {
		fake.chain = ch
		return fake, nil
	}})
	return &ChainActivities{Chains: cs, Store: noStoredTx{}, SolverKey: key}
}

// failReasonOf returns the type of a non-retryable application error, "" for any other error.
func failReasonOf(err error) string {
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.NonRetryable() {
		return app.Type()
	}
	return ""
}

// A gas estimate's classified error decides the fill's and the refund's outcome: each revert
// and shortfall becomes its failReason, anything else is retried.
func TestSolverCallsBranchOnChainErrors(t *testing.T) {
	unavailable := &chains.Error{Kind: chains.ErrUnavailable, ChainID: 31338, Op: "estimate gas", Err: errors.New("internal error")}
	funds := &chains.Error{Kind: chains.ErrInsufficientFunds, ChainID: 31338, Op: "estimate gas", Err: errors.New("insufficient funds for transfer")}
	fill := FillInput{RequestID: "0x01", ChainID: 31338, OrderID: "0x02", Currency: chains.NativeAddress,
		Recipient: "0x0000000000000000000000000000000000000003", Amount: "1000"}
	refund := RefundInput{RequestID: "0x01", Kind: intent.TxKindRefund, ChainID: 31338, Currency: chains.NativeAddress,
		Recipient: "0x0000000000000000000000000000000000000003", Amount: "1000"}
	for _, tc := range []struct {
		estimate          error
		fillWant, refWant string // "" = retried
	}{
		{&chains.RevertError{Name: "AlreadyFilled", Reason: "AlreadyFilled[...]"}, string(intent.FailReasonOrderAlreadyFilled), string(intent.RefundFailReasonManualRefundRequired)},
		{&chains.RevertError{Name: "InsufficientBalance", Reason: "InsufficientBalance[]"}, string(intent.FailReasonSolverBalanceTooLow), string(intent.RefundFailReasonManualRefundRequired)},
		{&chains.RevertError{Name: "Blocked", Reason: "Blocked[0x03]", Blocked: true}, string(intent.FailReasonDestinationTokenTransferRejected), string(intent.RefundFailReasonRefundRecipientIsBlocked)},
		{&chains.RevertError{Name: "NativeTransferFailed", Reason: "NativeTransferFailed[]"}, string(intent.FailReasonExecutionReverted), string(intent.RefundFailReasonManualRefundRequired)},
		{funds, string(intent.FailReasonSolverBalanceTooLow), ""},
		{unavailable, "", ""},
	} {
		t.Run(tc.estimate.Error(), func(t *testing.T) {
			a := chainActivitiesOn(t, &fakeSolverChain{estimate: tc.estimate})
			_, err := a.SubmitFill(context.Background(), fill)
			if got := failReasonOf(err); err == nil || got != tc.fillWant {
				t.Fatalf("SubmitFill = %v (failReason %q), want %q", err, got, tc.fillWant)
			}
			_, err = a.SubmitRefund(context.Background(), refund)
			if got := failReasonOf(err); err == nil || got != tc.refWant {
				t.Fatalf("SubmitRefund = %v (failReason %q), want %q", err, got, tc.refWant)
			}
		})
	}
}

// A fill's reads before its signing ask the chain again while it is unavailable (patientReads):
// one SubmitFill attempt asks for the gas estimate readTries times, then leaves the retry to
// the activity.
func TestTheReadsBeforeASigningAskAgain(t *testing.T) {
	fake := &fakeSolverChain{estimate: &chains.Error{Kind: chains.ErrUnavailable, ChainID: 31338, Op: "estimate gas", Err: errors.New("503")}}
	a := chainActivitiesOn(t, fake)
	_, err := a.SubmitFill(context.Background(), FillInput{RequestID: "0x01", ChainID: 31338, OrderID: "0x02",
		Currency: chains.NativeAddress, Recipient: "0x0000000000000000000000000000000000000003", Amount: "1000"})
	if !errors.Is(err, chains.ErrUnavailable) || fake.estimates != readTries {
		t.Fatalf("SubmitFill = %v after %d estimates, want unavailable after %d", err, fake.estimates, readTries)
	}
}

// A broadcast the node refuses because it has the transaction, or because its nonce is used,
// counts as sent; other refusals are retried.
func TestSendTxTakesKnownAndUsedNoncesAsSent(t *testing.T) {
	for _, tc := range []struct {
		kind error
		sent bool
	}{
		{chains.ErrAlreadyKnown, true},
		{chains.ErrNonceTooLow, true},
		{chains.ErrReplacementUnderpriced, false},
		{chains.ErrInsufficientFunds, false},
		{chains.ErrUnavailable, false},
	} {
		c := &fakeSolverChain{send: &chains.Error{Kind: tc.kind, ChainID: 31338, Op: "send transaction", Err: errors.New("node says no")}}
		if err := sendTx(context.Background(), c, types.NewTx(&types.DynamicFeeTx{})); (err == nil) != tc.sent {
			t.Fatalf("sendTx refused with %v = %v, sent %v", tc.kind, err, tc.sent)
		}
	}
}

// The reads before a signing ask again while the chain is unavailable (up to readTries times)
// and give up at once on anything else: one flaky answer must not spend a whole attempt of the
// activity's bounded retries (TRANSACTION_SUBMISSION_FAILED after the last).
func TestRetryReadAsksAgainOnlyWhileTheChainIsUnavailable(t *testing.T) {
	unavailable := &chains.Error{Kind: chains.ErrUnavailable, ChainID: 31338, Op: "nonce", Err: errors.New("503")}
	revert := &chains.RevertError{Name: "AlreadyFilled"}
	for _, tc := range []struct {
		name      string
		errs      []error // the answers before a success
		wantCalls int
		wantErr   error
	}{
		{"two flaky answers, then the nonce", []error{unavailable, unavailable}, 3, nil},
		{"unavailable every time: the last error after readTries", []error{unavailable, unavailable, unavailable, unavailable, unavailable}, readTries, unavailable},
		{"a revert is not asked again", []error{revert}, 1, revert},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			got, err := retryRead(context.Background(), func(context.Context) (uint64, error) {
				calls++
				if calls <= len(tc.errs) {
					return 0, tc.errs[calls-1]
				}
				return 7, nil
			})
			if calls != tc.wantCalls || !errors.Is(err, tc.wantErr) || (err == nil && got != 7) {
				t.Fatalf("%d calls, %v, %v; want %d calls, error %v", calls, got, err, tc.wantCalls, tc.wantErr)
			}
		})
	}
}
