package workflows

import (
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/intentd/intentd/intent"
)

// adminRequest is an accepted adminRefund update whose audit row is written.
type adminRequest struct {
	intent.AdminRefund
	updateID string
}

// adminOutcome is what the adminRefund update answers its caller.
type adminOutcome struct {
	result *intent.AdminRefundResult
	err    error
}

// awaitOperator keeps the request open for an adminRefund update for manualRefundWindow.
func (r *intentRun) awaitOperator(ctx workflow.Context) error {
	r.state.AwaitingOperator = true
	for {
		if err := r.publishAttrs(ctx); err != nil {
			return err
		}
		ok, err := workflow.AwaitWithTimeout(ctx, manualRefundWindow, func() bool { return r.adminPending })
		if err != nil || !ok {
			return err
		}
		if err := r.adminRefund(ctx); err != nil || r.state.Status == intent.StatusRefund {
			return err
		}
		// The operator's refund was refused before anything was signed (say, a recipient that
		// cannot receive): the request keeps waiting for another attempt.
	}
}

// adminRefund makes the refund an accepted adminRefund update asked for, and hands its outcome
// to the update.
func (r *intentRun) adminRefund(ctx workflow.Context) error {
	if err := workflow.Await(ctx, func() bool { return r.admin != nil || r.adminDone != nil }); err != nil {
		return err
	}
	if r.admin == nil { // the audit row could not be written: nothing was done
		r.adminPending, r.adminDone = false, nil
		return nil
	}
	req, dep := r.admin, r.state.Deposit
	recipient := req.Recipient
	if recipient == "" {
		recipient = r.in.Execution.RefundTo
		if intent.IsZeroAddress(recipient) || (r.state.RefundFailReason != "" && r.state.RefundFailReason != intent.RefundFailReasonNA) {
			// The automatic refund failed (often on its recipient): the depositor (who paid, for
			// a deposit address's sweep) is the safe default.
			recipient = r.payer()
		}
	}
	if !r.state.Attested {
		// A held refund (depositrefund.go): its deposit is attested now, before anything is paid.
		if err := r.awaitAttestation(ctx, dep); err != nil {
			r.adminDone = &adminOutcome{err: temporal.NewApplicationError("the deposit could not be attested: "+err.Error(), ErrTypeAdminRefundFailed)}
			r.admin, r.adminPending = nil, false
			return nil
		}
	}
	r.refunding = true
	tx, err := r.payRefund(ctx, intent.TxKindManualRefund, recipient)
	if err != nil {
		r.adminDone = &adminOutcome{err: temporal.NewApplicationError("the refund was not made: "+err.Error(), ErrTypeAdminRefundFailed)}
		r.admin, r.adminPending = nil, false
		return nil
	}
	r.state.AwaitingOperator = false
	r.state.RefundFailReason = intent.RefundFailReasonNA
	if err := r.write(ctx, intent.StatusRefund, intent.FailReasonManualAdminRefund, tx); err != nil {
		return err
	}
	lctx := workflow.WithLocalActivityOptions(ctx, storeWriteOptions)
	_ = workflow.ExecuteLocalActivity(lctx, storeActs.CompleteAdminRefund, intent.AdminRefundCompletion{ID: req.updateID,
		TxHash: tx.Hash, ChainID: dep.ChainID, Amount: dep.Amount}).Get(ctx, nil)
	r.adminDone = &adminOutcome{result: &intent.AdminRefundResult{RequestID: r.in.Execution.RequestID, Status: intent.StatusRefund,
		ChainID: dep.ChainID, TxHash: tx.Hash, Recipient: intent.ChecksumAddress(recipient), Currency: dep.Currency, Amount: dep.Amount}}
	return nil
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
