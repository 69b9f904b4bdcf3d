package evm

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeHead is a chain head the test moves, counting the reads.
type fakeHead struct {
	head  atomic.Uint64
	reads atomic.Int64
	fail  atomic.Bool
}

func (f *fakeHead) poll(context.Context) (uint64, error) {
	f.reads.Add(1)
	if f.fail.Load() {
		return 0, errors.New("connection refused")
	}
	return f.head.Load(), nil
}

func testWatcher(f *fakeHead) *headWatcher {
	w := newHeadWatcher(f.poll)
	w.interval, w.linger = 10*time.Millisecond, 100*time.Millisecond
	return w
}

// Many waiters share one poll: the reads depend on the time waited, not on the number of
// waiters, and every waiter wakes on the new head within about one interval.
func TestHeadWatcherWakesAllWaitersFromOnePoll(t *testing.T) {
	f := &fakeHead{}
	f.head.Store(10)
	w := testWatcher(f)
	const waiters = 50
	var wg sync.WaitGroup
	woke := make(chan time.Duration, waiters)
	var moved time.Time
	var movedMu sync.Mutex
	for range waiters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h, err := w.wait(context.Background(), 10)
			if err != nil || h != 11 {
				t.Errorf("wait = %d, %v; want 11", h, err)
			}
			movedMu.Lock()
			woke <- time.Since(moved)
			movedMu.Unlock()
		}()
	}
	time.Sleep(200 * time.Millisecond)
	readsBefore := f.reads.Load()
	movedMu.Lock()
	moved = time.Now()
	f.head.Store(11)
	movedMu.Unlock()
	wg.Wait()
	close(woke)
	for d := range woke {
		if d > 100*time.Millisecond {
			t.Errorf("a waiter woke %s after the head moved; the poll interval is 10ms", d)
		}
	}
	// 200 ms at a 10 ms interval is about 20 reads, whatever the number of waiters.
	if readsBefore > 40 {
		t.Errorf("%d reads in 200 ms for %d waiters: more than one poller", readsBefore, waiters)
	}
}

// A wait returns at once when the head is already past after, and with ctx's error when ctx
// ends first; the polling stops once nobody has waited for the linger time, and starts again
// with the next waiter.
func TestHeadWatcherStopsWhenIdle(t *testing.T) {
	f := &fakeHead{}
	f.head.Store(5)
	w := testWatcher(f)
	if h, err := w.wait(context.Background(), 4); err != nil || h != 5 {
		t.Fatalf("wait(4) = %d, %v", h, err)
	}
	if got := w.seen(); got != 5 {
		t.Fatalf("seen = %d", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := w.wait(ctx, 5); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("wait on a still head = %v, want the deadline", err)
	}
	time.Sleep(300 * time.Millisecond) // > linger + an interval
	idle := f.reads.Load()
	time.Sleep(100 * time.Millisecond)
	if f.reads.Load() != idle {
		t.Fatalf("the watcher still polls with no waiter")
	}
	f.head.Store(6)
	if h, err := w.wait(context.Background(), 5); err != nil || h != 6 {
		t.Fatalf("wait after idling = %d, %v", h, err)
	}
}

// While the node does not answer, waiters keep waiting (the poll slows down), and they wake
// when it answers with a new head.
func TestHeadWatcherRidesOutFailures(t *testing.T) {
	f := &fakeHead{}
	f.head.Store(7)
	f.fail.Store(true)
	w := testWatcher(f)
	done := make(chan uint64, 1)
	go func() { h, _ := w.wait(context.Background(), 6); done <- h }()
	time.Sleep(300 * time.Millisecond)
	select {
	case h := <-done:
		t.Fatalf("wait returned %d while the node failed", h)
	default:
	}
	if n := f.reads.Load(); n > 15 {
		t.Errorf("%d reads in 300 ms of failures: the poll does not slow down", n)
	}
	f.fail.Store(false)
	select {
	case h := <-done:
		if h != 7 {
			t.Fatalf("wait = %d", h)
		}
	case <-time.After(2 * headPollMaxInterval):
		t.Fatal("the waiter did not wake once the node answered")
	}
}

// The watcher learns the block time from the heads it sees and polls fast only around the next
// block's due time: on a chain of 1 s blocks polled every 100 ms, it waits the interval while the
// block is far, lands just before it is due, polls every 20 ms (a fiftieth of the block time)
// until half a block after, and goes back to the interval when the block is that late.
func TestBlockClockPollsFastOnlyAroundTheNextBlock(t *testing.T) {
	var c blockClock
	t0 := time.Unix(1_800_000_000, 0)
	interval := 100 * time.Millisecond
	if got := c.next(t0, interval); got != interval {
		t.Fatalf("before any block: %v, want the interval", got)
	}
	c.saw(0, 10, t0) // the first read teaches nothing about the pace
	if got := c.next(t0, interval); got != interval {
		t.Fatalf("after the first read: %v, want the interval", got)
	}
	for i := uint64(1); i <= 3; i++ {
		c.saw(10+i-1, 10+i, t0.Add(time.Duration(i)*time.Second))
	}
	if c.blockTime != time.Second {
		t.Fatalf("block time %v, want 1s", c.blockTime)
	}
	last := t0.Add(3 * time.Second)
	for _, tc := range []struct {
		after, want time.Duration
	}{
		{0, interval},                                   // the block has just come
		{850 * time.Millisecond, interval},              // still more than an interval before the due time
		{900 * time.Millisecond, 80 * time.Millisecond}, // within one: land 20 ms before it
		{985 * time.Millisecond, 20 * time.Millisecond}, // around the due time: fast
		{1200 * time.Millisecond, 20 * time.Millisecond},
		{1600 * time.Millisecond, interval}, // half a block late: the chain may have stalled
	} {
		if got := c.next(last.Add(tc.after), interval); got != tc.want {
			t.Errorf("%v after the last block: next poll in %v, want %v", tc.after, got, tc.want)
		}
	}
	// Two blocks at once (a poll that missed one) count as two block times.
	c.saw(13, 15, last.Add(2*time.Second))
	if c.blockTime != time.Second {
		t.Errorf("block time %v after two blocks in 2 s, want 1s", c.blockTime)
	}
	// A block 8 s late (a stall) counts as two block times, not eight.
	c.saw(15, 16, last.Add(10*time.Second))
	if c.blockTime != 1250*time.Millisecond {
		t.Errorf("block time %v after a block 8 s late, want 1.25s", c.blockTime)
	}
	c.blockTime = time.Second
	// A reorg to a shorter chain forgets when the last block came.
	c.saw(15, 14, last.Add(2500*time.Millisecond))
	if got := c.next(last.Add(2600*time.Millisecond), interval); got != interval {
		t.Errorf("after a reorg: %v, want the interval", got)
	}
	// A chain whose blocks come faster than the fast polls is polled at the interval.
	fastChain := blockClock{last: t0, blockTime: 200 * time.Millisecond}
	if got := fastChain.next(t0.Add(190*time.Millisecond), 5*time.Millisecond); got != 5*time.Millisecond {
		t.Errorf("a chain polled faster than its fast polls: %v", got)
	}
}

// A new block's fills go first: a deferred wait returns three tenths of the block time after
// the head was seen (at most fillWindowMax), a plain wait at once, and a deferred wait that the
// head had passed already (its caller is behind) at once too.
func TestADeferredWaitLetsTheNewBlocksFillsGoFirst(t *testing.T) {
	if got := (&blockClock{}).window(); got != 0 {
		t.Fatalf("window before the block time is learnt = %v, want 0", got)
	}
	if got := (&blockClock{blockTime: time.Second, samples: windowSamples - 1}).window(); got != 0 {
		t.Fatalf("window of a block time learnt from %d moves = %v, want 0", windowSamples-1, got)
	}
	if got := (&blockClock{blockTime: time.Second, samples: windowSamples}).window(); got != 300*time.Millisecond {
		t.Fatalf("window of 1 s blocks = %v, want 300ms", got)
	}
	if got := (&blockClock{blockTime: 12 * time.Second, samples: windowSamples}).window(); got != fillWindowMax {
		t.Fatalf("window of 12 s blocks = %v, want %v", got, fillWindowMax)
	}

	// Waiters on head 11, with the block time learnt (1 s): the head moves to 12.
	f := &fakeHead{}
	f.head.Store(11)
	w := testWatcher(f)
	w.mu.Lock()
	w.head, w.clock = 11, blockClock{blockTime: time.Second, samples: windowSamples}
	w.mu.Unlock()
	type woke struct {
		after time.Duration
		err   error
	}
	plain, deferred := make(chan woke, 1), make(chan woke, 1)
	var moved time.Time
	var movedMu sync.Mutex
	since := func() time.Duration { movedMu.Lock(); defer movedMu.Unlock(); return time.Since(moved) }
	go func() { _, err := w.wait(context.Background(), 11); plain <- woke{since(), err} }()
	go func() { _, err := w.waitDeferred(context.Background(), 11); deferred <- woke{since(), err} }()
	time.Sleep(50 * time.Millisecond)
	movedMu.Lock()
	moved = time.Now()
	f.head.Store(12)
	movedMu.Unlock()
	p, d := <-plain, <-deferred
	if p.err != nil || d.err != nil || p.after > 100*time.Millisecond || d.after < 290*time.Millisecond {
		t.Fatalf("a plain wait returned %v after the block (%v), a deferred one %v (%v): want at once, and after the 300 ms window",
			p.after, p.err, d.after, d.err)
	}

	// A caller that the head passed while it worked (it asks for the block after 12, the head
	// has just moved to 13) waits for what is left of the new block's window (a scan that the
	// interval started just before the block came routed the block's deposits beside its fills
	// when this was at once); asked again once the window has passed, it returns at once.
	f.head.Store(13)
	if h, err := w.wait(context.Background(), 12); err != nil || h != 13 {
		t.Fatalf("wait(12) = %d, %v", h, err)
	}
	start := time.Now()
	if h, err := w.waitDeferred(context.Background(), 12); err != nil || h != 13 {
		t.Fatalf("waitDeferred(12) = %d, %v", h, err)
	}
	if took := time.Since(start); took < 150*time.Millisecond {
		t.Fatalf("a deferred wait overtaken by a head heard just now took %v, want the rest of its 300 ms window", took)
	}
	start = time.Now()
	if h, err := w.waitDeferred(context.Background(), 12); err != nil || h != 13 {
		t.Fatalf("waitDeferred(12) = %d, %v", h, err)
	}
	if took := time.Since(start); took > 100*time.Millisecond {
		t.Fatalf("a deferred wait overtaken by a head whose window has passed took %v, want at once", took)
	}

	// A context that ends inside the window ends the wait.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	f.head.Store(14)
	if _, err := w.waitDeferred(ctx, 13); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a deferred wait whose context ends in its window = %v, want the context's error", err)
	}
}

// A watcher that stopped for lack of waiters did not see the head meanwhile: its first read
// after a restart teaches nothing about the block time.
func TestARestartedWatcherDoesNotTakeItsIdleTimeForABlockTime(t *testing.T) {
	f := &fakeHead{}
	f.head.Store(21)
	w := testWatcher(f)
	w.mu.Lock()
	w.head, w.clock = 20, blockClock{last: time.Now().Add(-10 * time.Second), blockTime: time.Second, samples: windowSamples}
	w.mu.Unlock()
	if h, err := w.wait(context.Background(), 20); err != nil || h != 21 {
		t.Fatalf("wait = %d, %v", h, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.clock.blockTime != time.Second || w.clock.samples != windowSamples {
		t.Fatalf("after a restart: block time %v from %d moves, want 1s from %d", w.clock.blockTime, w.clock.samples, windowSamples)
	}
}

// One slow read must not make the blocks after it late: the watcher's reads run on the engine's
// busy cores, and a read that takes 150 ms (a burst, a collection of the garbage) once set the
// next block's due time 150 ms late, so the fast polls around it began after it had come and
// each later block was heard of late by what was left of the 150 ms (less one fast poll a block).
// The test drives the block clock as the watcher's loop does, on a chain with a block every
// second exactly and reads that take 2 ms, but one of 150 ms, which hears of block 10.
func TestOneSlowReadDoesNotMakeTheNextBlocksLate(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	var c blockClock
	now, prev := t0.Add(300*time.Millisecond), uint64(0)
	heardAt := map[uint64]time.Duration{} // how long after the block came the watcher heard of it
	for now.Before(t0.Add(20 * time.Second)) {
		sent := now
		n := uint64(sent.Sub(t0) / time.Second) // the node answers as of when the read arrives
		took := 2 * time.Millisecond
		if n == 10 && prev == 9 {
			took = 150 * time.Millisecond
		}
		now = sent.Add(took)
		c.read(prev, n, sent, now)
		if n != prev {
			heardAt[n] = now.Sub(t0.Add(time.Duration(n) * time.Second))
			prev = n
		}
		now = now.Add(c.next(now, headPollInterval))
	}
	if heardAt[10] < 150*time.Millisecond {
		t.Fatalf("block 10 heard of after %v, want the slow read's 150 ms or more", heardAt[10])
	}
	fast := time.Second/50 + 2*time.Millisecond // one fast poll and its read
	for n := uint64(11); n <= 19; n++ {
		if d, ok := heardAt[n]; !ok || d > fast {
			t.Errorf("block %d heard of after %v (seen %v), want within %v", n, d, ok, fast)
		}
	}
}
