package intent

import "time"

// TxDirection says which side of a request a transaction is on: the user's deposit (in), or a
// fill or refund the solver sent (out).
type TxDirection string

// Transaction directions, as stored in the read model.
const (
	TxIn  TxDirection = "in"
	TxOut TxDirection = "out"
)

// TxKind names a transaction the solver sends for a request. A request has at most one signed
// transaction of each kind (with its replacements at the same nonce), which is what makes a
// fill or a refund happen at most once.
type TxKind string

// Transaction kinds: the user's deposit, and the solver's transactions, as stored with the
// signed transactions and in the read model.
const (
	TxKindDeposit      TxKind = "deposit"
	TxKindFill         TxKind = "fill"
	TxKindRefund       TxKind = "refund"
	TxKindManualRefund TxKind = "manual_refund"
	// TxKindSweep is the solver's sweep of a request's deposit address into the origin chain's
	// depository (docs/deposit-addresses.md): signed once per request like a fill, recorded
	// as the request's incoming transaction that made its deposit.
	TxKindSweep TxKind = "sweep"
)

// TxStatus is a transaction item's status in the read model.
type TxStatus string

// Transaction statuses: pending until mined, then success or failure. A pending transaction
// is kept in the transactions table and the status endpoint's hashes but never appears in the
// record, whose items are success or failure only.
const (
	TxPending TxStatus = "pending"
	TxSuccess TxStatus = "success"
	TxFailure TxStatus = "failure"
)

// Tx is a transaction of a request, recorded with a transition.
type Tx struct {
	Direction TxDirection
	// Kind is TxKindDeposit for TxIn and TxKindFill for TxOut when empty.
	Kind      TxKind
	ChainID   uint64
	Hash      string
	LogIndex  int // -1 when not a log (fills, refunds)
	Block     uint64
	Timestamp int64
	// Fee is gasUsed × effectiveGasPrice in wei, FeeUsd its USD value at the native currency's
	// price when written; "" when unknown (a later write of the same transaction completes it).
	Fee    string
	FeeUsd string
	// Status is "" for success (the default of a mined transaction).
	Status TxStatus
}

// Transition is one step of a request's lifecycle as the workflow writes it to the read model.
// Version orders the writes of one request: a write older than the stored one changes only the
// transactions (they are facts), never the status.
type Transition struct {
	RequestID        string
	Version          int64
	Status           Status
	FailReason       FailReason
	RefundFailReason RefundFailReason
	Txs              []Tx
	At               time.Time

	// Facts the workflow holds, written on the record with every transition that carries them
	// (each write is idempotent). Nil or zero means unknown: histories recorded before these
	// fields decode without them.

	// Deposit is the deposit the request was paid with: protocol.deposit.origin, and
	// route.actual while no fill has landed.
	Deposit *Deposit
	// Depository is the deposit chain's depository (filled in by the write activity).
	Depository string
	// Attestation is the oracle's attestation of Deposit.
	Attestation *Attestation
	// FailedTx is a fill that was mined and reverted.
	FailedTx *FailedTx
	// BlockedAddresses are the addresses whose screening ended the request with BLOCKED_WALLET
	// (data.blockedAddresses, owner-only).
	BlockedAddresses []string `json:",omitempty"`
}

// Attestation is one accepted oracle signature over a deposit.
type Attestation struct {
	ChainID    uint64
	Depository string
	Signer     string
	Signature  string
	// Signatures are all the accepted signatures (the engine's quorum, Signer's first); empty
	// for attestations recorded with one signature only.
	Signatures []SignerSignature `json:",omitempty"`
}

// SignerSignature is one oracle signer's signature (0x hex).
type SignerSignature struct {
	Signer    string
	Signature string
}

// FailedTx is a mined transaction that reverted, with its call.
type FailedTx struct {
	Hash  string
	Block uint64
	Call  *CallData
}
