package store

import (
	"context"
	"sync"
)

// groups runs work that callers ask for at the same time in shared rounds, for the paths where a
// round costs about the same whatever it holds (a query, a transaction): a caller that finds fewer
// than maxInFlight rounds running leads one at once with what is queued, itself included; callers
// that arrive while the limit is reached queue, and the next round takes up to maxBatch of them.
// So a quiet path runs each ask alone and at once, and a busy one runs one round per group.
//
// No goroutine outlives the work: the leader whose round ends hands what queued meanwhile to one
// more goroutine, which runs rounds until the queue is empty. run answers each item of its round
// (the items carry their answers and a channel their callers wait on).
type groups[T any] struct {
	run         func(batch []T)
	maxInFlight int
	maxBatch    int

	mu       sync.Mutex
	pending  []T
	inFlight int
}

// ask queues item and waits until its round has answered it (closed done) or ctx ends. A caller
// that stops waiting leaves its item queued: the round still runs it, and the caller's retry
// finds what it did.
func (g *groups[T]) ask(ctx context.Context, item T, done <-chan struct{}) error {
	g.add(item)
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// add queues item and, when a round may start, runs one in the caller's goroutine.
func (g *groups[T]) add(item T) {
	g.mu.Lock()
	g.pending = append(g.pending, item)
	if g.inFlight >= g.maxInFlight {
		g.mu.Unlock()
		return
	}
	g.inFlight++
	batch := g.take()
	g.mu.Unlock()
	g.run(batch)
	g.finish()
}

// take removes the next round's items from the queue; the caller holds mu.
func (g *groups[T]) take() []T {
	n := min(len(g.pending), g.maxBatch)
	batch := g.pending[:n:n]
	g.pending = g.pending[n:]
	if len(g.pending) == 0 {
		g.pending = nil
	}
	return batch
}

// finish ends a leader's round: items queued meanwhile go to a goroutine that keeps running
// rounds until the queue is empty, so the leader returns with its own answer at once.
func (g *groups[T]) finish() {
	g.mu.Lock()
	if len(g.pending) == 0 {
		g.inFlight--
		g.mu.Unlock()
		return
	}
	g.mu.Unlock()
	go func() {
		for {
			g.mu.Lock()
			if len(g.pending) == 0 {
				g.inFlight--
				g.mu.Unlock()
				return
			}
			batch := g.take()
			g.mu.Unlock()
			g.run(batch)
		}
	}()
}
