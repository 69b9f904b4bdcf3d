package workflows

import (
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/intentd/intentd/activities"
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
	req := intent.RefundRequest{ID: in.RequestID, ParentID: in.ParentRequestID, Depositor: dep.Depositor, RefundTo: in.RefundTo,
		ChainID: dep.ChainID, At: workflow.Now(ctx)}
	var stored activities.RefundRequestStored
	if r.guarded {
		// changeLean 5: the store decides, with the request, whether its refund is held for an
		// operator (an unlisted currency, the depositor's budget spent).
		req.Currency, req.Amount, req.CheckHold = dep.Currency, dep.Amount, true
		if err := workflow.ExecuteLocalActivity(lctx, storeActs.InsertRefundRequest, req).Get(ctx, &stored); err != nil {
			return nil, err
		}
	} else if err := workflow.ExecuteLocalActivity(lctx, storeActs.InsertRefundRequest, req).Get(ctx, nil); err != nil {
		return nil, err
	}
	r.depositSeenAt = workflow.Now(ctx)
	r.state.Deposit = &dep
	if err := r.write(ctx, intent.StatusWaiting, "", depositTx(dep)); err != nil {
		return nil, err
	}
	var res *IntentResult
	var err error
	if stored.Hold != "" {
		res, err = r.holdRefund(ctx, stored.Hold)
	} else {
		res, err = r.afterAttest(ctx, &dep, func() (*IntentResult, error) {
			return r.refund(ctx, intent.FailReasonOrphanedDepositRefund)
		})
	}
	if perr := r.publishAttrs(ctx); err == nil {
		err = perr
	}
	_ = workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
	return res, err
}

// holdRefund keeps a refund request whose automatic refund is held (changeLean 5) for an
// operator: nothing is attested, estimated or sent. The request ends its run in status failure
// with ORPHANED_DEPOSIT_REFUND and MANUAL_REFUND_REQUIRED, carries the RefundHold search
// attribute, and waits for an adminRefund, which has the deposit attested before it pays it
// (adminRefund): the operator's refund is the moment such a deposit is attested, if ever.
func (r *intentRun) holdRefund(ctx workflow.Context, hold intent.RefundHold) (*IntentResult, error) {
	r.state.Hold = hold
	r.state.FailReason = intent.FailReasonOrphanedDepositRefund
	r.state.RefundFailReason = intent.RefundFailReasonManualRefundRequired
	workflow.GetLogger(ctx).Info("refund held for an operator", "requestId", r.in.Execution.RequestID, "hold", hold)
	if err := r.write(ctx, intent.StatusFailure, intent.FailReasonOrphanedDepositRefund); err != nil {
		return nil, err
	}
	// One upsert with the status's: the hold is findable in the Web UI (RefundHold = "…").
	if err := r.upsertAttrs(ctx, AttrRefundHold.ValueSet(string(hold))); err != nil {
		return nil, err
	}
	return r.awaitOperator(ctx)
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
// else an extra deposit for that request, refunded to refundTo (ExtraDepositRefundTo).
func NewDepositRefund(d intent.Deposit, parentID, refundTo string, policy Policy) DepositRefundInput {
	if intent.IsZeroAddress(refundTo) {
		refundTo = d.Depositor
	}
	return DepositRefundInput{RequestID: d.RefundRequestID(),
		ParentRequestID: parentID, Deposit: d, RefundTo: refundTo, Policy: policy}
}

// ExtraDepositRefundTo is where an extra deposit into an existing order is refunded: to the
// parent's refundTo when the parent's depositor made it (the user paid twice), else to its own
// depositor. Whoever controls an order id others are induced to pay into again must not
// collect their refunds (review L19). parentDepositor is the depositor of the parent's deposit,
// or, when the parent has none, its user.
func ExtraDepositRefundTo(d intent.Deposit, parentRefundTo, parentDepositor string) string {
	if intent.SameAddress(d.Depositor, parentDepositor) {
		return parentRefundTo
	}
	return d.Depositor
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
	refundTo := r.in.Execution.RefundTo
	if r.guarded {
		parentDepositor := r.in.Execution.User
		if first := r.state.Deposit; first != nil {
			parentDepositor = first.Depositor
		}
		refundTo = ExtraDepositRefundTo(d, refundTo, parentDepositor)
	}
	in := NewDepositRefund(d, r.in.Execution.RequestID, refundTo, r.in.Policy)
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
