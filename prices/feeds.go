package prices

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/chains"
)

// Feeds reads USD prices from price feeds: contracts on a chain of the registry that answer a
// price in rounds (Chainlink-style aggregators on EVM chains), read through the chain family's
// chains.PriceFeedReader. It reads a feed's decimals once and its latest round on every
// USDPrice, so put a Cached in front of it. Safe for concurrent use.
type Feeds struct {
	// Now is the clock a feed's age is measured against; nil means time.Now. Set it before
	// the first USDPrice (tests move it to make a feed stale).
	Now func() time.Time

	reader func(ctx context.Context, chainID uint64) (chains.PriceFeedReader, error)
	feeds  map[string]FeedRef
	maxAge time.Duration

	mu       sync.Mutex
	decimals map[string]uint8 // by symbol, once read
}

var _ Source = (*Feeds)(nil)

// NewFeeds returns a source reading feeds (by symbol) on the chains' clients. An answer whose
// updatedAt is more than maxAge old is refused with ErrStale; maxAge <= 0 means DefaultMaxAge.
func NewFeeds(cs *chains.Clients, feeds map[string]FeedRef, maxAge time.Duration) *Feeds {
	return NewFeedsFrom(func(_ context.Context, chainID uint64) (chains.PriceFeedReader, error) {
		return chains.Capability[chains.PriceFeedReader](cs, chainID)
	}, feeds, maxAge)
}

// NewFeedsFrom is NewFeeds over a reader of its own: reader returns the feed reader of a chain.
// The oracle reads its feeds through its own RPC clients, not the engine's.
func NewFeedsFrom(reader func(ctx context.Context, chainID uint64) (chains.PriceFeedReader, error), feeds map[string]FeedRef,
	maxAge time.Duration) *Feeds {
	if maxAge <= 0 {
		maxAge = DefaultMaxAge
	}
	m := make(map[string]FeedRef, len(feeds))
	for sym, ref := range feeds {
		m[strings.ToUpper(sym)] = ref
	}
	return &Feeds{reader: reader, feeds: m, maxAge: maxAge, decimals: make(map[string]uint8)}
}

// USDPrice implements Source: the feed's latest answer scaled by its decimals. An error
// wraps ErrNoSource (no feed configured for the symbol; checked before any RPC),
// ErrUnavailable (RPC failure, the feed's chain not in the registry, no contract or a reverting
// one, answer <= 0, updatedAt 0) or ErrStale (updatedAt older than maxAge, or answeredInRound
// before roundId) and names the symbol. An updatedAt in the future counts as fresh: chain
// clocks, and a devnet's in particular, may run ahead of this one.
func (f *Feeds) USDPrice(ctx context.Context, symbol string) (decimal.Decimal, error) {
	sym := strings.ToUpper(symbol)
	ref, ok := f.feeds[sym]
	if !ok {
		return decimal.Zero, fmt.Errorf("%w: no price feed for %s", ErrNoSource, symbol)
	}
	client, err := f.reader(ctx, ref.ChainID)
	if err != nil {
		return decimal.Zero, fmt.Errorf("%w: price feed of %s on chain %d: %v", ErrUnavailable, sym, ref.ChainID, err)
	}
	failed := func(what string, err error) error {
		return fmt.Errorf("%w: price feed of %s (chain %d, %s): %s: %v", ErrUnavailable, sym, ref.ChainID, ref.Address, what, err)
	}

	f.mu.Lock()
	dec, ok := f.decimals[sym]
	f.mu.Unlock()
	if !ok {
		if dec, err = client.FeedDecimals(ctx, ref.Address); err != nil {
			return decimal.Zero, failed("decimals", err)
		}
		f.mu.Lock()
		f.decimals[sym] = dec
		f.mu.Unlock()
	}

	round, err := client.LatestRound(ctx, ref.Address)
	if err != nil {
		return decimal.Zero, failed("latestRoundData", err)
	}
	return checkRound(sym, round, dec, f.now(), f.maxAge)
}

func (f *Feeds) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

// checkRound validates a latestRoundData answer read at now and returns it as a price.
func checkRound(sym string, r chains.FeedRound, dec uint8, now time.Time, maxAge time.Duration) (decimal.Decimal, error) {
	switch {
	case r.Answer == nil || r.Answer.Sign() <= 0:
		return decimal.Zero, fmt.Errorf("%w: price feed of %s answered %v, not a positive price", ErrUnavailable, sym, r.Answer)
	case r.UpdatedAt == nil || r.UpdatedAt.Sign() == 0:
		return decimal.Zero, fmt.Errorf("%w: price feed of %s: round %v is not complete (updatedAt 0)", ErrUnavailable, sym, r.RoundID)
	case r.RoundID == nil || r.AnsweredInRound == nil || r.AnsweredInRound.Cmp(r.RoundID) < 0:
		return decimal.Zero, fmt.Errorf("%w: price feed of %s: round %v was answered in round %v", ErrStale, sym, r.RoundID, r.AnsweredInRound)
	}
	// An updatedAt beyond int64 seconds is in the future: fresh.
	if r.UpdatedAt.Cmp(big.NewInt(math.MaxInt64)) < 0 {
		updated := time.Unix(r.UpdatedAt.Int64(), 0)
		if age := now.Sub(updated); age > maxAge {
			return decimal.Zero, fmt.Errorf("%w: price feed of %s was last updated %s ago (at %s), more than %s",
				ErrStale, sym, age.Round(time.Second), updated.UTC().Format(time.RFC3339), maxAge)
		}
	}
	return decimal.NewFromBigInt(r.Answer, -int32(dec)), nil
}
