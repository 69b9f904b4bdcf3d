package evm

import (
	"errors"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
)

// notation is the EVM family's chains.Notation: addresses are 0x and 40 hex digits, in one case
// or exactly checksummed (EIP-55: a mixed-case typo is refused, never read as the address it
// spells, review L1), transaction ids 0x and 64 hex digits.
type notation struct{}

// Linking the family makes its chains readable by the registry (chains.RegisterNotation).
func init() { chains.RegisterNotation(chains.VMTypeEVM, notation{}) }

// Notation is the EVM family's notation (the one chains.NotationOf(chains.VMTypeEVM) returns).
func Notation() chains.Notation { return notation{} }

var (
	errNotAddress = errors.New("is not a valid EVM address")
	errChecksum   = errors.New(intent.ErrAddressChecksum)
	errNotTxID    = errors.New("must be a 0x-prefixed 32-byte hash")
)

// ParseAddress reads 0x and 40 hex digits, all lower case, all upper case or exactly
// checksummed, and returns the checksummed form.
func (notation) ParseAddress(s string) (string, error) {
	if !common.IsHexAddress(s) || len(s) != 42 {
		return "", errNotAddress
	}
	if !intent.ChecksumValid(s) {
		return "", errChecksum
	}
	return common.HexToAddress(s).Hex(), nil
}

// CanonicalAddress reads 40 hex digits, with or without 0x, in any case, and returns them
// checksummed.
func (notation) CanonicalAddress(s string) (string, bool) {
	if !common.IsHexAddress(s) {
		return "", false
	}
	return common.HexToAddress(s).Hex(), true
}

// IsZeroAddress reports whether a is the zero address (the native currency's).
func (notation) IsZeroAddress(a string) bool {
	return common.IsHexAddress(a) && common.HexToAddress(a) == (common.Address{})
}

// NativeAddress is the zero address, which names the native currency of an EVM chain.
func (notation) NativeAddress() string { return chains.NativeAddress }

// SameAddress compares two addresses whatever their case.
func (notation) SameAddress(a, b string) bool { return strings.EqualFold(a, b) }

// ParseTxID reads a transaction hash, 0x and 64 hex digits, and returns it in lower case.
func (notation) ParseTxID(s string) (string, error) {
	if !intent.IsHash32(s) {
		return "", errNotTxID
	}
	return strings.ToLower(s), nil
}
