package workflows

import (
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/intentd/intentd/intent"
)

// A later payment at a strict deposit address (issue 35: "strict: a second deposit is refunded,
// DOUBLE_SPEND"; public-api-notes §5.2, "reuse … strict: no, single use"). A strict address is
// bound to its quote: its first payment funds the quote's request, and any payment after it is
// refunded as a request of its own, linked to the quote's request (duplicateDeposits, parent),
// carrying the address (depositAddress, feature deposit_address, so GET
// /requests/v3?depositAddress= finds it). The payment is at the address, not in the
// depository, so the refund request first sweeps it there with the same once-only sweep the
// quote's request makes (kind sweep, keyed by the refund request's id: sweep.go), then has the
// sweep's deposit attested and refunds it to the address's refundTo (strict always has one; the
// zero address pays the payment's sender) with failReason DOUBLE_SPEND.

// NewDepositAddressRefund describes the DepositRefund of a payment at a deposit address that no
// request fills (a refund leg: a strict address's later payment, DOUBLE_SPEND; the excess of its
// first, INCORRECT_PAYMENT; an open address's later payment that cannot be quoted): arrival is
// the payment as the watcher delivers it (intent.ArrivalDeposit, naming the refund request's id:
// intent.Deposit.RefundRequestID of the payment), parentID the address's quote-time request,
// refundTo the address's (the zero address: the payment's sender; empty at an open address: no
// automatic refund), reason the refund's failReason.
func NewDepositAddressRefund(arrival intent.Deposit, parentID, refundTo string, addr intent.ExecutionDepositAddress,
	rec intent.RecordDepositAddress, reason intent.FailReason, policy Policy) DepositRefundInput {
	in := NewDepositRefund(arrival, parentID, refundTo, policy)
	in.DepositAddress, in.Record, in.FailReason = &addr, &rec, reason
	return in
}

// failReason is the refund's failReason: the refund leg's for a payment at a deposit address,
// ORPHANED_DEPOSIT_REFUND for every other deposit no order can take.
func (in DepositRefundInput) failReason() intent.FailReason {
	if in.FailReason != "" {
		return in.FailReason
	}
	return intent.FailReasonOrphanedDepositRefund
}

// sweepPayment sweeps a refund leg's payment into the depository before its refund (version
// strictReuse; a run without a DepositAddress has nothing to sweep). Only the deposit this
// request's own sweep made is refunded (a sweep moves its payment's amount and only the solver
// sweeps, so no other deposit can be this one's; should one be found all the same, this request
// ends in failure, UNKNOWN, rather than pay another request's deposit).
func (r *intentRun) sweepPayment(ctx workflow.Context, in DepositRefundInput) (done bool, err error) {
	if in.DepositAddress == nil || !r.hasMinVersion(strictReuse) {
		return false, nil
	}
	if done, err := r.sweep(ctx); done || err != nil {
		return true, err
	}
	if n := len(r.moreTxs); n == 0 || !strings.EqualFold(r.moreTxs[n-1].Hash, r.state.Deposit.TxHash) {
		workflow.GetLogger(ctx).Error("the payment was swept by another sweep: not refunded here", "requestId", in.RequestID,
			"swept", r.state.Deposit.TxHash)
		r.state.Deposit = r.state.Arrival
		return true, r.fail(ctx, intent.FailReasonUnknown)
	}
	return false, nil
}
