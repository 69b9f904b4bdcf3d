package workflows

import (
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/intentd/intentd/activities"
	"github.com/intentd/intentd/intent"
)

// refund pays the deposit back on the chain it was made on, to refundTo (the depositor when
// the quote named none), and ends the request in status refund with reason. A refund the
// workflow cannot make ends in failure with the refundFailReason recorded; unless it is worth
// less than its gas, the request then waits for an operator's adminRefund.
func (r *intentRun) refund(ctx workflow.Context, reason intent.FailReason) (*IntentResult, error) {
	dep := r.state.Deposit
	recipient := r.in.Execution.RefundTo
	if intent.IsZeroAddress(recipient) {
		recipient = dep.Depositor
	}
	r.refunding = true
	r.state.FailReason = reason
	r.releaseSponsorship(ctx)
	tx, err := r.payRefund(ctx, intent.TxKindRefund, recipient)
	if err == nil {
		return &r.state, r.write(ctx, intent.StatusRefund, reason, tx)
	}
	r.state.RefundFailReason = refundReasonOf(err)
	workflow.GetLogger(ctx).Warn("refund not made", "requestId", r.in.Execution.RequestID, "refundFailReason",
		r.state.RefundFailReason, "error", err)
	if err := r.write(ctx, intent.StatusFailure, reason); err != nil {
		return nil, err
	}
	if r.state.RefundFailReason == intent.RefundFailReasonAmountTooLowToRefund && !(r.guarded && unpriced(err)) {
		return &r.state, nil
	}
	// A refund that could not be priced (changeLean 5) is not known to be worth less than its
	// gas: it waits for an operator like one the chain refused.
	return r.awaitOperator(ctx)
}

// unpriced reports whether a refund's AMOUNT_TOO_LOW_TO_REFUND came from a refund that could not
// be valued (activities.RefundUnpriced) rather than one worth less than its gas.
func unpriced(err error) bool {
	var appErr *temporal.ApplicationError
	var detail string
	return errors.As(err, &appErr) && appErr.HasDetails() && appErr.Details(&detail) == nil && detail == activities.RefundUnpriced
}

// payRefund sends a refund of the deposit and waits for it to be mined. It returns the refund
// transaction for the read model, or an error whose type is the refundFailReason.
func (r *intentRun) payRefund(ctx workflow.Context, kind intent.TxKind, recipient string) (intent.Tx, error) {
	dep, ex := r.state.Deposit, r.in.Execution
	var sub activities.RefundSubmitted
	if err := r.publishAttrs(ctx); err != nil {
		return intent.Tx{}, err
	}
	in := activities.RefundInput{
		RequestID: ex.RequestID, Kind: kind, ChainID: dep.ChainID, Currency: dep.Currency, Recipient: recipient, Amount: dep.Amount,
	}
	if r.guarded {
		// changeLean 5: every refund of the run, automatic or manual, pays under the deposit's
		// withdrawal id, the one the oracle's withdrawal authorizations name; a run before it
		// keeps paying under its RefundID, so a request never pays under two ids.
		in.Payout, in.DepositTx, in.DepositLogIndex = activities.PayoutDeposit, dep.TxHash, dep.LogIndex
	}
	err := workflow.ExecuteActivity(r.sendingActivity(ctx), chainActs.SubmitRefund, in).Get(ctx, &sub)
	if err != nil {
		return intent.Tx{}, err
	}
	r.state.RefundTx = sub.TxHash
	var inc activities.TxIncluded
	if err := workflow.ExecuteActivity(waitingActivity(ctx, defaultWaitTimeout), chainActs.AwaitTx, activities.AwaitTxInput{
		RequestID: ex.RequestID, Kind: kind, ChainID: dep.ChainID, TxHash: sub.TxHash, Voidable: r.guarded,
	}).Get(ctx, &inc); err != nil {
		return intent.Tx{}, temporal.NewNonRetryableApplicationError("the refund was not mined",
			string(intent.RefundFailReasonManualRefundRequired), err)
	}
	if inc.Voided {
		return intent.Tx{}, temporal.NewNonRetryableApplicationError("the refund was signed for a chain that has since been reset",
			string(intent.RefundFailReasonManualRefundRequired), nil)
	}
	if !inc.Success {
		return intent.Tx{}, temporal.NewNonRetryableApplicationError("the refund reverted on chain",
			string(intent.RefundFailReasonManualRefundRequired), nil)
	}
	return intent.Tx{Direction: intent.TxOut, Kind: kind, ChainID: dep.ChainID, Hash: sub.TxHash, LogIndex: -1, Block: inc.Block,
		Timestamp: inc.Timestamp, Fee: inc.Fee}, nil
}

// refundReasonOf maps a refund error to its refundFailReason; anything unexpected needs an
// operator.
func refundReasonOf(err error) intent.RefundFailReason {
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && intent.RefundFailReason(appErr.Type()).Valid() {
		return intent.RefundFailReason(appErr.Type())
	}
	return intent.RefundFailReasonManualRefundRequired
}

// blockedWallet ends a guarded run whose depositor, recipient or both screening found on the
// blocklist (r.blocked): failure with BLOCKED_WALLET and the addresses on the record
// (data.blockedAddresses), nothing filled and nothing refunded on its own. The refund leg needs
// an operator (refundFailReason MANUAL_REFUND_REQUIRED, counted by
// intentd_refunds_awaiting_operator): the request waits for an adminRefund, whose recipient is
// screened again before anything is signed (the depositor by default; an operator names another).
func (r *intentRun) blockedWallet(ctx workflow.Context) (*IntentResult, error) {
	r.releaseSponsorship(ctx)
	r.releaseExposure(ctx) // nothing is paid against the deposit
	r.state.RefundFailReason = intent.RefundFailReasonManualRefundRequired
	workflow.GetLogger(ctx).Warn("blocked by screening: waiting for an operator", "requestId", r.in.Execution.RequestID,
		"blocked", r.blocked)
	if err := r.write(ctx, intent.StatusFailure, intent.FailReasonBlockedWallet); err != nil {
		return nil, err
	}
	return r.awaitOperator(ctx)
}

// awaitOperator keeps the request open for an adminRefund update for manualRefundWindow.
func (r *intentRun) awaitOperator(ctx workflow.Context) (*IntentResult, error) {
	r.state.AwaitingOperator = true
	for {
		if err := r.publishAttrs(ctx); err != nil {
			return nil, err
		}
		ok, err := workflow.AwaitWithTimeout(ctx, manualRefundWindow, func() bool { return r.adminPending })
		if err != nil || !ok {
			return &r.state, err
		}
		res, err := r.adminRefund(ctx)
		if err != nil || r.state.Status == intent.StatusRefund {
			return res, err
		}
		// The operator's refund was refused before anything was signed (say, a recipient that
		// cannot receive): the request keeps waiting for another attempt.
	}
}

// adminRefund makes the refund an accepted adminRefund update asked for, and hands its outcome
// to the update.
func (r *intentRun) adminRefund(ctx workflow.Context) (*IntentResult, error) {
	if err := workflow.Await(ctx, func() bool { return r.admin != nil || r.adminDone != nil }); err != nil {
		return nil, err
	}
	if r.admin == nil { // the audit row could not be written: nothing was done
		r.adminPending, r.adminDone = false, nil
		return &r.state, nil
	}
	req, dep := r.admin, r.state.Deposit
	recipient := req.Recipient
	if recipient == "" {
		recipient = r.in.Execution.RefundTo
		if intent.IsZeroAddress(recipient) || (r.state.RefundFailReason != "" && r.state.RefundFailReason != intent.RefundFailReasonNA) {
			// The automatic refund failed (often on its recipient): the depositor is the safe default.
			recipient = dep.Depositor
		}
	}
	if !r.state.Attested {
		// A held refund (changeLean 5): its deposit is attested now, before anything is paid.
		if err := r.attest(ctx, dep); err != nil {
			r.adminDone = &adminOutcome{err: temporal.NewApplicationError("the deposit could not be attested: "+err.Error(), ErrTypeAdminRefundFailed)}
			r.admin, r.adminPending = nil, false
			return &r.state, nil
		}
	}
	r.refunding = true
	tx, err := r.payRefund(ctx, intent.TxKindManualRefund, recipient)
	if err != nil {
		r.adminDone = &adminOutcome{err: temporal.NewApplicationError("the refund was not made: "+err.Error(), ErrTypeAdminRefundFailed)}
		r.admin, r.adminPending = nil, false
		return &r.state, nil
	}
	r.state.AwaitingOperator = false
	r.state.RefundFailReason = intent.RefundFailReasonNA
	if err := r.write(ctx, intent.StatusRefund, intent.FailReasonManualAdminRefund, tx); err != nil {
		return nil, err
	}
	lctx := workflow.WithLocalActivityOptions(ctx, storeWriteOptions)
	_ = workflow.ExecuteLocalActivity(lctx, storeActs.CompleteAdminRefund, intent.AdminRefundCompletion{ID: req.updateID,
		TxHash: tx.Hash, ChainID: dep.ChainID, Amount: dep.Amount}).Get(ctx, nil)
	r.adminDone = &adminOutcome{result: &intent.AdminRefundResult{RequestID: r.in.Execution.RequestID, Status: intent.StatusRefund,
		ChainID: dep.ChainID, TxHash: tx.Hash, Recipient: intent.ChecksumAddress(recipient), Currency: dep.Currency, Amount: dep.Amount}}
	return &r.state, nil
}

// validateAdminRefund accepts an adminRefund only where a refund is possible: an attested
// deposit, no fill signed (it could still land), no refund made or running, and no other
// adminRefund in progress.
func (r *intentRun) validateAdminRefund(ctx workflow.Context, req intent.AdminRefund) error {
	switch {
	case strings.TrimSpace(req.Operator) == "":
		return errors.New("operator is required")
	case strings.TrimSpace(req.Reason) == "":
		return errors.New("reason is required")
	case req.Recipient != "" && !intent.IsAddress(req.Recipient):
		return fmt.Errorf("recipient %q is not an address", req.Recipient)
	case r.adminPending:
		return errors.New("an admin refund of this request is already running")
	case r.state.Status == intent.StatusRefund:
		return errors.New("the request is already refunded")
	case r.state.Deposit == nil || (!r.state.Attested && r.state.Hold == ""):
		// A held refund's deposit is attested by the operator's refund itself.
		return errors.New("the request has no confirmed deposit to refund")
	case r.filling:
		return errors.New("a fill has been signed for this request; it cannot be refunded by hand")
	case r.refunding && !r.state.AwaitingOperator:
		return errors.New("a refund of this request is already running")
	}
	return nil
}

// onAdminRefund runs an accepted adminRefund: it writes the audit row, lets the run make the
// refund, and answers with the outcome once the refund is mined.
func (r *intentRun) onAdminRefund(ctx workflow.Context, req intent.AdminRefund) (*intent.AdminRefundResult, error) {
	r.adminPending = true
	r.adminDone = nil
	id := workflow.GetCurrentUpdateInfo(ctx).ID
	lctx := workflow.WithLocalActivityOptions(ctx, storeWriteOptions)
	audit := intent.AdminRefundAudit{ID: id, RequestID: r.in.Execution.RequestID, Operator: req.Operator, Reason: req.Reason,
		Recipient: req.Recipient, RequestedAt: workflow.Now(ctx)}
	if err := workflow.ExecuteLocalActivity(lctx, storeActs.RecordAdminRefund, audit).Get(ctx, nil); err != nil {
		r.adminDone = &adminOutcome{err: err}
		return nil, fmt.Errorf("audit: %w", err)
	}
	r.admin = &adminRequest{AdminRefund: req, updateID: id}
	if err := workflow.Await(ctx, func() bool { return r.adminDone != nil }); err != nil {
		return nil, err
	}
	out := r.adminDone
	return out.result, out.err
}
