package intent

import (
	"math/big"

	"github.com/shopspring/decimal"
)

// Currency is the spec's currency object: a token on one chain as clients see it.
type Currency struct {
	ChainID  uint64           `json:"chainId"`
	Address  string           `json:"address"`
	Symbol   string           `json:"symbol"`
	Name     string           `json:"name"`
	Decimals uint8            `json:"decimals"`
	Metadata CurrencyMetadata `json:"metadata"`
}

// CurrencyMetadata is the currency object's metadata block.
type CurrencyMetadata struct {
	LogoURI  string `json:"logoURI"`
	Verified bool   `json:"verified"`
	IsNative bool   `json:"isNative"`
}

// AmountObject is the spec's amount object: an amount of a currency with its human and USD forms.
type AmountObject struct {
	Currency        Currency `json:"currency"`
	Amount          string   `json:"amount"`
	AmountFormatted string   `json:"amountFormatted"`
	AmountUsd       string   `json:"amountUsd"`
	MinimumAmount   string   `json:"minimumAmount"`
}

// NewAmountObject builds an amount object; usdPrice is the USD value of one whole unit of the
// currency. The minimum defaults to the amount itself.
func NewAmountObject(c Currency, amount, minimum *big.Int, usdPrice decimal.Decimal) AmountObject {
	if minimum == nil {
		minimum = amount
	}
	return AmountObject{
		Currency:        c,
		Amount:          amount.String(),
		AmountFormatted: FormatUnits(amount, c.Decimals),
		AmountUsd:       USDValue(amount, c.Decimals, usdPrice).StringFixed(6),
		MinimumAmount:   minimum.String(),
	}
}

// USDValue converts an amount in the smallest unit to USD at the given unit price. USD values
// are decimals, never floats.
func USDValue(amount *big.Int, decimals uint8, usdPrice decimal.Decimal) decimal.Decimal {
	if amount == nil {
		return decimal.Zero
	}
	return decimal.NewFromBigInt(amount, -int32(decimals)).Mul(usdPrice)
}

// FromUSD converts a USD value into the smallest unit of a currency at the given unit price,
// rounding up so a fee converted this way never undercharges.
func FromUSD(usd decimal.Decimal, decimals uint8, usdPrice decimal.Decimal) *big.Int {
	if usdPrice.Sign() <= 0 {
		return new(big.Int)
	}
	units := usd.Div(usdPrice).Shift(int32(decimals)).Ceil()
	return units.BigInt()
}
