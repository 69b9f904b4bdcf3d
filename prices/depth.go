package prices

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
)

// Depth is how deep a deposit must be before it is relied on: the confirmations of its value's
// tier on its chain (chains.Chain.DepositConfirmations).
type Depth struct {
	// Confirmations is the depth the deposit needs; Final the chain's, at which it is final.
	Confirmations, Final uint64
	// USD is the deposit's value, when Priced.
	USD    decimal.Decimal
	Priced bool
	// Err says why a deposit on a tiered chain could not be priced; it then takes Final.
	Err error
}

// DepositDepth prices a deposit of amount (base units) of currency on ch with src and returns
// the confirmations its value needs. A chain without tiers is not priced: every deposit waits
// for its final confirmations. A currency the chain does not list, a symbol src has no price for,
// a price that cannot be had now (and a nil src) all take the final confirmations, never fewer:
// Err says which. The engine and the oracle call it each with their own prices.
func DepositDepth(ctx context.Context, src Source, ch *chains.Chain, currency string, amount *big.Int) Depth {
	d := Depth{Final: ch.FinalConfirmations()}
	d.Confirmations = d.Final
	if !ch.Tiered() {
		return d
	}
	cur, ok := ch.FindCurrency(currency)
	switch {
	case !ok:
		d.Err = fmt.Errorf("%w: currency %s is not listed on chain %d", ErrNoSource, currency, ch.ID)
	case amount == nil || amount.Sign() < 0:
		d.Err = errors.New("the deposit's amount is not a base-unit amount")
	case src == nil:
		d.Err = fmt.Errorf("%w: no price source configured", ErrNoSource)
	}
	if d.Err != nil {
		return d
	}
	price, err := src.USDPrice(ctx, cur.Symbol)
	if err != nil {
		d.Err = err
		return d
	}
	d.USD, d.Priced = intent.USDValue(amount, cur.Decimals, price), true
	d.Confirmations = ch.DepositConfirmations(d.USD, true)
	return d
}
