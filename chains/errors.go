package chains

import (
	"errors"
	"fmt"

	"github.com/intentd/intentd/intent"
)

// The error vocabulary of every chain client. A client classifies each failure where it enters
// (the node's answer or the transport's failure) into one of these, so callers branch with
// errors.Is and errors.As and never read an RPC message.
var (
	// ErrUnavailable means the chain could not answer this time (a transport failure, a timeout,
	// a rate limit, a node's internal error): the same call may succeed later. It wraps
	// intent.ErrUnavailable, so code that only knows the domain's sentinel retries it too.
	ErrUnavailable = fmt.Errorf("chain %w", intent.ErrUnavailable)
	// ErrNotFound means the chain has no such thing (yet): a transaction without a receipt, a
	// block it does not have.
	ErrNotFound = errors.New("not found on chain")
	// ErrInsufficientFunds means the sender cannot pay a transaction's value and gas.
	ErrInsufficientFunds = errors.New("insufficient funds")
	// ErrNonce is wrapped by every refusal of a transaction because of its nonce:
	// ErrNonceTooLow, ErrAlreadyKnown, ErrReplacementUnderpriced.
	ErrNonce = errors.New("nonce conflict")
	// ErrNonceTooLow means the sender's nonce is already used by a mined transaction (this one,
	// or another with the same nonce).
	ErrNonceTooLow = fmt.Errorf("%w: nonce too low", ErrNonce)
	// ErrAlreadyKnown means the node already has this very transaction.
	ErrAlreadyKnown = fmt.Errorf("%w: transaction already known", ErrNonce)
	// ErrReplacementUnderpriced means the node holds another transaction with the same nonce
	// and the new one does not pay enough more to replace it.
	ErrReplacementUnderpriced = fmt.Errorf("%w: replacement transaction underpriced", ErrNonce)
	// ErrUnsupported means the chain's client cannot do what was asked: its VM type has no
	// client registered, or the client lacks the capability (Capability).
	ErrUnsupported = errors.New("not supported by the chain's client")
)

// Error is a chain client's classified failure. errors.Is(err, Kind) holds, and so does
// errors.Is or errors.As on the node's own answer (Err): go-ethereum's ethereum.NotFound, an
// rpc.Error with its JSON-RPC code.
type Error struct {
	// Kind is one of the sentinels above.
	Kind error
	// ChainID is the chain that failed.
	ChainID uint64
	// Op names the call ("estimate gas", "receipt").
	Op string
	// Err is the node's answer or the transport's failure.
	Err error
}

func (e *Error) Error() string {
	return fmt.Sprintf("chain %d: %s: %v (%v)", e.ChainID, e.Op, e.Err, e.Kind)
}

// Unwrap returns the kind and the cause, so that errors.Is and errors.As see both.
func (e *Error) Unwrap() []error { return []error{e.Kind, e.Err} }

// RevertError is a call the chain would revert, with what the contract said as far as the
// client can decode it. Callers branch on Name (a custom error of the project's contracts) and
// Blocked, never on Reason's text.
type RevertError struct {
	// Name is the custom error's name ("AlreadyFilled", "Blocked", "InsufficientBalance") when
	// the client knows the contract's errors; "Error" for a revert string, "Panic" for a
	// Solidity panic; empty when the node gave nothing to decode.
	Name string
	// Selector is the first four bytes of the revert data; zero when the node returned none.
	Selector [4]byte
	// Reason is the decoded revert: a custom error's name and arguments, a revert string, or
	// "no reason" when the contract gave none.
	Reason string
	// Blocked is set when a token contract refuses the address (a blocklist).
	Blocked bool
}

func (e *RevertError) Error() string { return "execution reverted: " + e.Reason }

// TxTooLargeError is a transaction the user would sign that does not fit the chain's wire limit
// (Solana: 1232 bytes, one packet): measured on the compiled transaction, with its signatures,
// as the wallet would send it. The quote refuses it (400 SOLANA_TX_TOO_LARGE on a Solana origin)
// rather than hand out steps no wallet can send.
type TxTooLargeError struct {
	// Size is the serialized transaction's length in bytes; Limit the chain's wire limit.
	Size, Limit int
}

func (e *TxTooLargeError) Error() string {
	return fmt.Sprintf("Generated Solana transaction is %d bytes, %d over Solana's %d byte limit, so it cannot be signed or broadcast.",
		e.Size, e.Size-e.Limit, e.Limit)
}
