package prices

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/internal/refresh"
)

// Cached is a refresh-ahead cache in front of a Source, so that a quote is served from memory.
// It is the project's refresh-ahead cache (internal/refresh) keyed by symbol, with the rules
// below.
//
// A price read less than ttl ago is served without asking the source. An older one is still
// served, as long as it is less than maxAge old, while one background read replaces it; should
// that read fail, the old price stays and the next background read starts no earlier than ttl
// later. A price maxAge old or older, or none at all, is read synchronously and that read's
// error is returned. Concurrent reads of a symbol are collapsed into one. The age counted is
// the time since the price was read from the source, so an answer reaches a quote at most
// maxAge after a read that the source itself found fresh.
//
// Two failures are different. A read that fails with ErrStale drops the cached price at once:
// the source has said that its latest answer is too old, and the cached one is no newer, so
// serving it until maxAge would hide a stale feed. A read that fails with ErrNoSource drops it
// too (the source no longer prices the symbol), and like every error it is not kept: the
// source answers it from its configuration without I/O, so every quote for the symbol asks
// again, and a configuration that gains the symbol prices it on the next read. Nothing
// retries it in the background.
//
// Serving a cached price takes a read lock for a map lookup and allocates nothing. Safe for
// concurrent use.
type Cached struct {
	// Now is the clock; nil means time.Now. Set it before the first USDPrice.
	Now func() time.Time

	ttl, maxAge time.Duration
	cache       *refresh.Cache[string, decimal.Decimal]
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
	c := &Cached{ttl: ttl, maxAge: maxAge}
	c.cache = refresh.New(src.USDPrice, refresh.Options{Fresh: ttl, MaxAge: maxAge,
		Drop: func(err error) bool { return errors.Is(err, ErrStale) || errors.Is(err, ErrNoSource) }, Now: c.now})
	return c
}

// USDPrice implements Source (see Cached for when it reads src).
func (c *Cached) USDPrice(ctx context.Context, symbol string) (decimal.Decimal, error) {
	sym := strings.ToUpper(symbol)
	p, err := c.cache.Get(ctx, sym)
	return p, c.callerGaveUp(ctx, sym, err)
}

// Warm reads the price of each symbol from the source now, concurrently, and caches it; a
// service calls it at start so that the first quotes do not wait. The error joins the
// failures, each naming its symbol.
func (c *Cached) Warm(ctx context.Context, symbols ...string) error {
	errs := make([]error, len(symbols))
	var wg sync.WaitGroup
	for i, s := range symbols {
		wg.Go(func() {
			sym := strings.ToUpper(s)
			if _, err := c.cache.Reload(ctx, sym); err != nil {
				errs[i] = fmt.Errorf("warm price of %s: %w", s, c.callerGaveUp(ctx, sym, err))
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// callerGaveUp marks the caller's own cancellation as the price being unavailable; the read
// it was waiting on goes on for other callers.
func (c *Cached) callerGaveUp(ctx context.Context, sym string, err error) error {
	if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return fmt.Errorf("%w: price of %s: %w", ErrUnavailable, sym, err)
	}
	return err
}

func (c *Cached) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}
