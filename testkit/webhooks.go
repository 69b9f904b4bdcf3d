package testkit

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/events"
	"github.com/intentd/intentd/store"
)

// WebhookDelivery is one delivery as a WebhookReceiver saw it.
type WebhookDelivery struct {
	RequestID  string
	EventID    int64
	DeliveryID string
	Status     string
	Signed     bool // X-Signature-SHA256 verified with the webhook's secret
	At         time.Time
}

// WebhookReceiver is a webhook endpoint on loopback that verifies every delivery's signature
// and records the deliveries it accepts, in arrival order. Answer, when set, decides the status
// code of the n-th call (from 1); a receiver that fails a delivery does not record it.
type WebhookReceiver struct {
	URL    string
	Answer func(n int) int
	// Delay, when set, is waited before answering each call.
	Delay func() time.Duration

	mu     sync.Mutex
	secret string
	calls  int
	got    []WebhookDelivery
}

// NewWebhookReceiver starts a receiver; it stops when the test ends.
func NewWebhookReceiver(t testing.TB) *WebhookReceiver {
	r := &WebhookReceiver{}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.URL = srv.URL + "/hooks"
	return r
}

func (r *WebhookReceiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	var ev struct {
		Data struct {
			RequestID string `json:"requestId"`
			Status    string `json:"status"`
		} `json:"data"`
	}
	_ = json.Unmarshal(body, &ev)
	ts, _ := strconv.ParseInt(req.Header.Get(events.HeaderTimestamp), 10, 64)
	id, _ := strconv.ParseInt(req.Header.Get(events.HeaderEventID), 10, 64)
	r.mu.Lock()
	r.calls++
	n, secret := r.calls, r.secret
	r.mu.Unlock()
	if r.Delay != nil {
		time.Sleep(r.Delay())
	}
	code := http.StatusOK
	if r.Answer != nil {
		code = r.Answer(n)
	}
	if code/100 == 2 {
		r.mu.Lock()
		r.got = append(r.got, WebhookDelivery{RequestID: ev.Data.RequestID, EventID: id, Status: ev.Data.Status,
			DeliveryID: req.Header.Get(events.HeaderDelivery), At: time.Now(),
			Signed: events.Verify(secret, ts, body, req.Header.Get(events.HeaderSignature))})
		r.mu.Unlock()
	}
	w.WriteHeader(code)
}

// Received is what the receiver accepted so far, in arrival order.
func (r *WebhookReceiver) Received() []WebhookDelivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]WebhookDelivery(nil), r.got...)
}

// Calls is how many deliveries reached the receiver, accepted or not.
func (r *WebhookReceiver) Calls() int { r.mu.Lock(); defer r.mu.Unlock(); return r.calls }

// WebhookKey makes an integrator named name with an API key (exempt from rate limits, as a
// test's client polls hard) whose webhook posts to rcv, and returns the key's value.
func (s *Stack) WebhookKey(t testing.TB, name string, rcv *WebhookReceiver) string {
	t.Helper()
	ctx := context.Background()
	by := store.Actor{Name: "test", Via: store.ViaCLI}
	in, err := s.Sys.Store.CreateIntegrator(ctx, auth.Integrator{Name: name}, by)
	if err != nil {
		t.Fatal(err)
	}
	value, k, err := s.Sys.Store.CreateAPIKey(ctx, store.NewKey{IntegratorID: in.ID, Label: name, Unlimited: true}, by)
	if err != nil {
		t.Fatal(err)
	}
	admin := &events.Admin{Store: s.Sys.Store, Sealer: s.Sys.Config.Sealer(), Policy: s.Sys.Config.WebhookPolicy()}
	_, secret, err := admin.Set(ctx, in.ID, k.ID, events.Settings{URL: &rcv.URL}, by)
	if err != nil {
		t.Fatal(err)
	}
	rcv.mu.Lock()
	rcv.secret = secret
	rcv.mu.Unlock()
	return value
}

// WebhookCheck is how a receiver's deliveries compare with the events the requests wrote.
type WebhookCheck struct {
	Requests, Events, Received int
	Duplicates                 int // deliveries of an event already received (allowed: at least once)
	Missing                    int // events never received
	OutOfOrder                 int // events first received after a later event of their request
	WrongContent               int // a received status that is not its event's
	BadSignatures              int
	Problems                   []string
}

// OK reports whether every event was received, in order, signed and as written.
func (c WebhookCheck) OK() bool {
	return c.Missing == 0 && c.OutOfOrder == 0 && c.WrongContent == 0 && c.BadSignatures == 0
}

func (c WebhookCheck) String() string {
	return fmt.Sprintf("webhook_requests=%d webhook_events=%d webhook_received=%d webhook_duplicates=%d webhook_missing=%d "+
		"webhook_out_of_order=%d webhook_wrong_content=%d webhook_bad_signatures=%d",
		c.Requests, c.Events, c.Received, c.Duplicates, c.Missing, c.OutOfOrder, c.WrongContent, c.BadSignatures)
}

// CheckWebhooks compares, for each of the requests, the events of the outbox (every status
// change, in the order written) with what rcv received: every event there, first received in
// order, with its status and a valid signature; duplicates are counted, not faulted.
func (s *Stack) CheckWebhooks(ctx context.Context, rcv *WebhookReceiver, requestIDs []string) (WebhookCheck, error) {
	c := WebhookCheck{Requests: len(requestIDs)}
	want := map[string][]int64{}
	status := map[int64]string{}
	rows, err := s.Sys.Pool.Query(ctx, `SELECT id, request_id, payload->>'status' FROM outbox WHERE request_id = ANY($1) ORDER BY id`,
		requestIDs)
	if err != nil {
		return c, err
	}
	for rows.Next() {
		var id int64
		var req, st string
		if err := rows.Scan(&id, &req, &st); err != nil {
			rows.Close()
			return c, err
		}
		want[req] = append(want[req], id)
		status[id] = st
		c.Events++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return c, err
	}
	got := map[string][]WebhookDelivery{}
	for _, d := range rcv.Received() {
		got[d.RequestID] = append(got[d.RequestID], d)
	}
	for _, req := range requestIDs {
		seen := map[int64]bool{}
		var last int64
		for _, d := range got[req] {
			c.Received++
			if !d.Signed {
				c.BadSignatures++
			}
			if st, ok := status[d.EventID]; !ok || st != d.Status {
				c.WrongContent++
				c.Problems = append(c.Problems, fmt.Sprintf("%s: event %d received as %q, written as %q", req, d.EventID, d.Status, st))
			}
			if seen[d.EventID] {
				c.Duplicates++
				continue
			}
			seen[d.EventID] = true
			if d.EventID < last {
				c.OutOfOrder++
				c.Problems = append(c.Problems, fmt.Sprintf("%s: event %d received after event %d", req, d.EventID, last))
			}
			last = max(last, d.EventID)
		}
		for _, id := range want[req] {
			if !seen[id] {
				c.Missing++
				c.Problems = append(c.Problems, fmt.Sprintf("%s: event %d (%s) never received", req, id, status[id]))
			}
		}
	}
	return c, nil
}

// WaitWebhooksDrained waits until the outbox is fanned out and no delivery is pending (dead ones
// count as done), or until timeout.
func (s *Stack) WaitWebhooksDrained(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		b, err := s.Sys.Store.EventBacklog(ctx)
		if err == nil && b.Outbox == 0 && b.Pending == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("webhook backlog not drained after %s: %+v %v", timeout, b, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
