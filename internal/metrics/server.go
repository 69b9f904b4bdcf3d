package metrics

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Probe is one dependency a process needs to do its work: ready means every probe answers.
type Probe struct {
	Name  string
	Check func(ctx context.Context) error
}

// probeTimeout bounds one readiness check, so /readyz answers within it whatever hangs.
const probeTimeout = 2 * time.Second

// Handler serves /metrics (Registry, in Prometheus's text format), /livez (200 while the process
// runs) and /readyz (200 when every probe answers, 503 naming those that do not).
func Handler(probes []Probe) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(Registry, promhttp.HandlerOpts{Registry: Registry}))
	mux.HandleFunc("/livez", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"ok"}`))
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), probeTimeout)
		defer cancel()
		failed := map[string]string{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, p := range probes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := p.Check(ctx); err != nil {
					mu.Lock()
					failed[p.Name] = err.Error()
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		w.Header().Set("Content-Type", "application/json")
		if len(failed) > 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			_ = json.NewEncoder(w).Encode(map[string]any{"status": "unavailable", "failing": failed})
			return
		}
		_, _ = w.Write([]byte(`{"status":"ready"}`))
	})
	return mux
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
	srv := &http.Server{Handler: Handler(probes), ReadHeaderTimeout: 5 * time.Second}
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
