package perps

import (
	"encoding/hex"
	"errors"
	"fmt"
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
// exchange's token ids, 0x and 16 bytes of hex, lower-cased, with a HIP-3 DEX's name appended in
// hex for its tokens (SplitCurrency). Transaction ids are 0x and 32 bytes, lower-cased.
type notation struct{}

func init() { chains.RegisterNotation(chains.VMTypePerps, notation{}) }

// Notation is the perps family's notation.
func Notation() chains.Notation { return notation{} }

// MaxDexName is the longest HIP-3 DEX name a currency may carry, in bytes.
const MaxDexName = 32

// currencyLike is what the notation reads as a currency rather than an account: 0x and at least
// 32 hex digits, other than an account's 40 (SplitCurrency then says what is wrong with it).
var currencyLike = regexp.MustCompile(`^0[xX][0-9a-fA-F]{32,}$`)

func isCurrencyLike(s string) bool { return currencyLike.MatchString(s) && len(s) != 42 }

var errNotAddress = errors.New("is not a valid address on the perps exchange (an account: 0x and 40 hex digits; a token: 0x and its 16-byte token id, then a DEX's name in hex for a DEX's token)")

// SplitCurrency reads a currency of the exchange: 0x and a 16-byte token id, optionally followed
// by the bytes of a HIP-3 DEX's name (1 to MaxDexName ASCII letters and digits; USDC on the DEX
// "xyz" is 0x6d1e7cde53ba9467b783cb7c530ce054 followed by 78797a). It returns the token id (0x
// and 32 lower-case hex digits) and the DEX's name, "" for a token id alone. A 4-byte name would
// make the currency 20 bytes, which reads as an account: such a name is not supported.
func SplitCurrency(s string) (tokenID, dex string, err error) {
	h, ok := strings.CutPrefix(s, "0x")
	if !ok {
		h, ok = strings.CutPrefix(s, "0X")
	}
	raw, herr := hex.DecodeString(h)
	switch {
	case !ok || herr != nil:
		return "", "", fmt.Errorf("currency %q is not 0x and an even number of hex digits", s)
	case len(raw) < 16:
		return "", "", fmt.Errorf("currency %q is shorter than a 16-byte token id", s)
	case len(raw) == 20:
		return "", "", fmt.Errorf("currency %q is 20 bytes, an account's length: a DEX's name of 4 bytes is not supported", s)
	case len(raw) > 16+MaxDexName:
		return "", "", fmt.Errorf("currency %q is longer than a 16-byte token id and a DEX name of at most %d bytes", s, MaxDexName)
	}
	for _, c := range raw[16:] {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return "", "", fmt.Errorf("currency %q: the DEX name after the 16-byte token id (%x) is not ASCII letters and digits", s, raw[16:])
		}
	}
	return "0x" + hex.EncodeToString(raw[:16]), string(raw[16:]), nil
}

// DexCurrency is the currency of token tokenID (0x and 16 bytes) held in dex: the token id
// itself for the spot balance ("spot") and the perps one (""), the token id followed by hex(dex)
// for a HIP-3 DEX.
func DexCurrency(tokenID, dex string) string {
	if dex == "" || dex == SpotDex {
		return strings.ToLower(tokenID)
	}
	return strings.ToLower(tokenID) + hex.EncodeToString([]byte(dex))
}

// ParseAddress reads an account (an EVM address, EIP-55 when mixed case) or a currency: a token
// id, or a DEX's token (SplitCurrency), whose malformed name is refused with its reason.
func (notation) ParseAddress(s string) (string, error) {
	if isCurrencyLike(s) {
		if _, _, err := SplitCurrency(s); err != nil {
			return "", err
		}
		return strings.ToLower(s), nil
	}
	a, err := evm.Notation().ParseAddress(s)
	if err != nil {
		return "", errNotAddress
	}
	return a, nil
}

// CanonicalAddress returns s in the canonical form: an account EIP-55 checksummed, a currency
// lower-cased.
func (notation) CanonicalAddress(s string) (string, bool) {
	if isCurrencyLike(s) {
		if _, _, err := SplitCurrency(s); err != nil {
			return "", false
		}
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
