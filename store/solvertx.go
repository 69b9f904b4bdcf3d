package store

import "github.com/intentd/intentd/intent"

// SolverTx is a signed solver transaction as stored before broadcast: a retry broadcasts the
// same bytes again instead of signing anew. It is the EVM family's record of a payment, kept by
// the store (chains/evm.NonceStore, which Store implements): its nonce, attempt and cancellation
// belong to the family's replacement policy and to this table only, never to the engine's own
// types (package intent), which the workflows and the door speak.
type SolverTx struct {
	RequestID string
	Kind      intent.TxKind
	Attempt   int  // 0 for the first signing; replacements count up with the same nonce
	Cancel    bool // a replacement that cancels (pays nothing) rather than pays
	ChainID   uint64
	From      string
	Nonce     uint64
	Hash      string
	Raw       []byte
	// Voided is set on a transaction signed for a chain that came back with a new genesis
	// (docs/operations.md, "Restarting"): it was never mined there, the engine never broadcasts
	// or replaces it again, and its nonce is free for the new chain's transactions.
	Voided bool
	// Group, on a transaction just signed, is every transaction its group commit signed with
	// it (itself included), in nonce order: whichever of their callers broadcasts first sends
	// them all, in order (chains/evm, firstBroadcast). Not stored; nil when read back.
	Group []*SolverTx `json:"-"`
}
