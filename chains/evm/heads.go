package evm

import (
	"context"
	"sync"
	"time"
)

// Head watching. Activities that wait for a block (confirmations, a transaction to be mined)
// wake up on new heads instead of polling on their own: one goroutine per chain and process
// reads the head every headPollInterval while anybody waits, so N waits cost one
// eth_blockNumber call per interval, not N, and each wait hears of a new block at most one
// interval after the node has it. The goroutine stops headWatchLinger after the last waiter
// has gone.
//
// Blocks come at a steady pace, so the watcher also learns the chain's block time from the heads
// it sees and polls faster (every fiftieth of the block time, at least headPollFastest) only
// around the moment the next block is due: each wait hears of a block a few milliseconds after
// the node has it instead of half an interval on average, for about 1.4 times the calls (on the
// devnet's 1 s blocks; a confirmation, a fill's inclusion and a deposit's routing each hear of
// their block about 50 ms sooner, BENCHMARKS.md).
const (
	headPollInterval = 100 * time.Millisecond
	// headPollMaxInterval is how far the poll slows down while the node does not answer.
	headPollMaxInterval = time.Second
	headPollTimeout     = 2 * time.Second
	headWatchLinger     = 5 * time.Second
	// headPollFastest bounds the polls around a block's due time.
	headPollFastest = 10 * time.Millisecond
	// fillWindowMax bounds the fills' window of a new block (blockClock.window).
	fillWindowMax = 500 * time.Millisecond
)

// headWatcher polls a chain's head while it has waiters and wakes them when it changes.
type headWatcher struct {
	poll     func(ctx context.Context) (uint64, error)
	interval time.Duration
	linger   time.Duration

	mu        sync.Mutex
	head      uint64        // the last head read; 0 before the first read
	changed   chan struct{} // closed (and replaced) when head changes
	clock     blockClock
	waiters   int
	running   bool
	idleSince time.Time
}

func newHeadWatcher(poll func(ctx context.Context) (uint64, error)) *headWatcher {
	return &headWatcher{poll: poll, interval: headPollInterval, linger: headWatchLinger, changed: make(chan struct{})}
}

// seen returns the last head the watcher read, 0 when it has read none.
func (w *headWatcher) seen() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.head
}

// wait blocks until the head is above after and returns it, or returns ctx's error.
func (w *headWatcher) wait(ctx context.Context, after uint64) (uint64, error) {
	w.mu.Lock()
	w.waiters++
	if !w.running {
		w.running = true
		// The head was not watched meanwhile: the time since its last move is no block time.
		w.clock.last, w.clock.asked, w.clock.heard = time.Time{}, time.Time{}, time.Time{}
		go w.run()
	}
	defer func() {
		w.mu.Lock()
		if w.waiters--; w.waiters == 0 {
			w.idleSince = time.Now()
		}
		w.mu.Unlock()
	}()
	for {
		if w.head > after {
			h := w.head
			w.mu.Unlock()
			return h, nil
		}
		ch := w.changed
		w.mu.Unlock()
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-ch:
		}
		w.mu.Lock()
	}
}

// waitDeferred is wait, returning once the fills' window of the head it returns has passed
// (blockClock.window). A caller whose after the head has passed already was overtaken while it
// worked: it gets the head at once when that head's window has passed, else when it does. A
// caller just behind the head is no backlog: a scan that the interval started just before a
// block came (it found nothing new) was overtaken by that block, and routed the block's deposits
// beside its fills when "behind" meant "at once".
func (w *headWatcher) waitDeferred(ctx context.Context, after uint64) (uint64, error) {
	w.mu.Lock()
	h := w.head
	w.mu.Unlock()
	if h <= after {
		var err error
		if h, err = w.wait(ctx, after); err != nil {
			return 0, err
		}
	}
	w.mu.Lock()
	rest := time.Until(w.clock.heard.Add(w.clock.window())) // heard: when the watcher read h or beyond
	w.mu.Unlock()
	if rest <= 0 {
		return h, nil
	}
	t := time.NewTimer(rest)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-t.C:
		return h, nil
	}
}

// run is the polling goroutine: it reads the head at the interval (slower while reads fail)
// until nobody has waited for linger.
func (w *headWatcher) run() {
	interval := w.interval
	for {
		ctx, cancel := context.WithTimeout(context.Background(), headPollTimeout)
		sent := time.Now()
		n, err := w.poll(ctx)
		cancel()
		w.mu.Lock()
		if err == nil {
			interval = w.interval
			w.clock.read(w.head, n, sent, time.Now())
			if n != w.head { // lower after a reorg to a shorter chain: waiters keep waiting
				w.head = n
				close(w.changed)
				w.changed = make(chan struct{})
			}
		} else {
			interval = min(2*interval, headPollMaxInterval)
		}
		if w.waiters == 0 && time.Since(w.idleSince) >= w.linger {
			w.running = false
			w.mu.Unlock()
			return
		}
		next := interval
		if err == nil {
			next = w.clock.next(time.Now(), interval)
		}
		w.mu.Unlock()
		time.Sleep(next)
	}
}

// blockClock learns a chain's block time from the heads a watcher sees and says when to poll
// next.
type blockClock struct {
	last      time.Time     // when the head last moved on by one or more blocks
	blockTime time.Duration // moving average of the time per block; 0 until learnt
	samples   int           // how many moves blockTime was learnt from
	asked     time.Time     // when the last read that answered was sent
	heard     time.Time     // when the read that saw the head's last move answered
}

// read records a read of the head, sent at sent and answered at answered, that answered n when
// the last answered prev. A new head came after the read before it was sent: that is when the
// head moved, as near as the reads can tell and never later than it did, and the block clock
// dates it so. Taking the time the new head was read instead would carry one slow read (a busy
// moment, a collection of the garbage) into the next block's due time, and the fast polls
// around it would start after that block had come: each later block heard of late by what the
// slow read took, less one fast poll per block. The fills' window is still counted from when
// the watcher heard of the block, when the fills it wakes start.
func (c *blockClock) read(prev, n uint64, sent, answered time.Time) {
	if n != prev {
		at := c.asked
		if at.IsZero() {
			at = sent
		}
		c.saw(prev, n, at)
		c.heard = answered
	}
	c.asked = sent
}

// saw records that the head moved from prev to n at now.
func (c *blockClock) saw(prev, n uint64, now time.Time) {
	switch {
	case n <= prev: // a reorg to a shorter chain: start again
		c.last = time.Time{}
		return
	case prev != 0 && !c.last.IsZero(): // not the first move seen: it measures the pace
		per := now.Sub(c.last) / time.Duration(n-prev)
		if c.blockTime == 0 {
			c.blockTime = per
		} else {
			// A block that came late (the chain or the watcher's reads stalled) counts as at most
			// twice the pace: one stall does not stretch the fills' window of the blocks after it,
			// and a chain whose pace really slows is followed within a few blocks.
			c.blockTime = (3*c.blockTime + min(per, 2*c.blockTime)) / 4
		}
		c.samples++
	}
	c.last = now
}

// next is how long to wait before the next poll, at now, on a chain polled every interval: the
// interval while the next block is not near, and a fiftieth of the block time (at least
// headPollFastest) from just before it is due until half a block time after.
func (c *blockClock) next(now time.Time, interval time.Duration) time.Duration {
	if c.blockTime == 0 || c.last.IsZero() {
		return interval
	}
	fast := max(headPollFastest, c.blockTime/50)
	if fast >= interval {
		return interval
	}
	due := c.last.Add(c.blockTime)
	switch until := due.Sub(now); {
	case until > fast:
		return min(interval, until-fast) // land just before the block is due
	case -until < c.blockTime/2:
		return fast
	default:
		return interval // late: the chain may have stalled
	}
}

// window is the fills' window of a new block: the first three tenths of the block time, at most
// fillWindowMax; none until the block time is learnt from windowSamples moves (a first one may
// be a stall: a chain paused, a test's chain mined by hand).
func (c *blockClock) window() time.Duration {
	if c.samples < windowSamples {
		return 0
	}
	return min(c.blockTime*3/10, fillWindowMax)
}

// windowSamples is how many moves of the head the block time must be learnt from before blocks
// have a fills' window.
const windowSamples = 3

// WaitHead blocks until the chain's head is above after and returns it; it returns ctx's error
// when ctx ends first. All waits on one client share one poll of the head (see
// headPollInterval), so a wait hears of a new block at most about 100 ms after the node has it.
// While the node cannot be read, WaitHead keeps waiting: bound ctx to look again yourself.
func (c *Client) WaitHead(ctx context.Context, after uint64) (uint64, error) {
	return c.heads.wait(ctx, after)
}

// WaitHeadDeferred is WaitHead for work that a new block brings but that no fill waits for: it
// returns once the block's first moments, its fills' window (three tenths of the chain's block
// time, at most half a second), have passed; when the head is above after already (the caller
// is behind), once what is left of the head's window has. See chains.DeferredHeads.
func (c *Client) WaitHeadDeferred(ctx context.Context, after uint64) (uint64, error) {
	return c.heads.waitDeferred(ctx, after)
}

// SeenHead returns the head the client's head watcher last read (0 when it has read none):
// the after of a WaitHead that should return on the next block.
func (c *Client) SeenHead() uint64 { return c.heads.seen() }
