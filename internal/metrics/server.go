package metrics

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/intentd/intentd/internal/redact"
)

// Probe is one dependency a process needs to do its work: ready means every probe answers.
type Probe struct {
	Name  string
	Check func(ctx context.Context) error
}

// probeTimeout bounds one readiness check, so /readyz answers within it whatever hangs.
const probeTimeout = 2 * time.Second

// readyFor is how long the probes' results answer /readyz before the probes run again: the
// port is reachable from inside the network, and each run is a Postgres, a Temporal and an RPC
// call per chain, so a flood of /readyz costs one run a second, not one per request.
const readyFor = time.Second

// The metrics servers' connection timeouts: a scrape or a probe is answered in a few seconds,
// so a client that trickles its request, or an idle keep-alive, is cut well before it could pile
// up connections.
const (
	metricsReadHeaderTimeout = 5 * time.Second
	metricsReadTimeout       = 10 * time.Second
	metricsWriteTimeout      = 30 * time.Second
	metricsIdleTimeout       = 60 * time.Second
)

// Handler serves /metrics (Registry, in Prometheus's text format), /livez (200 while the process
// runs) and /readyz (200 when every probe answers, 503 naming those that do not). A probe's
// error is logged (when it starts failing or fails differently, its URLs redacted), never
// answered: /readyz says only which probes fail.
func Handler(probes []Probe) http.Handler { return handler(newReadiness(probes, nil, nil)) }

func handler(ready *readiness) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(Registry, promhttp.HandlerOpts{Registry: Registry}))
	mux.HandleFunc("/livez", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"ok"}`))
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		failing := ready.check()
		w.Header().Set("Content-Type", "application/json")
		if len(failing) > 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			_ = json.NewEncoder(w).Encode(map[string]any{"status": "unavailable", "failing": failing})
			return
		}
		_, _ = w.Write([]byte(`{"status":"ready"}`))
	})
	return mux
}

// readiness runs the probes at most once per readyFor, whoever asks: requests that come during
// a run wait for it and share its result.
type readiness struct {
	probes []Probe
	logger *slog.Logger
	now    func() time.Time

	mu      sync.Mutex
	at      time.Time         // when the last run started; zero before the first
	failing []string          // the probes that failed in the last run, by name
	errs    map[string]string // their errors (redacted), to log only what changed
}

func newReadiness(probes []Probe, logger *slog.Logger, now func() time.Time) *readiness {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if now == nil {
		now = time.Now
	}
	return &readiness{probes: probes, logger: logger, now: now, errs: map[string]string{}}
}

// check returns the names of the probes that fail, from a run at most readyFor old. A run is not
// tied to the request that started it: a caller that goes away does not fail the probes.
func (r *readiness) check() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.at.IsZero() && r.now().Sub(r.at) < readyFor {
		return r.failing
	}
	r.at = r.now()
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	errs := make([]error, len(r.probes))
	var wg sync.WaitGroup
	for i, p := range r.probes {
		wg.Go(func() { errs[i] = p.Check(ctx) })
	}
	wg.Wait()
	failing := []string{}
	for i, p := range r.probes {
		err := errs[i]
		if err == nil {
			if _, was := r.errs[p.Name]; was {
				r.logger.Info("readiness probe answers again", "probe", p.Name)
				delete(r.errs, p.Name)
			}
			continue
		}
		failing = append(failing, p.Name)
		if msg := redact.Text(err.Error()); r.errs[p.Name] != msg {
			r.errs[p.Name] = msg
			r.logger.Warn("readiness probe failing", "probe", p.Name, "error", msg)
		}
	}
	slices.Sort(failing)
	r.failing = failing
	return failing
}

// server is the metrics server of h on its listener, with its connection timeouts.
func server(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: metricsReadHeaderTimeout, ReadTimeout: metricsReadTimeout,
		WriteTimeout: metricsWriteTimeout, IdleTimeout: metricsIdleTimeout}
}

// Serve serves Handler(probes) on addr until ctx ends; an empty addr serves nothing. It returns
// once listening, so a bad address stops the process at start.
func Serve(ctx context.Context, addr string, probes []Probe, logger *slog.Logger) error {
	if addr == "" {
		return nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := server(handler(newReadiness(probes, logger, nil)))
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Warn("metrics server stopped", "error", err)
		}
	}()
	logger.Info("metrics and health listening", "addr", ln.Addr().String())
	return nil
}
