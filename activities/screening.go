package activities

import (
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/sdk/temporal"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/screening"
)

// The screening checks of the worker (package screening; docs/operations.md, "Screening"). Each
// is an in-memory lookup folded into an activity the run calls anyway (the attestation, the
// fill's and the refund's checks before signing), so screening adds no round trip to an intent.
// The list may change after the quote: a listed depositor is found when the deposit is attested,
// a listed recipient (or depositor) before the fill is signed, a listed refund recipient before
// the refund is signed. A check before signing refuses only what is not signed yet: a retry of a
// fill or refund already signed broadcasts the stored transaction (send).

// screenDepositor is the deposit's depositor when the blocklist holds it, else nil.
func (a *OracleActivities) screenDepositor(d intent.Deposit) []string {
	if a.Screening == nil {
		return nil
	}
	vm := chains.VMTypeEVM
	if a.Chains != nil {
		if ch, err := a.Chains.Registry().Get(d.ChainID); err == nil {
			vm = ch.VMType
		}
	}
	return a.Screening.Check(screening.PlaceDeposit, vm, d.Depositor)
}

// screenFill refuses a fill whose recipient or depositor is on the blocklist with BLOCKED_WALLET,
// naming them (BlockedAddresses): the solver pays no listed address, and fills no deposit a
// listed address made.
func (a *ChainActivities) screenFill(dest *chains.Chain, in FillInput) error {
	// The depositor is an address of the origin chain; both are of the EVM family today, and a
	// family's normaliser refuses what is not its address, so a depositor of another family is
	// screened where its deposit is attested.
	blocked := a.Screening.Check(screening.PlaceFill, dest.VMType, in.Recipient, in.Depositor)
	if len(blocked) == 0 {
		return nil
	}
	return temporal.NewNonRetryableApplicationError(
		fmt.Sprintf("the screening blocklist holds %s: the fill is not signed", strings.Join(blocked, ", ")),
		string(intent.FailReasonBlockedWallet), nil, blocked)
}

// screenRefund refuses a refund to an address on the blocklist with REFUND_RECIPIENT_IS_BLOCKED:
// nothing is signed, and the request waits for an operator, who may refund to another address.
func (a *ChainActivities) screenRefund(ch *chains.Chain, recipient string) error {
	if len(a.Screening.Check(screening.PlaceRefund, ch.VMType, recipient)) == 0 {
		return nil
	}
	return refundFailure(intent.RefundFailReasonRefundRecipientIsBlocked,
		fmt.Sprintf("the screening blocklist holds the refund recipient %s: the refund is not signed", recipient), nil)
}

// BlockedAddresses are the listed addresses a BLOCKED_WALLET failure of SubmitFill names; nil for
// any other error.
func BlockedAddresses(err error) []string {
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || appErr.Type() != string(intent.FailReasonBlockedWallet) || !appErr.HasDetails() {
		return nil
	}
	var out []string
	if appErr.Details(&out) != nil {
		return nil
	}
	return out
}
