package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/intentd/intentd/activities"
	"github.com/intentd/intentd/intent"
)

// The exposure cap (docs/operations.md, "Confirmations by value and the exposure
// cap"). A deposit of small value is relied on at its tier's depth, before it is final, and its
// attestation takes its share of the origin chain's exposure in the same activity
// (AttestDeposit): an intent under the cap costs no step more. Past the cap the attestation says
// so, and only then the run takes the steps below: it writes pending and waits in AwaitExposure
// (one activity task, woken by the chain's blocks) until earlier deposits are final or its own is,
// then fills. The wait never ends in a refund; an operator's adminRefund accepted meanwhile ends
// it, and the refund is made instead of the fill.

// fillPastTheCap writes pending, waits for room under the origin chain's cap, then fills.
func (r *intentRun) fillPastTheCap(ctx workflow.Context) error {
	if err := r.write(ctx, intent.StatusPending, ""); err != nil {
		return err
	}
	if err := r.awaitExposure(ctx); err != nil {
		return err
	}
	return r.fill(ctx, nil)
}

// exposureRetry is how long the wait pauses after it failed for another reason than its time.
const exposureRetry = time.Minute

// awaitExposure waits until the request holds its share of its chain's exposure, or its deposit
// is final and needs none, or an operator's refund is accepted (fill then makes it). Each wait
// is bounded by the policy's ConfirmationTimeout and taken again after it: a chain that stops
// making blocks keeps the fill waiting, never refunds it.
func (r *intentRun) awaitExposure(ctx workflow.Context) error {
	r.state.AwaitingExposure = true
	defer func() { r.state.AwaitingExposure = false }()
	in := activities.ExposureInput{ExposureHold: r.hold.ExposureHold}
	total := r.in.Policy.WithDefaults().ConfirmationTimeout
	for !r.adminPending {
		if err := r.publishAttrs(ctx); err != nil {
			return err
		}
		actx, cancel := workflow.WithCancel(ctx)
		f := workflow.ExecuteActivity(waitingActivity(actx, total), oracleActs.AwaitExposure, in)
		_ = workflow.Await(ctx, func() bool { return f.IsReady() || r.adminPending })
		if !f.IsReady() {
			cancel() // the operator's refund wins
			return nil
		}
		var res activities.ExposureWaited
		err := f.Get(ctx, &res)
		cancel()
		if err == nil {
			r.exposed = res.Reserved
			return nil
		}
		if !isTimeout(err) {
			workflow.GetLogger(ctx).Warn("exposure wait failed; waiting again", "requestId", in.RequestID, "error", err)
			_, _ = workflow.AwaitWithTimeout(ctx, exposureRetry, func() bool { return r.adminPending })
		}
	}
	return nil
}

// releaseExposure ends the request's share of its chain's exposure when it holds one: the
// request ends without paying anything against its deposit. A release that cannot be written is
// logged; the share then ends by itself once the deposit is final.
func (r *intentRun) releaseExposure(ctx workflow.Context) {
	if !r.exposed {
		return
	}
	lctx := workflow.WithLocalActivityOptions(ctx, storeWriteOptions)
	if err := workflow.ExecuteLocalActivity(lctx, oracleActs.ReleaseExposure, activities.ExposureRelease{
		RequestID: r.in.Execution.RequestID}).Get(ctx, nil); err != nil {
		workflow.GetLogger(ctx).Error("exposure not released", "requestId", r.in.Execution.RequestID, "error", err)
	}
	r.exposed = false
}
