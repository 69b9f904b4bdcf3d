package solana

import (
	"context"
	"time"

	"github.com/intentd/intentd/chains"
)

// Head watching: the engine's waits for a chain's next block (a fill's inclusion, a deposit's
// confirmations) wake on a new slot. A Solana chain's head is its slot (client.go), which moves
// every 400 ms; each wait polls the head on its own every headPollInterval, a tenth of a slot,
// so it hears of a new slot at most that long after the node has it. Unlike the EVM family's
// (chains/evm/heads.go), the polls of concurrent waits are not shared yet: with the few Solana
// fills in flight at once that is a handful of getSlot calls a second.

// headPollInterval is how often a wait reads the head.
const headPollInterval = 40 * time.Millisecond

var _ chains.HeadWatcher = (*Client)(nil)

// SeenHead returns the head the client last read (0 when it has read none): the after of a
// WaitHead that should return on the next slot.
func (c *Client) SeenHead() uint64 { return c.seenHead.Load() }

// WaitHead blocks until the chain's head (its confirmed slot) is above after and returns it; it
// returns ctx's error when ctx ends first. While the node cannot be read, WaitHead keeps
// waiting: bound ctx to look again yourself.
func (c *Client) WaitHead(ctx context.Context, after uint64) (uint64, error) {
	t := time.NewTicker(headPollInterval)
	defer t.Stop()
	for {
		if h, err := c.Head(ctx); err == nil && h > after {
			return h, nil
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-t.C:
		}
	}
}
