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
const (
	headPollInterval = 100 * time.Millisecond
	// headPollMaxInterval is how far the poll slows down while the node does not answer.
	headPollMaxInterval = time.Second
	headPollTimeout     = 2 * time.Second
	headWatchLinger     = 5 * time.Second
)

// headWatcher polls a chain's head while it has waiters and wakes them when it changes.
type headWatcher struct {
	poll     func(ctx context.Context) (uint64, error)
	interval time.Duration
	linger   time.Duration

	mu        sync.Mutex
	head      uint64        // the last head read; 0 before the first read
	changed   chan struct{} // closed (and replaced) when head changes
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

// run is the polling goroutine: it reads the head at the interval (slower while reads fail)
// until nobody has waited for linger.
func (w *headWatcher) run() {
	interval := w.interval
	for {
		ctx, cancel := context.WithTimeout(context.Background(), headPollTimeout)
		n, err := w.poll(ctx)
		cancel()
		w.mu.Lock()
		if err == nil {
			interval = w.interval
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
		w.mu.Unlock()
		time.Sleep(interval)
	}
}

// WaitHead blocks until the chain's head is above after and returns it; it returns ctx's error
// when ctx ends first. All waits on one client share one poll of the head (see
// headPollInterval), so a wait hears of a new block at most about 100 ms after the node has it.
// While the node cannot be read, WaitHead keeps waiting: bound ctx to look again yourself.
func (c *Client) WaitHead(ctx context.Context, after uint64) (uint64, error) {
	return c.heads.wait(ctx, after)
}

// SeenHead returns the head the client's head watcher last read (0 when it has read none):
// the after of a WaitHead that should return on the next block.
func (c *Client) SeenHead() uint64 { return c.heads.seen() }
