package integration

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/events"
	"github.com/intentd/intentd/internal/process"
	"github.com/intentd/intentd/testkit"
	"github.com/intentd/intentd/testkit/e2e"
)

// bridge quotes an ETH bridge 31337 → 31338 of 0.1 ETH from test account acct with client c,
// pays it and returns the requestId once the request has ended.
func bridge(t *testing.T, ctx context.Context, s *stack, c *e2e.Client, acct int) string {
	t.Helper()
	a := devnet.TestAccounts()[acct]
	q, err := c.Quote(ctx, map[string]any{"user": a.Address.Hex(), "originChainId": 31337, "destinationChainId": 31338,
		"originCurrency": common.Address{}.Hex(), "destinationCurrency": common.Address{}.Hex(),
		"amount": "100000000000000000", "tradeType": "EXACT_INPUT"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&e2e.Wallet{Key: a.Key, RPCs: s.RPCs}).ExecuteSteps(ctx, q); err != nil {
		t.Fatal(err)
	}
	final, _, err := c.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
	if err != nil || final.Status != "success" {
		t.Fatalf("intent %s: %+v %v", q.RequestID, final, err)
	}
	return q.RequestID
}

// Issue 15, tests: "a real HTTP receiver verifies signatures and order for a full intent". A
// key's webhook, configured through the admin API, receives every status change of an intent
// made with the key, each signed with the webhook's secret, in the order written (quotes emit
// nothing: the first event is the workflow's, on the deposit).
func TestWebhookReceivesEveryStatusOfARealIntentSignedAndInOrder(t *testing.T) {
	s := startStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rcv := testkit.NewWebhookReceiver(t)
	key := s.WebhookKey(t, "webhook-intent", rcv)
	s.StartDispatcher(t, func(o *events.Options) { o.Poll = 100 * time.Millisecond })

	id := bridge(t, ctx, s, &e2e.Client{BaseURL: s.API.BaseURL, APIKey: key}, 3)
	if err := s.WaitWebhooksDrained(ctx, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	check, err := s.CheckWebhooks(ctx, rcv, []string{id})
	if err != nil {
		t.Fatal(err)
	}
	if !check.OK() || check.Events < 3 {
		t.Fatalf("%s %v", check, check.Problems)
	}
	var statuses []string
	for _, d := range rcv.Received() {
		if len(statuses) == 0 || statuses[len(statuses)-1] != d.Status {
			statuses = append(statuses, d.Status)
		}
	}
	// The workflow writes waiting when it starts on the deposit seen (not confirmed yet): an
	// event, unlike the quote's waiting, which is not.
	if got := strings.TrimPrefix(strings.Join(statuses, ","), "waiting,"); got != "pending,submitted,success" {
		t.Fatalf("statuses received %s, want [waiting,]pending,submitted,success", strings.Join(statuses, ","))
	}
	t.Logf("%s", check)
}

// Issue 15, tests: "the dispatcher is killed mid-delivery and nothing is lost". The dispatcher
// runs as `intentd dispatcher`; while deliveries to a slow receiver are in flight it is killed
// with SIGKILL and started again: every event of every intent still arrives, in order (the
// deliveries it held are sent again once their leases end: duplicates, never gaps).
func TestDispatcherKilledMidDeliveryLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds intentd and runs the dispatcher as a process")
	}
	s := startStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	bin, err := process.BuildIntentd(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rcv := testkit.NewWebhookReceiver(t)
	rcv.Delay = func() time.Duration { return 700 * time.Millisecond }
	key := s.WebhookKey(t, "webhook-kill", rcv)
	d := s.StartDispatcherProcess(t, bin, map[string]string{"WEBHOOK_TIMEOUT": "3s", "WEBHOOK_LEASE_MARGIN": "1s",
		"WEBHOOK_RETRY_INITIAL": "200ms", "WEBHOOK_RETRY_MAX": "1s"})

	c := &e2e.Client{BaseURL: s.API.BaseURL, APIKey: key}
	ids := make([]string, 3)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Add(1)
		go func() { defer wg.Done(); ids[i] = bridge(t, ctx, s, c, 4+i) }()
	}
	// Kill it while the receiver is answering a delivery.
	for rcv.Calls() == 0 && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	if err := d.Kill(); err != nil {
		t.Fatal(err)
	}
	killedAt := len(rcv.Received())
	time.Sleep(time.Second)
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if err := s.WaitWebhooksDrained(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	check, err := s.CheckWebhooks(ctx, rcv, ids)
	if err != nil {
		t.Fatal(err)
	}
	if !check.OK() {
		t.Fatalf("%s %v", check, check.Problems)
	}
	t.Logf("killed after %d accepted deliveries; %s", killedAt, check)
}

// A receiver that answers 500 twice gets the event on the third attempt (through the whole
// stack: the retry schedule of the dispatcher's options).
func TestWebhookRetriesAFailingReceiverOnARealIntent(t *testing.T) {
	s := startStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rcv := testkit.NewWebhookReceiver(t)
	rcv.Answer = func(n int) int {
		if n <= 2 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	}
	key := s.WebhookKey(t, "webhook-retry", rcv)
	s.StartDispatcher(t, func(o *events.Options) {
		o.Poll, o.RetryInitial, o.RetryMax = 100*time.Millisecond, 200*time.Millisecond, 400*time.Millisecond
	})
	id := bridge(t, ctx, s, &e2e.Client{BaseURL: s.API.BaseURL, APIKey: key}, 7)
	if err := s.WaitWebhooksDrained(ctx, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	check, err := s.CheckWebhooks(ctx, rcv, []string{id})
	if err != nil || !check.OK() {
		t.Fatalf("%s %v %v", check, check.Problems, err)
	}
	if rcv.Calls() != check.Received+2 {
		t.Fatalf("%d calls for %d accepted deliveries: want the two refused first attempts on top", rcv.Calls(), check.Received)
	}
}
