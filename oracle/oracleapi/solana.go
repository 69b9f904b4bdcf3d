package oracleapi

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// The Solana family's requests and messages (issue 36; docs/oracle.md, "Solana chains"). The
// deposit and fill endpoints take these bodies when their chainId names a solana-vm chain: the
// oracle reads the body's chainId first and validates and decodes the rest against the chain's
// family, so the EVM bodies (0x-hex transaction ids, 20-byte addresses) decode exactly as before
// and a Solana body never has to pass for one. This package stays free of solana-go (a test
// keeps it so): base58 strings are carried as written and checked by the server, and the signed
// values are the raw 32- and 64-byte keys and signatures, in the hex EIP-712 tools take.
//
// Domain. A Solana account is a 32-byte key, which an EIP-712 domain's verifyingContract
// (address) cannot hold: the messages of a Solana chain are signed under the version 2 domain
// with verifyingContract the zero address (SolanaDomain), and the account they are about (the
// vault, depository) is a signed field of the message instead. The primary types differ from
// the EVM ones, so a Solana message never verifies as an EVM one or the reverse.

// SolanaDepositAttestationRequest is the body of POST /attestations/depository-deposits/v1 for
// a solana-vm chain: TransactionID is the transaction's signature in base58; LogIndex (optional)
// is the instruction index of the deposit's transfer, OrderID (optional) its order; as for EVM,
// with both a deposit must match both.
type SolanaDepositAttestationRequest struct {
	ChainID               uint64       `json:"chainId" minimum:"1"`
	TransactionID         string       `json:"transactionId" pattern:"^[1-9A-HJ-NP-Za-km-z]{64,90}$" doc:"The transaction's signature, base58."`
	LogIndex              *uint64      `json:"logIndex,omitempty" doc:"Attest only the deposit at this instruction index (optional)."`
	OrderID               *common.Hash `json:"orderId,omitempty" doc:"Attest only the deposits for this order id: 32 bytes, 0x-hex (optional)."`
	RequestPeerSignatures bool         `json:"requestPeerSignatures,omitempty"`
}

// SolanaSolverFillAttestationRequest is the body of POST /attestations/solver-fills/v1 for a
// solana-vm chain: the transaction (base58 signature) must pay Recipient (a base58 wallet) at
// least MinimumAmount of Currency (a mint, or the System Program id 1111…1 for SOL) with a memo
// carrying OrderID. Force works as for EVM fills.
type SolanaSolverFillAttestationRequest struct {
	ChainID               uint64      `json:"chainId" minimum:"1"`
	TransactionID         string      `json:"transactionId" pattern:"^[1-9A-HJ-NP-Za-km-z]{64,90}$" doc:"The fill's signature, base58."`
	OrderID               common.Hash `json:"orderId"`
	Recipient             string      `json:"recipient" pattern:"^[1-9A-HJ-NP-Za-km-z]{32,44}$" doc:"The recipient's wallet, base58."`
	Currency              string      `json:"currency" pattern:"^[1-9A-HJ-NP-Za-km-z]{32,44}$" doc:"The SPL mint, or 11111111111111111111111111111111 for SOL, base58."`
	MinimumAmount         *Amount     `json:"minimumAmount"`
	Force                 bool        `json:"force,omitempty"`
	RequestPeerSignatures bool        `json:"requestPeerSignatures,omitempty"`
}

// The responses of the Solana variants.
type (
	SolanaDepositAttestation    = Attestation[SolanaDepositData]
	SolanaSolverFillAttestation = Attestation[SolanaSolverFillData]
)

// SolanaDomain is the version 2 domain of facts about a Solana chain in environment: its
// verifyingContract is the zero address (see the top of this file).
func SolanaDomain(environment string, chainID uint64) Domain {
	return NewDomain(environment, chainID, common.Address{})
}

// SolanaSignatureLength is the length of a Solana transaction signature (its id).
const SolanaSignatureLength = 64

// SolanaDepositType is the EIP-712 type string of a Solana deposit; a test pins it to what
// apitypes encodes.
const SolanaDepositType = "SolanaDeposit(uint256 chainId,bytes32 depository,bytes transactionId,uint256 instructionIndex,bytes32 orderId,bytes32 depositor,bytes32 currency,uint256 amount)"

// SolanaDepositData is one deposit to a Solana chain's vault: a top-level transfer of SOL or of
// an SPL token to it in a transaction whose memo names the order. Depository is the vault's
// key, TransactionID the 64-byte signature, InstructionIndex the transfer's index in the
// message, Depositor whose money moved, Currency the mint (SOL: the System Program id, 32 zero
// bytes). The signed fields are those of SolanaDepositType; Slot and BlockHash are returned for
// the caller's tracking and are not signed, as an EVM deposit's block is not (BlockHash is zero
// when the node does not say it: the transaction's answer names no block hash).
type SolanaDepositData struct {
	ChainID          uint64        `json:"chainId"`
	Depository       common.Hash   `json:"depository"`
	TransactionID    hexutil.Bytes `json:"transactionId"`
	InstructionIndex uint64        `json:"instructionIndex"`
	Slot             uint64        `json:"slot"`
	BlockHash        common.Hash   `json:"blockHash"`
	OrderID          common.Hash   `json:"orderId"`
	Depositor        common.Hash   `json:"depositor"`
	Currency         common.Hash   `json:"currency"`
	Amount           *Amount       `json:"amount"`
}

// PrimaryType names the Solana deposit's EIP-712 type.
func (SolanaDepositData) PrimaryType() string { return "SolanaDeposit" }

// TypeFields are SolanaDepositType's fields.
func (SolanaDepositData) TypeFields() []apitypes.Type {
	return []apitypes.Type{{Name: "chainId", Type: "uint256"}, {Name: "depository", Type: "bytes32"},
		{Name: "transactionId", Type: "bytes"}, {Name: "instructionIndex", Type: "uint256"}, {Name: "orderId", Type: "bytes32"},
		{Name: "depositor", Type: "bytes32"}, {Name: "currency", Type: "bytes32"}, {Name: "amount", Type: "uint256"}}
}

// TypedMessage is the Solana deposit's values.
func (d SolanaDepositData) TypedMessage() (apitypes.TypedDataMessage, error) {
	amount, err := d.Amount.value("deposit")
	if err != nil {
		return nil, err
	}
	if len(d.TransactionID) != SolanaSignatureLength {
		return nil, fmt.Errorf("deposit transactionId has %d bytes, not the %d of a Solana signature", len(d.TransactionID), SolanaSignatureLength)
	}
	return apitypes.TypedDataMessage{
		"chainId": u256(d.ChainID), "depository": d.Depository.Bytes(), "transactionId": []byte(d.TransactionID),
		"instructionIndex": u256(d.InstructionIndex), "orderId": d.OrderID.Bytes(), "depositor": d.Depositor.Bytes(),
		"currency": d.Currency.Bytes(), "amount": amount,
	}, nil
}

// SolanaSolverFillType is the EIP-712 type string of a Solana fill.
const SolanaSolverFillType = "SolanaSolverFill(uint256 chainId,bytes transactionId,uint256 instructionIndex,bytes32 orderId,bytes32 solver,bytes32 recipient,bytes32 currency,uint256 amount)"

// SolanaSolverFillData is a solver's fill on a Solana chain: the top-level transfer at
// InstructionIndex of TransactionID paid Amount of Currency (SOL, or a mint: to Recipient's
// associated token account) from Solver to Recipient, in a transaction whose memo is OrderID.
// Solver is whose money moved (the SOL transfer's source, the token transfer's authority).
// Slot and BlockHash are informational, as for deposits.
type SolanaSolverFillData struct {
	ChainID          uint64        `json:"chainId"`
	TransactionID    hexutil.Bytes `json:"transactionId"`
	InstructionIndex uint64        `json:"instructionIndex"`
	Slot             uint64        `json:"slot"`
	BlockHash        common.Hash   `json:"blockHash"`
	OrderID          common.Hash   `json:"orderId"`
	Solver           common.Hash   `json:"solver"`
	Recipient        common.Hash   `json:"recipient"`
	Currency         common.Hash   `json:"currency"`
	Amount           *Amount       `json:"amount"`
}

// PrimaryType names the Solana fill's EIP-712 type.
func (SolanaSolverFillData) PrimaryType() string { return "SolanaSolverFill" }

// TypeFields are SolanaSolverFillType's fields.
func (SolanaSolverFillData) TypeFields() []apitypes.Type {
	return []apitypes.Type{{Name: "chainId", Type: "uint256"}, {Name: "transactionId", Type: "bytes"},
		{Name: "instructionIndex", Type: "uint256"}, {Name: "orderId", Type: "bytes32"}, {Name: "solver", Type: "bytes32"},
		{Name: "recipient", Type: "bytes32"}, {Name: "currency", Type: "bytes32"}, {Name: "amount", Type: "uint256"}}
}

// TypedMessage is the Solana fill's values.
func (d SolanaSolverFillData) TypedMessage() (apitypes.TypedDataMessage, error) {
	amount, err := d.Amount.value("fill")
	if err != nil {
		return nil, err
	}
	if len(d.TransactionID) != SolanaSignatureLength {
		return nil, fmt.Errorf("fill transactionId has %d bytes, not the %d of a Solana signature", len(d.TransactionID), SolanaSignatureLength)
	}
	return apitypes.TypedDataMessage{
		"chainId": u256(d.ChainID), "transactionId": []byte(d.TransactionID), "instructionIndex": u256(d.InstructionIndex),
		"orderId": d.OrderID.Bytes(), "solver": d.Solver.Bytes(), "recipient": d.Recipient.Bytes(),
		"currency": d.Currency.Bytes(), "amount": amount,
	}, nil
}

// AttestSolanaFill asks the oracle to attest a solver's fill on a solana-vm chain (POST
// /attestations/solver-fills/v1 with req, with its peers' signatures): that transaction
// req.TransactionID paid req.Recipient at least req.MinimumAmount of req.Currency, with a memo
// naming req.OrderID. The returned attestation holds only messages about that chain and order
// whose signatures recover to their claimed signers under the domain returned; whether that
// domain is SolanaDomain and the signers are trusted, and enough of them, is the caller's
// decision, as for AttestDeposit.
func (c *Client) AttestSolanaFill(ctx context.Context, req SolanaSolverFillAttestationRequest) (*SolanaSolverFillAttestation, error) {
	req.RequestPeerSignatures = true
	att, err := Attest[SolanaSolverFillData](ctx, c, PathSolverFillAttestation, req)
	if err != nil {
		return nil, err
	}
	for i, m := range att.Messages {
		if m.Data.ChainID != req.ChainID || m.Data.OrderID != req.OrderID {
			return nil, invalidResponse("message %d is about chain %d order %s", i, m.Data.ChainID, m.Data.OrderID.Hex())
		}
	}
	return att, nil
}
