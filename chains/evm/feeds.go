package evm

import (
	"context"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm/bindings"
)

// aggregator packs and unpacks AggregatorV3Interface calls; the devnet's PriceFeed has the
// same selectors and return types as a Chainlink aggregator.
var aggregator = bindings.NewPriceFeed()

// FeedReader reads Chainlink-style aggregator contracts (AggregatorV3Interface: decimals,
// latestRoundData) with eth_call through Caller: a *Client reads through its own connection
// (FeedDecimals, LatestRound), the oracle through its pooled RPC clients. It is the EVM family's
// chains.PriceFeedReader; what a round is worth (stale, incomplete) is package prices' call.
type FeedReader struct{ Caller ContractCaller }

// FeedDecimals reads the feed's decimals().
func (r FeedReader) FeedDecimals(ctx context.Context, feed string) (uint8, error) {
	out, err := r.call(ctx, feed, aggregator.PackDecimals())
	if err != nil {
		return 0, err
	}
	return aggregator.UnpackDecimals(out)
}

// LatestRound reads the feed's latestRoundData().
func (r FeedReader) LatestRound(ctx context.Context, feed string) (chains.FeedRound, error) {
	out, err := r.call(ctx, feed, aggregator.PackLatestRoundData())
	if err != nil {
		return chains.FeedRound{}, err
	}
	round, err := aggregator.UnpackLatestRoundData(out)
	if err != nil {
		return chains.FeedRound{}, err
	}
	return chains.FeedRound{RoundID: round.RoundId, Answer: round.Answer, StartedAt: round.StartedAt, UpdatedAt: round.UpdatedAt,
		AnsweredInRound: round.AnsweredInRound}, nil
}

func (r FeedReader) call(ctx context.Context, feed string, data []byte) ([]byte, error) {
	to := common.HexToAddress(feed)
	return r.Caller.CallContract(ctx, ethereum.CallMsg{To: &to, Data: data})
}

// FeedDecimals reads a feed's decimals() on the client's chain (chains.PriceFeedReader).
func (c *Client) FeedDecimals(ctx context.Context, feed string) (uint8, error) {
	return FeedReader{c}.FeedDecimals(ctx, feed)
}

// LatestRound reads a feed's latestRoundData() on the client's chain (chains.PriceFeedReader).
func (c *Client) LatestRound(ctx context.Context, feed string) (chains.FeedRound, error) {
	return FeedReader{c}.LatestRound(ctx, feed)
}
