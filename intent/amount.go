package intent

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// MaxAmountDigits bounds amount strings; 78 digits hold any uint256.
const MaxAmountDigits = 78

// ErrInvalidAmount is returned for an amount that is not a positive integer in the smallest unit.
var ErrInvalidAmount = errors.New("amount must be a positive integer in the smallest unit")

// MaxUint256 is the largest amount an EVM token can represent.
var MaxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// ParseAmount parses a decimal string in the smallest unit. Signs, decimals, exponents, hex,
// whitespace, leading zeros beyond "0", zero and values above uint256 are rejected: money is an
// exact positive integer, never a float.
func ParseAmount(s string) (*big.Int, error) {
	if s == "" || len(s) > MaxAmountDigits {
		return nil, ErrInvalidAmount
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return nil, ErrInvalidAmount
		}
	}
	if len(s) > 1 && s[0] == '0' {
		return nil, ErrInvalidAmount
	}
	v, ok := new(big.Int).SetString(s, 10)
	if !ok || v.Sign() <= 0 || v.Cmp(MaxUint256) > 0 {
		return nil, ErrInvalidAmount
	}
	return v, nil
}

// FormatUnits renders an amount in the smallest unit as a human decimal string with trailing
// zeros removed ("1500000", 6 → "1.5").
func FormatUnits(v *big.Int, decimals uint8) string {
	if v == nil {
		return "0"
	}
	neg := v.Sign() < 0
	digits := new(big.Int).Abs(v).String()
	d := int(decimals)
	if len(digits) <= d {
		digits = strings.Repeat("0", d-len(digits)+1) + digits
	}
	whole, frac := digits[:len(digits)-d], strings.TrimRight(digits[len(digits)-d:], "0")
	out := whole
	if frac != "" {
		out += "." + frac
	}
	if neg {
		out = "-" + out
	}
	return out
}

// MustAmount parses a known-good amount literal; it panics on a bad one (for constants and tests).
func MustAmount(s string) *big.Int {
	v, err := ParseAmount(s)
	if err != nil {
		panic(fmt.Sprintf("intent.MustAmount(%q): %v", s, err))
	}
	return v
}
