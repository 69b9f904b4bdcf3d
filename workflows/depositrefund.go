package workflows

import (
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/intentd/intentd/intent"
)

// DepositRefundInput starts a DepositRefund: a deposit no order can take.
type DepositRefundInput struct {
	// RequestID is the refund request's own id (intent.DepositRefundRequestID).
	RequestID string
	// ParentRequestID is the request the deposit paid for a second time; "" for an orphaned
	// deposit (no known order).
	ParentRequestID string
	Deposit         intent.Deposit
	// RefundTo receives the refund: the parent's refundTo, else the depositor.
	RefundTo string
	Policy   Policy
}

// DepositRefund refunds one deposit that no order can take, as a request of its own (status
// waiting, then refund with failReason ORPHANED_DEPOSIT_REFUND): a deposit naming no known
// order, or a second deposit for an order that already has one (linked with its parent through
// duplicateDeposits). The deposit is attested first, like any other, and the refund is the
// same once-only refund an intent makes, with the same operator Query and adminRefund Update.
func DepositRefund(ctx workflow.Context, in DepositRefundInput) (*State, error) {
	dep := in.Deposit
	r := &intentRun{in: IntentInput{Execution: in.execution(), Policy: in.Policy},
		state: State{RequestID: in.RequestID, Status: intent.StatusWaiting, FailReason: intent.FailReasonNA}}
	if err := r.setup(ctx); err != nil {
		return nil, err
	}
	lctx := workflow.WithLocalActivityOptions(ctx, storeWriteOptions)
	if err := workflow.ExecuteLocalActivity(lctx, storeActs.InsertRefundRequest, intent.RefundRequest{ID: in.RequestID,
		ParentID: in.ParentRequestID, Depositor: dep.Depositor, RefundTo: in.RefundTo, ChainID: dep.ChainID,
		At: workflow.Now(ctx)}).Get(ctx, nil); err != nil {
		return nil, err
	}
	r.depositSeenAt = workflow.Now(ctx)
	r.state.Deposit = &dep
	if err := r.write(ctx, intent.StatusWaiting, "", depositTx(dep)); err != nil {
		return nil, err
	}
	res, err := r.afterAttest(ctx, &dep, func() (*IntentResult, error) {
		return r.refund(ctx, intent.FailReasonOrphanedDepositRefund)
	})
	if perr := r.publishAttrs(ctx); err == nil {
		err = perr
	}
	_ = workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
	return res, err
}

// execution is the refund request seen as an intent: from the depositor, on the deposit's
// chain, paying back to RefundTo.
func (in DepositRefundInput) execution() intent.Execution {
	return intent.Execution{RequestID: in.RequestID, User: in.Deposit.Depositor, Recipient: in.RefundTo, RefundTo: in.RefundTo,
		OriginChainID: in.Deposit.ChainID, DestinationChainID: in.Deposit.ChainID}
}

// DepositRefundSearchAttributes are set when a DepositRefund starts.
func DepositRefundSearchAttributes(in DepositRefundInput) temporal.SearchAttributes {
	return InitialSearchAttributes(in.execution(), "")
}

// NewDepositRefund describes the DepositRefund for deposit d: orphaned when parentID is "",
// else an extra deposit for that request.
func NewDepositRefund(d intent.Deposit, parentID, refundTo string, policy Policy) DepositRefundInput {
	if intent.IsZeroAddress(refundTo) {
		refundTo = d.Depositor
	}
	return DepositRefundInput{RequestID: d.RefundRequestID(),
		ParentRequestID: parentID, Deposit: d, RefundTo: refundTo, Policy: policy}
}

// watchDuplicates refunds every further deposit signalled to an intent after its first one, each
// as a DepositRefund child that outlives the intent (changeDuplicates).
func (r *intentRun) watchDuplicates(ctx workflow.Context) {
	ch := workflow.GetSignalChannel(ctx, SignalDeposit)
	for {
		var d intent.Deposit
		ch.Receive(ctx, &d)
		r.onExtraDeposit(ctx, d)
	}
}

// drainDuplicates handles the deposits still in the channel when the intent ends, and waits
// until each DepositRefund child has started.
func (r *intentRun) drainDuplicates(ctx workflow.Context) {
	ch := workflow.GetSignalChannel(ctx, SignalDeposit)
	var d intent.Deposit
	for ch.ReceiveAsync(&d) {
		r.onExtraDeposit(ctx, d)
		d = intent.Deposit{}
	}
	_ = workflow.Await(ctx, func() bool { return r.startingChildren == 0 })
}

func (r *intentRun) onExtraDeposit(ctx workflow.Context, d intent.Deposit) {
	if first := r.state.Deposit; first != nil && d.SameEvent(*first) {
		return // the first deposit again (a rescan, a client's hint)
	}
	in := NewDepositRefund(d, r.in.Execution.RequestID, r.in.Execution.RefundTo, r.in.Policy)
	if r.refundChildren[in.RequestID] {
		return
	}
	if r.refundChildren == nil {
		r.refundChildren = map[string]bool{}
	}
	r.refundChildren[in.RequestID] = true
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID: IntentWorkflowID(in.RequestID), TaskQueue: TaskQueue,
		ParentClosePolicy:     enumspb.PARENT_CLOSE_POLICY_ABANDON,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		TypedSearchAttributes: DepositRefundSearchAttributes(in),
	})
	f := workflow.ExecuteChildWorkflow(cctx, DepositRefund, in)
	r.startingChildren++
	workflow.Go(ctx, func(gctx workflow.Context) {
		// An error here means the refund request already runs (the router started it): fine.
		_ = f.GetChildWorkflowExecution().Get(gctx, nil)
		r.startingChildren--
	})
	workflow.GetLogger(ctx).Info("extra deposit refunded as its own request", "requestId", r.in.Execution.RequestID,
		"refundRequestId", in.RequestID, "tx", d.TxHash)
}
