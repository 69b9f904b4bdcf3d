package refresh

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newCounting(fail *atomic.Bool) (Loader[string, int], *atomic.Int64) {
	var calls atomic.Int64
	return func(_ context.Context, k string) (int, error) {
		n := calls.Add(1)
		if fail != nil && fail.Load() {
			return 0, errors.New("down")
		}
		return int(n), nil
	}, &calls
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestFreshValueIsServedWithoutLoading(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	load, calls := newCounting(nil)
	c := New(load, Options{Fresh: time.Second, MaxAge: time.Minute, Now: clk.now})
	for range 100 {
		if v, err := c.Get(context.Background(), "k"); err != nil || v != 1 {
			t.Fatalf("got %d, %v", v, err)
		}
	}
	if calls.Load() != 1 {
		t.Fatalf("loads = %d, want 1", calls.Load())
	}
}

func TestStaleValueIsServedWhileOneBackgroundLoadRefreshes(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	load, calls := newCounting(nil)
	c := New(load, Options{Fresh: time.Second, MaxAge: time.Minute, Now: clk.now})
	if _, err := c.Get(context.Background(), "k"); err != nil {
		t.Fatal(err)
	}
	clk.add(2 * time.Second)
	if v, _ := c.Get(context.Background(), "k"); v != 1 {
		t.Fatalf("stale get = %d, want the old value 1", v)
	}
	waitFor(t, func() bool { v, _ := c.Get(context.Background(), "k"); return v == 2 })
	if calls.Load() != 2 {
		t.Fatalf("loads = %d, want 2", calls.Load())
	}
}

func TestFailedRefreshKeepsTheValueUntilMaxAgeThenFails(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	var fail atomic.Bool
	load, _ := newCounting(&fail)
	c := New(load, Options{Fresh: time.Second, MaxAge: 10 * time.Second, Now: clk.now})
	if _, err := c.Get(context.Background(), "k"); err != nil {
		t.Fatal(err)
	}
	fail.Store(true)
	clk.add(5 * time.Second)
	if v, err := c.Get(context.Background(), "k"); err != nil || v != 1 {
		t.Fatalf("within max age: %d, %v", v, err)
	}
	clk.add(6 * time.Second)
	if _, err := c.Get(context.Background(), "k"); err == nil {
		t.Fatal("past max age with a failing loader: want an error")
	}
}

func TestErrorsAreCachedForErrorTTL(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	var fail atomic.Bool
	fail.Store(true)
	load, calls := newCounting(&fail)
	c := New(load, Options{Fresh: time.Second, ErrorTTL: 3 * time.Second, Now: clk.now})
	for range 10 {
		if _, err := c.Get(context.Background(), "k"); err == nil {
			t.Fatal("want error")
		}
	}
	if calls.Load() != 1 {
		t.Fatalf("loads = %d, want 1 (error cached)", calls.Load())
	}
	fail.Store(false)
	clk.add(4 * time.Second)
	if _, err := c.Get(context.Background(), "k"); err != nil {
		t.Fatalf("after error TTL: %v", err)
	}
}

func TestConcurrentMissesShareOneLoad(t *testing.T) {
	release := make(chan struct{})
	var calls atomic.Int64
	c := New(func(context.Context, string) (int, error) {
		calls.Add(1)
		<-release
		return 7, nil
	}, Options{Fresh: time.Minute})
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v, err := c.Get(context.Background(), "k"); err != nil || v != 7 {
				t.Errorf("got %d, %v", v, err)
			}
		}()
	}
	time.Sleep(20 * time.Millisecond)
	close(release)
	wg.Wait()
	if calls.Load() != 1 {
		t.Fatalf("loads = %d, want 1", calls.Load())
	}
}

func TestMaxEntriesBoundsTheMap(t *testing.T) {
	c := New(func(_ context.Context, k int) (int, error) { return k, nil }, Options{Fresh: time.Minute, MaxEntries: 10})
	for i := range 1000 {
		if _, err := c.Get(context.Background(), i); err != nil {
			t.Fatal(err)
		}
	}
	c.mu.RLock()
	n := len(c.entries)
	c.mu.RUnlock()
	if n > 10 {
		t.Fatalf("entries = %d, want <= 10", n)
	}
}

func BenchmarkGetWarm(b *testing.B) {
	c := New(func(context.Context, string) (int, error) { return 1, nil }, Options{Fresh: time.Hour})
	ctx := context.Background()
	_, _ = c.Get(ctx, "k")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_, _ = c.Get(ctx, "k")
		}
	})
}

func TestAFailedBackgroundLoadWaitsFreshBeforeTheNext(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	var fail atomic.Bool
	load, calls := newCounting(&fail)
	c := New(load, Options{Fresh: time.Second, MaxAge: time.Minute, Now: clk.now})
	if _, err := c.Get(context.Background(), "k"); err != nil {
		t.Fatal(err)
	}
	fail.Store(true)
	clk.add(2 * time.Second)
	_, _ = c.Get(context.Background(), "k") // starts a background load, which fails
	waitFor(t, func() bool { return calls.Load() == 2 })
	waitFor(t, func() bool { c.mu.RLock(); defer c.mu.RUnlock(); return !c.entries["k"].retryAt.IsZero() })
	for range 50 {
		if v, err := c.Get(context.Background(), "k"); err != nil || v != 1 {
			t.Fatalf("got %d, %v; want the old value", v, err)
		}
	}
	time.Sleep(20 * time.Millisecond)
	if calls.Load() != 2 {
		t.Fatalf("loads = %d, want 2: no retry within Fresh of a failure", calls.Load())
	}
	clk.add(2 * time.Second)
	_, _ = c.Get(context.Background(), "k")
	waitFor(t, func() bool { return calls.Load() == 3 })
}

func TestDropDiscardsTheValueAtOnce(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	stale := errors.New("stale")
	var fail atomic.Bool
	c := New(func(context.Context, string) (int, error) {
		if fail.Load() {
			return 0, stale
		}
		return 1, nil
	}, Options{Fresh: time.Second, MaxAge: time.Hour, Drop: func(err error) bool { return errors.Is(err, stale) }, Now: clk.now})
	if _, err := c.Get(context.Background(), "k"); err != nil {
		t.Fatal(err)
	}
	fail.Store(true)
	clk.add(2 * time.Second)
	_, _ = c.Get(context.Background(), "k") // served stale while the background load fails
	waitFor(t, func() bool { _, err := c.Get(context.Background(), "k"); return errors.Is(err, stale) })
}

func TestReloadAsksEvenWhenFresh(t *testing.T) {
	load, calls := newCounting(nil)
	c := New(load, Options{Fresh: time.Hour})
	for range 3 {
		if _, err := c.Reload(context.Background(), "k"); err != nil {
			t.Fatal(err)
		}
	}
	if v, _ := c.Get(context.Background(), "k"); calls.Load() != 3 || v != 3 {
		t.Fatalf("loads = %d, value %d; want 3 and the last load's value", calls.Load(), v)
	}
}
