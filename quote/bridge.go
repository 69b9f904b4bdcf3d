package quote

import (
	"context"
	"math/big"

	"github.com/intentd/intentd/fees"
)

// BridgeTerms are what a quote of a bridge between two chains would be bound by, before any
// amount is known: GET /config/v2 serves them, so a client sees the limits it would hit.
type BridgeTerms struct {
	// Fee is what the user pays for the bridge, in the origin currency's smallest unit: the
	// execution cost (the flat fee and the destination fill's gas at the current gas price).
	// A bridge pays no swap cost and no platform fee (fees.ClassBridge); app fees are the
	// caller's own and not included.
	Fee *big.Int
	// MaxAmount is the largest input QUOTE_MAX_USD lets a quote of the pair take, in the
	// origin currency's smallest unit (rounded down); nil when the pair has no maximum.
	MaxAmount *big.Int
	// Class is the pair's fee class (fees.ClassBridge for one currency on two chains).
	Class fees.Class
}

// Bridge prices the terms of moving originCurrency on originChain to destCurrency on
// destChain, with the same validation and prices as a quote: an unknown or disabled chain is
// UNSUPPORTED_CHAIN, an unlisted or unpriced currency UNSUPPORTED_CURRENCY, a price or chain
// that cannot be read now PRICE_FETCH_FAILED or SERVICE_UNAVAILABLE. The currencies are
// addresses of their chains as the registry lists them.
func (e *Engine) Bridge(ctx context.Context, originChain uint64, originCurrency string, destChain uint64,
	destCurrency string) (*BridgeTerms, *Error) {
	in, qerr := e.leg(ctx, originChain, "originChainId", originCurrency)
	if qerr != nil {
		return nil, qerr
	}
	out, qerr := e.leg(ctx, destChain, "destinationChainId", destCurrency)
	if qerr != nil {
		return nil, qerr
	}
	gas, flat, qerr := e.executionFee(ctx, in, out, destCurrency)
	if qerr != nil {
		return nil, qerr
	}
	t := &BridgeTerms{Fee: new(big.Int).Add(gas, flat),
		Class: fees.Classify(fees.Leg{ChainID: in.chain.ID, Symbol: in.currency.Symbol, Native: in.currency.Metadata.IsNative},
			fees.Leg{ChainID: out.chain.ID, Symbol: out.currency.Symbol, Native: out.currency.Metadata.IsNative})}
	if max, ok := e.Limits.Max(in.currency.Symbol, out.currency.Symbol); ok && in.price.IsPositive() {
		t.MaxAmount = max.Div(in.price).Shift(int32(in.currency.Decimals)).Floor().BigInt()
	}
	return t, nil
}
