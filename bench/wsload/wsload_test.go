//go:build bench

// Package wsload measures the websocket stream's delivery latency: from the read-model write
// of a transition (store.ApplyTransition, the write the workflows make) to the message on a
// subscriber's socket, with WSLOAD_INTENTS intents in flight at once (default 1,000), each
// followed by its own websocket connection to the real API (GET /ws on api.Server, its hub
// listening to Postgres). Each intent moves pending → submitted → success with a random pause
// of up to WSLOAD_PAUSE (default 1 s) before each move; WSLOAD_ROUNDS rounds (default 3). Run
// it with `make bench-ws` (BENCHMARKS.md).
package wsload

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/gorilla/websocket"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/intentd/intentd/api"
	"github.com/intentd/intentd/events"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// sample is one transition's times: around the ApplyTransition call (start includes waiting
// for one of the writer pool's connections), the transaction's start in Postgres (the outbox
// row's created_at, same clock: one machine) and the message's arrival at the subscriber.
type sample struct {
	start, committed time.Time
	txStart          time.Time
	received         time.Time
}

func TestWebsocketDeliveryLatency(t *testing.T) {
	intents, rounds := envInt("WSLOAD_INTENTS", 1000), envInt("WSLOAD_ROUNDS", 3)
	pause := time.Second
	if d, err := time.ParseDuration(os.Getenv("WSLOAD_PAUSE")); err == nil {
		pause = d
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url := testenv.DatabaseURL(t)
	// The API process: its own pool, its hub, its HTTP server on loopback.
	apiPool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer apiPool.Close()
	apiStore := store.New(apiPool)
	hub := events.NewHub(apiStore, events.HubOptions{Anonymous: events.Limits{Connections: intents + 10, Subscriptions: 10,
		Rate: 5, Burst: 20}, AnonymousPerProcess: intents + 10})
	hubDone := make(chan struct{})
	go func() { defer close(hubDone); _ = hub.Run(ctx) }()
	defer func() { cancel(); <-hubDone }() // before the pools close: the listener holds a connection
	gin.SetMode(gin.ReleaseMode)
	srv := (&api.Server{Store: apiStore, Stream: hub, Logger: slog.New(slog.DiscardHandler)}).HTTPServer("")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()
	wsURL := "ws://" + l.Addr().String() + "/ws"

	// The worker's side: a pool of its own writing transitions.
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	st := store.New(pool)

	var mu sync.Mutex
	samples := map[string]*sample{} // requestId/status
	statuses := []intent.Status{intent.StatusPending, intent.StatusSubmitted, intent.StatusSuccess}
	var all, fromCommit, fromStart []time.Duration
	for round := range rounds {
		ids := make([]string, intents)
		for i := range ids {
			ids[i] = fmt.Sprintf("0x%032x%032x", round+1, i+1)
			if _, err := pool.Exec(ctx, `INSERT INTO requests (id, status, "user", recipient, origin_chain_id,
				destination_chain_id, order_id, record) VALUES ($1, 'waiting', '0xu', '0xr', 31337, 31338, $1, '{}')`, ids[i]); err != nil {
				t.Fatal(err)
			}
		}
		// One connection per intent, subscribed before it moves.
		conns := make([]*websocket.Conn, intents)
		var readers sync.WaitGroup
		for i, id := range ids {
			ws, _, err := websocket.DefaultDialer.Dial(wsURL, nil)
			if err != nil {
				t.Fatalf("connection %d: %v", i, err)
			}
			conns[i] = ws
			if err := ws.WriteJSON(map[string]any{"type": "subscribe", "event": "request.status.updated",
				"filters": map[string]any{"id": id}}); err != nil {
				t.Fatal(err)
			}
			readers.Add(1)
			go func() {
				defer readers.Done()
				for {
					var m events.Message
					if err := ws.ReadJSON(&m); err != nil {
						return
					}
					now := time.Now()
					if m.Event == "" || m.Data.Status == "waiting" {
						continue
					}
					mu.Lock()
					if s := samples[m.Data.RequestID+"/"+string(m.Data.Status)]; s != nil && s.received.IsZero() {
						s.received = now
					}
					mu.Unlock()
					if m.Data.Status == "success" {
						return
					}
				}
			}()
		}
		time.Sleep(500 * time.Millisecond) // every subscription's current state is out
		for _, id := range ids {
			for _, s := range statuses {
				samples[id+"/"+string(s)] = &sample{}
			}
		}
		// Every intent in flight at once: each moves after random pauses, on its own goroutine.
		started := time.Now()
		var writers sync.WaitGroup
		for _, id := range ids {
			writers.Add(1)
			go func() {
				defer writers.Done()
				for v, s := range statuses {
					time.Sleep(rand.N(pause))
					sm := samples[id+"/"+string(s)]
					mu.Lock()
					sm.start = time.Now()
					mu.Unlock()
					if _, err := st.ApplyTransition(ctx, intent.Transition{RequestID: id, Version: int64(v + 1), Status: s,
						At: time.Now()}); err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					sm.committed = time.Now()
					mu.Unlock()
				}
			}()
		}
		writers.Wait()
		written := time.Since(started)
		done := make(chan struct{})
		go func() { readers.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Errorf("round %d: not every subscriber heard success within 30 s", round)
		}
		for _, c := range conns {
			_ = c.Close()
		}
		rows, err := pool.Query(ctx, `SELECT request_id, payload->>'status', created_at FROM outbox WHERE request_id = ANY($1)`, ids)
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		for rows.Next() {
			var id, status string
			var at time.Time
			if err := rows.Scan(&id, &status, &at); err != nil {
				t.Fatal(err)
			}
			if sm := samples[id+"/"+status]; sm != nil {
				sm.txStart = at
			}
		}
		rows.Close()
		missing := 0
		var lat, tx []time.Duration
		for _, id := range ids {
			for _, s := range statuses {
				sm := samples[id+"/"+string(s)]
				if sm.received.IsZero() {
					missing++
					continue
				}
				lat = append(lat, max(0, sm.received.Sub(sm.committed)))
				tx = append(tx, sm.received.Sub(sm.txStart))
				fromStart = append(fromStart, sm.received.Sub(sm.start))
			}
		}
		samples = map[string]*sample{}
		mu.Unlock()
		if missing > 0 {
			t.Errorf("round %d: %d transitions never reached their subscriber", round, missing)
		}
		all = append(all, tx...)
		fromCommit = append(fromCommit, lat...)
		t.Logf("round %d: %d intents, %d transitions written in %s (%.0f/s); transaction start → received: %s", round+1,
			intents, len(lat), written.Round(time.Millisecond), float64(len(lat))/written.Seconds(), summary(tx))
		time.Sleep(time.Second) // let the connections close before the next round
	}
	t.Logf("all rounds, the write's transaction start in Postgres → received (the target's measure): %s", summary(all))
	t.Logf("all rounds, ApplyTransition returned → received (negative counted as 0): %s", summary(fromCommit))
	t.Logf("all rounds, ApplyTransition called → received (with the writers' wait for a pool connection): %s", summary(fromStart))
	t.Logf("GOMAXPROCS %d, hub: sent %d, slow consumers %d", runtime.GOMAXPROCS(0), hub.Stats().Sent.Load(),
		hub.Stats().SlowConsumers.Load())
	slices.Sort(all)
	if p99 := all[len(all)*99/100]; p99 > 500*time.Millisecond {
		t.Errorf("p99 %s over the 500 ms target", p99)
	}
}

func summary(d []time.Duration) string {
	if len(d) == 0 {
		return "no samples"
	}
	s := slices.Clone(d)
	slices.Sort(s)
	q := func(p float64) time.Duration {
		return s[min(len(s)-1, int(float64(len(s))*p))].Round(100 * time.Microsecond)
	}
	return fmt.Sprintf("n=%d p50 %s p90 %s p99 %s p99.9 %s max %s", len(s), q(0.5), q(0.9), q(0.99), q(0.999), s[len(s)-1].Round(100*time.Microsecond))
}
