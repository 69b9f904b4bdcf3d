package oracleapi

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// The messages of the attestation endpoints besides deposits. Each is about one event log (or,
// for WithdrawalInitiatedData, one piece of contract state) on one chain; the fields listed in
// its type string are signed, BlockNumber and BlockHash are informational only (reorg tracking),
// so the signature stays valid for the same event included again in another block.

// WithdrawalData is one Withdrawal event of the depository (POST
// /attestations/depository-withdrawals/v1): the depository paid Amount of Currency to Recipient
// under the once-only WithdrawalID.
type WithdrawalData struct {
	ChainID       uint64         `json:"chainId"`
	Depository    common.Address `json:"depository"`
	TransactionID common.Hash    `json:"transactionId"`
	LogIndex      uint64         `json:"logIndex"`
	BlockNumber   uint64         `json:"blockNumber"`
	BlockHash     common.Hash    `json:"blockHash"`
	WithdrawalID  common.Hash    `json:"withdrawalId"`
	Recipient     common.Address `json:"recipient"`
	Currency      common.Address `json:"currency"`
	Amount        *Amount        `json:"amount"`
}

// PrimaryType names the withdrawal's EIP-712 type.
func (WithdrawalData) PrimaryType() string { return "DepositoryWithdrawal" }

// TypeFields are the signed fields, in order.
func (WithdrawalData) TypeFields() []apitypes.Type {
	return []apitypes.Type{{Name: "chainId", Type: "uint256"}, {Name: "depository", Type: "address"},
		{Name: "transactionId", Type: "bytes32"}, {Name: "logIndex", Type: "uint256"}, {Name: "withdrawalId", Type: "bytes32"},
		{Name: "recipient", Type: "address"}, {Name: "currency", Type: "address"}, {Name: "amount", Type: "uint256"}}
}

// TypedMessage is the withdrawal's values.
func (d WithdrawalData) TypedMessage() (apitypes.TypedDataMessage, error) {
	amount, err := d.Amount.value("withdrawal")
	if err != nil {
		return nil, err
	}
	return apitypes.TypedDataMessage{"chainId": u256(d.ChainID), "depository": d.Depository.Hex(),
		"transactionId": d.TransactionID.Bytes(), "logIndex": u256(d.LogIndex), "withdrawalId": d.WithdrawalID.Bytes(),
		"recipient": d.Recipient.Hex(), "currency": d.Currency.Hex(), "amount": amount}, nil
}

// SolverFillData is one Fill event of the output settler (POST /attestations/solver-fills/v1):
// Solver paid Amount of Currency to Recipient for OrderID.
type SolverFillData struct {
	ChainID       uint64         `json:"chainId"`
	OutputSettler common.Address `json:"outputSettler"`
	TransactionID common.Hash    `json:"transactionId"`
	LogIndex      uint64         `json:"logIndex"`
	BlockNumber   uint64         `json:"blockNumber"`
	BlockHash     common.Hash    `json:"blockHash"`
	OrderID       common.Hash    `json:"orderId"`
	Solver        common.Address `json:"solver"`
	Recipient     common.Address `json:"recipient"`
	Currency      common.Address `json:"currency"`
	Amount        *Amount        `json:"amount"`
}

// PrimaryType names the fill's EIP-712 type.
func (SolverFillData) PrimaryType() string { return "SolverFill" }

// TypeFields are the signed fields, in order.
func (SolverFillData) TypeFields() []apitypes.Type {
	return []apitypes.Type{{Name: "chainId", Type: "uint256"}, {Name: "outputSettler", Type: "address"},
		{Name: "transactionId", Type: "bytes32"}, {Name: "logIndex", Type: "uint256"}, {Name: "orderId", Type: "bytes32"},
		{Name: "solver", Type: "address"}, {Name: "recipient", Type: "address"}, {Name: "currency", Type: "address"},
		{Name: "amount", Type: "uint256"}}
}

// TypedMessage is the fill's values.
func (d SolverFillData) TypedMessage() (apitypes.TypedDataMessage, error) {
	amount, err := d.Amount.value("fill")
	if err != nil {
		return nil, err
	}
	return apitypes.TypedDataMessage{"chainId": u256(d.ChainID), "outputSettler": d.OutputSettler.Hex(),
		"transactionId": d.TransactionID.Bytes(), "logIndex": u256(d.LogIndex), "orderId": d.OrderID.Bytes(),
		"solver": d.Solver.Hex(), "recipient": d.Recipient.Hex(), "currency": d.Currency.Hex(), "amount": amount}, nil
}

// SolverRefundData is a refund the solver paid out of the depository (POST
// /attestations/solver-refunds/v1): the Withdrawal event under RefundID that paid Recipient.
type SolverRefundData struct {
	ChainID       uint64         `json:"chainId"`
	Depository    common.Address `json:"depository"`
	TransactionID common.Hash    `json:"transactionId"`
	LogIndex      uint64         `json:"logIndex"`
	BlockNumber   uint64         `json:"blockNumber"`
	BlockHash     common.Hash    `json:"blockHash"`
	RefundID      common.Hash    `json:"refundId"`
	Recipient     common.Address `json:"recipient"`
	Currency      common.Address `json:"currency"`
	Amount        *Amount        `json:"amount"`
}

// PrimaryType names the refund's EIP-712 type.
func (SolverRefundData) PrimaryType() string { return "SolverRefund" }

// TypeFields are the signed fields, in order.
func (SolverRefundData) TypeFields() []apitypes.Type {
	return []apitypes.Type{{Name: "chainId", Type: "uint256"}, {Name: "depository", Type: "address"},
		{Name: "transactionId", Type: "bytes32"}, {Name: "logIndex", Type: "uint256"}, {Name: "refundId", Type: "bytes32"},
		{Name: "recipient", Type: "address"}, {Name: "currency", Type: "address"}, {Name: "amount", Type: "uint256"}}
}

// TypedMessage is the refund's values.
func (d SolverRefundData) TypedMessage() (apitypes.TypedDataMessage, error) {
	amount, err := d.Amount.value("refund")
	if err != nil {
		return nil, err
	}
	return apitypes.TypedDataMessage{"chainId": u256(d.ChainID), "depository": d.Depository.Hex(),
		"transactionId": d.TransactionID.Bytes(), "logIndex": u256(d.LogIndex), "refundId": d.RefundID.Bytes(),
		"recipient": d.Recipient.Hex(), "currency": d.Currency.Hex(), "amount": amount}, nil
}

// WithdrawalInitiationData authorizes the withdrawal of a deposit back to its depositor (POST
// /attestations/withdrawal-initiation/v1): an execution payload for the depository's owner,
// Depository.withdraw(WithdrawalID, Currency, Recipient, Amount). WithdrawalID is
// WithdrawalIDOf(chain, depository, deposit transaction, log index), so one deposit can be
// withdrawn once.
type WithdrawalInitiationData struct {
	ChainID              uint64         `json:"chainId"`
	Depository           common.Address `json:"depository"`
	WithdrawalID         common.Hash    `json:"withdrawalId"`
	DepositTransactionID common.Hash    `json:"depositTransactionId"`
	DepositLogIndex      uint64         `json:"depositLogIndex"`
	OrderID              common.Hash    `json:"orderId"`
	Recipient            common.Address `json:"recipient"`
	Currency             common.Address `json:"currency"`
	Amount               *Amount        `json:"amount"`
}

// PrimaryType names the initiation's EIP-712 type.
func (WithdrawalInitiationData) PrimaryType() string { return "WithdrawalInitiation" }

// TypeFields are the signed fields, in order.
func (WithdrawalInitiationData) TypeFields() []apitypes.Type {
	return []apitypes.Type{{Name: "chainId", Type: "uint256"}, {Name: "depository", Type: "address"},
		{Name: "withdrawalId", Type: "bytes32"}, {Name: "depositTransactionId", Type: "bytes32"},
		{Name: "depositLogIndex", Type: "uint256"}, {Name: "orderId", Type: "bytes32"}, {Name: "recipient", Type: "address"},
		{Name: "currency", Type: "address"}, {Name: "amount", Type: "uint256"}}
}

// TypedMessage is the initiation's values.
func (d WithdrawalInitiationData) TypedMessage() (apitypes.TypedDataMessage, error) {
	amount, err := d.Amount.value("withdrawal")
	if err != nil {
		return nil, err
	}
	return apitypes.TypedDataMessage{"chainId": u256(d.ChainID), "depository": d.Depository.Hex(),
		"withdrawalId": d.WithdrawalID.Bytes(), "depositTransactionId": d.DepositTransactionID.Bytes(),
		"depositLogIndex": u256(d.DepositLogIndex), "orderId": d.OrderID.Bytes(), "recipient": d.Recipient.Hex(),
		"currency": d.Currency.Hex(), "amount": amount}, nil
}

// WithdrawalInitiatedData states that the depository has executed the withdrawal WithdrawalID
// (its once-only flag is set in a block at least the chain's confirmations deep): POST
// /attestations/withdrawal-initiated/v1. It is read from contract state, not from a
// transaction, so it carries no transaction or block.
type WithdrawalInitiatedData struct {
	ChainID      uint64         `json:"chainId"`
	Depository   common.Address `json:"depository"`
	WithdrawalID common.Hash    `json:"withdrawalId"`
}

// PrimaryType names the EIP-712 type.
func (WithdrawalInitiatedData) PrimaryType() string { return "WithdrawalInitiated" }

// TypeFields are the signed fields, in order.
func (WithdrawalInitiatedData) TypeFields() []apitypes.Type {
	return []apitypes.Type{{Name: "chainId", Type: "uint256"}, {Name: "depository", Type: "address"},
		{Name: "withdrawalId", Type: "bytes32"}}
}

// TypedMessage is the values.
func (d WithdrawalInitiatedData) TypedMessage() (apitypes.TypedDataMessage, error) {
	return apitypes.TypedDataMessage{"chainId": u256(d.ChainID), "depository": d.Depository.Hex(),
		"withdrawalId": d.WithdrawalID.Bytes()}, nil
}

// WithdrawalIDOf is the once-only id under which a deposit is withdrawn back to its depositor:
// keccak256(abi.encode(chainId, depository, transactionId, logIndex)).
func WithdrawalIDOf(chainID uint64, depository common.Address, tx common.Hash, logIndex uint64) common.Hash {
	return keccakWords(u256(chainID).FillBytes(make([]byte, 32)), common.LeftPadBytes(depository.Bytes(), 32), tx.Bytes(),
		u256(logIndex).FillBytes(make([]byte, 32)))
}
