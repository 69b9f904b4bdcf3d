// Package groupcommit runs work that callers ask for at the same time in shared rounds (a group
// commit): the read model's writes and status reads and the solver's signings in the store, the
// solver's broadcasts in activities.
package groupcommit

import (
	"context"
	"sync"
)

// Rounds runs work that callers ask for at the same time in shared rounds, for the paths where a
// round costs about the same whatever it holds (a query, a transaction): a caller that finds fewer
// than MaxInFlight rounds running leads one at once with what is queued, itself included; callers
// that arrive while the limit is reached queue, and the next round takes up to MaxBatch of them.
// So a quiet path runs each ask alone and at once, and a busy one runs one round per group.
//
// No goroutine outlives the work: the leader whose round ends hands what queued meanwhile to one
// more goroutine, which runs rounds until the queue is empty. run answers each item of its round
// (the items carry their answers and a channel their callers wait on).
type Rounds[T any] struct {
	Run         func(batch []T)
	MaxInFlight int
	MaxBatch    int

	mu       sync.Mutex
	pending  []T
	inFlight int
}

// Ask queues item and waits until its round has answered it (closed done) or ctx ends. A caller
// that stops waiting leaves its item queued: the round still runs it, and the caller's retry
// finds what it did.
func (g *Rounds[T]) Ask(ctx context.Context, item T, done <-chan struct{}) error {
	g.add(item)
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// add queues item and, when a round may start, runs one in the caller's goroutine.
func (g *Rounds[T]) add(item T) {
	g.mu.Lock()
	g.pending = append(g.pending, item)
	if g.inFlight >= g.MaxInFlight {
		g.mu.Unlock()
		return
	}
	g.inFlight++
	batch := g.take()
	g.mu.Unlock()
	g.Run(batch)
	g.finish()
}

// take removes the next round's items from the queue; the caller holds mu.
func (g *Rounds[T]) take() []T {
	n := min(len(g.pending), g.MaxBatch)
	batch := g.pending[:n:n]
	g.pending = g.pending[n:]
	if len(g.pending) == 0 {
		g.pending = nil
	}
	return batch
}

// finish ends a leader's round: items queued meanwhile go to a goroutine that keeps running
// rounds until the queue is empty, so the leader returns with its own answer at once.
func (g *Rounds[T]) finish() {
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
			g.Run(batch)
		}
	}()
}

// State returns how many rounds are running and how many asks wait for the next.
func (g *Rounds[T]) State() (inFlight, pending int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.inFlight, len(g.pending)
}

// Keyed holds one Rounds per key: the group commits of each chain and address, say. The zero
// value is ready.
type Keyed[K comparable, T any] struct{ m sync.Map }

// Of returns key's rounds, made by newRounds the first time key is asked for.
func (k *Keyed[K, T]) Of(key K, newRounds func(K) *Rounds[T]) *Rounds[T] {
	if r, ok := k.m.Load(key); ok {
		return r.(*Rounds[T])
	}
	r, _ := k.m.LoadOrStore(key, newRounds(key))
	return r.(*Rounds[T])
}
