package intent

import (
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/mr-tron/base58"
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

// ChecksumValid reports whether the case of s, an EVM address in hex (as IsAddress accepts it),
// is one a client may send (EIP-55): all lower case, all upper case, or mixed case that is the
// address's checksum. Mixed case is a checksum, so one that does not match is a mistyped
// address (review L1: a typo in a recipient pays someone else) and is refused, never read as
// the address it spells. It is the one check of that rule: quotes, search filters and the admin
// inputs all use it.
func ChecksumValid(s string) bool {
	digits := s
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		digits = s[2:]
	}
	var lower, upper bool
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		lower = lower || 'a' <= c && c <= 'f'
		upper = upper || 'A' <= c && c <= 'F'
	}
	if !lower || !upper {
		return true
	}
	return digits == common.HexToAddress(s).Hex()[2:]
}

// ErrAddressChecksum is the message of a mixed-case address whose case is not its EIP-55
// checksum (ChecksumValid), after the field's name.
const ErrAddressChecksum = "has mixed case that is not its EIP-55 checksum (a mistyped address?): send it all in lower case or exactly checksummed"

// IsZeroAddress reports whether s is empty or the zero address (the native currency's address,
// never a recipient) of its family: an EVM address (hex, 0x or not) that is all zero, or the
// all-zero key of a base58 family (Solana's System Program id, 32 ones). Any other base58 key
// is an address of its own (issue 36: a Solana refundTo is never read as hex, which made most
// keys the zero address and sent their refund to the depositor instead).
func IsZeroAddress(s string) bool {
	if s == "" || s == base58ZeroKey {
		return true
	}
	if !isHexShaped(s) {
		return false
	}
	return common.HexToAddress(s) == (common.Address{})
}

// base58ZeroKey is the all-zero 32-byte key in base58 (Solana's System Program id).
const base58ZeroKey = "11111111111111111111111111111111"

// isHexShaped reports whether s is written in hex, with or without its 0x prefix.
func isHexShaped(s string) bool {
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s = s[2:]
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// SameAddress compares two EVM addresses whatever their case.
func SameAddress(a, b string) bool { return strings.EqualFold(a, b) }

// ChecksumAddress returns s in its EIP-55 checksummed form.
func ChecksumAddress(s string) string { return common.HexToAddress(s).Hex() }

// IsBase58Key reports whether s is a base58 public key as a Solana-type chain writes one (32
// bytes: a wallet, a mint, a program); IsBase58Signature whether it is a base58 transaction
// signature (64 bytes, the family's transaction id). Both are case-sensitive: compared exactly,
// never lower-cased.
func IsBase58Key(s string) bool { return isBase58Of(s, 32, 32, 44) }

// IsBase58Signature: see IsBase58Key.
func IsBase58Signature(s string) bool { return isBase58Of(s, 64, 64, 90) }

func isBase58Of(s string, n, minLen, maxLen int) bool {
	if len(s) < minLen || len(s) > maxLen {
		return false
	}
	b, err := base58.Decode(s)
	return err == nil && len(b) == n
}
