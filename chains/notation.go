package chains

import (
	"fmt"
	"sync"
)

// Notation is how a chain family writes the addresses and transaction ids of its chains: EVM
// chains 0x and hex, mixed case an EIP-55 checksum (chains/evm); a Solana family base58,
// case-sensitive. Whatever reads an address or a transaction id for a chain (a quote's fields,
// a chain file, a client's transaction hint) reads it through the chain's family
// (Chain.Notation), so that no caller assumes hex and a new family brings its own rules.
type Notation interface {
	// ParseAddress reads an address as a client or an operator wrote it and returns it in the
	// family's canonical form (EVM: EIP-55 checksummed). Its error reads after the field's name
	// and value ("recipient \"0x12\" is not a valid EVM address"): what is wrong, in words a
	// client can act on.
	ParseAddress(s string) (string, error)
	// CanonicalAddress returns s, an address in any spelling the family's chain files may use
	// (EVM: any case, with or without 0x; they are kept as written), in the canonical form, and
	// false when s is not one of the family's addresses at all.
	CanonicalAddress(s string) (string, bool)
	// IsZeroAddress reports whether a is the family's zero address: the native currency's
	// address on EVM chains (and on Solana the System Program's, all zero bytes), never a
	// recipient or a payer.
	IsZeroAddress(a string) bool
	// NativeAddress is the address clients name the family's native currency by, in the
	// canonical form: NativeAddress (the zero address) on EVM chains; a chain file's currency
	// without an address is the native one at this address.
	NativeAddress() string
	// SameAddress reports whether a and b name one address (EVM: whatever their case).
	SameAddress(a, b string) bool
	// ParseTxID reads a transaction id as a client reports it and returns it in the family's
	// canonical form (EVM: the 0x-hex hash in lower case), the one a transaction is remembered
	// by. Its error reads after the field's name ("txHash must be a 0x-prefixed 32-byte hash").
	ParseTxID(s string) (string, error)
}

// notations holds the notation of every family linked into the binary, by VM type.
var notations sync.Map // VMType → Notation

// RegisterNotation makes a family's notation the one of its VM type. The family's package calls
// it from its init, as database/sql's drivers register: linking a family is what lets the
// registry read its chains' addresses, without this package importing it. A second
// registration of one type is a programming error and panics.
func RegisterNotation(vm VMType, n Notation) {
	if _, dup := notations.LoadOrStore(vm, n); dup {
		panic(fmt.Sprintf("chains: a notation for vmType %q is registered twice", vm))
	}
}

// NotationOf returns the notation of a VM type; an error wrapping ErrUnsupported when no family
// of that type is linked into the binary.
func NotationOf(vm VMType) (Notation, error) {
	if n, ok := notations.Load(vm); ok {
		return n.(Notation), nil
	}
	return nil, &unsupportedVM{vm}
}

// unsupportedVM is NotationOf's error: a VM type no linked family has.
type unsupportedVM struct{ vm VMType }

func (e *unsupportedVM) Error() string {
	return fmt.Sprintf("vmType %q is not supported yet (no chain family of that type is linked into this binary)", e.vm)
}

func (e *unsupportedVM) Unwrap() error { return ErrUnsupported }

// Notation is the chain's family's notation. Every chain of a registry has one (NewRegistry
// refuses a chain whose family is not linked); a Chain made by hand for a VM type that has none
// gets nil.
func (c *Chain) Notation() Notation {
	n, _ := NotationOf(c.VMType)
	return n
}
