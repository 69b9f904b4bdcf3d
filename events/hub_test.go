package events_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/events"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// rig is a hub on a fresh database, served on loopback as the API serves it.
type rig struct {
	pool *pgxpool.Pool
	st   *store.Store
	hub  *events.Hub
	url  string
	// shrink, when set, makes each accepted connection's socket buffers small, so a client
	// that does not read fills them after a few messages.
	shrink atomic.Bool
}

func newRig(t *testing.T, pool *pgxpool.Pool, o events.HubOptions) *rig {
	t.Helper()
	if pool == nil {
		pool = testenv.Pool(t)
	}
	r := &rig{pool: pool, st: store.New(pool)}
	r.hub = events.NewHub(r.st, o)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.hub.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	up := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		shrink := r.shrink.Load()
		client := events.Client{IP: "127.0.0.1", KeyID: req.URL.Query().Get("key")}
		release, err := r.hub.Admit(req.Context(), client)
		if err != nil {
			http.Error(w, err.Error(), http.StatusTooManyRequests)
			return
		}
		ws, err := up.Upgrade(w, req, nil)
		if err != nil {
			release()
			return
		}
		if shrink {
			_ = ws.NetConn().(*net.TCPConn).SetWriteBuffer(1024)
		}
		go r.hub.Serve(ws, client, release)
	}))
	t.Cleanup(srv.Close)
	r.url = "ws" + strings.TrimPrefix(srv.URL, "http")
	r.waitListening(t)
	return r
}

// waitListening waits until the hub's listener is in place (it caught up once).
func (r *rig) waitListening(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for r.hub.Stats().CatchUps.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the hub's listener did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // the LISTEN is in place before the catch-up ends
}

var requestSeq atomic.Int64

// newRequest stores a quoted request (status waiting) and returns its id.
func (r *rig) newRequest(t *testing.T, keyID string) string {
	t.Helper()
	n := requestSeq.Add(1)
	id := fmt.Sprintf("0x%064x", time.Now().UnixNano()+n)
	var key any
	if keyID != "" {
		key = keyID
	}
	if _, err := r.pool.Exec(context.Background(), `INSERT INTO requests (id, status, "user", recipient, origin_chain_id,
		destination_chain_id, order_id, record, api_key_id) VALUES ($1, 'waiting', '0xu', '0xr', 31337, 31338, $1, '{}', $2)`,
		id, key); err != nil {
		t.Fatal(err)
	}
	return id
}

// lifecycle is the statuses a request goes through after its quote, in order.
var lifecycle = []intent.Status{intent.StatusPending, intent.StatusSubmitted, intent.StatusSuccess}

// move applies the transition to status at version v.
func (r *rig) move(t testing.TB, id string, v int64, s intent.Status) {
	t.Helper()
	if _, err := r.st.ApplyTransition(context.Background(), intent.Transition{RequestID: id, Version: v, Status: s,
		At: time.Now()}); err != nil {
		t.Error(err)
	}
}

// client is a websocket client that reads every message into a channel.
type client struct {
	ws   *websocket.Conn
	in   chan map[string]any
	done chan struct{}
	err  error // why reading ended
}

func dial(t *testing.T, url string, read bool) *client {
	t.Helper()
	d := websocket.Dialer{}
	ws, resp, err := d.Dial(url, nil)
	if err != nil {
		code := 0
		if resp != nil {
			code = resp.StatusCode
		}
		t.Fatalf("dial %s: %v (HTTP %d)", url, err, code)
	}
	c := &client{ws: ws, in: make(chan map[string]any, 10000), done: make(chan struct{})}
	t.Cleanup(func() { _ = ws.Close() })
	if read {
		go c.readAll()
	}
	return c
}

func (c *client) readAll() {
	defer close(c.done)
	for {
		_, b, err := c.ws.ReadMessage()
		if err != nil {
			c.err = err
			return
		}
		var m map[string]any
		if json.Unmarshal(b, &m) == nil {
			c.in <- m
		}
	}
}

func (c *client) send(t *testing.T, v any) {
	t.Helper()
	if err := c.ws.WriteJSON(v); err != nil {
		t.Fatal(err)
	}
}

func subscribe(id string) map[string]any {
	return map[string]any{"type": "subscribe", "event": "request.status.updated", "filters": map[string]any{"id": id}}
}

// next is the next message, failing after d.
func (c *client) next(t *testing.T, d time.Duration) map[string]any {
	t.Helper()
	select {
	case m := <-c.in:
		return m
	case <-time.After(d):
		t.Fatalf("no message within %s", d)
		return nil
	}
}

// statuses reads events until it has n of them or d passes, and returns their statuses by request.
func (c *client) statuses(n int, d time.Duration) map[string][]string {
	out := map[string][]string{}
	deadline := time.After(d)
	for got := 0; got < n; {
		select {
		case m := <-c.in:
			if m["event"] != "request.status.updated" {
				continue
			}
			data := m["data"].(map[string]any)
			id := data["requestId"].(string)
			out[id] = append(out[id], data["status"].(string))
			got++
		case <-deadline:
			return out
		}
	}
	return out
}

// quiet fails if an event arrives within d (one more than expected: a duplicate).
func (c *client) quiet(t *testing.T, d time.Duration) {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case m := <-c.in:
			if m["event"] != nil {
				t.Fatalf("unexpected event %v", m)
			}
		case <-deadline:
			return
		}
	}
}

func mustEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Fatalf("%s: got %s, want %s", what, g, w)
	}
}

// "the server sends {type: connection, status: ready, data: {id}}; the client subscribes with
// filters.id; the server answers subscribe success with event and filters, then pushes
// request.status.updated {data, publishedAt} in order; unsubscribe mirrors it."
func TestStreamSpeaksThePublicProtocol(t *testing.T) {
	r := newRig(t, nil, events.HubOptions{})
	id := r.newRequest(t, "")
	c := dial(t, r.url, true)
	ready := c.next(t, 5*time.Second)
	if ready["type"] != "connection" || ready["status"] != "ready" || ready["data"].(map[string]any)["id"] == "" {
		t.Fatalf("first message %v is not the ready message", ready)
	}
	c.send(t, subscribe(id))
	mustEqual(t, "subscribe answer", c.next(t, 5*time.Second), map[string]any{"type": "subscribe", "status": "success",
		"data": map[string]any{"event": "request.status.updated", "filters": map[string]any{"id": id}}})
	// The current state at once: the quote, waiting.
	cur := c.next(t, 5*time.Second)
	if cur["event"] != "request.status.updated" || cur["publishedAt"] == nil {
		t.Fatalf("current state %v is not an event message", cur)
	}
	data := cur["data"].(map[string]any)
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	for _, k := range []string{"status", "inTxHashes", "txHashes", "updatedAt", "originChainId", "destinationChainId",
		"requestId", "depositAddress", "failReason", "refundFailReason"} {
		if _, ok := data[k]; !ok {
			t.Errorf("event data lacks %s (has %v)", k, keys)
		}
	}
	for _, k := range []string{"referrer", "details"} {
		if _, ok := data[k]; ok {
			t.Errorf("event data carries %s, which the stream does not", k)
		}
	}
	if data["status"] != "waiting" || data["requestId"] != id || data["originChainId"] != 31337.0 {
		t.Fatalf("current state %v", data)
	}
	for i, s := range lifecycle {
		r.move(t, id, int64(i+1), s)
	}
	mustEqual(t, "events in order", c.statuses(3, 5*time.Second)[id], []string{"pending", "submitted", "success"})

	c.send(t, map[string]any{"type": "unsubscribe", "event": "request.status.updated", "filters": map[string]any{"id": id}})
	mustEqual(t, "unsubscribe answer", c.next(t, 5*time.Second), map[string]any{"type": "unsubscribe", "status": "success",
		"data": map[string]any{"event": "request.status.updated"}})
	r.move(t, id, 10, intent.StatusRefund)
	c.send(t, map[string]any{"type": "hello"})
	if m := c.next(t, 5*time.Second); m["type"] != "hello" || m["status"] != "error" {
		t.Fatalf("after unsubscribe, got %v before the answer to an unknown message", m)
	}
}

// "a subscribe that arrives BEFORE the ready message must work (the SDK sends it from onopen)":
// the subscribe goes out with the upgrade's first bytes, before the client reads anything.
func TestSubscribeSentBeforeTheReadyMessageIsAnswered(t *testing.T) {
	r := newRig(t, nil, events.HubOptions{})
	id := r.newRequest(t, "")
	r.move(t, id, 1, intent.StatusPending)
	c := dial(t, r.url, false)
	c.send(t, subscribe(id))
	go c.readAll()
	if m := c.next(t, 5*time.Second); m["type"] != "connection" {
		t.Fatalf("first message %v, want the ready message", m)
	}
	if m := c.next(t, 5*time.Second); m["type"] != "subscribe" || m["status"] != "success" {
		t.Fatalf("second message %v, want the subscribe answer", m)
	}
	mustEqual(t, "current state", c.statuses(1, 5*time.Second)[id], []string{"pending"})
}

// "a subscriber that connects after a transition gets the current state at once", and then
// only what is newer, even while transitions are being written as it subscribes.
func TestLateSubscriberGetsTheCurrentStateAtOnceThenOnlyNewerEvents(t *testing.T) {
	r := newRig(t, nil, events.HubOptions{})
	for round := range 20 {
		id := r.newRequest(t, "")
		r.move(t, id, 1, intent.StatusPending)
		c := dial(t, r.url, true)
		c.next(t, 5*time.Second) // ready
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { // the next transitions race the subscribe
			defer wg.Done()
			time.Sleep(time.Duration(round%5) * time.Millisecond)
			r.move(t, id, 2, intent.StatusSubmitted)
			r.move(t, id, 3, intent.StatusSuccess)
		}()
		start := time.Now()
		c.send(t, subscribe(id))
		c.next(t, 5*time.Second) // subscribe success
		first := c.next(t, 5*time.Second)
		if took := time.Since(start); took > 2*time.Second {
			t.Fatalf("round %d: the current state took %s", round, took)
		}
		got := []string{first["data"].(map[string]any)["status"].(string)}
		for got[len(got)-1] != "success" {
			more := c.statuses(1, 5*time.Second)[id]
			if len(more) == 0 || len(got) > 3 {
				break
			}
			got = append(got, more...)
		}
		wg.Wait()
		c.quiet(t, 100*time.Millisecond)
		// The first event is the state at the subscribe (pending, or a later one if a
		// transition won the race); after it, every newer status once, in order, to success.
		want := map[string][]string{"pending": {"pending", "submitted", "success"}, "submitted": {"submitted", "success"},
			"success": {"success"}}
		if fmt.Sprint(got) != fmt.Sprint(want[got[0]]) {
			t.Fatalf("round %d: got %v", round, got)
		}
		_ = c.ws.Close()
	}
}

// "a slow consumer is disconnected (close 1008, reason "slow consumer") rather than buffered
// without bound", and the others keep receiving.
func TestSlowConsumerIsDisconnectedNotBuffered(t *testing.T) {
	// A queue of 32: the connection that reads nothing fills it, the one that reads keeps up even
	// on a loaded machine.
	r := newRig(t, nil, events.HubOptions{SendQueue: 32})
	id := r.newRequest(t, "")
	r.shrink.Store(true)
	slow := dial(t, r.url, false)
	_ = slow.ws.NetConn().(*net.TCPConn).SetReadBuffer(1024)
	slow.send(t, subscribe(id))
	r.shrink.Store(false)
	fast := dial(t, r.url, true)
	fast.next(t, 5*time.Second)
	fast.send(t, subscribe(id))
	fast.next(t, 5*time.Second)
	fast.next(t, 5*time.Second) // current state
	const n = 2000
	var v int64
	for v = 1; v <= n; v++ {
		s := intent.StatusPending
		if v%2 == 0 {
			s = intent.StatusSubmitted
		}
		r.move(t, id, v, s)
		if r.hub.Stats().SlowConsumers.Load() > 0 {
			break
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for r.hub.Stats().SlowConsumers.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the connection that reads nothing is still served (sent %d)", r.hub.Stats().Sent.Load())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The slow client finds, when it reads at last, its messages end with close 1008.
	go slow.readAll()
	select {
	case <-slow.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the slow connection was not closed")
	}
	if !websocket.IsCloseError(slow.err, websocket.ClosePolicyViolation) || !strings.Contains(slow.err.Error(), "slow consumer") {
		t.Fatalf("the slow connection ended with %v, want close 1008 slow consumer", slow.err)
	}
	// The server closes its side once the close frame is out: the count falls just after.
	for deadline := time.Now().Add(5 * time.Second); r.hub.Stats().Connections.Load() != 1 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if got := r.hub.Stats().Connections.Load(); got != 1 {
		t.Fatalf("%d connections open, want the fast one only", got)
	}
	r.move(t, id, v+1, intent.StatusSuccess)
	got := fast.statuses(int(v+1), 5*time.Second)[id]
	if len(got) != int(v+1) || got[len(got)-1] != "success" {
		t.Fatalf("the fast client did not keep receiving: %d events, last %v", len(got), got[max(0, len(got)-1):])
	}
}

// "pings keep idle connections alive, and dead peers are dropped": a client that answers pings
// (it reads) outlives PongWait many times; one that never reads, so never answers, is dropped.
func TestPingsKeepIdleConnectionsAndDropDeadPeers(t *testing.T) {
	r := newRig(t, nil, events.HubOptions{PingEvery: 100 * time.Millisecond, PongWait: time.Second})
	alive := dial(t, r.url, true)
	dead := dial(t, r.url, false)
	_ = dead
	deadline := time.Now().Add(10 * time.Second)
	for r.hub.Stats().Connections.Load() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections after 10 s, want the dead peer dropped", r.hub.Stats().Connections.Load())
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(3 * time.Second) // three PongWaits more
	if r.hub.Stats().Connections.Load() != 1 {
		t.Fatal("the idle connection that answers pings was dropped")
	}
	select {
	case <-alive.done:
		t.Fatalf("the idle connection ended: %v", alive.err)
	default:
	}
}

// "anonymous connections get strict limits (few subscriptions per connection, few connections
// per IP, message rate)"; "anonymous without filters is an error"; "keyed connections more".
func TestAnonymousConnectionsHaveStrictLimits(t *testing.T) {
	o := events.HubOptions{Anonymous: events.Limits{Connections: 2, Subscriptions: 2, Rate: 1, Burst: 4},
		Keyed: events.Limits{Connections: 5, Subscriptions: 5, Rate: 100, Burst: 100, KeyWide: true}, MaxRefused: 3}
	r := newRig(t, nil, o)
	a := dial(t, r.url, true)
	a.next(t, 5*time.Second)
	dial(t, r.url, true)
	if _, resp, err := (&websocket.Dialer{}).Dial(r.url, nil); err == nil || resp == nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a third anonymous connection from one IP: %v %v", err, resp)
	}
	a.send(t, map[string]any{"type": "subscribe", "event": "request.status.updated"})
	if m := a.next(t, 5*time.Second); m["status"] != "error" || !strings.Contains(fmt.Sprint(m["data"]), "filters.id is required") {
		t.Fatalf("anonymous subscribe without filters: %v", m)
	}
	a.send(t, subscribe(r.newRequest(t, "")))
	a.next(t, 5*time.Second)
	a.next(t, 5*time.Second)
	a.send(t, subscribe(r.newRequest(t, "")))
	a.next(t, 5*time.Second)
	a.next(t, 5*time.Second)
	time.Sleep(2 * time.Second) // the bucket refills
	a.send(t, subscribe(r.newRequest(t, "")))
	if m := a.next(t, 5*time.Second); m["status"] != "error" || !strings.Contains(fmt.Sprint(m["data"]), "too many subscriptions") {
		t.Fatalf("a third subscription: %v", m)
	}
	// Over the message rate: refused, and closed after MaxRefused in a row.
	for range 10 {
		_ = a.ws.WriteJSON(map[string]any{"type": "unsubscribe", "event": "request.status.updated", "filters": map[string]any{"id": "0x1"}})
	}
	select {
	case <-a.done:
	case <-time.After(5 * time.Second):
		t.Fatal("a flooding connection was not closed")
	}
	if !websocket.IsCloseError(a.err, websocket.ClosePolicyViolation) {
		t.Fatalf("flooding ended with %v, want 1008", a.err)
	}
	// A key holds more connections than an IP without one.
	for range 5 {
		dial(t, r.url+"?key=00000000-0000-0000-0000-000000000001", true)
	}
}

// "a subscribe without filters on a keyed connection streams all of that key's requests", and
// nobody else's.
func TestKeyedSubscribeWithoutFiltersStreamsTheKeysRequests(t *testing.T) {
	r := newRig(t, nil, events.HubOptions{})
	ctx, by := context.Background(), store.Actor{Name: "test", Via: store.ViaCLI}
	in, err := r.st.CreateIntegrator(ctx, auth.Integrator{Name: "streamer"}, by)
	if err != nil {
		t.Fatal(err)
	}
	_, key, err := r.st.CreateAPIKey(ctx, store.NewKey{IntegratorID: in.ID, Label: "stream"}, by)
	if err != nil {
		t.Fatal(err)
	}
	keyID := key.ID
	mine, other := r.newRequest(t, keyID), r.newRequest(t, "")
	c := dial(t, r.url+"?key="+keyID, true)
	c.next(t, 5*time.Second)
	c.send(t, map[string]any{"type": "subscribe", "event": "request.status.updated"})
	mustEqual(t, "subscribe answer", c.next(t, 5*time.Second), map[string]any{"type": "subscribe", "status": "success",
		"data": map[string]any{"event": "request.status.updated"}})
	for i, s := range lifecycle {
		r.move(t, other, int64(i+1), s)
		r.move(t, mine, int64(i+1), s)
	}
	got := c.statuses(3, 5*time.Second)
	c.quiet(t, 300*time.Millisecond)
	mustEqual(t, "the key's stream", got, map[string][]string{mine: {"pending", "submitted", "success"}})
}

// "listener reconnect loses nothing": the listening backend is terminated again and again
// while transitions are written; every subscriber still sees every transition, in order, once.
func TestListenerReconnectLosesNothing(t *testing.T) {
	r := newRig(t, nil, events.HubOptions{Anonymous: events.Limits{Connections: 100, Subscriptions: 10, Rate: 5, Burst: 20}})
	const requests, steps = 20, 30
	ids := make([]string, requests)
	clients := make([]*client, requests)
	for i := range ids {
		ids[i] = r.newRequest(t, "")
		clients[i] = dial(t, r.url, true)
		clients[i].next(t, 5*time.Second)
		clients[i].send(t, subscribe(ids[i]))
		clients[i].next(t, 5*time.Second)
		clients[i].next(t, 5*time.Second) // waiting
	}
	ctx, cancel := context.WithCancel(context.Background())
	var killed atomic.Int64
	killerDone := make(chan struct{})
	go func() {
		defer close(killerDone)
		for ctx.Err() == nil {
			time.Sleep(150 * time.Millisecond)
			var n int64
			_ = r.pool.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
				WHERE datname = current_database() AND query LIKE 'LISTEN %' AND pid <> pg_backend_pid()`).Scan(&n)
			killed.Add(n)
		}
	}()
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := int64(1); v <= steps; v++ {
				s := intent.StatusPending
				if v%2 == 0 {
					s = intent.StatusSubmitted
				}
				if v == steps {
					s = intent.StatusSuccess
					// The last transition waits for the killer's third termination: on a fast
					// machine the others can all be written between two of them.
					for deadline := time.Now().Add(10 * time.Second); killed.Load() < 3 && time.Now().Before(deadline); {
						time.Sleep(20 * time.Millisecond)
					}
				}
				r.move(t, id, v, s)
				time.Sleep(time.Duration(5+i%7) * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	cancel()
	<-killerDone
	if killed.Load() < 3 {
		t.Fatalf("the listener was terminated %d times, want several", killed.Load())
	}
	for i, c := range clients {
		got := c.statuses(steps, 20*time.Second)[ids[i]]
		var want []string
		for v := 1; v <= steps; v++ {
			switch {
			case v == steps:
				want = append(want, "success")
			case v%2 == 0:
				want = append(want, "submitted")
			default:
				want = append(want, "pending")
			}
		}
		mustEqual(t, fmt.Sprintf("request %d's events", i), got, want)
		c.quiet(t, 50*time.Millisecond)
	}
	t.Logf("listener terminated %d times; %d catch-ups replayed %d events", killed.Load(),
		r.hub.Stats().CatchUps.Load(), r.hub.Stats().CatchUpReplayed.Load())
}

// An event too large for its notification (Postgres caps a payload below 8000 bytes) is read
// from the outbox by id, and reaches the subscriber like any other.
func TestEventTooLargeForItsNotificationStillArrives(t *testing.T) {
	r := newRig(t, nil, events.HubOptions{})
	id := r.newRequest(t, "")
	c := dial(t, r.url, true)
	c.next(t, 5*time.Second)
	c.send(t, subscribe(id))
	c.next(t, 5*time.Second)
	c.next(t, 5*time.Second) // waiting
	var txs []intent.Tx
	for i := range 150 {
		txs = append(txs, intent.Tx{Direction: intent.TxIn, ChainID: 31337, Hash: fmt.Sprintf("0x%064x", i+1), LogIndex: i})
	}
	if _, err := r.st.ApplyTransition(context.Background(), intent.Transition{RequestID: id, Version: 1,
		Status: intent.StatusPending, Txs: txs, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	m := c.next(t, 5*time.Second)
	data := m["data"].(map[string]any)
	if data["status"] != "pending" || len(data["inTxHashes"].([]any)) != 150 {
		t.Fatalf("the large event arrived as %v with %d hashes", data["status"], len(data["inTxHashes"].([]any)))
	}
}

// "dead peers are dropped", on the hub's side too: a listener that heard nothing for
// QuietRelisten is restarted (its connection may have died without a word), and catches up.
func TestQuietListenerIsRestartedAndLosesNothing(t *testing.T) {
	r := newRig(t, nil, events.HubOptions{QuietRelisten: 300 * time.Millisecond})
	id := r.newRequest(t, "")
	c := dial(t, r.url, true)
	c.next(t, 5*time.Second)
	c.send(t, subscribe(id))
	c.next(t, 5*time.Second)
	c.next(t, 5*time.Second) // waiting
	deadline := time.Now().Add(5 * time.Second)
	for r.hub.Stats().QuietRelistens.Load() < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("a quiet listener was restarted %d times in 5 s", r.hub.Stats().QuietRelistens.Load())
		}
		time.Sleep(50 * time.Millisecond)
	}
	for i, s := range lifecycle {
		r.move(t, id, int64(i+1), s)
		time.Sleep(200 * time.Millisecond)
	}
	mustEqual(t, "events", c.statuses(3, 5*time.Second)[id], []string{"pending", "submitted", "success"})
	c.quiet(t, 200*time.Millisecond)
}

// Review M4: "anonymous websocket connections are counted per /64 (ratelimit.ClientKey, as the
// HTTP limits do) with a per-process cap". A client rotating addresses in one IPv6 /64 holds the
// per-IP count, not one per address; another /64 has its own; past the process's cap no
// connection without a key is admitted from anywhere, while keyed ones still are; a release
// makes room again.
func TestAnonymousConnectionsAreCountedPer64AndCappedPerProcess(t *testing.T) {
	ctx := context.Background()
	h := events.NewHub(nil, events.HubOptions{Anonymous: events.Limits{Connections: 2, Subscriptions: 1, Rate: 1, Burst: 1},
		AnonymousPerProcess: 4})
	admit := func(c events.Client) (func(), error) { return h.Admit(ctx, c) }
	for _, ip := range []string{"2001:db8:1:1::1", "2001:db8:1:1::2"} {
		if _, err := admit(events.Client{IP: ip}); err != nil {
			t.Fatalf("%s: %v", ip, err)
		}
	}
	if _, err := admit(events.Client{IP: "2001:db8:1:1:ffff::3"}); !errors.Is(err, events.ErrTooManyConnections) {
		t.Fatalf("a third address of the same /64: %v, want ErrTooManyConnections", err)
	}
	if _, err := admit(events.Client{IP: "::ffff:198.51.100.1"}); err != nil {
		t.Fatalf("an IPv4-mapped address: %v", err)
	}
	release, err := admit(events.Client{IP: "2001:db8:1:2::1"})
	if err != nil {
		t.Fatalf("another /64: %v", err)
	}
	// Four held without a key: the process's cap, whoever asks next.
	if _, err := admit(events.Client{IP: "203.0.113.50"}); !errors.Is(err, events.ErrStreamFull) {
		t.Fatalf("past the per-process cap: %v, want ErrStreamFull", err)
	}
	if _, err := admit(events.Client{IP: "203.0.113.50", KeyID: "k1"}); err != nil {
		t.Fatalf("a keyed connection past the anonymous cap: %v", err)
	}
	if h.Stats().Anonymous.Load() != 4 || h.Stats().Refused.Load() != 1 {
		t.Fatalf("stats: %d anonymous, %d refused", h.Stats().Anonymous.Load(), h.Stats().Refused.Load())
	}
	release()
	release() // once only
	if _, err := admit(events.Client{IP: "203.0.113.50"}); err != nil {
		t.Fatalf("after a release: %v", err)
	}
	if _, err := admit(events.Client{IP: "203.0.113.51"}); !errors.Is(err, events.ErrStreamFull) {
		t.Fatalf("a second release was counted: %v", err)
	}
}
