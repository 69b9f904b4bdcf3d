// Package perps is the perps-exchange family's pure parts (chain 1337, the spec's "Perps-exchange
// chain rules"): the two messages a withdrawal from the exchange is signed with, and the exchange's
// amounts. A withdrawal is two steps: `authorize`, the NonceMapping message (domain
// ServiceNonceMapping, version 2) that binds the nonce of the user's transfer to the order and is
// posted to POST /authorize, then `deposit`, the exchange's own sendAsset action signed with that
// same nonce, which moves the funds to the depository account. Nothing here speaks HTTP or reads
// a chain: the API verifies the first message with it, the quote builds both steps' data with it.
//
// The exchange's brand is a word of configuration (Exchange.Word, default "Exchange"): it names
// the sendAsset signing domain (<Word>SignTransaction), the EIP-712 type
// (<Word>Transaction:SendAsset), the action's chain field (<word>Chain) and, lowercased, the
// NonceMapping message's chainId string ("exchange", as the public example writes the exchange's
// name in lower case there).
package perps

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/shopspring/decimal"
)

// ChainID is the perps exchange's chain id.
const ChainID = 1337

// USDCDecimals are the decimals of perps USDC, the currency whose address is 16 zero bytes.
const USDCDecimals = 8

// PerpsUSDC is the address of perps USDC on chain 1337.
const PerpsUSDC = "0x00000000000000000000000000000000"

// Exchange names the perps exchange in its wire identifiers.
type Exchange struct {
	// Word is the exchange's brand as it appears in its identifiers: "Exchange" on the local
	// exchange.
	Word string
	// Chain is the value of the sendAsset action's chain field: "Mainnet".
	Chain string
}

// Default is the local exchange's naming: Word "Exchange", Chain "Mainnet".
func Default() Exchange { return Exchange{Word: "Exchange", Chain: "Mainnet"} }

// orDefault fills the fields x leaves empty from Default.
func (x Exchange) orDefault() Exchange {
	d := Default()
	if x.Word == "" {
		x.Word = d.Word
	}
	if x.Chain == "" {
		x.Chain = d.Chain
	}
	return x
}

// NonceMappingChain is the NonceMapping message's chainId string: the word in lower case.
func (x Exchange) NonceMappingChain() string { return strings.ToLower(x.orDefault().Word) }

// SignDomain is the name of the sendAsset signing domain: <Word>SignTransaction.
func (x Exchange) SignDomain() string { return x.orDefault().Word + "SignTransaction" }

// SendAssetType is the EIP-712 primary type of sendAsset: <Word>Transaction:SendAsset.
func (x Exchange) SendAssetType() string { return x.orDefault().Word + "Transaction:SendAsset" }

// ChainField is the name of the action's chain field: the word with a lower-case first letter,
// then "Chain" (exchangeChain).
func (x Exchange) ChainField() string {
	w := x.orDefault().Word
	return strings.ToLower(w[:1]) + w[1:] + "Chain"
}

// minFractionDigits is how many fraction digits an amount is written with at least: the public
// example writes 1000000000 at 8 decimals as "10.000000".
const minFractionDigits = 6

// FormatAmount writes amount, in the smallest unit of a currency of the given decimals, as the
// decimal string the exchange takes: exact, with at least six fraction digits (fewer when the
// currency has fewer decimals) and no trailing zero beyond them. 1000000000 at 8 decimals is
// "10.000000" (the public example), 1234567891 is "12.34567891", 5 at 0 decimals is "5".
func FormatAmount(amount *big.Int, decimals uint8) string {
	d := decimal.NewFromBigInt(amount, -int32(decimals))
	places := min(minFractionDigits, int(decimals))
	if _, frac, ok := strings.Cut(d.String(), "."); ok { // String is exact, without trailing zeros
		places = max(places, len(frac))
	}
	return d.StringFixed(int32(places))
}

// ParseAmount reads an amount the exchange wrote (FormatAmount, or its ledger's "10.5") back into
// the smallest unit of a currency of the given decimals, strictly: digits, at most one point with
// at least one digit on each side, no more fraction digits than decimals, no sign, exponent,
// spaces or leading zeros.
func ParseAmount(s string, decimals uint8) (*big.Int, error) {
	whole, frac, hasPoint := strings.Cut(s, ".")
	switch {
	case !digits(whole) || (hasPoint && !digits(frac)):
		return nil, fmt.Errorf("amount %q is not a decimal number like 10.5", s)
	case len(whole) > 1 && whole[0] == '0':
		return nil, fmt.Errorf("amount %q has a leading zero", s)
	case len(frac) > int(decimals):
		return nil, fmt.Errorf("amount %q has more than %d decimals", s, decimals)
	}
	n, ok := new(big.Int).SetString(whole+frac+strings.Repeat("0", int(decimals)-len(frac)), 10)
	if !ok {
		return nil, fmt.Errorf("amount %q is not a decimal number", s)
	}
	return n, nil
}

// digits reports whether s is one or more ASCII digits.
func digits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
