package integration

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/e2e"
	"github.com/intentd/intentd/testkit/faultproxy"
	"github.com/intentd/intentd/workflows"
)

// waitMargin is what a wait may take beyond one block time to notice the block that ends it
// and report: the head watcher's poll, the oracle's or the node's answer, the completion's
// round trip to Temporal, on a busy machine.
const waitMargin = 150 * time.Millisecond

// A wait ends within one block of the block that ends it, however long it has lasted: the
// attestation within one block time of the block that gives the deposit its confirmations,
// the fill's wait within one block time of the block that mines it (the block's fills' window
// included: the fill's wait reads the block's receipts three tenths of a block time after it,
// chains.DeferredHeads, and a stalled chain does not stretch that). Both chains are paused so
// that the test seals the ending block itself, after each wait has gone on for waitFor (long
// enough for a retry backoff to have grown to seconds), and knows when it was sealed. The
// moment each wait ended is its activity's completion in the workflow's history.
func TestWaitsEndWithinOneBlockOfTheirBlock(t *testing.T) {
	const waitFor = 8 * time.Second
	s := startStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	origin, dest := s.Devnet.Chain(31337), s.Devnet.Chain(31338)
	t.Cleanup(origin.Resume)
	t.Cleanup(dest.Resume)
	acct := devnet.TestAccounts()[6]
	wallet := &e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}
	q := s.ethBridge(t, ctx, acct.Address, freshAddress(t), freshAddress(t), "200000000000000000")
	cl, err := origin.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()

	dest.Pause()
	origin.Pause()
	deposit := depositInOneBlock(t, ctx, origin, cl, wallet, q)
	s.awaitPendingActivity(t, ctx, q.RequestID, "AttestDeposit")
	sleep(t, ctx, waitFor)
	// The moment a block is sealed is taken just before Mine, which returns once the block is
	// the head (and may return after a wait has already seen it): a bound on the block's age.
	confirmedAt := time.Now()
	confirmed := origin.Mine() // block deposit+1: the deposit's second confirmation
	t.Logf("deposit in block %d; block %s sealed after %s of waiting", deposit.BlockNumber, confirmed.Hex(), waitFor)

	fills := s.waitAttempts(t, ctx, q.RequestID, func(a []store.SolverTx) bool { return len(a) > 0 })
	s.awaitPendingActivity(t, ctx, q.RequestID, "AwaitTx")
	sleep(t, ctx, waitFor)
	dcl, err := dest.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer dcl.Close()
	minedAt := time.Now()
	mined := dest.Mine()
	r, err := dcl.TransactionReceipt(ctx, common.HexToHash(fills[0].Hash))
	if err != nil || r.BlockHash != mined {
		t.Fatalf("the fill %s is not in the block sealed (%s): receipt %+v, %v", fills[0].Hash, mined.Hex(), r, err)
	}

	final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
	if err != nil {
		t.Fatal(err)
	}
	if final.Status != "success" {
		t.Fatalf("final %+v (seen %v), want success", final, seen)
	}
	done := s.activityCompletions(t, ctx, q.RequestID)
	bound := stackBlockTime + waitMargin
	for _, w := range []struct {
		activity string
		block    time.Time
	}{{"AttestDeposit", confirmedAt}, {"AwaitTx", minedAt}} {
		end, ok := done[w.activity]
		if !ok {
			t.Fatalf("no completed %s in the history", w.activity)
		}
		after := end.Sub(w.block)
		t.Logf("%s completed %s after the block that ended its wait (bound %s)", w.activity, after.Round(time.Millisecond), bound)
		if after > bound {
			t.Errorf("%s completed %s after the block that ended its wait: more than one block time (%s) + %s",
				w.activity, after.Round(time.Millisecond), stackBlockTime, waitMargin)
		}
	}
}

// awaitPendingActivity waits until the request's workflow has the activity pending (scheduled
// or running).
func (s *stack) awaitPendingActivity(t *testing.T, ctx context.Context, requestID, activity string) {
	t.Helper()
	for {
		desc, err := s.Sys.Temporal.DescribeWorkflowExecution(ctx, workflows.IntentWorkflowID(requestID), "")
		if err == nil {
			for _, pa := range desc.GetPendingActivities() {
				if pa.GetActivityType().GetName() == activity {
					return
				}
			}
		}
		sleep(t, ctx, 50*time.Millisecond)
	}
}

// activityCompletions returns when each activity type of the request's workflow last
// completed, from its history.
func (s *stack) activityCompletions(t *testing.T, ctx context.Context, requestID string) map[string]time.Time {
	t.Helper()
	types := map[int64]string{}
	out := map[string]time.Time{}
	it := s.Sys.Temporal.GetWorkflowHistory(ctx, workflows.IntentWorkflowID(requestID), "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		switch e.GetEventType() {
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			types[e.GetEventId()] = e.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName()
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
			name := types[e.GetActivityTaskCompletedEventAttributes().GetScheduledEventId()]
			out[strings.TrimSpace(name)] = e.GetEventTime().AsTime()
		}
	}
	return out
}

// A worker that stops during a wait (a deploy) hands the wait over: the wait returns at once
// with a benign error (DEBUG), Temporal retries it on the next worker without waiting for its
// heartbeat timeout, and nothing in the stack logs at WARN or above.
func TestWaitIsHandedOverWhenTheWorkerStops(t *testing.T) {
	logs := newLogCapture()
	s := startStackWith(t, stackOptions{logger: slog.New(logs)})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	origin := s.Devnet.Chain(31337)
	t.Cleanup(origin.Resume)
	acct := devnet.TestAccounts()[7]
	q := s.ethBridge(t, ctx, acct.Address, freshAddress(t), freshAddress(t), "200000000000000000")
	cl, err := origin.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	origin.Pause()
	depositInOneBlock(t, ctx, origin, cl, &e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}, q)
	s.awaitPendingActivity(t, ctx, q.RequestID, "AttestDeposit")
	sleep(t, ctx, time.Second) // a heartbeat batch is open
	stopped := time.Now()
	s.stopWorker()
	t.Logf("worker stopped in %s", time.Since(stopped).Round(time.Millisecond))
	s.startWorker(t)
	origin.Resume()
	final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
	if err != nil {
		t.Fatal(err)
	}
	if final.Status != "success" {
		t.Fatalf("final %+v (seen %v), want success", final, seen)
	}
	took := time.Since(stopped)
	t.Logf("success %s after the worker stopped", took.Round(time.Millisecond))
	for _, r := range logs.snapshot() {
		if r.Level >= slog.LevelWarn {
			t.Errorf("logged at %s: %s", r.Level, r)
		}
	}
	if attempt := s.activityAttempt(t, ctx, q.RequestID, "AttestDeposit"); attempt != 2 {
		t.Errorf("AttestDeposit completed in attempt %d, want 2: the stopped worker's, then the new one's", attempt)
	}
	if took > 10*time.Second {
		t.Errorf("the wait went on %s after the stop: it was not handed over, but left to its heartbeat timeout", took)
	}
}

// activityAttempt returns the attempt in which the request's activity of that type last
// started.
func (s *stack) activityAttempt(t *testing.T, ctx context.Context, requestID, activity string) int32 {
	t.Helper()
	types := map[int64]string{}
	var attempt int32
	it := s.Sys.Temporal.GetWorkflowHistory(ctx, workflows.IntentWorkflowID(requestID), "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		switch e.GetEventType() {
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			types[e.GetEventId()] = e.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName()
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
			a := e.GetActivityTaskStartedEventAttributes()
			if types[a.GetScheduledEventId()] == activity {
				attempt = a.GetAttempt()
			}
		}
	}
	return attempt
}

// A fill is broadcast once while it waits for its block: SubmitFill sends it, and the wait
// for inclusion sends the latest attempt again only once it has waited rebroadcastEvery (5 s:
// a node may have dropped it from its pool), never on its first look right after the
// broadcast. The destination chain is held for 3 s after the fill is signed, so the wait looks
// several times before the fill can be mined; every request the engine sends to that chain
// goes through a proxy that counts them by method.
func TestAFillIsBroadcastOnceWhileItWaitsForItsBlock(t *testing.T) {
	var (
		mu      sync.Mutex
		proxies []*faultproxy.Server
	)
	s := startStackWith(t, stackOptions{rpc: func(chainID uint64, url string) string {
		if chainID != 31338 {
			return url
		}
		p, err := faultproxy.Start("127.0.0.1:0", faultproxy.Config{Target: url})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Close() })
		mu.Lock()
		proxies = append(proxies, p)
		mu.Unlock()
		return p.URL
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	dest := s.Devnet.Chain(31338)
	t.Cleanup(dest.Resume)
	acct := devnet.TestAccounts()[7]
	wallet := &e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}
	q := s.ethBridge(t, ctx, acct.Address, freshAddress(t), freshAddress(t), "100000000000000000")

	dest.Pause()
	if _, err := wallet.ExecuteSteps(ctx, q); err != nil {
		t.Fatal(err)
	}
	s.waitAttempts(t, ctx, q.RequestID, func(a []store.SolverTx) bool { return len(a) > 0 })
	sleep(t, ctx, 3*time.Second)
	dest.Resume()
	final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
	if err != nil {
		t.Fatal(err)
	}
	if final.Status != "success" {
		t.Fatalf("final %+v (seen %v), want success", final, seen)
	}
	var sends, receipts int64
	for _, p := range proxies {
		st := p.Proxy.Stats()
		sends += st.ByMethod["eth_sendRawTransaction"]
		receipts += st.ByMethod["eth_getTransactionReceipt"]
	}
	t.Logf("destination chain: %d eth_sendRawTransaction, %d eth_getTransactionReceipt", sends, receipts)
	if sends != 1 {
		t.Errorf("the fill was sent to the node %d times while it waited 3 s for its block, want once", sends)
	}
}
