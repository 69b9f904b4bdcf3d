// Package refresh is a small refresh-ahead cache for values that are slow to load (an RPC read,
// a database lookup) and may be a little stale: gas prices, balances, API keys, fill
// simulations. It keeps such loads off a request's hot path.
//
// A value younger than Fresh is served as is. An older one is still served while one background
// load replaces it; when that load fails, the old value stays and the next background load
// starts no sooner than Fresh later. A value older than MaxAge, or a missing one, is loaded
// synchronously and the load's error is returned. Concurrent loads of one key are collapsed
// into one (golang.org/x/sync/singleflight), and a load that starts just after another stored a
// fresh value returns that value instead of asking again. Errors can be cached too
// (Options.ErrorTTL), so a failing dependency is not hammered by every request, and an error
// can drop the value it failed to replace (Options.Drop).
package refresh

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// Loader loads the value of a key.
type Loader[K comparable, V any] func(ctx context.Context, key K) (V, error)

// Options tune a Cache.
type Options struct {
	// Fresh is how long a loaded value is served without any load.
	Fresh time.Duration
	// MaxAge is how long a value may be served at all while background loads fail; at least
	// Fresh.
	MaxAge time.Duration
	// ErrorTTL, when positive, caches a failed load's error for that long.
	ErrorTTL time.Duration
	// Drop, when set, says which load errors discard the cached value at once instead of
	// serving it until MaxAge (a price feed that reports itself stale, say).
	Drop func(error) bool
	// LoadTimeout bounds background loads; 0 means 10 s.
	LoadTimeout time.Duration
	// MaxEntries bounds the cache; when full, expired entries are dropped and, failing that, the
	// whole map is cleared (the cache is an accelerator, not a store). 0 means 100,000.
	MaxEntries int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

type entry[V any] struct {
	val        V
	err        error
	loaded     time.Time // when the load that produced it started
	retryAt    time.Time // no background load before this (after a failed one)
	refreshing bool      // a background load of this key is running
}

// Cache is a refresh-ahead cache. The zero value is not usable; call New.
type Cache[K comparable, V any] struct {
	load Loader[K, V]
	opt  Options

	mu      sync.RWMutex
	entries map[K]entry[V]
	group   singleflight.Group
}

// New returns a cache over load.
func New[K comparable, V any](load Loader[K, V], opt Options) *Cache[K, V] {
	if opt.MaxAge < opt.Fresh {
		opt.MaxAge = opt.Fresh
	}
	if opt.LoadTimeout <= 0 {
		opt.LoadTimeout = 10 * time.Second
	}
	if opt.MaxEntries <= 0 {
		opt.MaxEntries = 100_000
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Cache[K, V]{load: load, opt: opt, entries: make(map[K]entry[V])}
}

// Get returns the value of key, loading it when needed (see the package comment).
func (c *Cache[K, V]) Get(ctx context.Context, key K) (V, error) {
	now := c.opt.Now()
	c.mu.RLock()
	e, ok := c.entries[key]
	c.mu.RUnlock()
	if ok {
		age := now.Sub(e.loaded)
		switch {
		case e.err != nil && age < c.opt.ErrorTTL:
			return e.val, e.err
		case e.err == nil && age < c.opt.Fresh:
			return e.val, nil
		case e.err == nil && age < c.opt.MaxAge:
			if !e.refreshing && !now.Before(e.retryAt) {
				c.refreshInBackground(key)
			}
			return e.val, nil
		}
	}
	return c.loadNow(ctx, key)
}

// Set stores a value as freshly loaded (for example one just written by this process).
func (c *Cache[K, V]) Set(key K, v V) { c.store(key, entry[V]{val: v, loaded: c.opt.Now()}) }

// Forget drops a key, so the next Get loads it.
func (c *Cache[K, V]) Forget(key K) {
	c.mu.Lock()
	delete(c.entries, key)
	c.mu.Unlock()
}

func (c *Cache[K, V]) loadNow(ctx context.Context, key K) (V, error) {
	return c.wait(ctx, keyString(key), func(lctx context.Context) (V, error) { return c.loadAndStore(lctx, key, false) })
}

// Reload loads key now, whatever the cache holds, and stores the result (to warm a cache at
// start, say). It never joins, or answers with, a lookup already under way.
func (c *Cache[K, V]) Reload(ctx context.Context, key K) (V, error) {
	return c.wait(ctx, "\x00reload:"+keyString(key), func(lctx context.Context) (V, error) { return c.loadAndStore(lctx, key, true) })
}

// wait runs load once per flight key and waits for it. The load is shared by every caller
// waiting on the key, so it must not die with the first caller's context; each caller still
// stops waiting when its own context ends.
func (c *Cache[K, V]) wait(ctx context.Context, flight string, load func(context.Context) (V, error)) (V, error) {
	ch := c.group.DoChan(flight, func() (any, error) {
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.opt.LoadTimeout)
		defer cancel()
		return load(lctx)
	})
	select {
	case r := <-ch:
		v, _ := r.Val.(V) // a nil V (an interface type) comes back as a nil any
		return v, r.Err
	case <-ctx.Done():
		var zero V
		return zero, ctx.Err()
	}
}

// refreshInBackground starts one background load of key unless one is running: at most one
// goroutine per key, however many requests see the stale value.
func (c *Cache[K, V]) refreshInBackground(key K) {
	c.mu.Lock()
	e, ok := c.entries[key]
	if !ok || e.refreshing {
		c.mu.Unlock()
		return
	}
	e.refreshing = true
	c.entries[key] = e
	c.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), c.opt.LoadTimeout)
		defer cancel()
		_, _ = c.loadAndStore(ctx, key, false)
		c.mu.Lock()
		if e, ok := c.entries[key]; ok && e.refreshing {
			e.refreshing = false
			c.entries[key] = e
		}
		c.mu.Unlock()
	}()
}

// Refreshing reports whether a background load of key is running (for tests and shutdown).
func (c *Cache[K, V]) Refreshing(key K) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.entries[key].refreshing
}

// loadAndStore loads key and settles its entry. Unless forced, it first looks again: a caller
// that missed the cache may arrive just after another load stored a fresh value. A failed load
// keeps a good value (until MaxAge; at once gone if Drop says so) and delays the next
// background load; with ErrorTTL a failure with no value to keep is cached.
func (c *Cache[K, V]) loadAndStore(ctx context.Context, key K, force bool) (V, error) {
	start := c.opt.Now()
	c.mu.RLock()
	old, had := c.entries[key]
	c.mu.RUnlock()
	if !force && had && old.err == nil && start.Sub(old.loaded) < c.opt.Fresh {
		return old.val, nil
	}
	v, err := c.load(ctx, key)
	c.mu.Lock()
	defer c.mu.Unlock()
	old, had = c.entries[key]
	if had && old.loaded.After(start) {
		return v, err // a load that started later already settled the entry
	}
	switch {
	case err == nil:
		c.storeLocked(key, entry[V]{val: v, loaded: start})
	case c.opt.Drop != nil && c.opt.Drop(err):
		delete(c.entries, key)
	case had && old.err == nil && start.Sub(old.loaded) < c.opt.MaxAge:
		old.retryAt = c.opt.Now().Add(c.opt.Fresh)
		c.entries[key] = old
	case c.opt.ErrorTTL > 0 && ctx.Err() == nil:
		c.storeLocked(key, entry[V]{err: err, loaded: start})
	}
	return v, err
}

func (c *Cache[K, V]) store(key K, e entry[V]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.storeLocked(key, e)
}

func (c *Cache[K, V]) storeLocked(key K, e entry[V]) {
	if _, ok := c.entries[key]; !ok && len(c.entries) >= c.opt.MaxEntries {
		now := c.opt.Now()
		for k, old := range c.entries {
			if now.Sub(old.loaded) >= c.opt.MaxAge && now.Sub(old.loaded) >= c.opt.ErrorTTL {
				delete(c.entries, k)
			}
		}
		if len(c.entries) >= c.opt.MaxEntries {
			clear(c.entries)
		}
	}
	c.entries[key] = e
}

func keyString[K comparable](k K) string { return fmt.Sprint(k) }
