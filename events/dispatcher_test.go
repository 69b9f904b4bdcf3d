package events_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/events"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

var operator = store.Actor{Name: "test", Via: store.ViaCLI}

// hookRig is a database with integrators' keys and their webhooks, and requests whose transitions
// write the outbox as the engine's workflows do.
type hookRig struct {
	t      *testing.T
	pool   *pgxpool.Pool
	st     *store.Store
	sealer *events.Sealer
	admin  *events.Admin
	integ  string
	next   int
}

func newHookRig(t *testing.T) *hookRig {
	t.Helper()
	pool := testenv.Pool(t)
	key, _ := hex.DecodeString("00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff")
	sealer, err := events.NewSealer(key)
	if err != nil {
		t.Fatal(err)
	}
	st := store.New(pool)
	in, err := st.CreateIntegrator(context.Background(), auth.Integrator{Name: "acme"}, operator)
	if err != nil {
		t.Fatal(err)
	}
	return &hookRig{t: t, pool: pool, st: st, sealer: sealer, integ: in.ID,
		admin: &events.Admin{Store: st, Sealer: sealer, Policy: events.URLPolicy{AllowPrivate: true}}}
}

// key makes an API key with a webhook to url and returns its id and signing secret.
func (r *hookRig) key(url string) (string, string) {
	r.t.Helper()
	ctx := context.Background()
	_, k, err := r.st.CreateAPIKey(ctx, store.NewKey{IntegratorID: r.integ, Label: "k"}, operator)
	if err != nil {
		r.t.Fatal(err)
	}
	_, secret, err := r.admin.Set(ctx, r.integ, k.ID, events.Settings{URL: &url}, operator)
	if err != nil || secret == "" {
		r.t.Fatalf("webhook: %q %v", secret, err)
	}
	return k.ID, secret
}

// request makes a request quoted with keyID ("" for none).
func (r *hookRig) request(keyID string) string {
	r.t.Helper()
	r.next++
	id := fmt.Sprintf("0x%064x", r.next)
	var key any
	if keyID != "" {
		key = keyID
	}
	if _, err := r.pool.Exec(context.Background(), `INSERT INTO requests (id, status, "user", recipient, origin_chain_id,
		destination_chain_id, order_id, record, api_key_id) VALUES ($1, 'waiting', '0xu', '0xr', 31337, 31338, $1, '{}', $2)`,
		id, key); err != nil {
		r.t.Fatal(err)
	}
	return id
}

// statuses is the order a request moves through in these tests.
var statuses = []intent.Status{intent.StatusPending, intent.StatusSubmitted, intent.StatusSuccess}

// transition writes the request's version v (its status statuses[v-1]).
func (r *hookRig) transition(id string, v int) {
	r.t.Helper()
	if _, err := r.st.ApplyTransition(context.Background(), intent.Transition{RequestID: id, Version: int64(v),
		Status: statuses[v-1], At: time.Now()}); err != nil {
		r.t.Fatal(err)
	}
}

func (r *hookRig) dispatcher(tune func(*events.Options)) *events.Dispatcher {
	o := events.Options{Poll: 50 * time.Millisecond, RetryInitial: 100 * time.Millisecond, RetryMax: 200 * time.Millisecond,
		Timeout: 2 * time.Second, LeaseMargin: time.Second}
	if tune != nil {
		tune(&o)
	}
	return &events.Dispatcher{Store: r.st, Sealer: r.sealer, Policy: events.URLPolicy{AllowPrivate: true}, Opts: o,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
}

func run(t *testing.T, d *events.Dispatcher) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = d.Run(ctx) }()
	stop = func() { cancel(); <-done }
	t.Cleanup(stop)
	return stop
}

// received is one delivery as a receiver saw it.
type received struct {
	Event     string `json:"event"`
	Timestamp int64  `json:"timestamp"`
	Data      struct {
		Status    intent.Status `json:"status"`
		RequestID string        `json:"requestId"`
	} `json:"data"`
	delivery string
}

// receiver is a webhook endpoint that verifies every delivery's signature with secret (set
// once the webhook exists) and records the deliveries; answer decides its status code.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	secret string
	got    []received
	bad    []string
	answer func(n int, r received) int
	calls  atomic.Int32
}

func newReceiver(t *testing.T, answer func(n int, r received) int) *receiver {
	rc := &receiver{answer: answer}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		n := int(rc.calls.Add(1))
		body, _ := io.ReadAll(req.Body)
		ts, _ := strconv.ParseInt(req.Header.Get(events.HeaderTimestamp), 10, 64)
		var got received
		_ = json.Unmarshal(body, &got)
		got.delivery = req.Header.Get(events.HeaderDelivery)
		rc.mu.Lock()
		if !events.Verify(rc.secret, ts, body, req.Header.Get(events.HeaderSignature)) {
			rc.bad = append(rc.bad, string(body))
		}
		rc.mu.Unlock()
		code := http.StatusOK
		if rc.answer != nil {
			code = rc.answer(n, got)
		}
		if code == http.StatusOK {
			rc.mu.Lock()
			rc.got = append(rc.got, got)
			rc.mu.Unlock()
		}
		w.WriteHeader(code)
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) setSecret(s string) { rc.mu.Lock(); rc.secret = s; rc.mu.Unlock() }

// byRequest is each request's statuses in the order they were received.
func (rc *receiver) byRequest() map[string][]intent.Status {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := map[string][]intent.Status{}
	for _, g := range rc.got {
		out[g.Data.RequestID] = append(out[g.Data.RequestID], g.Data.Status)
	}
	return out
}

func (rc *receiver) count() int { rc.mu.Lock(); defer rc.mu.Unlock(); return len(rc.got) }

func waitFor(t *testing.T, what string, d time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Issue 15, "delivery that loses nothing": every status change of a key's requests reaches its
// webhook, signed (X-Signature-SHA256 = hex HMAC-SHA256 of timestamp + "." + body under the
// webhook's secret), in order per request, while transitions of many requests are written at
// once; requests of other keys or of none are not sent to it.
func TestWebhookGetsEveryTransitionSignedAndInOrderPerRequest(t *testing.T) {
	r := newHookRig(t)
	rc := newReceiver(t, nil)
	keyID, secret := r.key(rc.URL)
	rc.setSecret(secret)
	other := newReceiver(t, nil)
	otherKey, otherSecret := r.key(other.URL)
	other.setSecret(otherSecret)
	run(t, r.dispatcher(nil))

	var mine, theirs []string
	for range 20 {
		mine = append(mine, r.request(keyID))
	}
	theirs = append(theirs, r.request(otherKey), r.request(""))
	var wg sync.WaitGroup
	for _, id := range append(append([]string{}, mine...), theirs...) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := 1; v <= len(statuses); v++ {
				r.transition(id, v)
			}
		}()
	}
	wg.Wait()
	waitFor(t, "every event", 20*time.Second, func() bool { return rc.count() >= len(mine)*len(statuses) })
	got := rc.byRequest()
	for _, id := range mine {
		if fmt.Sprint(got[id]) != fmt.Sprint(statuses) {
			t.Errorf("request %s: received %v, want %v in that order", id, got[id], statuses)
		}
	}
	if len(got) != len(mine) {
		t.Errorf("the webhook received events of %d requests, want only its key's %d", len(got), len(mine))
	}
	if len(rc.bad) > 0 {
		t.Errorf("%d deliveries failed signature verification, e.g. %s", len(rc.bad), rc.bad[0])
	}
	waitFor(t, "the other key's events", 10*time.Second, func() bool { return other.count() == len(statuses) })
}

// The body is compact JSON in the documented field order, exactly as signed: what a receiver
// gets from JSON.stringify(JSON.parse(body)).
func TestWebhookBodyIsCompactJSONInWireOrder(t *testing.T) {
	ev := intent.NewStatusEvent("0xabc", intent.StatusRefund, intent.FailReason("DOUBLE_SPEND"), "", []string{"0xin"}, nil,
		1774993296121, 8453, 42161)
	ref := "a&b<c>"
	ev.Referrer = &ref
	body, err := events.WebhookBody(store.OutboxEvent{Event: ev})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"event":"request.status.updated","timestamp":1774993296121,"data":{"status":"refund","inTxHashes":["0xin"],` +
		`"txHashes":[],"updatedAt":1774993296121,"originChainId":8453,"destinationChainId":42161,"depositAddress":null,` +
		`"requestId":"0xabc","referrer":"a&b<c>","details":null,"failReason":"DOUBLE_SPEND","refundFailReason":"N/A"}}`
	if string(body) != want {
		t.Fatalf("body\n%s\nwant\n%s", body, want)
	}
}

// Issue 15: "a receiver returning 500 then 200 gets the event after retry", and the request's
// next event waits for it (order per request); every attempt is in the delivery log with its
// status code and latency.
func TestReceiverFailingThenSucceedingGetsTheEventAfterRetryAndOrderHolds(t *testing.T) {
	r := newHookRig(t)
	rc := newReceiver(t, func(n int, _ received) int {
		if n <= 2 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	keyID, secret := r.key(rc.URL)
	rc.setSecret(secret)
	id := r.request(keyID)
	r.transition(id, 1)
	r.transition(id, 2)
	run(t, r.dispatcher(nil))
	waitFor(t, "both events", 10*time.Second, func() bool { return rc.count() == 2 })
	if got := rc.byRequest()[id]; fmt.Sprint(got) != "[pending submitted]" {
		t.Fatalf("received %v, want [pending submitted]: the second event must wait for the first", got)
	}
	log, err := r.st.WebhookDeliveries(context.Background(), r.integ, keyID, store.DeliveryFilter{})
	if err != nil {
		t.Fatal(err)
	}
	first := log[len(log)-1]
	if first.State != store.DeliveryDelivered || first.Attempts != 3 || len(first.AttemptLog) != 3 {
		t.Fatalf("first delivery: %+v", first)
	}
	for i, want := range []int{500, 500, 200} {
		if a := first.AttemptLog[i]; a.StatusCode == nil || *a.StatusCode != want {
			t.Fatalf("attempt %d: %+v, want status %d", i+1, a, want)
		}
	}
}

// Up to MaxRetries retries, then the delivery is dead (logged as such) and the request's next
// event goes out.
func TestDeliveryIsDeadAfterItsLastRetryAndTheNextEventGoesOut(t *testing.T) {
	r := newHookRig(t)
	rc := newReceiver(t, func(_ int, got received) int {
		if got.Data.Status == intent.StatusPending {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	})
	keyID, secret := r.key(rc.URL)
	rc.setSecret(secret)
	id := r.request(keyID)
	r.transition(id, 1)
	r.transition(id, 2)
	run(t, r.dispatcher(func(o *events.Options) { o.MaxRetries = 2 }))
	waitFor(t, "the second event", 10*time.Second, func() bool { return rc.count() == 1 })
	if n := rc.calls.Load(); n != 4 {
		t.Fatalf("receiver called %d times, want 3 attempts of the first event and 1 of the second", n)
	}
	// The receiver has the second event; its delivery is recorded just after.
	waitFor(t, "the second delivery recorded", 5*time.Second, func() bool {
		b, _ := r.st.EventBacklog(context.Background())
		return b.Pending == 0
	})
	dead, err := r.st.WebhookDeliveries(context.Background(), r.integ, keyID, store.DeliveryFilter{State: store.DeliveryDead})
	if err != nil || len(dead) != 1 || dead[0].Attempts != 3 || dead[0].NextAttemptAt != nil {
		t.Fatalf("dead deliveries: %+v %v", dead, err)
	}
	b, err := r.st.EventBacklog(context.Background())
	if err != nil || b.Dead != 1 || b.Pending != 0 {
		t.Fatalf("backlog %+v %v", b, err)
	}
}

// Issue 15: "a slow or dead receiver never slows ... other keys' deliveries": one key's
// receiver that hangs until the timeout holds at most PerKey of the dispatcher's slots, and
// another key's events go out meanwhile.
func TestAHangingReceiverDoesNotDelayAnotherKey(t *testing.T) {
	r := newHookRig(t)
	release := make(chan struct{})
	slow := newReceiver(t, func(int, received) int { <-release; return http.StatusOK })
	slowKey, _ := r.key(slow.URL)
	fast := newReceiver(t, nil)
	fastKey, secret := r.key(fast.URL)
	fast.setSecret(secret)
	for range 10 {
		r.transition(r.request(slowKey), 1)
	}
	run(t, r.dispatcher(func(o *events.Options) { o.Workers, o.PerKey, o.Timeout = 4, 2, 30*time.Second }))
	t.Cleanup(func() { close(release) }) // before the dispatcher's stop, which waits for its deliveries
	waitFor(t, "the slow receiver to hold its slots", 5*time.Second, func() bool { return slow.calls.Load() == 2 })
	start := time.Now()
	for range 5 {
		r.transition(r.request(fastKey), 1)
	}
	waitFor(t, "the other key's events", 5*time.Second, func() bool { return fast.count() == 5 })
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("the other key's events took %s behind a hanging receiver", d)
	}
	if n := slow.calls.Load(); n != 2 {
		t.Fatalf("the hanging receiver got %d deliveries at once, want PerKey = 2", n)
	}
}

// Several dispatchers share the work through leases: in the normal case (nobody dies) no
// delivery is sent twice.
func TestTwoDispatchersDeliverEachEventOnce(t *testing.T) {
	r := newHookRig(t)
	rc := newReceiver(t, nil)
	keyID, secret := r.key(rc.URL)
	rc.setSecret(secret)
	run(t, r.dispatcher(func(o *events.Options) { o.PerKey = 8 }))
	run(t, r.dispatcher(func(o *events.Options) { o.PerKey = 8 }))
	for range 40 {
		id := r.request(keyID)
		for v := 1; v <= len(statuses); v++ {
			r.transition(id, v)
		}
	}
	waitFor(t, "every event", 20*time.Second, func() bool { return rc.count() >= 120 })
	time.Sleep(300 * time.Millisecond)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	seen := map[string]bool{}
	for _, g := range rc.got {
		if seen[g.delivery] {
			t.Errorf("delivery %s sent twice", g.delivery)
		}
		seen[g.delivery] = true
	}
	if len(rc.got) != 120 {
		t.Fatalf("%d deliveries, want 120", len(rc.got))
	}
}

// A dispatcher that dies holding deliveries loses none: its leases run out and another
// dispatcher sends them, still in order.
func TestDeliveriesOfADeadDispatcherAreTakenOverWhenTheirLeaseEnds(t *testing.T) {
	r := newHookRig(t)
	rc := newReceiver(t, nil)
	keyID, secret := r.key(rc.URL)
	rc.setSecret(secret)
	id := r.request(keyID)
	r.transition(id, 1)
	r.transition(id, 2)
	ctx := context.Background()
	if _, err := r.st.FanOutEvents(ctx, 100, events.WebhookBody); err != nil {
		t.Fatal(err)
	}
	claimed, err := r.st.ClaimDeliveries(ctx, "dead-dispatcher", 10, 4, time.Second)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claimed %d (want the head of the request only) %v", len(claimed), err)
	}
	start := time.Now()
	run(t, r.dispatcher(nil))
	waitFor(t, "the taken-over deliveries", 10*time.Second, func() bool { return rc.count() == 2 })
	if d := time.Since(start); d < 800*time.Millisecond {
		t.Fatalf("delivered after %s: the dead dispatcher's lease (1 s) was not respected", d)
	}
	if got := rc.byRequest()[id]; fmt.Sprint(got) != "[pending submitted]" {
		t.Fatalf("received %v", got)
	}
}

// Rotating the secret with an overlap: deliveries carry the new secret's signature in
// X-Signature-SHA256 and the previous one's in X-Signature-SHA256-Previous until the overlap
// ends.
func TestRotatedSecretSignsBesideThePreviousOneDuringTheOverlap(t *testing.T) {
	r := newHookRig(t)
	var mu sync.Mutex
	var headers []http.Header
	var bodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		mu.Lock()
		headers, bodies = append(headers, req.Header.Clone()), append(bodies, b)
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	keyID, old := r.key(srv.URL)
	_, fresh, err := r.admin.Rotate(context.Background(), r.integ, keyID, time.Hour, operator)
	if err != nil || fresh == "" || fresh == old {
		t.Fatalf("rotate: %q %v", fresh, err)
	}
	r.transition(r.request(keyID), 1)
	run(t, r.dispatcher(nil))
	waitFor(t, "the delivery", 5*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return len(bodies) == 1 })
	h := headers[0]
	ts, _ := strconv.ParseInt(h.Get(events.HeaderTimestamp), 10, 64)
	if !events.Verify(fresh, ts, bodies[0], h.Get(events.HeaderSignature)) {
		t.Error("X-Signature-SHA256 is not the new secret's")
	}
	if !events.Verify(old, ts, bodies[0], h.Get(events.HeaderSignaturePrevious)) {
		t.Error("X-Signature-SHA256-Previous is not the previous secret's during the overlap")
	}
}

// The address guard holds at delivery too: a webhook whose host now resolves to a private
// address (here: a URL written past the configuration check) is never connected to.
func TestDeliveryNeverConnectsToABlockedAddress(t *testing.T) {
	r := newHookRig(t)
	rc := newReceiver(t, nil)
	keyID, _ := r.key(rc.URL)
	r.transition(r.request(keyID), 1)
	d := r.dispatcher(func(o *events.Options) { o.MaxRetries = 1 })
	d.Policy = events.URLPolicy{} // production: https and public addresses only
	run(t, d)
	waitFor(t, "the delivery to die", 10*time.Second, func() bool {
		b, _ := r.st.EventBacklog(context.Background())
		return b.Dead == 1
	})
	if n := rc.calls.Load(); n != 0 {
		t.Fatalf("the receiver on a loopback address was reached %d times", n)
	}
}

// Manual re-send: one delivery, or everything since a time, queued again in order.
func TestResendOneDeliveryAndEverythingSince(t *testing.T) {
	r := newHookRig(t)
	rc := newReceiver(t, nil)
	keyID, secret := r.key(rc.URL)
	rc.setSecret(secret)
	id := r.request(keyID)
	since := time.Now().Add(-time.Second)
	for v := 1; v <= len(statuses); v++ {
		r.transition(id, v)
	}
	run(t, r.dispatcher(nil))
	waitFor(t, "the events", 10*time.Second, func() bool { return rc.count() == 3 })
	ctx := context.Background()
	log, err := r.st.WebhookDeliveries(ctx, r.integ, keyID, store.DeliveryFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := r.st.ResendDeliveries(ctx, r.integ, keyID, log[0].ID, time.Time{}, operator); err != nil || n != 1 {
		t.Fatalf("resend one: %d %v", n, err)
	}
	waitFor(t, "the re-sent delivery", 10*time.Second, func() bool { return rc.count() == 4 })
	if n, err := r.st.ResendDeliveries(ctx, r.integ, keyID, 0, since, operator); err != nil || n != 3 {
		t.Fatalf("resend since: %d %v (want the three events, not the re-send)", n, err)
	}
	waitFor(t, "the re-sent events", 10*time.Second, func() bool { return rc.count() == 7 })
	if got := rc.byRequest()[id]; fmt.Sprint(got[4:]) != "[pending submitted success]" {
		t.Fatalf("re-sent in order: %v", got)
	}
	if _, err := r.st.ResendDeliveries(ctx, r.integ, keyID, 999999, time.Time{}, operator); err != store.ErrNotFound {
		t.Fatalf("unknown delivery: %v", err)
	}
}

// Fanned-out outbox rows and finished deliveries are pruned once past their retention.
func TestPruningRemovesOnlyWhatIsDoneAndOld(t *testing.T) {
	r := newHookRig(t)
	rc := newReceiver(t, nil)
	keyID, secret := r.key(rc.URL)
	rc.setSecret(secret)
	r.transition(r.request(keyID), 1)
	ctx := context.Background()
	if _, err := r.st.FanOutEvents(ctx, 100, events.WebhookBody); err != nil {
		t.Fatal(err)
	}
	r.transition(r.request(""), 1) // not fanned out yet: kept
	if n, err := r.st.PruneEvents(ctx, time.Now().Add(time.Hour), time.Now().Add(time.Hour), 100); err != nil || n != 1 {
		t.Fatalf("pruned %d %v: want the one fanned-out outbox row (the delivery is pending)", n, err)
	}
	b, err := r.st.EventBacklog(ctx)
	if err != nil || b.Outbox != 1 || b.Pending != 1 {
		t.Fatalf("backlog after prune: %+v %v", b, err)
	}
}
