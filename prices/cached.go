package prices

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shopspring/decimal"
	"golang.org/x/sync/singleflight"
)

// loadTimeout bounds one read of the source that no caller waits on (a background refresh) or
// that outlives the caller that started it.
const loadTimeout = 10 * time.Second

// Cached is a refresh-ahead cache in front of a Source, so that a quote is served from memory.
//
// A price read less than ttl ago is served without asking the source. An older one is still
// served, as long as it is less than maxAge old, while one background read replaces it; should
// that read fail, the old price stays and the next background read starts no earlier than ttl
// later. A price maxAge old or older, or none at all, is read synchronously and that read's
// error is returned. Concurrent reads of a symbol are collapsed into one. The age counted is
// the time since the price was read from the source, so an answer reaches a quote at most
// maxAge after a read that the source itself found fresh.
//
// One failure is different: a read that fails with ErrStale drops the cached price at once.
// The source has said that its latest answer is too old, and the cached one is no newer, so
// serving it until maxAge would hide a stale feed.
//
// Serving a cached price takes a read lock for a map lookup and allocates nothing. Safe for
// concurrent use.
type Cached struct {
	// Now is the clock; nil means time.Now. Set it before the first USDPrice.
	Now func() time.Time

	src         Source
	ttl, maxAge time.Duration

	mu      sync.RWMutex // guards entries; never held across a read of src
	entries map[string]*entry
	group   singleflight.Group
}

// entry is one cached price. An entry is replaced, never changed, when a read succeeds; the
// atomics only coordinate the background refresh of the entry being served.
type entry struct {
	price      decimal.Decimal
	readAt     time.Time
	refreshing atomic.Bool  // a background refresh of this entry is running
	retryAt    atomic.Int64 // Unix nanoseconds before which no background refresh starts (after a failed one)
}

var _ Source = (*Cached)(nil)

// NewCached returns a cache in front of src. ttl <= 0 means DefaultTTL; a maxAge below ttl
// is raised to ttl (no stale serving).
func NewCached(src Source, ttl, maxAge time.Duration) *Cached {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	if maxAge < ttl {
		maxAge = ttl
	}
	return &Cached{src: src, ttl: ttl, maxAge: maxAge, entries: make(map[string]*entry)}
}

// USDPrice implements Source (see Cached for when it reads src).
func (c *Cached) USDPrice(ctx context.Context, symbol string) (decimal.Decimal, error) {
	sym := strings.ToUpper(symbol)
	now := c.now()
	c.mu.RLock()
	e := c.entries[sym]
	c.mu.RUnlock()
	if e != nil {
		age := now.Sub(e.readAt)
		if age < c.ttl {
			return e.price, nil
		}
		if age < c.maxAge {
			c.refreshInBackground(sym, e, now)
			return e.price, nil
		}
	}
	return c.load(ctx, sym, false)
}

// Warm reads the price of each symbol from the source now, concurrently, and caches it; a
// service calls it at start so that the first quotes do not wait. The error joins the
// failures, each naming its symbol.
func (c *Cached) Warm(ctx context.Context, symbols ...string) error {
	errs := make([]error, len(symbols))
	var wg sync.WaitGroup
	for i, s := range symbols {
		wg.Go(func() {
			if _, err := c.load(ctx, strings.ToUpper(s), true); err != nil {
				errs[i] = fmt.Errorf("warm price of %s: %w", s, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (c *Cached) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// refreshInBackground starts a read of sym unless one is running for e or a failed one was
// too recent. At most one goroutine per entry runs at a time.
func (c *Cached) refreshInBackground(sym string, e *entry, now time.Time) {
	if now.UnixNano() < e.retryAt.Load() || !e.refreshing.CompareAndSwap(false, true) {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), loadTimeout)
		defer cancel()
		_, err, _ := c.group.Do(sym, func() (any, error) { return c.read(ctx, sym, false) })
		if err != nil {
			e.retryAt.Store(c.now().Add(c.ttl).UnixNano())
		}
		e.refreshing.Store(false)
	}()
}

// load reads sym synchronously, sharing a read already under way; with force it asks the
// source even if a price was read less than ttl ago. The read itself does not stop when ctx is
// cancelled (other callers may be waiting on it); this caller stops waiting.
func (c *Cached) load(ctx context.Context, sym string, force bool) (decimal.Decimal, error) {
	key := sym
	if force {
		key = "\x00force:" + sym // forced reads never join (and return the answer of) a lookup
	}
	ch := c.group.DoChan(key, func() (any, error) {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), loadTimeout)
		defer cancel()
		return c.read(rctx, sym, force)
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			return decimal.Zero, r.Err
		}
		return r.Val.(decimal.Decimal), nil
	case <-ctx.Done():
		return decimal.Zero, fmt.Errorf("%w: price of %s: %w", ErrUnavailable, sym, ctx.Err())
	}
}

// read asks the source and caches a successful answer, stamped with the time the read
// started. Unless forced, it first looks at the cache again: a caller that missed it may
// arrive just after another read stored a price, and that price is fresh. A failure leaves
// the cached entry as it is, except ErrStale, which drops it (see Cached).
func (c *Cached) read(ctx context.Context, sym string, force bool) (decimal.Decimal, error) {
	at := c.now()
	c.mu.RLock()
	old := c.entries[sym]
	c.mu.RUnlock()
	if !force && old != nil && at.Sub(old.readAt) < c.ttl {
		return old.price, nil
	}
	p, err := c.src.USDPrice(ctx, sym)
	c.mu.Lock()
	defer c.mu.Unlock()
	old = c.entries[sym]
	if old != nil && old.readAt.After(at) {
		return p, err // a read that started later already settled the entry
	}
	switch {
	case err == nil:
		c.entries[sym] = &entry{price: p, readAt: at}
	case errors.Is(err, ErrStale):
		delete(c.entries, sym)
	}
	return p, err
}
