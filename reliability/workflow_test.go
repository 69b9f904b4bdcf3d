package reliability

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/workflows"
)

// workflowStatus is the request's workflow's execution status (UNSPECIFIED when it cannot be
// read, e.g. before the workflow exists).
func (r *rig) workflowStatus(ctx context.Context, requestID string) enumspb.WorkflowExecutionStatus {
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	d, err := r.Sys.Temporal.DescribeWorkflowExecution(dctx, workflows.IntentWorkflowID(requestID), "")
	if err != nil {
		return enumspb.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED
	}
	return d.GetWorkflowExecutionInfo().GetStatus()
}

// compareWorkflow compares the read model with the workflow's own state: its state query and,
// once it has completed, its result. It returns the workflow's execution status and what
// differs ("" when nothing does).
func (r *rig) compareWorkflow(ctx context.Context, c *intentCase, row readRow) (enumspb.WorkflowExecutionStatus, string) {
	id := workflows.IntentWorkflowID(c.RequestID)
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	status := r.workflowStatus(wctx, c.RequestID)
	for until := time.Now().Add(10 * time.Second); status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING && time.Now().Before(until); {
		sleep(wctx, 250*time.Millisecond)
		status = r.workflowStatus(wctx, c.RequestID)
	}
	type namedState struct {
		name string
		s    workflows.State
	}
	var states []namedState
	v, err := r.Sys.Temporal.QueryWorkflow(wctx, id, "", workflows.QueryState)
	if err != nil {
		return status, fmt.Sprintf("state query: %v", err)
	}
	var st workflows.State
	if err := v.Get(&st); err != nil {
		return status, fmt.Sprintf("state query: %v", err)
	}
	states = append(states, namedState{"state query", st})
	if status == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED {
		var res workflows.IntentResult
		if err := r.Sys.Temporal.GetWorkflow(wctx, id, "").Get(wctx, &res); err != nil {
			return status, fmt.Sprintf("workflow result: %v", err)
		}
		states = append(states, namedState{"result", res})
	}
	na := func(s string) string {
		if s == "" {
			return string(intent.FailReasonNA)
		}
		return s
	}
	var diffs []string
	for _, w := range states {
		if string(w.s.Status) != row.Status || na(string(w.s.FailReason)) != row.FailReason ||
			na(string(w.s.RefundFailReason)) != row.RefundFailReason {
			diffs = append(diffs, fmt.Sprintf("workflow %s %s/%s/%s, read model %s/%s/%s", w.name, w.s.Status, na(string(w.s.FailReason)),
				na(string(w.s.RefundFailReason)), row.Status, row.FailReason, row.RefundFailReason))
		}
		if w.s.FillTx != "" && !slices.Contains(row.OutTxs, w.s.FillTx) {
			diffs = append(diffs, fmt.Sprintf("workflow %s fill %s not in the read model's txHashes %v", w.name, w.s.FillTx, row.OutTxs))
		}
		if w.s.RefundTx != "" && !slices.Contains(row.OutTxs, w.s.RefundTx) {
			diffs = append(diffs, fmt.Sprintf("workflow %s refund %s not in the read model's txHashes %v", w.name, w.s.RefundTx, row.OutTxs))
		}
	}
	return status, strings.Join(diffs, "; ")
}

// saveHistory writes the workflow's event history as JSON (the format `temporal workflow show
// --output json` and the replay tests read) into the log directory.
func (r *rig) saveHistory(ctx context.Context, workflowID string) (string, error) {
	hctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	it := r.Sys.Temporal.GetWorkflowHistory(hctx, workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			return "", err
		}
		h.Events = append(h.Events, e)
	}
	b, err := protojson.MarshalOptions{Indent: "  "}.Marshal(h)
	if err != nil {
		return "", err
	}
	path := filepath.Join(r.logDir, "history-"+workflowID+".json")
	return path, os.WriteFile(path, b, 0o644)
}

// explain logs what Temporal knows about a request that went wrong: the workflow's status, its
// pending activities with their last failure, and the worker log lines that name it.
func (r *rig) explain(ctx context.Context, c *intentCase) {
	t := r.t
	id := workflows.IntentWorkflowID(c.RequestID)
	d, err := r.Sys.Temporal.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		t.Logf("  %s: describe: %v", id, err)
	} else {
		info := d.GetWorkflowExecutionInfo()
		t.Logf("  %s: workflow %s, history length %d", id, enumspb.WorkflowExecutionStatus_name[int32(info.GetStatus())], info.GetHistoryLength())
		if st := info.GetStatus(); st != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING && st != enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED {
			gctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err := r.Sys.Temporal.GetWorkflow(gctx, id, "").Get(gctx, nil)
			cancel()
			t.Logf("    the workflow ended with: %v", err)
		}
		for _, a := range d.GetPendingActivities() {
			t.Logf("    pending %s attempt %d state %s last failure: %s", a.GetActivityType().GetName(), a.GetAttempt(),
				a.GetState(), a.GetLastFailure().GetMessage())
		}
	}
	if path, err := r.saveHistory(ctx, id); err != nil {
		t.Logf("    history: %v", err)
	} else {
		t.Logf("    history saved in %s", path)
	}
	n := 0
	for _, path := range r.WorkerProcess.Stats().Logs {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, c.RequestID) && n < 40 {
				t.Logf("    %s: %s", filepath.Base(path), line)
				n++
			}
		}
	}
}
