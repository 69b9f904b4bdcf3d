// Package logging is how every process of the engine logs: text lines through a bounded queue
// that one goroutine writes out, so that a log call never waits for the output. Piped into a
// reader slower than the engine (a shell loop that timestamps each line), a process whose every
// log call wrote to the pipe itself went at the reader's pace: a burst of 600 intents fell from
// 52 to 1.5 a second, every request that logged waiting on the pipe (issue 33).
//
// Lines below ERROR are dropped, and counted (intentd_log_lines_dropped_total, by level), when
// the queue is full: the sink is slower than the engine, and the engine goes on. ERROR lines are
// never dropped: they have a reserved lane of their own above the queue (ErrorReserve lines), and
// a caller logging an ERROR while that is full too waits for room, so a sink that stays blocked
// holds up only what logs errors, and only after ErrorReserve of them. Order is kept: lines are
// written in the order they were logged. Close writes out what is queued, within its context's
// time, and every line logged after it is written at once.
package logging

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/intentd/intentd/internal/metrics"
)

// Queue sizes: lines of every level up to QueueLines; ERROR lines up to ErrorReserve more.
const (
	QueueLines   = 8192
	ErrorReserve = 1024
)

// flushTimeout bounds the flush of a process's logger as it stops (New's close).
const flushTimeout = 5 * time.Second

// New returns a process's logger, text lines to w from level up through a Handler, and the
// function that flushes it as the process stops (at most flushTimeout: a sink that stays
// blocked loses what is left).
func New(w io.Writer, level slog.Level) (logger *slog.Logger, close func()) {
	h := NewHandler(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}), QueueLines, ErrorReserve)
	return slog.New(h), func() {
		ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
		defer cancel()
		_ = h.Close(ctx)
	}
}

// Handler hands each record to next through a bounded queue and one writing goroutine (see the
// package documentation). Its WithAttrs and WithGroup share the queue.
type Handler struct {
	q    *queue
	next slog.Handler
}

// NewHandler starts the goroutine that writes the queue to next: lines up to capacity, ERROR
// lines up to reserve more.
func NewHandler(next slog.Handler, capacity, reserve int) *Handler {
	q := &queue{capacity: capacity, reserve: reserve, done: make(chan struct{})}
	q.ready = sync.NewCond(&q.mu)
	q.room = sync.NewCond(&q.mu)
	go q.write()
	return &Handler{q: q, next: next}
}

// Enabled is next's.
func (h *Handler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

// Handle queues r for next; below ERROR it is dropped and counted when the queue is full.
func (h *Handler) Handle(_ context.Context, r slog.Record) error {
	h.q.put(entry{h: h.next, r: r.Clone()})
	return nil
}

// WithAttrs is next's, on the same queue.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &Handler{q: h.q, next: h.next.WithAttrs(attrs)}
}

// WithGroup is next's, on the same queue.
func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{q: h.q, next: h.next.WithGroup(name)}
}

// Close writes out what is queued and returns once it is written, or ctx's error when ctx ends
// first. Lines logged after Close are written at once, by their caller.
func (h *Handler) Close(ctx context.Context) error {
	h.q.mu.Lock()
	h.q.closed = true
	h.q.ready.Broadcast()
	h.q.room.Broadcast()
	h.q.mu.Unlock()
	select {
	case <-h.q.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// entry is one record and the handler it goes to.
type entry struct {
	h slog.Handler
	r slog.Record
}

// queue is the records waiting for the writer, in the order they were logged.
type queue struct {
	mu                sync.Mutex
	ready             *sync.Cond // signalled when an entry is queued or the queue closes
	room              *sync.Cond // broadcast when the writer takes the queue
	items             []entry
	capacity, reserve int
	closed            bool
	done              chan struct{} // closed when the writer has written everything after Close
}

// dropped counts the lines dropped, by level.
var dropped = metrics.LogLinesDropped

func (q *queue) put(e entry) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		_ = e.h.Handle(context.Background(), e.r)
		return
	}
	if e.r.Level < slog.LevelError {
		if len(q.items) >= q.capacity {
			q.mu.Unlock()
			dropped.WithLabelValues(e.r.Level.String()).Inc()
			return
		}
	} else {
		for len(q.items) >= q.capacity+q.reserve && !q.closed {
			q.room.Wait()
		}
		if q.closed {
			q.mu.Unlock()
			_ = e.h.Handle(context.Background(), e.r)
			return
		}
	}
	q.items = append(q.items, e)
	q.ready.Signal()
	q.mu.Unlock()
}

// write is the writing goroutine: it takes everything queued at once and writes it out, until
// the queue is closed and empty.
func (q *queue) write() {
	defer close(q.done)
	var batch []entry
	for {
		q.mu.Lock()
		for len(q.items) == 0 && !q.closed {
			q.ready.Wait()
		}
		if len(q.items) == 0 {
			q.mu.Unlock()
			return
		}
		batch, q.items = q.items, batch[:0]
		q.room.Broadcast()
		q.mu.Unlock()
		for i := range batch {
			_ = batch[i].h.Handle(context.Background(), batch[i].r)
			batch[i] = entry{}
		}
	}
}
