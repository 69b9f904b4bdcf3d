package workflows

import (
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/workflow"

	"github.com/intentd/intentd/intent"
)

// fund is the lifecycle's first phase: the request's deposit, taken from the run's input or
// its first deposit signal, and written to the read model with status waiting. No deposit by
// the order's deadline ends the request in failure with ORDER_EXPIRED. Every later deposit for
// the order is refunded as a request of its own (watchDuplicates). A payment that arrived at
// the request's deposit address is swept into the depository first (sweep.go): the sweep's
// deposit is the request's from then on.
func (r *intentRun) fund(ctx workflow.Context) (done bool, err error) {
	if r.in.Relay != nil && r.in.Deposit == nil {
		if done, err := r.relayFunding(ctx); done || err != nil {
			return true, err
		}
	}
	dep, ok := r.receiveDeposit(ctx)
	if !ok {
		return true, r.fail(ctx, intent.FailReasonOrderExpired)
	}
	r.depositSeenAt = workflow.Now(ctx)
	r.state.Deposit = &dep
	r.watchingDuplicates = true
	workflow.Go(ctx, r.watchDuplicates)
	// A relayed request's deposit is its call, which the engine sent (relay.go): depositing.
	status := intent.StatusWaiting
	if r.in.Relay != nil {
		status = intent.StatusDepositing
	}
	if err := r.write(ctx, status, "", depositTx(dep)); err != nil {
		return true, err
	}
	if r.arrived(dep) {
		return r.sweep(ctx)
	}
	return false, nil
}

// receiveDeposit returns the first deposit, or false when the order's deadline (at least a
// minute from now) passes with none. A run started with its deposit (in its input, or by
// signal-with-start) takes it without a timer.
func (r *intentRun) receiveDeposit(ctx workflow.Context) (intent.Deposit, bool) {
	if r.in.Deposit != nil {
		return *r.in.Deposit, true
	}
	ch := workflow.GetSignalChannel(ctx, SignalDeposit)
	var dep intent.Deposit
	if ch.ReceiveAsync(&dep) {
		return dep, true
	}
	wait := time.Unix(r.in.Execution.Deadline, 0).Sub(workflow.Now(ctx))
	if wait < time.Minute {
		wait = time.Minute
	}
	ok, _ := ch.ReceiveWithTimeout(ctx, wait, &dep)
	return dep, ok
}

// checkDeposit compares the deposit with the order; a mismatch names its failReason.
func (r *intentRun) checkDeposit() intent.FailReason {
	d, ex := r.state.Deposit, r.in.Execution
	switch {
	case d.ChainID != ex.OriginChainID:
		return intent.FailReasonDepositChainMismatch
	case !intent.SameAddress(d.Currency, ex.CurrencyIn.Address):
		return intent.FailReasonIncorrectDepositCurrency
	case intent.Big(d.Amount).Cmp(intent.Big(ex.AmountIn)) < 0:
		return intent.FailReasonDepositedAmountTooLowToFill
	case ex.DepositAddress != nil && intent.Big(d.Amount).Cmp(intent.Big(ex.AmountIn)) > 0:
		// A plain transfer of more than quoted: until an excess is refunded as its own leg
		// (strict) or requoted (open), the whole deposit is refunded, so no excess is kept.
		return intent.FailReasonIncorrectPayment
	case r.depositSeenAt.Unix() > ex.Deadline:
		return intent.FailReasonOrderExpired
	}
	return ""
}

// depositTx is the deposit as a transaction of its request.
func depositTx(d intent.Deposit) intent.Tx {
	return intent.Tx{Direction: intent.TxIn, ChainID: d.ChainID, Hash: d.TxHash, LogIndex: int(d.LogIndex), Block: d.BlockNumber}
}

// watchDuplicates refunds every further deposit signalled to an intent after its first one, each
// as a DepositRefund child that outlives the intent.
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

// onExtraDeposit starts the DepositRefund of a deposit after the first, refunded to
// ExtraDepositRefundTo; the first deposit signalled again is ignored.
func (r *intentRun) onExtraDeposit(ctx workflow.Context, d intent.Deposit) {
	if first := r.state.Deposit; first != nil && d.SameEvent(*first) {
		return // the first deposit again (a rescan, a client's hint)
	}
	if r.otherArrival(ctx, d) {
		return
	}
	parentDepositor := r.in.Execution.User
	if r.state.Deposit != nil {
		parentDepositor = r.payer()
	}
	refundTo := ExtraDepositRefundTo(d, r.in.Execution.RefundTo, parentDepositor)
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
