package workflows

import (
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
	// DepositAddress is set for a later payment at a strict deposit address (version
	// strictReuse, depositrefund_strict.go): Deposit is then the payment, not in the depository
	// yet, swept there first, and the sweep's deposit is refunded with FailReason.
	DepositAddress *intent.ExecutionDepositAddress `json:",omitempty"`
	// Record is the address as the refund request's record carries it (with DepositAddress).
	Record *intent.RecordDepositAddress `json:",omitempty"`
	// FailReason is the refund's failReason; empty: ORPHANED_DEPOSIT_REFUND.
	FailReason intent.FailReason `json:",omitempty"`
	// LegFee is, for a refund leg (DepositAddress set), what its sweep and refund cost the
	// solver in the payment's smallest unit, priced when the payment was routed
	// (quote.Engine.RefundLegFee): the refund is the payment less it, as the public service
	// refunds "minus gas". Empty: refunded in full (a run started before legs were priced).
	LegFee string `json:",omitempty"`
}

// DepositRefund refunds one deposit that no order can take, as a request of its own (status
// waiting, then refund with failReason ORPHANED_DEPOSIT_REFUND): a deposit naming no known
// order, or a second deposit for an order that already has one (linked with its parent through
// duplicateDeposits). The deposit is attested first, like any other, and the refund is the
// same once-only refund an intent makes, with the same operator Query and adminRefund Update.
// The store decides, as it records the request, whether its refund is held for an operator (an
// unlisted currency, the depositor's budget spent): then nothing is attested or sent (holdRefund).
func DepositRefund(ctx workflow.Context, in DepositRefundInput) (*State, error) {
	dep := in.Deposit
	r := &intentRun{in: IntentInput{Execution: in.execution(), Policy: in.Policy},
		state: State{RequestID: in.RequestID, Status: intent.StatusWaiting, FailReason: intent.FailReasonNA}}
	if err := r.setup(ctx); err != nil {
		return nil, err
	}
	lctx := workflow.WithLocalActivityOptions(ctx, storeWriteOptions)
	req := intent.RefundRequest{ID: in.RequestID, ParentID: in.ParentRequestID, Depositor: dep.Depositor, RefundTo: in.RefundTo,
		ChainID: dep.ChainID, At: workflow.Now(ctx), Currency: dep.Currency, Amount: dep.Amount, CheckHold: true, DepositAddress: in.Record}
	var stored activities.RefundRequestStored
	if err := workflow.ExecuteLocalActivity(lctx, storeActs.InsertRefundRequest, req).Get(ctx, &stored); err != nil {
		return nil, err
	}
	r.depositSeenAt = workflow.Now(ctx)
	r.legFee = in.LegFee
	r.state.Deposit = &dep
	if err := r.write(ctx, intent.StatusWaiting, "", depositTx(dep)); err != nil {
		return nil, err
	}
	var err error
	if done, serr := r.sweepPayment(ctx, in); done || serr != nil {
		err = serr
	} else {
		err = r.refundDeposit(ctx, stored.Hold, in.failReason())
	}
	if perr := r.publishAttrs(ctx); err == nil {
		err = perr
	}
	_ = workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
	return &r.state, err
}

// refundDeposit is a DepositRefund's lifecycle: held for an operator, or attested, then refunded.
func (r *intentRun) refundDeposit(ctx workflow.Context, hold intent.RefundHold, reason intent.FailReason) error {
	if hold != "" {
		return r.holdRefund(ctx, hold, reason)
	}
	if done, err := r.confirm(ctx); done || err != nil {
		return err
	}
	return r.refund(ctx, reason)
}

// holdRefund keeps a refund request whose automatic refund is held for an operator: nothing is
// attested, estimated or sent. The request ends its run in status failure with its reason
// (ORPHANED_DEPOSIT_REFUND, or DOUBLE_SPEND for a strict address's later payment) and MANUAL_REFUND_REQUIRED, carries the RefundHold search attribute,
// and waits for an adminRefund, which has the deposit attested before it pays it (adminRefund):
// the operator's refund is the moment such a deposit is attested, if ever.
func (r *intentRun) holdRefund(ctx workflow.Context, hold intent.RefundHold, reason intent.FailReason) error {
	r.state.Hold = hold
	r.state.FailReason = reason
	r.state.RefundFailReason = intent.RefundFailReasonManualRefundRequired
	workflow.GetLogger(ctx).Info("refund held for an operator", "requestId", r.in.Execution.RequestID, "hold", hold)
	if err := r.write(ctx, intent.StatusFailure, reason); err != nil {
		return err
	}
	// One upsert with the status's: the hold is findable in the Web UI (RefundHold = "…").
	if err := r.upsertAttrs(ctx, AttrRefundHold.ValueSet(string(hold))); err != nil {
		return err
	}
	return r.awaitOperator(ctx)
}

// execution is the refund request seen as an intent: from the depositor, on the deposit's
// chain, paying back to RefundTo.
func (in DepositRefundInput) execution() intent.Execution {
	return intent.Execution{RequestID: in.RequestID, User: in.Deposit.Depositor, Recipient: in.RefundTo, RefundTo: in.RefundTo,
		OriginChainID: in.Deposit.ChainID, DestinationChainID: in.Deposit.ChainID, DepositAddress: in.DepositAddress}
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
