// Package symbols parses the configuration lists keyed by currency symbol, such as
// "ETH=3000,USDC=1": comma-separated SYMBOL=amount pairs, each amount a positive decimal.
package symbols

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
)

// Parse reads a SYMBOL=amount list. Symbols are upper-cased; spaces around items are ignored;
// an empty list, an empty symbol, an amount that is not a positive decimal or a symbol listed
// twice is an error. what names an item and unit its amount in errors ("price", "USD").
func Parse(s, what, unit string) (map[string]decimal.Decimal, error) {
	out := map[string]decimal.Decimal{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		sym, val, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("%s %q is not SYMBOL=%s", what, part, unit)
		}
		sym = strings.ToUpper(strings.TrimSpace(sym))
		if sym == "" {
			return nil, fmt.Errorf("%s %q has no symbol", what, part)
		}
		d, err := decimal.NewFromString(strings.TrimSpace(val))
		if err != nil || d.Sign() <= 0 {
			return nil, fmt.Errorf("%s %q is not a positive decimal", what, part)
		}
		if _, dup := out[sym]; dup {
			return nil, fmt.Errorf("%s of %s is listed twice", what, sym)
		}
		out[sym] = d
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s list is empty", what)
	}
	return out, nil
}
