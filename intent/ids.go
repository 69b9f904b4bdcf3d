package intent

import (
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// IsHash32 reports whether s is a 0x-prefixed 32-byte hex value: the form of requestIds, order
// ids and EVM transaction hashes. It is the one check of that form in the engine.
func IsHash32(s string) bool {
	if len(s) != 66 || s[:2] != "0x" {
		return false
	}
	for i := 2; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// IsAddress reports whether s is a 20-byte hex address with its 0x prefix.
func IsAddress(s string) bool { return strings.HasPrefix(s, "0x") && common.IsHexAddress(s) }

// IsZeroAddress reports whether s is empty or the zero address (the native currency's address,
// never a recipient).
func IsZeroAddress(s string) bool { return s == "" || common.HexToAddress(s) == (common.Address{}) }

// SameAddress compares two EVM addresses whatever their case.
func SameAddress(a, b string) bool { return strings.EqualFold(a, b) }

// ChecksumAddress returns s in its EIP-55 checksummed form.
func ChecksumAddress(s string) string { return common.HexToAddress(s).Hex() }
