package integration

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/intentd/intentd/internal/logging"
	"github.com/intentd/intentd/internal/metrics"
)

// stalledOutput is a log output whose reader has stopped reading: every write blocks until the
// test ends.
type stalledOutput struct {
	open chan struct{}
	once sync.Once
}

func (o *stalledOutput) Write(p []byte) (int, error) { <-o.open; return len(p), nil }

func (o *stalledOutput) release() { o.once.Do(func() { close(o.open) }) }

// Issue 33, point 9: "A slow log reader never stalls the engine … a test with a blocked output
// shows intents still completing." Every part of the stack logs at INFO through the processes'
// logging path (internal/logging) into an output that never takes a line: the intents still
// reach success, and the lines the output could not take are dropped and counted
// (intentd_log_lines_dropped_total). A logger that wrote to the output itself would hold the
// first request that logs, and every one after it.
func TestIntentsCompleteWhileTheLogOutputIsBlocked(t *testing.T) {
	out := &stalledOutput{open: make(chan struct{})}
	// A queue of a few lines, so that the intents of the test overflow it; the ERROR lane as in
	// the processes.
	h := logging.NewHandler(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelInfo}), 16, logging.ErrorReserve)
	dropped := func() float64 {
		return testutil.ToFloat64(metrics.LogLinesDropped.WithLabelValues("INFO")) +
			testutil.ToFloat64(metrics.LogLinesDropped.WithLabelValues("WARN"))
	}
	before := dropped()
	s := startStackWith(t, stackOptions{logger: slog.New(h)})
	t.Cleanup(func() { // first: the stack's own cleanups may log
		out.release()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = h.Close(ctx)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	ids := make([]string, 3)
	for i := range ids {
		ids[i] = s.bridged(t, ctx, 1+i, freshAddress(t))
	}
	for _, id := range ids {
		s.succeeds(t, ctx, id)
	}
	if got := dropped() - before; got <= 0 {
		t.Fatalf("no log line counted as dropped while the output took none (%v)", got)
	}
}
