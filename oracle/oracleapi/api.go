// Package oracleapi is the attestation oracle's wire contract (spec/attestation-oracle.md, with
// the decisions the spec leaves open in docs/oracle.md) and the
// engine's client for it: paths and headers, request and response types, error codes with the
// one code → status table, the EIP-712 typed data of the attested messages and signer recovery,
// and Client. It exists so that the engine (activities, the worker) reaches the oracle without
// linking the oracle's Gin server, and so that the server (package oracle) and the client share
// one definition of every name on the wire instead of two that could drift apart. It imports
// no server code and no HTTP framework; a test keeps it that way.
package oracleapi

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// Paths served by the oracle; shared by the server's router and the Client so they cannot drift.
const (
	PathLives                 = "/lives/v1"
	PathChains                = "/chains/v1"
	PathDocumentation         = "/documentation"
	PathDepositAttestation    = "/attestations/depository-deposits/v1"
	PathWithdrawalAttestation = "/attestations/depository-withdrawals/v1"
	PathSolverFillAttestation = "/attestations/solver-fills/v1"
	PathSolverRefund          = "/attestations/solver-refunds/v1"
	PathWithdrawalInitiation  = "/attestations/withdrawal-initiation/v1"
	PathWithdrawalInitiated   = "/attestations/withdrawal-initiated/v1"
)

// HeaderAPIKey carries the caller's API key; a valid key bypasses the unauthenticated rate limit.
const HeaderAPIKey = "x-api-key"

// Request bodies of the attestation endpoints. Every request names its chain and may set
// RequestPeerSignatures: when true and the oracle has PEERS, it asks its peers for their
// signatures over the same messages and merges them (docs/oracle.md, "Peer aggregation").
// The published JSON schemas (GET /documentation/openapi.json) are generated from these types.

// DepositAttestationRequest is the body of POST /attestations/depository-deposits/v1.
// LogIndex and OrderID (optional; ours, the spec does not show the body) name the deposit the
// caller wants: only the Deposit events at that log index, or for that order, are read and
// signed (with both, an event must match both). Without either, every Deposit event of the
// transaction is, as before; either way an answer carries at most MaxMessagesPerAnswer
// messages. One transaction may hold hundreds of deposits, and each deposit's caller asking for
// all of them made the signing work grow with the square of their number.
type DepositAttestationRequest struct {
	ChainID       uint64       `json:"chainId" minimum:"1"`
	TransactionID common.Hash  `json:"transactionId"`
	LogIndex      *uint64      `json:"logIndex,omitempty" doc:"Attest only the Deposit event at this log index (optional)."`
	OrderID       *common.Hash `json:"orderId,omitempty" doc:"Attest only the Deposit events for this order id: 32 bytes, 0x-hex (optional)."`
	// SweptPaymentTransactionID (optional, ours: docs/oracle.md, "A sweep's deposit") names
	// the plain transfer to a deposit address that the attested deposit's sweep moved into the
	// depository. When every deposit attested is a sweep of the chain's deposit-address factory
	// and this transaction paid the swept address at least the swept amount of the swept
	// currency, the deposits are attested once the sweep is mined in a canonical block and the
	// payment's block has the confirmations the deposits need; otherwise the field changes
	// nothing. The signed message is the same.
	SweptPaymentTransactionID *common.Hash `json:"sweptPaymentTransactionId,omitempty" doc:"The plain transfer to a deposit address that this transaction's sweep moved into the depository: count the deposit's confirmations from its block (optional; 32 bytes, 0x-hex)."`
	RequestPeerSignatures     bool         `json:"requestPeerSignatures,omitempty"`
}

// MaxMessagesPerAnswer caps the messages of one attestation answer: a request whose facts
// would need more is refused with TOO_MANY_EVENTS and nothing is signed. Each message costs a
// signature per oracle (a KMS call in aws-kms mode) and about a kilobyte of answer; the engine
// asks for one deposit at a time, and 64 leaves room for any honest batch.
const MaxMessagesPerAnswer = 64

// WithdrawalAttestationRequest is the body of POST /attestations/depository-withdrawals/v1:
// every Withdrawal event the chain's depository emitted in the transaction is attested.
type WithdrawalAttestationRequest struct {
	ChainID               uint64      `json:"chainId" minimum:"1"`
	TransactionID         common.Hash `json:"transactionId"`
	RequestPeerSignatures bool        `json:"requestPeerSignatures,omitempty"`
}

// SolverFillAttestationRequest is the body of POST /attestations/solver-fills/v1: the Fill
// event for OrderID in the transaction must pay Recipient at least MinimumAmount of Currency.
// Force (with a valid x-api-key only) attests the fill as it is when it does not meet these
// expectations; it never skips the chain's own checks (success, confirmations, the configured
// contract, the order id).
type SolverFillAttestationRequest struct {
	ChainID               uint64         `json:"chainId" minimum:"1"`
	TransactionID         common.Hash    `json:"transactionId"`
	OrderID               common.Hash    `json:"orderId"`
	Recipient             common.Address `json:"recipient"`
	Currency              common.Address `json:"currency"`
	MinimumAmount         *Amount        `json:"minimumAmount"`
	Force                 bool           `json:"force,omitempty"`
	RequestPeerSignatures bool           `json:"requestPeerSignatures,omitempty"`
}

// SolverRefundAttestationRequest is the body of POST /attestations/solver-refunds/v1: the
// depository's Withdrawal event under RefundID in the transaction must pay Recipient at least
// MinimumAmount of Currency. Force works as for fills.
type SolverRefundAttestationRequest struct {
	ChainID               uint64         `json:"chainId" minimum:"1"`
	TransactionID         common.Hash    `json:"transactionId"`
	RefundID              common.Hash    `json:"refundId"`
	Recipient             common.Address `json:"recipient"`
	Currency              common.Address `json:"currency"`
	MinimumAmount         *Amount        `json:"minimumAmount"`
	Force                 bool           `json:"force,omitempty"`
	RequestPeerSignatures bool           `json:"requestPeerSignatures,omitempty"`
}

// WithdrawalInitiationRequest is the body of POST /attestations/withdrawal-initiation/v1: the
// deposit at LogIndex of TransactionID is confirmed and has not been withdrawn yet.
type WithdrawalInitiationRequest struct {
	ChainID               uint64      `json:"chainId" minimum:"1"`
	TransactionID         common.Hash `json:"transactionId"`
	LogIndex              uint64      `json:"logIndex"`
	RequestPeerSignatures bool        `json:"requestPeerSignatures,omitempty"`
}

// WithdrawalInitiatedRequest is the body of POST /attestations/withdrawal-initiated/v1.
type WithdrawalInitiatedRequest struct {
	ChainID               uint64      `json:"chainId" minimum:"1"`
	WithdrawalID          common.Hash `json:"withdrawalId"`
	RequestPeerSignatures bool        `json:"requestPeerSignatures,omitempty"`
}

// Attestation is the response of every attestation endpoint: one signed message per attested
// fact, in chain order, and the EIP-712 domain they are signed under.
type Attestation[T Message] struct {
	Messages []SignedMessage[T] `json:"messages"`
	Domain   Domain             `json:"domain"`
}

// SignedMessage is one attested fact and the signatures over its EIP-712 digest, one per
// signer.
type SignedMessage[T Message] struct {
	Data       T           `json:"data"`
	Signatures []Signature `json:"signatures"`
}

// The responses of the endpoints.
type (
	DepositAttestation              = Attestation[DepositData]
	DepositMessage                  = SignedMessage[DepositData]
	WithdrawalAttestation           = Attestation[WithdrawalData]
	SolverFillAttestation           = Attestation[SolverFillData]
	SolverRefundAttestation         = Attestation[SolverRefundData]
	WithdrawalInitiationAttestation = Attestation[WithdrawalInitiationData]
	WithdrawalInitiatedAttestation  = Attestation[WithdrawalInitiatedData]
)

// Signature is one signer's signature over a message; Signer is claimed by the sender and must
// be checked by recovering it (the Client does).
type Signature struct {
	Signer    common.Address `json:"signer"`
	Signature hexutil.Bytes  `json:"signature"`
}

// VM family identifiers of GET /chains/v1, the spec's names.
const (
	VMFamilyEthereum = "ethereum-vm"
	VMFamilySolana   = "solana-vm"
	VMFamilyBitcoin  = "bitcoin-vm"
	VMFamilyTron     = "tron-vm"
)

// ChainInfo is one entry of GET /chains/v1: what a caller needs to request attestations. VMType
// is the spec's VM family identifier (VMFamilyEthereum, ...). Hub says the chain comes from
// chains.hub.<ENVIRONMENT>.json, the settlement hub's chains.
type ChainInfo struct {
	ID            uint64 `json:"id"`
	Name          string `json:"name"`
	VMType        string `json:"vmType"`
	Depository    string `json:"depository,omitempty"`
	OutputSettler string `json:"outputSettler,omitempty"`
	Confirmations uint64 `json:"confirmations"`
	Hub           bool   `json:"hub,omitempty"`
}

// ChainsResponse is the body of GET /chains/v1.
type ChainsResponse struct {
	Chains []ChainInfo `json:"chains"`
}
