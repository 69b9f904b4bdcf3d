package oracle

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/prices"
)

// The depth the oracle attests a deposit at. A chain with confirmationTiers (chains/tiers.go)
// lets a deposit of small value be attested before the chain's full confirmations. The oracle
// decides that depth itself, from its own copy of the tiers (the chain file it loads) and its own
// prices (PRICE_SOURCE): nothing in the request can lower it, so a caller that claims a deposit
// is small, or an engine whose prices are wrong or compromised, never gets a signature below the
// oracle's own rule. The engine applies the same rule with its prices and relies on an
// attestation only once its own depth is reached as well; when the two disagree (a price moved
// across a tier's maximum between their reads) the deeper one wins: the oracle refuses with
// TRANSACTION_NOT_CONFIRMED until its depth, and the engine asks again on the next block.
//
// What the oracle cannot value is never taken to be small: without prices, for a currency its
// chain does not list, a symbol its source has no price for, or a feed that fails or is stale,
// the deposit waits for the chain's full confirmations.

// depositDepth is the confirmations the oracle requires of a transaction's deposits before it
// signs them: the largest its rule gives any Deposit event of the read's depository in the
// receipt, so that a transaction holding a large deposit beside small ones is attested at the
// large one's depth (a deposit is never signed shallower than its own tier, whichever of the
// transaction's deposits a request names).
func (s *Server) depositDepth(ctx context.Context, r *chainRead, receipt *types.Receipt) uint64 {
	final := r.chain.FinalConfirmations()
	if !r.chain.Tiered() {
		return final
	}
	need := uint64(1)
	tx := &txRead{chainRead: r, receipt: receipt}
	for _, l := range tx.logs(depositEventID) {
		ev, err := depositoryABI.UnpackDepositEvent(l)
		if err != nil {
			return final // not a deposit the oracle can value
		}
		d := prices.DepositDepth(ctx, s.prices, r.chain, ev.Currency.Hex(), ev.Amount)
		if d.Err != nil && s.prices != nil {
			r.log.Debug("deposit not valued: its chain's full confirmations apply", slog.Uint64("logIndex", uint64(l.Index)),
				slog.Any("err", d.Err))
		}
		need = max(need, d.Confirmations)
	}
	return min(need, final)
}

// openPrices builds the oracle's price source from its configuration: nil for PRICE_SOURCE
// none, else the table or the feeds (read through the oracle's own RPC clients, on chains of its
// registry) behind the refresh-ahead cache. A tiered chain without prices is worth a warning: its
// deposits are all attested at the chain's full confirmations.
func (s *Server) openPrices() error {
	cfg := s.cfg
	var src prices.Source
	switch cfg.PriceSource {
	case PriceSourceTable:
		src = cfg.Prices
	case PriceSourceFeeds:
		for sym, ref := range cfg.PriceFeeds {
			if ch, err := s.registry.Get(ref.ChainID); err != nil || ch.Disabled {
				return fmt.Errorf("oracle: %s: the feed of %s is on chain %d, which this oracle does not serve", EnvPriceFeeds, sym, ref.ChainID)
			}
		}
		feeds, err := prices.CheckFeeds(s.registry, cfg.PriceFeeds)
		if err != nil {
			return fmt.Errorf("oracle: %s: %w", EnvPriceFeeds, err)
		}
		src = prices.NewFeedsFrom(s.feedReader, feeds, cfg.PriceMaxAge)
	}
	if src != nil {
		s.prices = prices.NewCached(src, cfg.PriceCacheTTL, cfg.PriceMaxAge)
		return nil
	}
	for _, ch := range s.registry.Enabled() {
		if ch.Tiered() {
			s.cfg.Warnings = append(s.cfg.Warnings, fmt.Sprintf("chain %d has confirmationTiers but %s is %s: "+
				"its deposits are attested at the chain's full %d confirmations", ch.ID, EnvPriceSource, PriceSourceNone, ch.FinalConfirmations()))
		}
	}
	return nil
}

// feedReader reads a chain's price feeds through the chain's pooled client (eth_call at the
// latest block, the EVM family's feed reader), bounded like every chain read of the oracle.
func (s *Server) feedReader(ctx context.Context, chainID uint64) (chains.PriceFeedReader, error) {
	ch, err := s.registry.Get(chainID)
	if err != nil {
		return nil, err
	}
	r, err := s.clients.get(ctx, ch)
	if err != nil {
		return nil, err
	}
	return evm.FeedReader{Caller: latestCaller{r}}, nil
}

// latestCaller is an evmReader as an evm.ContractCaller.
type latestCaller struct{ evmReader }

func (c latestCaller) CallContract(ctx context.Context, msg ethereum.CallMsg) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, rpcTimeout)
	defer cancel()
	return c.evmReader.CallContract(ctx, msg, nil)
}
