package perps

import (
	"sync/atomic"
	"time"
)

// withdrawalNonces gives each withdrawal quote of a process its own nonce: the quote's time in
// milliseconds, or one more than the last nonce given when that is not below it. Two quotes in
// the same millisecond (one user asking twice, or two users: the exchange keeps nonces per
// signer, but the engine binds each nonce to one order, store.BindPerpsNonce) took the same
// nonce before, and the second quote's authorize step was refused with a conflict. Quotes made
// by different API processes in the same millisecond for the same user can still share one;
// the second's POST /authorize then answers 409 and the user asks for a new quote.
type withdrawalNonces struct{ last atomic.Uint64 }

// next returns a nonce above every one given before, at least now in milliseconds.
func (n *withdrawalNonces) next(now time.Time) uint64 {
	t := uint64(max(now.UnixMilli(), 0))
	for {
		last := n.last.Load()
		v := max(t, last+1)
		if n.last.CompareAndSwap(last, v) {
			return v
		}
	}
}
