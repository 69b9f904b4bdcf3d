// Package solana is the Solana chain family (vmType svm; the spec's Solana-type chain, id
// 792703809) on github.com/gagliardetto/solana-go (issue 36): how its chains write addresses and
// transaction ids, and its side of the three ports (docs/chains.md, "Solana family").
//
//   - Notation (notation.go): linking the package registers it for svm; the chain registry then
//     reads a Solana chain's entry and every address of it by Solana's rules: base58 public keys
//     of 32 bytes, case-sensitive, kept exactly as written (never lower-cased), an EVM address
//     refused.
//   - Client, steps and funding (vm.go, client.go, steps.go, funding.go): the slot as the head,
//     SOL and SPL balances, the deposit transaction a Solana-origin quote returns (compiled and
//     measured against the 1232-byte limit, chains.TxTooLargeError), and the deposits to the
//     solver's vault found by its signatures, each naming its order by a memo.
//   - Payout (payout.go, payout_watch.go): fills and refunds paid exactly once without nonces:
//     each attempt signed once with a recent blockhash and kept (store.KeepSolanaPayment, table solana_payments) before
//     it is broadcast, replaced only once its blockhash has expired without it landing.
//
// The engine links the family (app: solana.VM(), the payout under svm): EVM → Solana routes
// are quoted and filled; Solana-origin quotes answer their deposit transaction, whose deposits
// the engine does not route yet (docs/chains.md, "Bridging to a Solana chain").
package solana

import (
	"errors"
	"fmt"
	"strings"

	solanago "github.com/gagliardetto/solana-go"

	"github.com/intentd/intentd/chains"
)

// ChainID is the spec's id of the Solana-type chain (mainnet's, and the local chain's).
const ChainID = 792703809

// The addresses and decimals the public API names Solana's currencies by
// (../shared/reference/public-api-notes.md §8).
const (
	// NativeAddress names SOL: the System Program's id, the all-zero public key. It is also
	// the family's zero address, never a payer or a recipient, and an open deposit address's
	// "refund whoever paid" sentinel.
	NativeAddress = "11111111111111111111111111111111"
	// WrappedSOLAddress is wSOL's mint (SPL Token), a currency of its own beside SOL.
	WrappedSOLAddress = "So11111111111111111111111111111111111111112"
	// USDCAddress is mainnet USDC's mint; a local chain has a mint of its own (devnet/svm).
	USDCAddress = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"

	// NativeDecimals are SOL's and wSOL's: a lamport is 1e-9 SOL.
	NativeDecimals = 9
	// USDCDecimals are USDC's (and USDT's) on Solana.
	USDCDecimals = 6
)

// notation is the Solana family's chains.Notation: addresses are base58 public keys (32 bytes)
// and transaction ids base58 signatures (64 bytes), both case-sensitive: read as written, kept
// as written. Decoding is solana-go's; a string that decodes to another length is not one.
type notation struct{}

// Linking the family makes its chains readable by the registry (chains.RegisterNotation).
func init() { chains.RegisterNotation(chains.VMTypeSVM, notation{}) }

// Notation is the Solana family's notation (the one chains.NotationOf(chains.VMTypeSVM) returns).
func Notation() chains.Notation { return notation{} }

var (
	errEVMAddress = errors.New("is an EVM address; a Solana address is a base58 public key (32 bytes), case-sensitive")
	errNotAddress = errors.New("is not a valid Solana address (a base58 public key of 32 bytes, case-sensitive)")
	errNotTxID    = errors.New("must be a base58 Solana transaction signature (64 bytes)")
)

// ParseAddress reads a base58 public key and returns it unchanged: base58 spells each key one
// way, so the spelling that decodes is the canonical one, and its case is part of it. A 0x
// address is refused as the EVM address it is, so that a client that sent one to the wrong
// chain is told so.
func (notation) ParseAddress(s string) (string, error) {
	if a, ok := canonical(s); ok {
		return a, nil
	}
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		return "", errEVMAddress
	}
	return "", errNotAddress
}

// CanonicalAddress reads a chain file's address: the same rule as ParseAddress, there being one
// spelling of each key.
func (notation) CanonicalAddress(s string) (string, bool) { return canonical(s) }

func canonical(s string) (string, bool) {
	pk, err := solanago.PublicKeyFromBase58(s)
	// A key has one spelling; a string with extra leading zeros ("1"s) decodes to more bytes and
	// is refused above, so what decodes to 32 bytes and spells back the same is the address.
	if err != nil || pk.String() != s {
		return "", false
	}
	return s, true
}

// IsZeroAddress reports whether a is the all-zero key, the System Program's id: SOL's address,
// never a wallet.
func (notation) IsZeroAddress(a string) bool { return a == NativeAddress }

// NativeAddress is SOL's address, the System Program's id.
func (notation) NativeAddress() string { return NativeAddress }

// AddressBytes is the 32 bytes of a base58 public key: how the protocol order's bytes fields
// (0x-hex) write a Solana address (the quote engine asks for it by an optional interface).
func (notation) AddressBytes(a string) ([]byte, error) {
	k, err := solanago.PublicKeyFromBase58(a)
	if err != nil {
		return nil, fmt.Errorf("%q %w", a, errNotAddress)
	}
	return k.Bytes(), nil
}

// SameAddress compares two addresses exactly: base58 is case-sensitive.
func (notation) SameAddress(a, b string) bool { return a == b }

// ParseTxID reads a transaction id, a base58 signature of 64 bytes, and returns it unchanged.
func (notation) ParseTxID(s string) (string, error) {
	sig, err := solanago.SignatureFromBase58(s)
	if err != nil || sig.String() != s {
		return "", errNotTxID
	}
	return s, nil
}
