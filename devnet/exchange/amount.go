package exchange

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// TokenID is a token's id on the exchange: 16 bytes, written 0x and 32 hex digits.
type TokenID [16]byte

// PerpsUSDCID is the address the chain listing gives perps USDC: 16 zero bytes.
var PerpsUSDCID TokenID

// Hex is the id as the exchange writes it: 0x and 32 lower-case hex digits.
func (id TokenID) Hex() string { return "0x" + hex.EncodeToString(id[:]) }

// String is Hex.
func (id TokenID) String() string { return id.Hex() }

// ParseTokenID reads a token id: 0x and exactly 32 hex digits (either case).
func ParseTokenID(s string) (TokenID, error) {
	var id TokenID
	h, ok := strings.CutPrefix(s, "0x")
	if !ok || len(h) != 2*len(id) {
		return id, fmt.Errorf("token id %q is not 0x and 32 hex digits", s)
	}
	if _, err := hex.Decode(id[:], []byte(h)); err != nil {
		return id, fmt.Errorf("token id %q is not 0x and 32 hex digits", s)
	}
	return id, nil
}

// Token is a spot token of the exchange's listing (spotMeta).
type Token struct {
	// Name is the token's name, the part of a transfer's token before the colon ("USDC").
	Name string
	// Index is the token's index in the listing (spotClearinghouseState's "token").
	Index int
	// ID is the token's id, the part after the colon.
	ID TokenID
	// SzDecimals is how many decimals an order size may have.
	SzDecimals int
	// WeiDecimals is how many decimals a balance and a transfer's amount have: balances are
	// integers of 10^-WeiDecimals of the token.
	WeiDecimals int
}

// Wire is the token as a transfer names it: "NAME:0x<id>".
func (t Token) Wire() string { return t.Name + ":" + t.ID.Hex() }

// maxAmountDigits bounds an amount's digits, so that a request cannot make the exchange parse a
// number of any size: 10^60 is far above any balance.
const maxAmountDigits = 60

// ParseAmount reads a decimal amount with at most decimals decimals into an integer of
// 10^-decimals units, strictly: digits, optionally a point and at least one digit after it; no
// sign, no exponent, no spaces, no more decimals than the token has. Zero is allowed here; a
// transfer refuses it.
func ParseAmount(s string, decimals int) (*big.Int, error) {
	whole, frac, hasPoint := strings.Cut(s, ".")
	if whole == "" || (hasPoint && frac == "") || !digitsOnly(whole) || !digitsOnly(frac) {
		return nil, fmt.Errorf("amount %q is not a decimal number (digits, optionally a point and digits)", s)
	}
	if len(frac) > decimals {
		return nil, fmt.Errorf("amount %q has %d decimals; the token has %d", s, len(frac), decimals)
	}
	if len(whole)+len(frac) > maxAmountDigits {
		return nil, fmt.Errorf("amount %q is too long", s)
	}
	v, ok := new(big.Int).SetString(whole+frac+strings.Repeat("0", decimals-len(frac)), 10)
	if !ok {
		return nil, errors.New("amount: unreadable") // digitsOnly held, so this cannot happen
	}
	return v, nil
}

func digitsOnly(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// FormatAmount writes v (10^-decimals units, not negative) as a decimal: the whole part, a
// point and the fraction without trailing zeros, at least one digit after the point ("10.5",
// "10.0", "0.00000001"), as the exchange's info answers write amounts.
func FormatAmount(v *big.Int, decimals int) string {
	s := v.String()
	if decimals == 0 {
		return s + ".0"
	}
	if len(s) <= decimals {
		s = strings.Repeat("0", decimals-len(s)+1) + s
	}
	whole, frac := s[:len(s)-decimals], strings.TrimRight(s[len(s)-decimals:], "0")
	if frac == "" {
		frac = "0"
	}
	return whole + "." + frac
}
