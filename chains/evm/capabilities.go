package evm

import (
	"context"
	"math/big"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// The EVM family's own capabilities, in go-ethereum's types: what signing, sending and reading
// an EVM transaction takes. *Client has them beside the engine's chain-neutral ones (package
// chains); callers ask chains.Capability for them like for any other. Every error is classified
// into the chains vocabulary (chains.ErrUnavailable, chains.ErrNotFound, *chains.RevertError,
// chains.ErrInsufficientFunds, chains.ErrNonce).

// ContractCaller runs a read-only call against the latest block.
type ContractCaller interface {
	CallContract(ctx context.Context, msg ethereum.CallMsg) ([]byte, error)
}

// TxReader reads transactions and the blocks they are in.
type TxReader interface {
	// Receipt returns a transaction's receipt; chains.ErrNotFound while it is not mined.
	Receipt(ctx context.Context, tx common.Hash) (*types.Receipt, error)
	// TransactionKnown reports whether the node knows the transaction, pending or mined.
	TransactionKnown(ctx context.Context, tx common.Hash) (bool, error)
	// HeaderByHash returns a block's header; chains.ErrNotFound when the node has no such block.
	HeaderByHash(ctx context.Context, hash common.Hash) (*types.Header, error)
}

// TxSender is what signing and sending a transaction takes: the inputs of the signature
// (nonce, gas, fees) and the broadcast.
type TxSender interface {
	// NonceAt returns the account's nonce at the latest block.
	NonceAt(ctx context.Context, account common.Address) (uint64, error)
	// EstimateGas returns the gas msg would use; a *chains.RevertError when it would revert,
	// chains.ErrInsufficientFunds when the sender cannot pay its value.
	EstimateGas(ctx context.Context, msg ethereum.CallMsg) (uint64, error)
	// SuggestFees returns the node's tip and its latest base fee.
	SuggestFees(ctx context.Context) (Fees, error)
	// SendTransaction broadcasts a signed transaction. Besides chains.ErrUnavailable it fails
	// with chains.ErrAlreadyKnown, chains.ErrNonceTooLow, chains.ErrReplacementUnderpriced or
	// chains.ErrInsufficientFunds.
	SendTransaction(ctx context.Context, tx *types.Transaction) error
}

// PendingNonceReader reads the nonce an account's next transaction would take at the node: its
// nonce at the latest block plus the transactions of the account the node's pool holds ready to
// be mined, one after the other. Below the nonces a sender has handed out, it points at a gap.
type PendingNonceReader interface {
	PendingNonceAt(ctx context.Context, account common.Address) (uint64, error)
}

// TxBatchSender broadcasts several signed transactions in one request (a JSON-RPC batch), which
// the node takes in the order given: the transactions of one sender, sorted by nonce, reach its
// pool each next in line rather than ahead of a gap. The error at i is txs[i]'s, as
// SendTransaction's; a failure of the request is every transaction's.
type TxBatchSender interface {
	SendTransactions(ctx context.Context, txs []*types.Transaction) []error
}

// Fees is an EIP-1559 fee suggestion: the priority fee the node suggests and the base fee of
// its latest block.
type Fees struct {
	Tip     *big.Int
	BaseFee *big.Int
}

// FeeCap is the fee cap a transaction paying tip is signed with: twice the base fee plus the
// tip, so that it stays includable while the base fee rises for a few full blocks.
func (f Fees) FeeCap(tip *big.Int) *big.Int {
	return new(big.Int).Add(new(big.Int).Mul(f.BaseFee, big.NewInt(2)), tip)
}
