package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/events"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/ratelimit"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// streamServer is an API process on the database at url: its own pool, its own hub listening
// to Postgres, its HTTP server on loopback. It returns the server's ws:// base URL.
func streamServer(t *testing.T, url string) string {
	t.Helper()
	return streamServerWith(t, url, events.HubOptions{}, &Server{})
}

// streamServerWith is streamServer with the hub's options o, on s (its Store and Stream set
// here).
func streamServerWith(t *testing.T, url string, o events.HubOptions, s *Server) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	st := store.New(pool)
	hub := events.NewHub(st, o)
	done := make(chan struct{})
	go func() { defer close(done); _ = hub.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; pool.Close() })
	for hub.Stats().CatchUps.Load() == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	s.Store, s.Stream = st, hub
	return "ws://" + serve(t, s)
}

// wsDial connects to base+"/ws"+query and returns the connection, or the HTTP answer of a
// refused upgrade.
func wsDial(t *testing.T, base, query string, header http.Header) (*websocket.Conn, int, string) {
	t.Helper()
	ws, resp, err := websocket.DefaultDialer.Dial(base+"/ws"+query, header)
	if err != nil {
		if resp == nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		return nil, resp.StatusCode, string(b)
	}
	t.Cleanup(func() { _ = ws.Close() })
	return ws, http.StatusSwitchingProtocols, ""
}

func wsRead(t *testing.T, ws *websocket.Conn) map[string]any {
	t.Helper()
	_ = ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	var m map[string]any
	if err := ws.ReadJSON(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// "Works across several API processes (each listens to Postgres), tested with two API servers
// on one database": a transition written by a third process reaches the subscribers of both.
func TestTwoAPIServersOnOneDatabaseEachStreamEveryEvent(t *testing.T) {
	url := testenv.DatabaseURL(t)
	a, b := streamServer(t, url), streamServer(t, url)
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	st := store.New(pool)
	const requests = 5
	ids := make([]string, requests)
	for i := range ids {
		ids[i] = fmt.Sprintf("0x%064x", 0xa000+i)
		if _, err := pool.Exec(context.Background(), `INSERT INTO requests (id, status, "user", recipient, origin_chain_id,
			destination_chain_id, order_id, record) VALUES ($1, 'waiting', '0xu', '0xr', 31337, 31338, $1, '{}')`, ids[i]); err != nil {
			t.Fatal(err)
		}
	}
	var conns []*websocket.Conn
	for _, base := range []string{a, b} {
		for _, id := range ids {
			ws, code, body := wsDial(t, base, "", nil)
			if ws == nil {
				t.Fatalf("%s: %d %s", base, code, body)
			}
			_ = ws.WriteJSON(map[string]any{"type": "subscribe", "event": "request.status.updated", "filters": map[string]any{"id": id}})
			for _, want := range []string{"connection", "subscribe"} {
				if m := wsRead(t, ws); m["type"] != want {
					t.Fatalf("got %v, want the %s message", m, want)
				}
			}
			if m := wsRead(t, ws); m["data"].(map[string]any)["status"] != "waiting" {
				t.Fatalf("current state %v", m)
			}
			conns = append(conns, ws)
		}
	}
	for v, s := range []intent.Status{intent.StatusPending, intent.StatusSubmitted, intent.StatusSuccess} {
		for _, id := range ids {
			if _, err := st.ApplyTransition(context.Background(), intent.Transition{RequestID: id, Version: int64(v + 1),
				Status: s, At: time.Now()}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i, ws := range conns {
		var got []string
		for range 3 {
			m := wsRead(t, ws)
			if d := m["data"].(map[string]any); d["requestId"] == ids[i%requests] {
				got = append(got, d["status"].(string))
			}
		}
		if strings.Join(got, ",") != "pending,submitted,success" {
			t.Fatalf("server %d, request %d: %v", i/requests, i%requests, got)
		}
	}
}

// "API key as ?apiKey= (optional; resolve it with the API's auth.Resolver)": a value that is no
// key is refused before the upgrade (401 {message, errorCode}); a live key makes a keyed
// connection, which may follow all its key's requests; without a key that is an error.
func TestWebsocketTakesItsKeyFromTheQuery(t *testing.T) {
	url := testenv.DatabaseURL(t)
	base := streamServer(t, url)
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	value, _ := createKey(t, store.New(pool), "streamer", store.NewKey{Label: "ws"})

	ws, code, body := wsDial(t, base, "?apiKey=ik_not-a-key", nil)
	if ws != nil || code != http.StatusUnauthorized {
		t.Fatalf("an unknown apiKey: %d %s", code, body)
	}
	var e struct{ Message, ErrorCode string }
	if json.Unmarshal([]byte(body), &e) != nil || e.ErrorCode != CodeUnauthorized || strings.Contains(body, "ik_not-a-key") {
		t.Fatalf("the 401 body %s", body)
	}

	subscribeAll := map[string]any{"type": "subscribe", "event": "request.status.updated"}
	for _, c := range []struct {
		name, query string
		header      http.Header
		want        string
	}{
		{"?apiKey=", "?apiKey=" + value, nil, "success"},
		{"x-api-key", "", http.Header{"X-Api-Key": {value}}, "success"},
		{"no key", "", nil, "error"},
	} {
		ws, code, body := wsDial(t, base, c.query, c.header)
		if ws == nil {
			t.Fatalf("%s: %d %s", c.name, code, body)
		}
		wsRead(t, ws)
		_ = ws.WriteJSON(subscribeAll)
		if m := wsRead(t, ws); m["status"] != c.want {
			t.Fatalf("%s: subscribe without filters answered %v, want %s", c.name, m, c.want)
		}
	}
}

// GET /ws without an upgrade is 400 {message, errorCode}, not a hang.
func TestWebsocketRouteWithoutUpgradeIs400(t *testing.T) {
	base := streamServer(t, testenv.DatabaseURL(t))
	resp, err := http.Get(strings.Replace(base, "ws://", "http://", 1) + "/ws")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("GET /ws without an upgrade: %d", resp.StatusCode)
	}
}

// Review M4: "a global cap (global = across API processes: Redis is already the limiter's
// shared store)", tested with two API processes (two servers, each its own hub) whose caps
// count through one Redis: together they hold the global cap of connections without a key, the
// next is 503 SERVICE_UNAVAILABLE with Retry-After on either, a keyed connection is still
// admitted, and a connection closed on one process makes room on the other.
func TestTwoAPIServersHoldOneGlobalCapOfAnonymousConnections(t *testing.T) {
	url := testenv.DatabaseURL(t)
	rc, prefix := testenv.RedisClient(t), redisPrefix()
	process := func() string {
		slots := ratelimit.NewSlots(ratelimit.SlotsOptions{Redis: rc, Prefix: prefix, Name: "ws-anonymous", Cap: 3})
		// Each client its own address, through a trusted proxy: the per-IP limit plays no part.
		return streamServerWith(t, url, events.HubOptions{Global: slots}, &Server{TrustedProxies: []string{"127.0.0.1/32"}})
	}
	a, b := process(), process()
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	value, _ := createKey(t, store.New(pool), "streamer", store.NewKey{Label: "ws"})
	from := func(i int) http.Header { return http.Header{"X-Forwarded-For": {fmt.Sprintf("198.51.100.%d", i)}} }
	var held []*websocket.Conn
	for i, base := range []string{a, a, b} {
		ws, code, body := wsDial(t, base, "", from(i))
		if ws == nil {
			t.Fatalf("connection %d of 3: %d %s", i+1, code, body)
		}
		wsRead(t, ws)
		held = append(held, ws)
	}
	for _, base := range []string{a, b} {
		ws, code, body := wsDial(t, base, "", from(9))
		var e struct{ Message, ErrorCode string }
		if ws != nil || code != http.StatusServiceUnavailable || json.Unmarshal([]byte(body), &e) != nil || e.ErrorCode != CodeServiceUnavailable {
			t.Fatalf("a fourth connection without a key: %d %s", code, body)
		}
	}
	if ws, code, body := wsDial(t, b, "", http.Header{"X-Api-Key": {value}}); ws == nil {
		t.Fatalf("a keyed connection past the anonymous cap: %d %s", code, body)
	}
	_ = held[0].Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ws, code, body := wsDial(t, b, "", from(10))
		if ws != nil {
			break
		}
		if code != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("after a connection on the other process closed: %d %s", code, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Review M4: "/ws upgrades get a rate-limit bucket of their own". Upgrades without a key are
// counted per IP in the ws bucket (its RateLimit-Policy), refused with 429 before any upgrade
// past it, and leave the other routes' buckets alone.
func TestWebsocketUpgradesHaveABucketOfTheirOwn(t *testing.T) {
	p := ratelimit.DefaultPolicy()
	p.Anonymous[ratelimit.WS] = auth.Rate{Count: 2, Period: time.Hour}
	p.Anonymous[ratelimit.Other] = auth.Rate{Count: 1, Period: time.Hour}
	s := &Server{Chains: unreachableChains(t).Registry(), Quotes: &quote.Engine{}, Indexer: &fakeIndexer{},
		Limits: ratelimit.New(ratelimit.Options{Redis: testenv.RedisClient(t), Prefix: redisPrefix(), Policy: p})}
	base := streamServerWith(t, testenv.DatabaseURL(t), events.HubOptions{}, s)
	for i := range 2 {
		ws, code, body := wsDial(t, base, "", nil)
		if ws == nil {
			t.Fatalf("upgrade %d: %d %s", i+1, code, body)
		}
		_ = ws.Close()
	}
	_, resp, err := websocket.DefaultDialer.Dial(base+"/ws", nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusTooManyRequests ||
		!strings.Contains(resp.Header.Get("RateLimit-Policy"), `"ws";q=2;w=3600`) || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("a third upgrade: %v %v", err, resp)
	}
	other := send(t, strings.Replace(base, "ws://", "http://", 1), calls[ratelimit.Other], nil)
	if other.status != http.StatusNotFound || !strings.Contains(other.header.Get("RateLimit"), `"other";r=0`) {
		t.Fatalf("the other bucket after the upgrades: %d %v", other.status, other.header)
	}
}
