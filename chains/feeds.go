package chains

import (
	"context"
	"math/big"
)

// PriceFeedReader reads the price feeds of a chain: contracts that answer an asset's USD price in
// rounds (on EVM chains Chainlink-style aggregators, chains/evm). prices.Feeds reads its feeds
// through it, and judges the rounds itself (staleness, incomplete rounds), so a family with
// another kind of feed plugs in here. Feeds are named by address, as the chain's notation writes
// it. An error is the chain's (ErrUnavailable, *RevertError) or an answer that is not a feed's.
type PriceFeedReader interface {
	// FeedDecimals returns how many decimals the feed's answers have.
	FeedDecimals(ctx context.Context, feed string) (uint8, error)
	// LatestRound returns the feed's latest round.
	LatestRound(ctx context.Context, feed string) (FeedRound, error)
}

// FeedRound is one round of a price feed, as Chainlink's latestRoundData answers it: the answer
// in the feed's decimals, when the round started and was last updated (Unix seconds), and the
// round the answer was computed in.
type FeedRound struct {
	RoundID         *big.Int
	Answer          *big.Int
	StartedAt       *big.Int
	UpdatedAt       *big.Int
	AnsweredInRound *big.Int
}
