package logging

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// gate is an output that blocks every write until it is opened, as a pipe into a reader that
// has stopped reading does.
type gate struct {
	open    chan struct{}
	once    sync.Once
	mu      sync.Mutex
	buf     bytes.Buffer
	writing chan struct{} // closed at the first write
	first   sync.Once
}

func newGate() *gate { return &gate{open: make(chan struct{}), writing: make(chan struct{})} }

func (g *gate) Write(p []byte) (int, error) {
	g.first.Do(func() { close(g.writing) })
	<-g.open
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.buf.Write(p)
}

func (g *gate) release() { g.once.Do(func() { close(g.open) }) }

func (g *gate) lines() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return strings.Split(strings.TrimSpace(g.buf.String()), "\n")
}

// Issue 33, point 9: "Log through a bounded, non-blocking path that drops (and counts) lines when
// the sink is slower than the engine, keeping ERROR lines". With the output blocked, a thousand
// INFO lines are logged without waiting (this test would hang otherwise), the ones beyond the
// queue are dropped and counted, and every ERROR line, beyond the queue too, is written once the
// output moves again, in the order logged.
func TestABlockedOutputDropsAndCountsLinesButNeverAnError(t *testing.T) {
	g := newGate()
	defer g.release()
	h := NewHandler(slog.NewTextHandler(g, &slog.HandlerOptions{Level: slog.LevelInfo}), 8, 4)
	log := slog.New(h).With("component", "test")
	info := testutil.ToFloat64(dropped.WithLabelValues("INFO"))

	log.Info("first")
	<-g.writing // the writer holds "first" and waits on the output
	for i := range 1000 {
		log.Info("filler", "i", i)
	}
	for i := range 4 { // the reserve above the full queue
		log.Error("kept", "i", i)
	}
	log.Debug("below the level")
	if got := testutil.ToFloat64(dropped.WithLabelValues("INFO")) - info; got != 1000-8 {
		t.Fatalf("%v INFO lines counted as dropped, want %d (the queue holds 8)", got, 1000-8)
	}

	// An ERROR past the reserve waits for room: it is written, not dropped.
	last := make(chan struct{})
	go func() { log.Error("kept", "i", 4); close(last) }()
	g.release()
	<-last
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	lines := g.lines()
	var errs []string
	for _, l := range lines {
		if strings.Contains(l, "level=ERROR") {
			errs = append(errs, l)
		}
		if strings.Contains(l, "below the level") {
			t.Fatalf("a DEBUG line was written: %s", l)
		}
	}
	if len(lines) != 1+8+5 || !strings.Contains(lines[0], "msg=first") || !strings.Contains(lines[1], "i=0") {
		t.Fatalf("wrote %d lines, want the first, the 8 queued and the 5 errors:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	for i, l := range errs {
		if !strings.Contains(l, fmt.Sprintf("i=%d", i)) || !strings.Contains(l, "component=test") {
			t.Fatalf("error line %d is %q", i, l)
		}
	}
	if len(errs) != 5 {
		t.Fatalf("%d ERROR lines written, want 5", len(errs))
	}
	log.Info("after close") // written by its caller
	if l := g.lines(); !strings.Contains(l[len(l)-1], "after close") {
		t.Fatalf("a line after Close was not written: %q", l[len(l)-1])
	}
}
