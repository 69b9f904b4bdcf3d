// Package fees implements the pure arithmetic of the intent service's fee model (spec section
// "Fee model"): it classifies a trade into a platform-fee bucket, prices the platform fee and
// splits it between the service and an eligible integrator (revenue share), prices integrator
// app fees, and applies fee sponsorship (subsidizeFees, sponsoredFeeComponents,
// subsidizationBps, maxSubsidizationAmount) to the per-component fee totals.
//
// The quote engine calls it; the package does no I/O and knows nothing of chains, prices or
// HTTP. Every amount is an integer in the smallest unit of one fee currency (*big.Int); money is
// never a float. USD volumes and fractional rates are github.com/shopspring/decimal values, and
// every computation on them is exact (multiplication, shifts and floor/ceil only, no division).
//
// Conventions shared by every function:
//
//   - Units: platform-fee rates are basis points expressed as decimal.Decimal (1 bps = 0.01%),
//     so a fractional integrator rate such as 15 bps x 33.33% = 4.9995 bps is exact. App fees and
//     subsidizationBps are integer basis points (10000 = 100%).
//   - Rounding: the platform fee rounds UP (the service never undercharges); every amount paid
//     to someone else (integrator share, app fee, sponsor contribution) rounds DOWN.
//   - A nil amount means zero. A negative base amount yields zero fees.
//   - Inputs are never mutated and results never alias inputs: every returned *big.Int is
//     freshly allocated.
//
// Route-specific campaigns ("Route-specific campaigns can change fees") are out of scope: they
// are overrides the caller applies on top of the default rules priced here; PlatformSplit.RuleID
// names the default rule that was used.
package fees

import "strings"

// Class is the platform-fee bucket of a trade (the spec's "Type" column; reported as
// platformFee.bucket).
type Class string

// The platform-fee buckets of the spec.
const (
	// ClassBridge moves one asset across chains without swapping it. A same-symbol, same-chain
	// pair is also classified as a bridge (fee 0).
	ClassBridge Class = "bridge"
	// ClassWrap is a 1:1 same-chain conversion between a native asset and its wrapped token.
	ClassWrap Class = "wrap"
	// ClassStablecoin is a swap between two of the spec's stablecoins.
	ClassStablecoin Class = "stablecoin"
	// ClassMajor is a swap between two majors, or between a major and a stablecoin.
	ClassMajor Class = "major"
	// ClassMinor is any other pair.
	ClassMinor Class = "minor"
)

// Leg describes one side of a trade.
type Leg struct {
	ChainID uint64
	Symbol  string
	// Native is true when the currency is the chain's native asset (not a token contract).
	Native bool
}

// stablecoins is the spec's stablecoin set, spelled exactly as in the spec.
var stablecoins = []string{
	"USDC", "USDC.e", "USDT", "USDT0", "DAI", "USDe", "USDS", "USD1", "PYUSD", "USDG",
	"mUSD", "USDm", "USDH", "pUSD", "PlumeUSD",
}

// majors is the spec's major set, spelled exactly as in the spec.
var majors = []string{"ETH", "WETH", "BTC", "WBTC", "SOL", "WSOL", "POL", "BNB", "PLUME"}

var (
	// caseSensitive holds the spec symbols spelled with lowercase letters; they match only
	// their exact spelling.
	caseSensitive = map[string]bool{}
	stableSet     = map[string]bool{}
	majorSet      = map[string]bool{}
)

func init() {
	for _, set := range [][]string{stablecoins, majors} {
		for _, s := range set {
			if s != strings.ToUpper(s) {
				caseSensitive[s] = true
			}
		}
	}
	for _, s := range stablecoins {
		stableSet[canonical(s)] = true
	}
	for _, s := range majors {
		majorSet[canonical(s)] = true
	}
}

// canonical returns the comparison key of a symbol.
//
// Case rule: symbols compare case-insensitively (ASCII upper-casing), EXCEPT the spec symbols
// whose spelling contains lowercase letters (USDC.e, USDe, mUSD, USDm, pUSD, PlumeUSD): those
// match only when spelled exactly as in the spec. Case is what tells these tokens apart from
// unrelated ones (mUSD vs MUSD, USDe vs USDE, USDm vs USDM), and a false match would move an
// arbitrary token into a cheaper bucket, i.e. undercharge; so "musd" or "MUSD" is not mUSD and
// falls through to the minor bucket. All-uppercase spec symbols (USDC, ETH, WETH, ...) and every
// non-spec symbol match in any case ("usdc" == "USDC", "weth" == "WETH"). Symbols are otherwise
// compared as given (no trimming).
func canonical(sym string) string {
	if caseSensitive[sym] {
		return sym
	}
	return strings.ToUpper(sym)
}

// Classify returns the platform-fee bucket of a trade from in to out. Rules, in order:
//
//  1. bridge: both legs have the same symbol (by the case rule of the package), on different
//     chains or on the same chain (same asset, fee 0);
//  2. wrap: same chain, exactly one leg is Native and the other leg's symbol is "W" followed by
//     the native symbol (ETH<->WETH, SOL<->WSOL, POL<->WPOL, ...). The Native flag is required:
//     BTC<->WBTC is not a wrap unless BTC is that chain's native asset;
//  3. stablecoin: both symbols in the spec's stablecoin set;
//  4. major: both symbols in the spec's major set, or one major and one stablecoin;
//  5. minor: anything else.
//
// An empty symbol never matches anything, so a trade with an empty symbol is minor.
func Classify(in, out Leg) Class {
	a, b := canonical(in.Symbol), canonical(out.Symbol)
	if a == "" || b == "" {
		return ClassMinor
	}
	if a == b {
		return ClassBridge
	}
	if in.ChainID == out.ChainID && in.Native != out.Native {
		native, token := a, b
		if out.Native {
			native, token = b, a
		}
		if token == canonical("W"+native) {
			return ClassWrap
		}
	}
	switch {
	case stableSet[a] && stableSet[b]:
		return ClassStablecoin
	case (majorSet[a] || stableSet[a]) && (majorSet[b] || stableSet[b]):
		// Both are in the union, and they are not both stablecoins: at least one is a major.
		return ClassMajor
	default:
		return ClassMinor
	}
}
