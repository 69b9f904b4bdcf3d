package evm

import (
	"context"
	"errors"
	"math/big"
	"testing"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
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

// CallContract answers the depository's withdrawn(id) read before a refund's first signing:
// never withdrawn.
func (f *fakeSolverChain) CallContract(context.Context, ethereum.CallMsg) ([]byte, error) {
	return make([]byte, 32), nil
}
func (f *fakeSolverChain) SendTransaction(context.Context, *types.Transaction) error { return f.send }
func (f *fakeSolverChain) SuggestFees(context.Context) (Fees, error) {
	return Fees{Tip: big.NewInt(1), BaseFee: big.NewInt(1)}, nil
}
func (f *fakeSolverChain) BalanceNow(context.Context, string, string) (*big.Int, error) {
	return big.NewInt(1e18), nil
}

// noStoredTx is a store in which no transaction was signed yet.
type noStoredTx struct{ NonceStore }

func (noStoredTx) SolverTx(context.Context, string, intent.TxKind) (*store.SolverTx, error) {
	return nil, intent.ErrNotFound
}

// payoutOn returns a Payout whose chain 31338 is fake, reached through a chains.Clients set as
// in production.
func payoutOn(t *testing.T, fake *fakeSolverChain) *Payout {
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
	return NewPayout(cs, noStoredTx{}, key)
}

// A gas estimate's classified error is what a fill's and a refund's payment return when nothing
// is stored: the activities map each revert and shortfall to its failReason (activities'
// TestPayoutErrorsMapToFailReasons), and retry anything else.
func TestAPaymentReturnsTheChainsClassifiedError(t *testing.T) {
	unavailable := &chains.Error{Kind: chains.ErrUnavailable, ChainID: 31338, Op: "estimate gas", Err: errors.New("internal error")}
	funds := &chains.Error{Kind: chains.ErrInsufficientFunds, ChainID: 31338, Op: "estimate gas", Err: errors.New("insufficient funds for transfer")}
	fill := chains.Payment{RequestID: "0x01", Kind: intent.TxKindFill, ChainID: 31338, OrderID: "0x02", Currency: chains.NativeAddress,
		Recipient: "0x0000000000000000000000000000000000000003", Amount: big.NewInt(1000)}
	refund := chains.Payment{RequestID: "0x01", Kind: intent.TxKindRefund, ChainID: 31338, Currency: chains.NativeAddress,
		Recipient: "0x0000000000000000000000000000000000000003", Amount: big.NewInt(1000), Ceiling: 100_000,
		Deposit: &chains.DepositRef{Tx: "0x0000000000000000000000000000000000000000000000000000000000000004"}}
	for _, want := range []error{
		&chains.RevertError{Name: "AlreadyFilled", Reason: "AlreadyFilled[...]"},
		&chains.RevertError{Name: "Blocked", Reason: "Blocked[0x03]", Blocked: true},
		funds, unavailable,
	} {
		t.Run(want.Error(), func(t *testing.T) {
			p := payoutOn(t, &fakeSolverChain{estimate: want})
			for _, pay := range []chains.Payment{fill, refund} {
				if _, err := p.Pay(context.Background(), pay); !errors.Is(err, want) {
					t.Fatalf("Pay(%s) = %v, want %v", pay.Kind, err, want)
				}
			}
		})
	}
}

// A fill's reads before its signing ask the chain again while it is unavailable (patientReads):
// one payment's attempt asks for the gas estimate readTries times, then leaves the retry to
// the activity.
func TestTheReadsBeforeASigningAskAgain(t *testing.T) {
	fake := &fakeSolverChain{estimate: &chains.Error{Kind: chains.ErrUnavailable, ChainID: 31338, Op: "estimate gas", Err: errors.New("503")}}
	p := payoutOn(t, fake)
	_, err := p.Pay(context.Background(), chains.Payment{RequestID: "0x01", Kind: intent.TxKindFill, ChainID: 31338, OrderID: "0x02",
		Currency: chains.NativeAddress, Recipient: "0x0000000000000000000000000000000000000003", Amount: big.NewInt(1000)})
	if !errors.Is(err, chains.ErrUnavailable) || fake.estimates != readTries {
		t.Fatalf("Pay = %v after %d estimates, want unavailable after %d", err, fake.estimates, readTries)
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
