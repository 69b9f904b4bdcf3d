package quote

import (
	"strings"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/internal/envconf"
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
	entries, err := envconf.List{Sep: ",", KV: "=", Item: "limit", Form: "ORIGIN/DESTINATION=USD", Key: "pair"}.Parse(s)
	if err != nil {
		return nil, err
	}
	var out PairLimits
	for _, e := range entries {
		o, d, ok := strings.Cut(e.Key, "/")
		if o, d = strings.TrimSpace(o), strings.TrimSpace(d); !ok || o == "" || d == "" {
			return nil, e.Malformed()
		}
		max, err := decimal.NewFromString(e.Value)
		if err != nil || max.Sign() <= 0 {
			return nil, e.Errorf("has a maximum that is not a positive USD amount")
		}
		out = append(out, PairLimit{Origin: o, Destination: d, MaxUSD: max})
	}
	return out, nil
}
