//go:build bench

// Package webhookfanout measures webhook delivery at volume (issue 15, speed): 10,000 status
// events of the requests of 100 API keys, each key with its own webhook on a receiver in this
// process, written through the engine's own transition write (store.ApplyTransition, which
// writes the outbox row) by eight writers at once while the dispatcher delivers them. It
// reports the time from the first write to the last delivery, deliveries per second, and the
// latency of each event from its commit to its receipt. Run it with `make bench-webhooks`
// (BENCHMARKS.md); WEBHOOK_BENCH_EVENTS, WEBHOOK_BENCH_KEYS and WEBHOOK_BENCH_DISPATCHERS
// change the load.
package webhookfanout

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
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/intentd/intentd/auth"
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

func TestWebhookFanOut(t *testing.T) {
	nEvents, nKeys, nDispatchers := envInt("WEBHOOK_BENCH_EVENTS", 10000), envInt("WEBHOOK_BENCH_KEYS", 100),
		envInt("WEBHOOK_BENCH_DISPATCHERS", 1)
	ctx := context.Background()
	pool := testenv.Pool(t)
	st := store.New(pool)
	by := store.Actor{Name: "bench", Via: store.ViaCLI}
	key, _ := hex.DecodeString("00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff")
	sealer, _ := events.NewSealer(key)
	admin := &events.Admin{Store: st, Sealer: sealer, Policy: events.URLPolicy{AllowPrivate: true}}

	var mu sync.Mutex
	written := make(map[string]time.Time, nEvents)
	var latencies []time.Duration
	var received atomic.Int64
	var done chan struct{}
	done = make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		at := time.Now()
		var ev struct {
			Data struct {
				RequestID string `json:"requestId"`
			} `json:"data"`
		}
		_ = json.Unmarshal(body, &ev)
		mu.Lock()
		latencies = append(latencies, at.Sub(written[ev.Data.RequestID]))
		mu.Unlock()
		if received.Add(1) == int64(nEvents) {
			mu.Lock()
			close(done)
			mu.Unlock()
		}
	}))
	defer srv.Close()

	in, err := st.CreateIntegrator(ctx, auth.Integrator{Name: "bench"}, by)
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]string, nKeys)
	for i := range keys {
		_, k, err := st.CreateAPIKey(ctx, store.NewKey{IntegratorID: in.ID, Label: fmt.Sprint("k", i)}, by)
		if err != nil {
			t.Fatal(err)
		}
		url := fmt.Sprintf("%s/k%d", srv.URL, i)
		if _, _, err := admin.Set(ctx, in.ID, k.ID, events.Settings{URL: &url}, by); err != nil {
			t.Fatal(err)
		}
		keys[i] = k.ID
	}
	ids := make([]string, 2*nEvents)
	for i := range ids {
		ids[i] = fmt.Sprintf("0x%064x", i+1)
		if _, err := pool.Exec(ctx, `INSERT INTO requests (id, status, "user", recipient, origin_chain_id, destination_chain_id,
			order_id, record, api_key_id) VALUES ($1, 'waiting', '0xu', '0xr', 31337, 31338, $1, '{}', $2)`, ids[i], keys[i%nKeys]); err != nil {
			t.Fatal(err)
		}
	}
	write := func(ids []string) time.Duration {
		start := time.Now()
		next := atomic.Int64{}
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := int(next.Add(1)) - 1
					if i >= len(ids) {
						return
					}
					if _, err := st.ApplyTransition(ctx, intent.Transition{RequestID: ids[i], Version: 1, Status: intent.StatusPending,
						At: time.Now()}); err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					written[ids[i]] = time.Now() // committed
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		return time.Since(start)
	}
	dispatch := func(ctx context.Context) (stop func()) {
		dctx, cancel := context.WithCancel(ctx)
		var dwg sync.WaitGroup
		for range nDispatchers {
			d := &events.Dispatcher{Store: st, Sealer: sealer, Policy: events.URLPolicy{AllowPrivate: true},
				Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
			dwg.Add(1)
			go func() { defer dwg.Done(); _ = d.Run(dctx) }()
		}
		return func() { cancel(); dwg.Wait() }
	}
	report := func(name string, wrote, total time.Duration, cpu time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		slices.Sort(latencies)
		p := func(q float64) time.Duration {
			return latencies[int(q*float64(len(latencies)-1))].Round(time.Millisecond)
		}
		b, _ := st.EventBacklog(ctx)
		t.Logf("WEBHOOK_FANOUT mode=%s events=%d keys=%d dispatchers=%d cpus=%d writes=%.1fs (%.0f/s) all_delivered=%.1fs deliveries_per_s=%.0f "+
			"latency_p50=%v p90=%v p99=%v max=%v test_process_cpu=%.1fs dead=%d", name,
			nEvents, nKeys, nDispatchers, runtime.NumCPU(), wrote.Seconds(), float64(nEvents)/wrote.Seconds(), total.Seconds(),
			float64(nEvents)/total.Seconds(), p(0.5), p(0.9), p(0.99), latencies[len(latencies)-1].Round(time.Millisecond),
			cpu.Seconds(), b.Dead)
		latencies = latencies[:0]
	}
	wait := func() {
		mu.Lock()
		d := done
		mu.Unlock()
		select {
		case <-d:
		case <-time.After(5 * time.Minute):
			t.Fatalf("%d of %d events delivered after 5 minutes", received.Load(), nEvents)
		}
	}

	// A backlog: every event written while no dispatcher runs, then one starts (a dispatcher
	// back from an outage). Latency here counts the wait for the dispatcher.
	wrote := write(ids[:nEvents])
	var c0, c1 runtimeCPU
	c0.read()
	start := time.Now()
	stop := dispatch(ctx)
	wait()
	c1.read()
	report("backlog", wrote, time.Since(start), c1.sub(c0))
	mu.Lock()
	received.Store(0)
	done = make(chan struct{})
	mu.Unlock()

	// Live: the events are written while the dispatcher runs.
	time.Sleep(500 * time.Millisecond)
	c0.read()
	start = time.Now()
	wrote = write(ids[nEvents:])
	wait()
	c1.read()
	report("live", wrote, time.Since(start), c1.sub(c0))
	stop()
}

// runtimeCPU is this process's CPU time (user + system), from getrusage.
type runtimeCPU struct{ d time.Duration }

func (c *runtimeCPU) read() { c.d = processCPU() }

func (c runtimeCPU) sub(o runtimeCPU) time.Duration { return c.d - o.d }
