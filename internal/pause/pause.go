// Package pause waits for a duration unless a context ends first: the one sleep of the loops
// that back off or take turns (the deposit scanner, the chain waits, the webhook dispatcher).
package pause

import (
	"context"
	"time"
)

// For waits d and returns nil, or returns ctx's error as soon as ctx ends.
func For(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
