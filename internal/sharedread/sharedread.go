// Package sharedread runs a read once for all the callers that ask for it at the same moment
// (singleflight), and, when asked to, answers later callers from the last read for a while. The
// engine's signings use it for the reads every fill of a chain makes alike (the fees, the
// solver's holdings), the oracle for the head and header reads every attestation of a block
// makes alike. Whether an answer read a moment before the caller asked is good enough is the
// caller's to decide, and each says why where it uses this.
package sharedread

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// Group shares the reads of its keys. The zero Group is ready; it must not be copied after first
// use.
type Group struct {
	mu     sync.Mutex
	last   map[string]read
	flight singleflight.Group
}

type read struct {
	at  time.Time
	val any
}

// Do returns the read of key sent less than maxAge ago (0 reuses none), or joins the read of key
// under way, or runs fn. fn runs on a context of its own, not cancelled with the caller's but
// ending at its deadline, so a caller that gives up does not fail the others; it stops waiting
// when its ctx ends, and the read goes on for the others.
func Do[T any](ctx context.Context, g *Group, key string, maxAge time.Duration, fn func(context.Context) (T, error)) (T, error) {
	if v, ok := g.recent(key, maxAge); ok {
		return v.(T), nil
	}
	ch := g.flight.DoChan(key, func() (any, error) {
		rctx := context.WithoutCancel(ctx)
		if deadline, ok := ctx.Deadline(); ok {
			var cancel context.CancelFunc
			rctx, cancel = context.WithDeadline(rctx, deadline)
			defer cancel()
		}
		at := time.Now()
		v, err := fn(rctx)
		if err == nil && maxAge > 0 {
			g.mu.Lock()
			if g.last == nil {
				g.last = map[string]read{}
			}
			g.last[key] = read{at: at, val: v}
			g.mu.Unlock()
		}
		return v, err
	})
	var zero T
	select {
	case r := <-ch:
		if r.Err != nil {
			return zero, r.Err
		}
		return r.Val.(T), nil
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// recent returns the read of key sent less than maxAge ago.
func (g *Group) recent(key string, maxAge time.Duration) (any, bool) {
	if maxAge <= 0 {
		return nil, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	v, ok := g.last[key]
	if !ok || time.Since(v.at) >= maxAge {
		return nil, false
	}
	return v.val, true
}
