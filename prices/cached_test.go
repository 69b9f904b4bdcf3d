package prices

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeSource counts its calls; it can fail, and it can hold every call until released.
type fakeSource struct {
	calls atomic.Int64

	mu     sync.Mutex
	prices map[string]decimal.Decimal
	err    error
	gate   chan struct{} // when set, calls wait for it to be closed
}

func newFake(prices map[string]int64) *fakeSource {
	f := &fakeSource{prices: map[string]decimal.Decimal{}}
	for s, p := range prices {
		f.prices[s] = decimal.NewFromInt(p)
	}
	return f
}

func (f *fakeSource) USDPrice(ctx context.Context, symbol string) (decimal.Decimal, error) {
	f.calls.Add(1)
	f.mu.Lock()
	gate := f.gate
	f.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return decimal.Zero, ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return decimal.Zero, fmt.Errorf("%s: %w", symbol, f.err)
	}
	p, ok := f.prices[symbol]
	if !ok {
		return decimal.Zero, fmt.Errorf("%w: no price for %s", ErrUnavailable, symbol)
	}
	return p, nil
}

func (f *fakeSource) set(symbol string, p int64) {
	f.mu.Lock()
	f.prices[symbol] = decimal.NewFromInt(p)
	f.mu.Unlock()
}

func (f *fakeSource) fail(err error) {
	f.mu.Lock()
	f.err = err
	f.mu.Unlock()
}

// hold makes calls wait until the returned function is called.
func (f *fakeSource) hold() (release func()) {
	g := make(chan struct{})
	f.mu.Lock()
	f.gate = g
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		f.gate = nil
		f.mu.Unlock()
		close(g)
	}
}

// clock is a test clock that only moves when told to; reading it takes no lock.
type clock struct{ ns atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.ns.Store(time.Unix(1_700_000_000, 0).UnixNano())
	return c
}

func (c *clock) now() time.Time { return time.Unix(0, c.ns.Load()) }

func (c *clock) add(d time.Duration) { c.ns.Add(int64(d)) }

func newTestCache(src Source, clk *clock) *Cached {
	c := NewCached(src, 10*time.Second, time.Minute)
	c.Now = clk.now
	return c
}

// idle waits until no background refresh of sym is running.
func idle(t *testing.T, c *Cached, sym string) {
	t.Helper()
	require.Eventually(t, func() bool { return !c.cache.Refreshing(sym) }, 5*time.Second, time.Millisecond)
}

func price(t *testing.T, c *Cached, sym string) decimal.Decimal {
	t.Helper()
	p, err := c.USDPrice(context.Background(), sym)
	require.NoError(t, err)
	return p
}

func TestCachedServesWarmWithoutCalling(t *testing.T) {
	src := newFake(map[string]int64{"ETH": 3000, "USDC": 1})
	c := newTestCache(src, newClock())
	require.NoError(t, c.Warm(context.Background(), "ETH", "usdc"))
	require.EqualValues(t, 2, src.calls.Load())
	for range 1000 {
		require.True(t, price(t, c, "ETH").Equal(decimal.NewFromInt(3000)))
		require.True(t, price(t, c, "usdc").Equal(decimal.NewFromInt(1)))
	}
	require.EqualValues(t, 2, src.calls.Load())

	ctx := context.Background()
	allocs := testing.AllocsPerRun(1000, func() {
		if _, err := c.USDPrice(ctx, "ETH"); err != nil {
			panic(err)
		}
	})
	require.Zero(t, allocs, "a warm price must not allocate")
}

func TestCachedColdReadIsSynchronousAndCollapsed(t *testing.T) {
	src := newFake(map[string]int64{"ETH": 3000})
	c := newTestCache(src, newClock())
	release := src.hold()
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			p, err := c.USDPrice(context.Background(), "ETH")
			assert.NoError(t, err)
			assert.True(t, p.Equal(decimal.NewFromInt(3000)))
		})
	}
	require.Eventually(t, func() bool { return src.calls.Load() == 1 }, 5*time.Second, time.Millisecond)
	time.Sleep(20 * time.Millisecond) // give the other callers time to (wrongly) start reads
	release()
	wg.Wait()
	require.EqualValues(t, 1, src.calls.Load())

	// An unknown symbol fails synchronously with the source's error.
	_, err := c.USDPrice(context.Background(), "DOGE")
	require.ErrorIs(t, err, ErrUnavailable)
	require.ErrorContains(t, err, "DOGE")
}

func TestCachedRefreshesInBackgroundAfterTTL(t *testing.T) {
	src := newFake(map[string]int64{"ETH": 3000})
	clk := newClock()
	c := newTestCache(src, clk)
	require.NoError(t, c.Warm(context.Background(), "ETH"))

	clk.add(9 * time.Second)
	require.True(t, price(t, c, "ETH").Equal(decimal.NewFromInt(3000)))
	require.EqualValues(t, 1, src.calls.Load(), "read again before ttl")

	// Past ttl: the old price is served at once while one read runs, however many ask.
	clk.add(2 * time.Second)
	src.set("ETH", 3100)
	release := src.hold()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 100 {
			p, err := c.USDPrice(context.Background(), "ETH")
			assert.NoError(t, err)
			assert.True(t, p.Equal(decimal.NewFromInt(3000)))
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("a stale-but-usable price waited for the source")
	}
	require.Eventually(t, func() bool { return src.calls.Load() == 2 }, 5*time.Second, time.Millisecond)
	release()
	idle(t, c, "ETH")
	require.EqualValues(t, 2, src.calls.Load(), "more than one background read")
	require.True(t, price(t, c, "ETH").Equal(decimal.NewFromInt(3100)))
	require.EqualValues(t, 2, src.calls.Load())
}

func TestCachedFailsAfterMaxAgeWhenTheSourceFails(t *testing.T) {
	src := newFake(map[string]int64{"ETH": 3000})
	clk := newClock()
	c := newTestCache(src, clk)
	require.NoError(t, c.Warm(context.Background(), "ETH"))
	down := errors.New("rpc down")
	src.fail(down)

	// Past ttl: the failed background read keeps the old price...
	clk.add(11 * time.Second)
	require.True(t, price(t, c, "ETH").Equal(decimal.NewFromInt(3000)))
	require.Eventually(t, func() bool { return src.calls.Load() == 2 }, 5*time.Second, time.Millisecond)
	idle(t, c, "ETH")
	// ...and the next background read waits a ttl instead of hammering the source.
	for range 100 {
		require.True(t, price(t, c, "ETH").Equal(decimal.NewFromInt(3000)))
	}
	idle(t, c, "ETH")
	require.EqualValues(t, 2, src.calls.Load())
	clk.add(10 * time.Second)
	require.True(t, price(t, c, "ETH").Equal(decimal.NewFromInt(3000)))
	require.Eventually(t, func() bool { return src.calls.Load() == 3 }, 5*time.Second, time.Millisecond)
	idle(t, c, "ETH")

	// Past maxAge the price is not served: the read is synchronous and its error returned.
	clk.add(40 * time.Second)
	_, err := c.USDPrice(context.Background(), "ETH")
	require.ErrorIs(t, err, down)
	require.ErrorContains(t, err, "ETH")
	require.EqualValues(t, 4, src.calls.Load())
	_, err = c.USDPrice(context.Background(), "ETH")
	require.ErrorIs(t, err, down)

	// Warm reports the failure with the symbol.
	err = c.Warm(context.Background(), "ETH")
	require.ErrorIs(t, err, down)
	require.ErrorContains(t, err, "warm price of ETH")

	// The source recovers: the next call reads it synchronously.
	src.fail(nil)
	src.set("ETH", 2900)
	require.True(t, price(t, c, "ETH").Equal(decimal.NewFromInt(2900)))
}

func TestCachedDropsAPriceTheSourceCallsStale(t *testing.T) {
	src := newFake(map[string]int64{"ETH": 3000})
	clk := newClock()
	c := newTestCache(src, clk)
	require.NoError(t, c.Warm(context.Background(), "ETH"))
	src.fail(fmt.Errorf("%w: feed last updated 2h ago", ErrStale))

	// The background read finds the feed stale: the cached price, no newer, goes with it,
	// long before maxAge.
	clk.add(11 * time.Second)
	require.True(t, price(t, c, "ETH").Equal(decimal.NewFromInt(3000)))
	require.Eventually(t, func() bool { return src.calls.Load() == 2 }, 5*time.Second, time.Millisecond)
	idle(t, c, "ETH")
	_, err := c.USDPrice(context.Background(), "ETH")
	require.ErrorIs(t, err, ErrStale)
	require.EqualValues(t, 3, src.calls.Load())

	src.fail(nil)
	require.True(t, price(t, c, "ETH").Equal(decimal.NewFromInt(3000)))
}

// "No price source" is permanent for the configuration the source has, but the cache must not
// make it outlive that configuration: it is not kept (a source that gains the symbol prices it
// on the next read, with no TTL to wait out and no background retries), and a source that says
// it no longer prices a symbol takes the cached price with it.
func TestCachedNoPriceSourceIsNotKeptAndDropsTheCachedPrice(t *testing.T) {
	ctx := context.Background()
	tab := Table{"ETH": decimal.NewFromInt(3000)}
	clk := newClock()
	c := newTestCache(tab, clk)

	_, err := c.USDPrice(ctx, "DOGE")
	require.ErrorIs(t, err, ErrNoSource)
	require.NotErrorIs(t, err, ErrUnavailable)
	require.False(t, c.cache.Refreshing("DOGE"), "nothing retries it in the background")
	tab["DOGE"] = decimal.RequireFromString("0.1") // the configuration is fixed
	require.Equal(t, "0.1", price(t, c, "DOGE").String(), "the error was kept")

	require.Equal(t, "3000", price(t, c, "ETH").String())
	delete(tab, "ETH") // the source no longer prices ETH
	clk.add(11 * time.Second)
	require.Equal(t, "3000", price(t, c, "ETH").String(), "served while the background read runs")
	idle(t, c, "ETH")
	_, err = c.USDPrice(ctx, "ETH")
	require.ErrorIs(t, err, ErrNoSource, "the cached price outlived the source's answer")
}

func TestCachedCallerCancelDoesNotFailOthers(t *testing.T) {
	src := newFake(map[string]int64{"ETH": 3000})
	c := newTestCache(src, newClock())
	release := src.hold()

	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() {
		_, err := c.USDPrice(ctx, "ETH")
		first <- err
	}()
	require.Eventually(t, func() bool { return src.calls.Load() == 1 }, 5*time.Second, time.Millisecond)
	second := make(chan decimal.Decimal, 1)
	go func() {
		p, err := c.USDPrice(context.Background(), "ETH")
		assert.NoError(t, err)
		second <- p
	}()

	cancel()
	select {
	case err := <-first:
		require.ErrorIs(t, err, ErrUnavailable)
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("a cancelled caller kept waiting")
	}
	release()
	select {
	case p := <-second:
		require.True(t, p.Equal(decimal.NewFromInt(3000)))
	case <-time.After(5 * time.Second):
		t.Fatal("the second caller got no price")
	}
	require.EqualValues(t, 1, src.calls.Load())
}

func TestCachedConcurrent(t *testing.T) {
	src := newFake(map[string]int64{"ETH": 3000, "USDC": 1})
	clk := newClock()
	c := newTestCache(src, clk) // ttl 10 s, maxAge 1 min
	down := errors.New("rpc down")
	stop := make(chan struct{})
	var churn sync.WaitGroup
	churn.Go(func() {
		// Twenty minutes of simulated time, a second a step: prices move every second, and the source
		// is down for 80 s of every 200 s, longer than maxAge, so that callers see refreshes,
		// served stale prices, expiry and recovery.
		defer close(stop)
		for i := int64(0); i < 1200; i++ {
			clk.add(time.Second)
			src.set("ETH", 3000+i%7)
			switch i % 200 {
			case 100:
				src.fail(down)
			case 180:
				src.fail(nil)
			}
			time.Sleep(100 * time.Microsecond)
		}
	})
	var served, failed atomic.Int64
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			sym := []string{"ETH", "usdc"}[g%2]
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if i%64 == 0 {
					time.Sleep(time.Microsecond) // leave the clock some CPU
				}
				p, err := c.USDPrice(context.Background(), sym)
				if err != nil {
					assert.ErrorIs(t, err, down)
					failed.Add(1)
					continue
				}
				assert.True(t, p.GreaterThanOrEqual(decimal.NewFromInt(1)) && p.LessThan(decimal.NewFromInt(3007)), "price %s", p)
				served.Add(1)
			}
		})
	}
	churn.Wait()
	wg.Wait()
	calls := src.calls.Load()
	t.Logf("served %d, failed %d, source calls %d", served.Load(), failed.Load(), calls)
	require.Positive(t, served.Load())
	require.Positive(t, failed.Load(), "no caller saw the outage")
	// About one read per symbol per ttl while the source is up, plus synchronous retries
	// while it is down: far fewer than the callers' requests.
	require.Greater(t, calls, int64(2*1200/10/2))
	require.Less(t, calls, (served.Load()+failed.Load())/4)
}

func TestNewCachedDefaults(t *testing.T) {
	c := NewCached(Table{}, 0, 0)
	require.Equal(t, DefaultTTL, c.ttl)
	require.Equal(t, DefaultTTL, c.maxAge)
	c = NewCached(Table{}, time.Minute, time.Second)
	require.Equal(t, time.Minute, c.maxAge)
}
