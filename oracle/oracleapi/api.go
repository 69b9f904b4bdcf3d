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

// DepositAttestationRequest is the body of POST /attestations/depository-deposits/v1.
type DepositAttestationRequest struct {
	ChainID       uint64      `json:"chainId"`
	TransactionID common.Hash `json:"transactionId"`
	// RequestPeerSignatures asks for peer signatures too; peer aggregation is not implemented
	// yet, so only the local signature is returned.
	RequestPeerSignatures bool `json:"requestPeerSignatures,omitempty"`
}

// DepositAttestation is the response of the deposit endpoint: one signed message per Deposit
// event of the transaction, in log order.
type DepositAttestation struct {
	Messages []DepositMessage `json:"messages"`
	Domain   Domain           `json:"domain"`
}

// DepositMessage is one attested deposit and the signatures over its EIP-712 digest.
type DepositMessage struct {
	Data       DepositData `json:"data"`
	Signatures []Signature `json:"signatures"`
}

// Signature is one signer's signature over a message; Signer is claimed by the sender and must
// be checked by recovering it (the Client does).
type Signature struct {
	Signer    common.Address `json:"signer"`
	Signature hexutil.Bytes  `json:"signature"`
}

// ChainInfo is one entry of GET /chains/v1: what a caller needs to request attestations.
type ChainInfo struct {
	ID            uint64 `json:"id"`
	Name          string `json:"name"`
	VMType        string `json:"vmType"`
	Depository    string `json:"depository,omitempty"`
	Confirmations uint64 `json:"confirmations"`
}

// ChainsResponse is the body of GET /chains/v1.
type ChainsResponse struct {
	Chains []ChainInfo `json:"chains"`
}
