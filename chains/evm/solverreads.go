package evm

import (
	"context"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/sharedread"
)

// The reads of a signing that are the same for every fill of a chain: the fees, and the solver's
// holdings (its balances with the nonce they were read at). A block's burst of fills asked for
// them once each, three to five calls per fill; now the signings of one process share one read
// for up to sharedReadAge, and the ones that ask while it is under way wait for it
// (internal/sharedread). That is sound for each of them:
//   - fees a block old make a transaction priced for the block before, which the chain takes or
//     the inclusion wait replaces with higher fees (FILL_BUMP_AFTER), as it would any fill;
//   - holdings are a snapshot that stays true: the balances were read with the nonce before and
//     after them equal, so they hold everything the solver's transactions from that nonce on have
//     not yet paid, and the store counts exactly those as in flight (PrepareSolverTx). The
//     solver's balances go down only through its own transactions, each of which the store
//     knows, so an older snapshot gives the same answer as a fresh one, less what arrived since
//     (it refuses too much, never too little). The age bound keeps a key used outside the engine
//     (transactions the store does not know) from being missed for long.

// sharedReadAge is how long a shared read is reused: about a block of the devnet.
const sharedReadAge = time.Second

// fees returns the chain's fees, shared (see above).
func (p *Payout) fees(ctx context.Context, c solverChain) (Fees, error) {
	return sharedread.Do(ctx, &p.reads, fmt.Sprintf("fees:%d", c.Chain().ID), sharedReadAge, c.SuggestFees)
}

// snapshot is the solver's holdings with the nonce they were read at.
type snapshot struct {
	nonce uint64
	held  *intent.Holdings
}

// holdings returns the solver's balances of the native currency and of currency (when not
// native) and the solver's nonce at the block they were read at, which is what the store weighs
// the transactions not yet mined against; shared (see above). The nonce is read before and
// after the balances: when the two are the same, no transaction of the solver was mined in
// between. Otherwise the balances are read again; should the nonce keep moving, the nonce read
// before the last balances is kept: a transaction mined meanwhile is then counted both as paid
// and as in flight, which refuses too much rather than too little. The holdings are shared:
// callers only read them.
func (p *Payout) holdings(ctx context.Context, c solverChain, currency common.Address) (uint64, *intent.Holdings, error) {
	key := fmt.Sprintf("holdings:%d:%s", c.Chain().ID, currency.Hex())
	s, err := sharedread.Do(ctx, &p.reads, key, sharedReadAge, func(ctx context.Context) (snapshot, error) {
		solver := p.solverAddress()
		nonce, err := c.NonceAt(ctx, solver)
		if err != nil {
			return snapshot{}, err
		}
		for try := 1; ; try++ {
			held := &intent.Holdings{}
			if held.Native, err = c.BalanceNow(ctx, common.Address{}.Hex(), solver.Hex()); err != nil {
				return snapshot{}, err
			}
			if currency != (common.Address{}) {
				if held.Token, err = c.BalanceNow(ctx, currency.Hex(), solver.Hex()); err != nil {
					return snapshot{}, err
				}
			}
			after, err := c.NonceAt(ctx, solver)
			if err != nil {
				return snapshot{}, err
			}
			if after == nonce || try == 3 {
				return snapshot{nonce: nonce, held: held}, nil
			}
			nonce = after
		}
	})
	return s.nonce, s.held, err
}
