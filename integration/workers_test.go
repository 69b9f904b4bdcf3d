package integration

import (
	"context"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"

	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/testkit/e2e"
	"github.com/intentd/intentd/testkit/faultproxy"
	"github.com/intentd/intentd/workflows"
)

// Several workers route each deposit once: every worker runs a deposit scanner, and one of
// them scans a chain at a time from the shared cursor (store.TryScanLock), so a deposit
// reaches its workflow as one signal however many workers run, not one per worker (each extra
// signal costs the workflow another task, and with inline waits a redone first task). The
// origin chain answers the engine after 250 ms, as a distant node does, so a scan takes over a
// second and the two workers' scans (every 200 ms) overlap.
func TestTwoWorkersRouteEachDepositOnce(t *testing.T) {
	s := startStackWith(t, stackOptions{rpc: func(chainID uint64, url string) string {
		if chainID != 31337 {
			return url
		}
		p, err := faultproxy.Start("127.0.0.1:0", faultproxy.Config{Target: url, DelayRate: 1,
			MinDelay: 250 * time.Millisecond, MaxDelay: 250 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Close() })
		return p.URL
	}})
	s.startWorker(t) // a second worker, with a scanner of its own
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	var ids []string
	for i := range 4 {
		acct := devnet.TestAccounts()[i]
		q := s.ethBridge(t, ctx, acct.Address, freshAddress(t), freshAddress(t), "100000000000000000")
		if _, err := (&e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}).ExecuteSteps(ctx, q); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, q.RequestID)
	}
	for _, id := range ids {
		final, seen, err := s.API.WaitStatus(ctx, id, "success", "failure", "refund")
		if err != nil {
			t.Fatal(err)
		}
		if final.Status != "success" {
			t.Fatalf("%s: final %+v (seen %v), want success", id, final, seen)
		}
		if n := s.depositDeliveries(t, ctx, id); n != 1 {
			t.Errorf("%s: its deposit reached its workflow %d times, want once", id, n)
		}
	}
}

// depositDeliveries counts the deposits the request's workflow was given: in its start's input
// (the door's start) and by signal.
func (s *stack) depositDeliveries(t *testing.T, ctx context.Context, requestID string) int {
	t.Helper()
	n := 0
	for _, e := range s.history(t, ctx, requestID) {
		switch e.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
			if startInput(t, e).Deposit != nil {
				n++
			}
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
			if e.GetWorkflowExecutionSignaledEventAttributes().GetSignalName() == workflows.SignalDeposit {
				n++
			}
		}
	}
	return n
}

// startInput is the input an Intent workflow was started with, from its first event.
func startInput(t *testing.T, started *historypb.HistoryEvent) workflows.IntentInput {
	t.Helper()
	var in workflows.IntentInput
	if err := converter.GetDefaultDataConverter().FromPayload(
		started.GetWorkflowExecutionStartedEventAttributes().GetInput().GetPayloads()[0], &in); err != nil {
		t.Fatal(err)
	}
	return in
}
