package integration

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/gorilla/websocket"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"

	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/events"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/testkit/e2e"
	"github.com/intentd/intentd/workflows"
)

// streamSubscribe opens GET /ws on the stack's API and subscribes to requestID; it returns the
// connection after the subscribe's answer.
func streamSubscribe(t *testing.T, s *stack, requestID string) *websocket.Conn {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(s.API.BaseURL, "http")+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	if err := ws.WriteJSON(map[string]any{"type": "subscribe", "event": "request.status.updated",
		"filters": map[string]any{"id": requestID}}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"connection", "subscribe"} {
		if m := streamNext(t, ws, 5*time.Second); m.Type != want || m.Status == "error" {
			t.Fatalf("got %+v, want the %s message", m, want)
		}
	}
	return ws
}

func streamNext(t *testing.T, ws *websocket.Conn, d time.Duration) events.Message {
	t.Helper()
	_ = ws.SetReadDeadline(time.Now().Add(d))
	var m events.Message
	if err := ws.ReadJSON(&m); err != nil {
		t.Fatalf("websocket read: %v", err)
	}
	return m
}

// "subscriber sees every transition of a real intent in order": a websocket subscriber to a
// real ETH bridge receives the current state (waiting) at once, then one message per status
// change the outbox recorded, in the outbox's order, to success with both transactions; a
// subscriber who arrives after the fill gets success at once.
func TestStreamSubscriberSeesEveryTransitionOfARealIntent(t *testing.T) {
	s := startStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	q, wallet := s.streamBridge(t, ctx)
	ws := streamSubscribe(t, s, q.RequestID)
	if m := streamNext(t, ws, 5*time.Second); m.Event != "request.status.updated" || m.Data.Status != "waiting" ||
		m.Data.RequestID != q.RequestID || m.PublishedAt == 0 {
		t.Fatalf("current state after the quote: %+v", m)
	}
	receipt, err := wallet.ExecuteSteps(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if code, err := s.API.Do(ctx, http.MethodPost, "/transactions/index",
		map[string]any{"chainId": 31337, "txHash": receipt.TxHash.Hex()}, nil); err != nil || code != http.StatusOK {
		t.Fatalf("transaction hint: %d %v", code, err)
	}
	var got []string
	var last events.Message
	for last.Data.Status != intent.StatusSuccess {
		last = streamNext(t, ws, 60*time.Second)
		if last.Data.RequestID != q.RequestID {
			t.Fatalf("an event of another request: %+v", last)
		}
		got = append(got, string(last.Data.Status))
	}
	if len(last.Data.InTxHashes) != 1 || len(last.Data.TxHashes) != 1 {
		t.Fatalf("success without both transactions: %+v", last.Data)
	}
	// Every transition the outbox recorded, none more, in its order.
	if want := s.outboxStatuses(t, ctx, q.RequestID); strings.Join(got, ",") != want {
		t.Fatalf("the stream sent %v, the outbox recorded %v", got, want)
	}
	t.Logf("the stream sent %v", got)

	late := streamSubscribe(t, s, q.RequestID)
	start := time.Now()
	if m := streamNext(t, late, 5*time.Second); m.Data.Status != "success" || time.Since(start) > time.Second {
		t.Fatalf("a late subscriber got %+v after %s", m, time.Since(start))
	}
}

// A deposit reaches its workflow once however many routers deliver it: a client's hint, then
// the deposit scanner, then the hint again while the run is under way. A signal in the middle of
// a run made the server refuse to complete the run's workflow task, and the run was done again
// from its start: its transitions were written a second time, so the stream and the webhooks
// told a client waiting, pending, submitted and success again after its success.
func TestADepositDeliveredAgainMidRunIsNotSignalledAgain(t *testing.T) {
	s := startStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	q, _, receipt := s.sendBridge(t, ctx)
	hint := func() {
		t.Helper()
		if err := s.hint(ctx, receipt.TxHash); err != nil {
			t.Fatal(err)
		}
	}
	hint()
	// Once the workflow holds the deposit, its run is under way (attestation, fill, inclusion).
	s.awaitDepositHeld(t, ctx, q.RequestID)
	held := time.Now()
	hint()
	s.awaitWorkflowEnd(t, ctx, q.RequestID)
	// No signal after the workflow held its deposit: neither the second hint nor the scanner.
	var late int
	for _, ev := range s.history(t, ctx, q.RequestID) {
		if ev.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED && ev.GetEventTime().AsTime().After(held) {
			late++
		}
	}
	if got := s.outboxStatuses(t, ctx, q.RequestID); got != "waiting,pending,submitted,success" || late != 0 {
		t.Fatalf("the outbox recorded %s and the workflow got %d signals after it held its deposit; want each status once and none", got, late)
	}
}

// A deposit starts its request's workflow with the deposit in the input, eagerly: the server
// answers the start with the first workflow task, which this process's worker runs at once
// (no trip through matching, no signal). A second router's delivery of the same deposit finds
// the workflow started with it and signals nothing. The run is the same: each status told once.
func TestADepositStartsItsWorkflowEagerlyWithTheDepositInItsInput(t *testing.T) {
	s := startStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	q, _, receipt := s.sendBridge(t, ctx)
	// Three routers at once: two hints (as a client's SDK sends) and the scanner. The first
	// starts the workflow; the others find it started with their deposit and signal nothing.
	var hints sync.WaitGroup
	for range 2 {
		hints.Go(func() {
			if err := s.hint(ctx, receipt.TxHash); err != nil {
				t.Error(err)
			}
		})
	}
	hints.Wait()
	s.awaitDepositHeld(t, ctx, q.RequestID)
	s.awaitWorkflowEnd(t, ctx, q.RequestID)
	evs := s.history(t, ctx, q.RequestID)
	started := evs[0].GetWorkflowExecutionStartedEventAttributes()
	if !started.GetEagerExecutionAccepted() {
		t.Fatal("the workflow's start was not eager")
	}
	if in := startInput(t, evs[0]); in.Deposit == nil || !strings.EqualFold(in.Deposit.TxHash, receipt.TxHash.Hex()) {
		t.Fatalf("the start's input holds deposit %+v; want the order's deposit", in.Deposit)
	}
	for _, ev := range evs {
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
			t.Fatalf("event %d: a signal %q; the deposit came with the start", ev.GetEventId(),
				ev.GetWorkflowExecutionSignaledEventAttributes().GetSignalName())
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_FAILED:
			t.Fatalf("event %d: the run's workflow task failed (%s)", ev.GetEventId(),
				ev.GetWorkflowTaskFailedEventAttributes().GetCause())
		}
	}
	if got := s.outboxStatuses(t, ctx, q.RequestID); got != "waiting,pending,submitted,success" {
		t.Fatalf("the outbox recorded %s; want each status once", got)
	}
}

// EAGER_START=false (a process that routes deposits but should not run their workflows): the
// workflow still starts with its deposit in the input, but through the task queue, which any
// worker polls.
func TestEagerStartOffLeavesTheStartToTheTaskQueue(t *testing.T) {
	s := startStackWith(t, stackOptions{env: map[string]string{"EAGER_START": "false"}})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	q, _, _ := s.sendBridge(t, ctx)
	s.awaitDepositHeld(t, ctx, q.RequestID)
	s.awaitWorkflowEnd(t, ctx, q.RequestID)
	evs := s.history(t, ctx, q.RequestID)
	eager, dep := evs[0].GetWorkflowExecutionStartedEventAttributes().GetEagerExecutionAccepted(), startInput(t, evs[0]).Deposit
	if eager || dep == nil {
		t.Fatalf("start: eager %v, deposit in the input %+v; want a start through the task queue with the deposit", eager, dep)
	}
	if got := s.outboxStatuses(t, ctx, q.RequestID); got != "waiting,pending,submitted,success" {
		t.Fatalf("the outbox recorded %s; want each status once", got)
	}
}

// An extra deposit for an order whose run is under way is signalled to it (the workflow refunds
// it as a request of its own), so the run's workflow task is done again from its start; its
// transitions, written again, change nothing: the client is told each status once.
func TestARunDoneAgainTellsEachStatusOnce(t *testing.T) {
	s := startStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	q, wallet, _ := s.sendBridge(t, ctx)
	s.awaitDepositHeld(t, ctx, q.RequestID)
	// The same deposit again: a second Deposit event for the order, in a transaction of its own.
	if _, err := wallet.ExecuteSteps(ctx, q); err != nil {
		t.Fatal(err)
	}
	s.awaitWorkflowEnd(t, ctx, q.RequestID)
	var redone int
	for _, ev := range s.history(t, ctx, q.RequestID) {
		if ev.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_TASK_FAILED {
			redone++
		}
	}
	t.Logf("workflow tasks done again: %d", redone)
	if got := s.outboxStatuses(t, ctx, q.RequestID); got != "waiting,pending,submitted,success" {
		t.Fatalf("the outbox recorded %s; want each status once", got)
	}
}

// hint reports a deposit's transaction on chain 31337 as a client's SDK does
// (POST /transactions/index).
func (s *stack) hint(ctx context.Context, tx common.Hash) error {
	code, err := s.API.Do(ctx, http.MethodPost, "/transactions/index", map[string]any{"chainId": 31337, "txHash": tx.Hex()}, nil)
	if err == nil && code != http.StatusOK {
		err = fmt.Errorf("status %d", code)
	}
	if err != nil {
		return fmt.Errorf("transaction hint: %w", err)
	}
	return nil
}

// streamBridge quotes an ETH bridge 31337 -> 31338 for the devnet's test account 6 and returns
// the quote with the account's wallet.
func (s *stack) streamBridge(t *testing.T, ctx context.Context) (*quote.Response, *e2e.Wallet) {
	t.Helper()
	acct := devnet.TestAccounts()[6]
	q, err := s.API.Quote(ctx, map[string]any{"user": acct.Address.Hex(), "originChainId": 31337, "destinationChainId": 31338,
		"originCurrency": common.Address{}.Hex(), "destinationCurrency": common.Address{}.Hex(),
		"amount": "100000000000000000", "tradeType": "EXACT_INPUT"})
	if err != nil {
		t.Fatal(err)
	}
	return q, &e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}
}

// sendBridge quotes streamBridge and sends its deposit; it returns the quote, the wallet and the
// deposit's receipt.
func (s *stack) sendBridge(t *testing.T, ctx context.Context) (*quote.Response, *e2e.Wallet, *types.Receipt) {
	t.Helper()
	q, wallet := s.streamBridge(t, ctx)
	receipt, err := wallet.ExecuteSteps(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	return q, wallet, receipt
}

// awaitWorkflowEnd waits until the request's workflow has closed, successfully.
func (s *stack) awaitWorkflowEnd(t *testing.T, ctx context.Context, requestID string) {
	t.Helper()
	if err := s.Sys.Temporal.GetWorkflow(ctx, workflows.IntentWorkflowID(requestID), "").Get(ctx, nil); err != nil {
		t.Fatal(err)
	}
}

// awaitDepositHeld waits until the request's workflow has recorded its deposit in the read model.
func (s *stack) awaitDepositHeld(t *testing.T, ctx context.Context, requestID string) {
	t.Helper()
	for {
		var n int
		if err := s.Sys.Pool.QueryRow(ctx, `SELECT count(*) FROM request_transactions WHERE request_id = $1 AND direction = 'in'`,
			requestID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatal("the workflow never took the deposit")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// history returns the events of the request's workflow.
func (s *stack) history(t *testing.T, ctx context.Context, requestID string) []*historypb.HistoryEvent {
	t.Helper()
	var out []*historypb.HistoryEvent
	it := s.Sys.Temporal.GetWorkflowHistory(ctx, workflows.IntentWorkflowID(requestID), "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}

// outboxStatuses are the statuses of the request's events in the outbox, in its order.
func (s *stack) outboxStatuses(t *testing.T, ctx context.Context, requestID string) string {
	t.Helper()
	rows, err := s.Sys.Pool.Query(ctx, `SELECT payload->>'status' FROM outbox WHERE request_id = $1 ORDER BY id`, requestID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var statuses []string
	for rows.Next() {
		var st string
		if err := rows.Scan(&st); err != nil {
			t.Fatal(err)
		}
		statuses = append(statuses, st)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(statuses, ",")
}
