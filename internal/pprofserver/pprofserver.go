// Package pprofserver serves Go's runtime profiles (net/http/pprof) on a listener of their own
// when PPROF_ADDR names one, so an operator or a benchmark can take CPU, block and mutex
// profiles of a running process (BENCHMARKS.md). It is off by default; bind it to loopback or
// a private network only: profiles reveal code paths and timings, never secrets, but the
// endpoint costs CPU while a profile runs.
package pprofserver

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
	"time"
)

// Start serves the profiles on addr until ctx ends; an empty addr does nothing. With
// blocking, block and mutex profiling are switched on at a low rate (a blocking event per 10 µs
// blocked, one contended mutex in 100) so those profiles have data; under a heavy load their
// stack walks cost several percent of the CPU, so a CPU profile is best taken without them.
func Start(ctx context.Context, addr string, blocking bool, logger *slog.Logger) error {
	if addr == "" {
		return nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if blocking {
		runtime.SetBlockProfileRate(10_000)
		runtime.SetMutexProfileFraction(100)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Warn("pprof server stopped", "error", err)
		}
	}()
	logger.Info("pprof listening", "addr", ln.Addr().String())
	return nil
}
