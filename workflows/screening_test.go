package workflows

import (
	"context"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/intentd/intentd/activities"
	"github.com/intentd/intentd/intent"
)

// screenedHarness is a harness that logs refunds as calls ("refund").
func screenedHarness(t *testing.T) *harness {
	h := newHarness(t)
	h.env.OnActivity(chainActs.SubmitRefund, mock.Anything, mock.Anything).Return(
		func(context.Context, activities.RefundInput) (*activities.RefundSubmitted, error) {
			h.calls = append(h.calls, "refund")
			return &activities.RefundSubmitted{TxHash: "0xrefund"}, nil
		})
	return h
}

// requireBlockedWallet checks that the run ended in failure with BLOCKED_WALLET, blocked on the
// record, waiting for an operator (MANUAL_REFUND_REQUIRED), having paid nothing.
func requireBlockedWallet(t *testing.T, h *harness, res *IntentResult, blocked ...string) {
	t.Helper()
	require.Equal(t, intent.StatusFailure, res.Status)
	require.Equal(t, intent.FailReasonBlockedWallet, res.FailReason)
	require.Equal(t, intent.RefundFailReasonManualRefundRequired, res.RefundFailReason)
	require.True(t, res.AwaitingOperator, "the request waits for an operator's adminRefund")
	require.Empty(t, h.fills, "nothing is filled")
	require.NotContains(t, h.calls, "refund", "nothing is refunded on its own")
	last := h.transitions[len(h.transitions)-1]
	require.Equal(t, intent.StatusFailure, last.Status)
	require.Equal(t, intent.FailReasonBlockedWallet, last.FailReason)
	require.Equal(t, blocked, last.BlockedAddresses, "the record's blockedAddresses")
}

// Issue 33, point 6: "at deposit (depositor: the request ends failure with BLOCKED_WALLET,
// blockedAddresses on the record ..., no automatic refund, an operator decides)". The
// attestation names the listed depositor; the run fills and refunds nothing.
func TestADepositorOnTheBlocklistFailsWithBlockedWalletAndWaitsForAnOperator(t *testing.T) {
	h := screenedHarness(t)
	h.attest = func(_ context.Context, in activities.AttestInput) (*activities.AttestResult, error) {
		return &activities.AttestResult{Signer: "0xOracle", Blocked: []string{in.Depositor}}, nil
	}
	requireBlockedWallet(t, h, h.run(t, deposit()), "0xUser")
}

// The list may change after the quote: a recipient (or depositor) listed by the time the fill is
// to be signed is refused by SubmitFill's screening, and the run ends as for a listed depositor,
// with no refund of its own.
func TestAFillRefusedByScreeningFailsWithBlockedWalletAndRefundsNothing(t *testing.T) {
	h := screenedHarness(t)
	var asked activities.FillInput
	h.refuseFill = func(in activities.FillInput) error {
		asked = in
		return temporal.NewNonRetryableApplicationError("listed", string(intent.FailReasonBlockedWallet), nil, []string{in.Recipient})
	}
	requireBlockedWallet(t, h, h.run(t, deposit()), "0xRecipient")
	require.Equal(t, "0xUser", asked.Depositor, "the fill's screening is given the depositor too")
}

// "Also orphan/duplicate DepositRefunds ... from a blocked depositor are not refunded
// automatically."
func TestADepositRefundOfAListedDepositorIsNotRefunded(t *testing.T) {
	h := screenedHarness(t)
	h.env.OnActivity(storeActs.InsertRefundRequest, mock.Anything, mock.Anything).Return(&activities.RefundRequestStored{}, nil)
	h.attest = func(_ context.Context, in activities.AttestInput) (*activities.AttestResult, error) {
		return &activities.AttestResult{Signer: "0xOracle", Blocked: []string{in.Depositor}}, nil
	}
	h.env.ExecuteWorkflow(DepositRefund, NewDepositRefund(deposit(), "", "", Policy{}))
	require.True(t, h.env.IsWorkflowCompleted())
	require.NoError(t, h.env.GetWorkflowError())
	var res State
	require.NoError(t, h.env.GetWorkflowResult(&res))
	requireBlockedWallet(t, h, &res, "0xUser")
}
