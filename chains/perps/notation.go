package perps

import (
	"errors"
	"regexp"
	"strings"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
)

// The perps exchange's currencies (spec, "Perps-exchange chain"; public-api-notes §7.1).
const (
	// PerpsUSDCAddress names the perps balance's USDC: 16 zero bytes. It is the chain's native
	// currency here (what the exchange's fees are paid in) and the family's zero address.
	PerpsUSDCAddress = PerpsUSDC
	// PerpsUSDCDecimals are the perps USDC's on the wire: 8.
	PerpsUSDCDecimals = USDCDecimals
)

// notation is the family's chains.Notation. Accounts are EVM addresses (an exchange account is
// a wallet's address), read by the EVM family's rules (EIP-55 checksums); currencies are the
// exchange's token ids, 0x and 16 bytes of hex, lower-cased, with a third-party DEX's name
// appended in hex for its tokens. Transaction ids are 0x and 32 bytes, lower-cased.
type notation struct{}

func init() { chains.RegisterNotation(chains.VMTypePerps, notation{}) }

// Notation is the perps family's notation.
func Notation() chains.Notation { return notation{} }

// tokenID is a 16-byte token id, optionally followed by a DEX name's bytes (at most 32).
var tokenID = regexp.MustCompile(`^0[xX][0-9a-fA-F]{32}(?:[0-9a-fA-F]{2}){0,32}$`)

var errNotAddress = errors.New("is not a valid address on the perps exchange (an account: 0x and 40 hex digits; a token: 0x and its 16-byte token id)")

// ParseAddress reads an account (an EVM address, EIP-55 when mixed case) or a token id.
func (notation) ParseAddress(s string) (string, error) {
	if tokenID.MatchString(s) && len(s) != 42 {
		return strings.ToLower(s), nil
	}
	a, err := evm.Notation().ParseAddress(s)
	if err != nil {
		return "", errNotAddress
	}
	return a, nil
}

// CanonicalAddress returns s in the canonical form: an account EIP-55 checksummed, a token id
// lower-cased.
func (notation) CanonicalAddress(s string) (string, bool) {
	if tokenID.MatchString(s) && len(s) != 42 {
		return strings.ToLower(s), true
	}
	return evm.Notation().CanonicalAddress(s)
}

// IsZeroAddress reports the perps USDC's id and the zero account.
func (notation) IsZeroAddress(a string) bool {
	return strings.EqualFold(a, PerpsUSDCAddress) || evm.Notation().IsZeroAddress(a)
}

// NativeAddress is the perps USDC's id.
func (notation) NativeAddress() string { return PerpsUSDCAddress }

// SameAddress compares in any case: neither accounts nor token ids are case-sensitive.
func (notation) SameAddress(a, b string) bool { return strings.EqualFold(a, b) }

// ParseTxID reads a transfer's id, 0x and 32 bytes of hex.
func (notation) ParseTxID(s string) (string, error) { return evm.Notation().ParseTxID(s) }
