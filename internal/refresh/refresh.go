// Package refresh is a small refresh-ahead cache for values that are slow to load (an RPC read,
// a database lookup) and may be a little stale: gas prices, balances, API keys, fill
// simulations. It keeps such loads off a request's hot path.
//
// A value younger than Fresh is served as is. An older one is still served while one background
// load replaces it. A value older than MaxAge, or a missing one, is loaded synchronously and the
// load's error is returned. Concurrent loads of one key are collapsed into one
// (golang.org/x/sync/singleflight). Errors can be cached too (Options.ErrorTTL), so a failing
// dependency is not hammered by every request.
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
	// LoadTimeout bounds background loads; 0 means 10 s.
	LoadTimeout time.Duration
	// MaxEntries bounds the cache; when full, expired entries are dropped and, failing that, the
	// whole map is cleared (the cache is an accelerator, not a store). 0 means 100,000.
	MaxEntries int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

type entry[V any] struct {
	val    V
	err    error
	loaded time.Time
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
			c.refreshInBackground(key)
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
	// The load is shared by every caller waiting on the key, so it must not die with the first
	// caller's context; each caller still stops waiting when its own context ends.
	ch := c.group.DoChan(keyString(key), func() (any, error) {
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.opt.LoadTimeout)
		defer cancel()
		return c.loadAndStore(lctx, key)
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

func (c *Cache[K, V]) refreshInBackground(key K) {
	// DoChan collapses this with any load already running for the key, so a burst of requests
	// on a stale value starts one load, not one per request.
	c.group.DoChan(keyString(key), func() (any, error) {
		ctx, cancel := context.WithTimeout(context.Background(), c.opt.LoadTimeout)
		defer cancel()
		v, err := c.load(ctx, key)
		if err != nil {
			return v, err // keep serving the old value until it passes MaxAge
		}
		c.store(key, entry[V]{val: v, loaded: c.opt.Now()})
		return v, nil
	})
}

func (c *Cache[K, V]) loadAndStore(ctx context.Context, key K) (V, error) {
	v, err := c.load(ctx, key)
	if err != nil {
		if c.opt.ErrorTTL > 0 && ctx.Err() == nil {
			c.store(key, entry[V]{err: err, loaded: c.opt.Now()})
		}
		return v, err
	}
	c.store(key, entry[V]{val: v, loaded: c.opt.Now()})
	return v, nil
}

func (c *Cache[K, V]) store(key K, e entry[V]) {
	c.mu.Lock()
	defer c.mu.Unlock()
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
