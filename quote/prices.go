package quote

import (
	"context"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
)

// PriceSource gives the USD price of one whole unit of a currency, by symbol.
type PriceSource interface {
	USDPrice(ctx context.Context, symbol string) (decimal.Decimal, error)
}

// PriceTable is a configured, fixed price list (dev and tests).
type PriceTable map[string]decimal.Decimal

// USDPrice implements PriceSource.
func (t PriceTable) USDPrice(_ context.Context, symbol string) (decimal.Decimal, error) {
	p, ok := t[strings.ToUpper(symbol)]
	if !ok {
		return decimal.Zero, fmt.Errorf("no price for %s", symbol)
	}
	return p, nil
}

// ParsePriceTable parses "ETH=3000,USDC=1".
func ParsePriceTable(s string) (PriceTable, error) {
	t := PriceTable{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		sym, val, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("price %q is not SYMBOL=USD", part)
		}
		d, err := decimal.NewFromString(strings.TrimSpace(val))
		if err != nil || d.Sign() <= 0 {
			return nil, fmt.Errorf("price %q is not a positive decimal", part)
		}
		t[strings.ToUpper(strings.TrimSpace(sym))] = d
	}
	if len(t) == 0 {
		return nil, fmt.Errorf("price table is empty")
	}
	return t, nil
}
