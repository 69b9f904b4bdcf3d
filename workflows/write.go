package workflows

import (
	"fmt"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/intentd/intentd/intent"
)

// write records a transition in the read model (a local activity: short and idempotent); its
// status search attributes are upserted once the run waits (publishAttrs).
func (r *intentRun) write(ctx workflow.Context, s intent.Status, reason intent.FailReason, txs ...intent.Tx) error {
	return r.finishWrite(ctx, r.startWrite(ctx, s, reason, txs...))
}

// startedWrite is a read-model write under way (startWrite).
type startedWrite struct {
	status intent.Status
	future workflow.Future
}

// startWrite starts the write of a transition; finishWrite waits for it. Nothing else may be
// written in between. A transition's version is the run's start time and the transition's place
// in the run, so that a run whose workflow task is done again from its start (the server refuses
// to complete a task a signal reached in the middle of, or a worker died in the middle of it)
// writes its transitions again with the same versions, which change nothing: the read model,
// the stream and the webhooks see each status once.
func (r *intentRun) startWrite(ctx workflow.Context, s intent.Status, reason intent.FailReason, txs ...intent.Tx) *startedWrite {
	r.state.Status = s
	if reason != "" {
		r.state.FailReason = reason
	}
	r.seq++
	t := intent.Transition{RequestID: r.in.Execution.RequestID, Version: workflow.GetInfo(ctx).WorkflowStartTime.UnixMicro()*1000 + r.seq,
		Status: s, FailReason: r.state.FailReason, RefundFailReason: r.state.RefundFailReason,
		Txs: append(append([]intent.Tx{}, r.moreTxs...), txs...), At: workflow.Now(ctx),
		Deposit: r.state.Deposit, Attestation: r.attestation, FailedTx: r.failedFill, BlockedAddresses: r.blocked}
	lctx := workflow.WithLocalActivityOptions(ctx, storeWriteOptions)
	r.moreTxs = nil
	return &startedWrite{status: s, future: workflow.ExecuteLocalActivity(lctx, storeActs.ApplyTransition, t)}
}

// finishWrite waits for w and keeps the search attributes it changes for publishAttrs.
func (r *intentRun) finishWrite(ctx workflow.Context, w *startedWrite) error {
	if err := w.future.Get(ctx, nil); err != nil {
		return fmt.Errorf("write read model: %w", err)
	}
	r.wantAttrs = [2]string{string(w.status), string(r.state.FailReason)}
	return nil
}

// publishAttrs upserts the status search attributes the last write left unpublished. The run
// calls it before it waits on anything but a local activity and when it ends, not at every
// transition: a workflow task's upserts are seen together once it completes, so the earlier
// ones of the same task would only rewrite the visibility record.
func (r *intentRun) publishAttrs(ctx workflow.Context) error {
	return r.upsertAttrs(ctx)
}

// upsertAttrs upserts the status search attributes of the last write when they differ from
// those last set, with extra ones in the same command when given.
func (r *intentRun) upsertAttrs(ctx workflow.Context, extra ...temporal.SearchAttributeUpdate) error {
	if r.wantAttrs == r.attrs && len(extra) == 0 {
		return nil // unchanged: an upsert would only rewrite the visibility record
	}
	r.attrs = r.wantAttrs
	return workflow.UpsertTypedSearchAttributes(ctx, append([]temporal.SearchAttributeUpdate{
		AttrIntentStatus.ValueSet(r.attrs[0]), AttrFailReason.ValueSet(r.attrs[1])}, extra...)...)
}
