package activities

import (
	"context"
	"errors"
	"math/big"
	"testing"

	"go.temporal.io/sdk/temporal"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
)

// failReasonOf returns the type of a non-retryable application error, "" for any other error.
func failReasonOf(err error) string {
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.NonRetryable() {
		return app.Type()
	}
	return ""
}

// refusingPayout is a chain family's payout that refuses every payment with err, after running
// the payment's checks with a fixed cost; any other call panics (the embedded interface is nil).
type refusingPayout struct {
	chains.Payout
	err error
}

func (p refusingPayout) Pay(ctx context.Context, pay chains.Payment) (*chains.PayoutSent, error) {
	if pay.Check != nil {
		if err := pay.Check(ctx, big.NewInt(1)); err != nil {
			return nil, err
		}
	}
	return nil, p.err
}

// chainActivitiesPaying returns ChainActivities whose chain 31338 (EVM) pays through payout.
func chainActivitiesPaying(t *testing.T, payout chains.Payout) *ChainActivities {
	t.Helper()
	reg, err := chains.NewRegistry([]chains.Chain{{ID: 31338, HTTPRPCURL: "http://127.0.0.1:1",
		OutputSettler: "0x93F90B891e88ED37dECC5FA687E5d510d015AA3e", Depository: "0xB9733560ecF2E4E9C9d8c21B6b34B7A4f25277AA",
		Currency: chains.Currency{Symbol: "ETH", Decimals: 18}}})
	if err != nil {
		t.Fatal(err)
	}
	families := chains.NewFamilies(chains.NewClients(reg), map[chains.VMType]chains.Payout{chains.VMTypeEVM: payout})
	return &ChainActivities{Families: families}
}

// A family's classified refusal decides the fill's and the refund's outcome: each revert and
// shortfall becomes its failReason, anything else is retried.
func TestPayoutErrorsMapToFailReasons(t *testing.T) {
	unavailable := &chains.Error{Kind: chains.ErrUnavailable, ChainID: 31338, Op: "estimate gas", Err: errors.New("internal error")}
	funds := &chains.Error{Kind: chains.ErrInsufficientFunds, ChainID: 31338, Op: "estimate gas", Err: errors.New("insufficient funds for transfer")}
	manual := string(intent.RefundFailReasonManualRefundRequired)
	fill := FillInput{RequestID: "0x01", ChainID: 31338, OrderID: "0x02", Currency: chains.NativeAddress,
		Recipient: "0x0000000000000000000000000000000000000003", Amount: "1000"}
	refund := RefundInput{RequestID: "0x01", Kind: intent.TxKindManualRefund, ChainID: 31338, Currency: chains.NativeAddress,
		Recipient: "0x0000000000000000000000000000000000000003", Amount: "1000", DepositTx: "0x04"}
	for _, tc := range []struct {
		err               error
		fillWant, refWant string // "" = retried
	}{
		{&chains.RevertError{Name: "AlreadyFilled", Reason: "AlreadyFilled[...]"}, string(intent.FailReasonOrderAlreadyFilled), manual},
		{&chains.RevertError{Name: "InsufficientBalance", Reason: "InsufficientBalance[]"}, string(intent.FailReasonSolverBalanceTooLow), manual},
		{&chains.RevertError{Name: "Blocked", Reason: "Blocked[0x03]", Blocked: true}, string(intent.FailReasonDestinationTokenTransferRejected), string(intent.RefundFailReasonRefundRecipientIsBlocked)},
		{&chains.RevertError{Name: "NativeTransferFailed", Reason: "NativeTransferFailed[]"}, string(intent.FailReasonExecutionReverted), manual},
		{funds, string(intent.FailReasonSolverBalanceTooLow), ""},
		{&intent.InventoryShortfall{ChainID: 31338, Balance: big.NewInt(1), InFlight: big.NewInt(0), Need: big.NewInt(2)}, string(intent.FailReasonSolverBalanceTooLow), ""},
		{&chains.OverCeilingError{Estimate: 200_000, Ceiling: 100_000}, "", manual},
		{chains.ErrPayoutRefused, "", manual},
		{chains.ErrStoredCorrupt, string(intent.FailReasonUnknown), string(intent.FailReasonUnknown)},
		{unavailable, "", ""},
	} {
		t.Run(tc.err.Error(), func(t *testing.T) {
			a := chainActivitiesPaying(t, refusingPayout{err: tc.err})
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

// The replacement policy is the family's: ReplaceTx passes the policy's numbers and returns
// whether the family replaces no more; a payment voided by the chain's reset is not replaced.
func TestReplaceTxAsksTheFamily(t *testing.T) {
	var asked chains.Replacement
	a := chainActivitiesPaying(t, replacingPayout{asked: &asked})
	rep, err := a.ReplaceTx(context.Background(), ReplaceInput{RequestID: "0x01", Kind: intent.TxKindFill, ChainID: 31338, After: 3, MaxBumps: 3})
	if err != nil || !rep.Final || rep.Attempt != 4 || asked.After != 3 || asked.MaxBumps != 3 {
		t.Fatalf("ReplaceTx = %+v, %v; the family was asked %+v", rep, err, asked)
	}
	a = chainActivitiesPaying(t, replacingPayout{asked: &asked, err: intent.ErrVoided})
	_, err = a.ReplaceTx(context.Background(), ReplaceInput{RequestID: "0x01", Kind: intent.TxKindFill, ChainID: 31338})
	if got := failReasonOf(err); got != "TX_VOIDED" {
		t.Fatalf("ReplaceTx of a voided payment = %v (%q), want TX_VOIDED", err, got)
	}
}

// replacingPayout replaces by the EVM family's rule of thumb (final past MaxBumps), or fails
// with err.
type replacingPayout struct {
	chains.Payout
	asked *chains.Replacement
	err   error
}

func (p replacingPayout) Replace(_ context.Context, r chains.Replacement) (*chains.Replaced, error) {
	*p.asked = r
	if p.err != nil {
		return nil, p.err
	}
	return &chains.Replaced{TxHash: "0xr", Attempt: r.After + 1, Final: r.After >= r.MaxBumps}, nil
}

// Issue 34, point 1: "Family and funding strategy are data in the workflow input": a payment
// names the family that pays it, and a chain of another family is refused before anything is
// signed (an empty family, from an input recorded before payments named one, is the chain's own).
func TestAPaymentIsMadeByTheFamilyItNames(t *testing.T) {
	a := chainActivitiesPaying(t, refusingPayout{err: chains.ErrPayoutRefused})
	fill := FillInput{RequestID: "0x01", ChainID: 31338, OrderID: "0x02", Currency: chains.NativeAddress,
		Recipient: "0x0000000000000000000000000000000000000003", Amount: "1000", Family: chains.VMTypeSVM}
	if _, err := a.SubmitFill(context.Background(), fill); !errors.Is(err, chains.ErrUnsupported) {
		t.Fatalf("a fill naming family svm on an EVM chain = %v, want ErrUnsupported", err)
	}
	for _, family := range []chains.VMType{chains.VMTypeEVM, ""} {
		fill.Family = family
		if _, err := a.SubmitFill(context.Background(), fill); errors.Is(err, chains.ErrUnsupported) {
			t.Fatalf("a fill naming family %q = %v, want it paid by the EVM family", family, err)
		}
	}
}
