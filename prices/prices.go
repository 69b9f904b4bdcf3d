// Package prices gives the quote engine the USD price of a currency, by symbol, so that fees
// paid in one currency can be charged in another.
//
// There are two sources: Table, a configured fixed list for dev and tests, and Feeds, which
// reads price feed contracts on the registry's chains through their family
// (chains.PriceFeedReader: Chainlink-style aggregators on EVM chains, chains/evm) and refuses
// answers that are older than a staleness bound. Cached sits in front
// of either one so that a quote is not kept waiting on RPC: it serves a recent price from memory
// and refreshes it in the background. A price that cannot be had now is an error wrapping
// ErrUnavailable or ErrStale, which the API answers with 503 PRICE_FETCH_FAILED (retry); a
// symbol the source has no price for at all is an error wrapping ErrNoSource, which it answers
// with 400 UNSUPPORTED_CURRENCY (retrying cannot help). See docs/prices.md.
//
// Prices are decimals (github.com/shopspring/decimal), never floats.
package prices

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/internal/envconf"
)

// Source gives the USD price of one whole unit of a currency, by symbol (upper case, e.g.
// "ETH"; implementations in this package also accept lower case).
type Source interface {
	USDPrice(ctx context.Context, symbol string) (decimal.Decimal, error)
}

var (
	// ErrUnavailable is wrapped by the errors of a source that could not be read: the RPC is
	// down, the feed's chain is not in the registry, or the feed's answer is not usable (zero,
	// negative, an incomplete round). It is transient as far as a client can tell.
	ErrUnavailable = errors.New("price unavailable")
	// ErrNoSource is wrapped by the errors of a source that has no price for the symbol at all:
	// the symbol is not in the price table, or no feed is configured for it. It is permanent
	// until the configuration changes (a restart), so it does not wrap ErrUnavailable: a client
	// told to retry would retry forever.
	ErrNoSource = errors.New("no price source for the symbol")
	// ErrStale is wrapped by the errors of a feed whose last update is older than the
	// staleness bound, or whose latest round was answered in an earlier round.
	ErrStale = errors.New("price is stale")
)

// Defaults for the staleness bound and the cache, for callers that have no configuration of
// their own (docs/prices.md: PRICE_MAX_AGE and PRICE_CACHE_TTL).
const (
	// DefaultMaxAge is the staleness bound: one hour, the heartbeat of Chainlink's ETH/USD
	// feed on mainnet. (Chainlink's USDC/USD feeds beat once a day; configure a longer bound
	// for them.)
	DefaultMaxAge = time.Hour
	// DefaultTTL is how long Cached serves a price without asking its source again.
	DefaultTTL = 10 * time.Second
)

// Table is a configured, fixed price list by upper-case symbol (dev and tests).
type Table map[string]decimal.Decimal

var _ Source = Table(nil)

// USDPrice implements Source; a symbol not in the table is an ErrNoSource error.
func (t Table) USDPrice(_ context.Context, symbol string) (decimal.Decimal, error) {
	p, ok := t[strings.ToUpper(symbol)]
	if !ok {
		return decimal.Zero, fmt.Errorf("%w: no price for %s in the price table", ErrNoSource, symbol)
	}
	return p, nil
}

// ParseTable parses a price table such as "ETH=3000,USDC=1": comma-separated SYMBOL=USD
// pairs, each price a positive decimal. Symbols are upper-cased; spaces around items are
// ignored; an empty table, an empty symbol or a symbol listed twice is an error.
func ParseTable(s string) (Table, error) {
	t, err := envconf.SymbolAmounts(s, "price", "USD")
	return Table(t), err
}

// FeedRef names a price feed: a feed contract on a chain of the registry, its address as the
// chain's notation writes it (CheckFeeds reads it so).
type FeedRef struct {
	ChainID uint64
	Address string
}

// ParseFeeds parses a feed list such as "ETH=31337:0x…,USDC=31337:0x…": comma-separated
// SYMBOL=CHAINID:ADDRESS items. Symbols are upper-cased; spaces around items are ignored; an
// empty list, an empty symbol, a symbol listed twice, chain id 0 or an empty address is an
// error. The address is an address of its chain's family, which only the registry knows:
// CheckFeeds reads it once the registry is loaded.
func ParseFeeds(s string) (map[string]FeedRef, error) {
	entries, err := envconf.List{Sep: ",", KV: "=", Item: "feed", Form: "SYMBOL=CHAINID:ADDRESS", Key: "symbol",
		UpperKeys: true, Unique: true}.Parse(s)
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, errors.New("feed list is empty")
	}
	out := make(map[string]FeedRef, len(entries))
	for _, e := range entries {
		chain, addr, ok := strings.Cut(e.Value, ":")
		if !ok {
			return nil, e.Malformed()
		}
		id, err := strconv.ParseUint(strings.TrimSpace(chain), 10, 64)
		if err != nil || id == 0 {
			return nil, e.Errorf("has chain id %q, not a positive integer", chain)
		}
		if addr = strings.TrimSpace(addr); addr == "" {
			return nil, e.Malformed()
		}
		out[e.Key] = FeedRef{ChainID: id, Address: addr}
	}
	return out, nil
}

// CheckFeeds reads every feed's address by the rules of its chain's family and returns the
// feeds with their addresses in the family's canonical form: an address that is not one, or the
// zero address, is an error naming the symbol. A feed on a chain the registry does not have is
// left as it is: reading it fails with ErrUnavailable, as when its chain is down.
func CheckFeeds(r *chains.Registry, feeds map[string]FeedRef) (map[string]FeedRef, error) {
	out := make(map[string]FeedRef, len(feeds))
	for _, sym := range slices.Sorted(maps.Keys(feeds)) {
		ref := feeds[sym]
		if ch, err := r.Get(ref.ChainID); err == nil {
			n := ch.Notation()
			a, err := n.ParseAddress(ref.Address)
			if err != nil {
				return nil, fmt.Errorf("the feed of %s on chain %d: %q %v", sym, ref.ChainID, ref.Address, err)
			}
			if n.IsZeroAddress(a) {
				return nil, fmt.Errorf("the feed of %s on chain %d names the zero address, not a feed", sym, ref.ChainID)
			}
			ref.Address = a
		}
		out[sym] = ref
	}
	return out, nil
}
