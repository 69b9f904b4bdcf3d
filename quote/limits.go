package quote

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
)

// PairLimit is the largest input, in USD, a quote may take for a pair of currencies, named by
// symbol; "*" matches any symbol. The first matching limit applies.
type PairLimit struct {
	Origin, Destination string
	MaxUSD              decimal.Decimal
}

// PairLimits is an ordered list of limits.
type PairLimits []PairLimit

// Max returns the limit of a pair and whether one applies.
func (l PairLimits) Max(origin, destination string) (decimal.Decimal, bool) {
	for _, p := range l {
		if (p.Origin == "*" || strings.EqualFold(p.Origin, origin)) && (p.Destination == "*" || strings.EqualFold(p.Destination, destination)) {
			return p.MaxUSD, true
		}
	}
	return decimal.Zero, false
}

// ParsePairLimits parses "ETH/USDC=250000,*/*=1000000": per-pair maximum input in USD, most
// specific first.
func ParsePairLimits(s string) (PairLimits, error) {
	var out PairLimits
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		pair, val, ok := strings.Cut(part, "=")
		o, d, ok2 := strings.Cut(pair, "/")
		if !ok || !ok2 || strings.TrimSpace(o) == "" || strings.TrimSpace(d) == "" {
			return nil, fmt.Errorf("limit %q is not ORIGIN/DESTINATION=USD", part)
		}
		max, err := decimal.NewFromString(strings.TrimSpace(val))
		if err != nil || max.Sign() <= 0 {
			return nil, fmt.Errorf("limit %q: the maximum is not a positive USD amount", part)
		}
		out = append(out, PairLimit{Origin: strings.TrimSpace(o), Destination: strings.TrimSpace(d), MaxUSD: max})
	}
	return out, nil
}
