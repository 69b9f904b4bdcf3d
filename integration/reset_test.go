package integration

import (
	"bytes"
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/testkit/e2e"
	"github.com/intentd/intentd/workflows"
)

// Operators reset stuck workflows in the Temporal UI (docs/operations.md, "When a reset is
// safe"). Resetting a finished intent to before its fill makes the new run execute the fill
// activity again; it finds the fill already signed and mined and pays nothing more: one Fill on
// chain, the recipient paid once, one stored fill transaction.
func TestResetToBeforeTheFillPaysNoSecondTime(t *testing.T) {
	s := startStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	acct, recipient := devnet.TestAccounts()[6], freshAddress(t)
	q := s.ethBridge(t, ctx, acct.Address, recipient, common.Address{}, "100000000000000000")
	if _, err := (&e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}).ExecuteSteps(ctx, q); err != nil {
		t.Fatal(err)
	}
	if st, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund"); err != nil || st.Status != "success" {
		t.Fatalf("before the reset: %+v (seen %v), %v", st, seen, err)
	}
	paid := s.balance(t, 31338, common.Address{}, recipient)

	tc := s.Sys.Temporal
	wid := workflows.IntentWorkflowID(q.RequestID)
	run := tc.GetWorkflow(ctx, wid, "")
	if err := run.Get(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// The reset point: the workflow task that ran SubmitFill (a local activity since the lean
	// change: its marker; an activity task before it).
	var resetTo int64
	it := tc.GetWorkflowHistory(ctx, wid, run.GetRunID(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if wft, ok := submitFill(e); ok {
			resetTo = wft
			break
		}
	}
	if resetTo == 0 {
		t.Fatal("no SubmitFill in the history")
	}
	res, err := tc.ResetWorkflowExecution(ctx, &workflowservice.ResetWorkflowExecutionRequest{
		Namespace:                 s.Sys.Config.TemporalNamespace,
		WorkflowExecution:         &commonpb.WorkflowExecution{WorkflowId: wid, RunId: run.GetRunID()},
		Reason:                    "test: reset to before the fill",
		WorkflowTaskFinishEventId: resetTo,
		RequestId:                 "reset-" + q.RequestID,
	})
	if err != nil {
		t.Fatalf("reset: %v", err)
	}
	var state workflows.State
	if err := tc.GetWorkflow(ctx, wid, res.GetRunId()).Get(ctx, &state); err != nil {
		t.Fatalf("the reset run: %v", err)
	}
	if state.Status != "success" {
		t.Fatalf("the reset run ended %+v", state)
	}
	// The reset run executed the fill activity again: its history keeps the events up to the
	// reset point and runs SubmitFill anew after it.
	var rescheduled []int64
	it = tc.GetWorkflowHistory(ctx, wid, res.GetRunId(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := submitFill(e); ok {
			rescheduled = append(rescheduled, e.GetEventId())
		}
	}
	if len(rescheduled) != 1 || rescheduled[0] <= resetTo {
		t.Fatalf("SubmitFill ran at events %v in the reset run, want once after the reset point %d", rescheduled, resetTo)
	}
	if n := s.fills(t, 31338, common.HexToHash(q.Protocol.V2.OrderID)); n != 1 {
		t.Fatalf("order filled %d times after the reset, want exactly 1", n)
	}
	if got := s.balance(t, 31338, common.Address{}, recipient); got.Cmp(paid) != 0 || got.Cmp(new(big.Int)) == 0 {
		t.Fatalf("recipient holds %s after the reset, %s before: paid twice", got, paid)
	}
	if txs, err := s.Sys.Store.SolverTxAttempts(ctx, q.RequestID, "fill"); err != nil || len(txs) != 1 {
		t.Fatalf("stored fills %d (%v), want 1", len(txs), err)
	}
	if st, _, err := s.API.Status(ctx, q.RequestID); err != nil || st.Status != "success" || len(st.TxHashes) != 1 {
		t.Fatalf("read model after the reset: %+v, %v", st, err)
	}
}

// submitFill reports whether e runs SubmitFill: its local activity marker (the lean version) or
// its activity task scheduled (before), with the workflow task that did it.
func submitFill(e *historypb.HistoryEvent) (int64, bool) {
	if a := e.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == "SubmitFill" {
		return a.GetWorkflowTaskCompletedEventId(), true
	}
	if m := e.GetMarkerRecordedEventAttributes(); m != nil && m.GetMarkerName() == "LocalActivity" {
		for _, p := range m.GetDetails()["data"].GetPayloads() {
			if bytes.Contains(p.GetData(), []byte(`"ActivityType":"SubmitFill"`)) {
				return m.GetWorkflowTaskCompletedEventId(), true
			}
		}
	}
	return 0, false
}
