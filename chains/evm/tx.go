package evm

import (
	"context"
	"errors"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/internal/sharedread"
)

// Transactions: what the solver's fills and refunds read and send (TxReader,
// TxSender), each answer classified.

// Receipt returns a transaction receipt; chains.ErrNotFound while it is not mined.
func (c *Client) Receipt(ctx context.Context, tx common.Hash) (*types.Receipt, error) {
	r, err := c.eth.TransactionReceipt(ctx, tx)
	return r, c.classify("receipt", err)
}

// TransactionKnown reports whether the node knows the transaction, pending or mined.
func (c *Client) TransactionKnown(ctx context.Context, tx common.Hash) (bool, error) {
	_, _, err := c.eth.TransactionByHash(ctx, tx)
	if errors.Is(err, ethereum.NotFound) {
		return false, nil
	}
	return err == nil, c.classify("transaction", err)
}

// HeaderByHash returns a block's header; chains.ErrNotFound when the node has no such block.
// A header is what its hash commits to, so a header read once is kept (the last
// headerCacheSize of them) and concurrent reads of one hash share one call: the fifty fills a
// block includes, each closing with its block's timestamp, read its header once, not fifty
// times. The header is shared: callers only read it.
func (c *Client) HeaderByHash(ctx context.Context, hash common.Hash) (*types.Header, error) {
	if h, ok := c.headers.Get(hash); ok {
		return h, nil
	}
	h, err := sharedread.Do(ctx, &c.headerReads, hash.Hex(), 0, func(ctx context.Context) (*types.Header, error) {
		h, err := c.eth.HeaderByHash(ctx, hash)
		if err == nil && h.Hash() == hash {
			c.headers.Add(hash, h)
		}
		return h, err
	})
	return h, c.classify("header by hash", err)
}

// headerCacheSize is how many headers read by hash a client keeps: a few minutes of blocks.
const headerCacheSize = 256

// NonceAt returns the account's nonce at the latest block.
func (c *Client) NonceAt(ctx context.Context, account common.Address) (uint64, error) {
	n, err := c.eth.NonceAt(ctx, account, nil)
	return n, c.classify("nonce", err)
}

// PendingNonceAt returns the account's nonce counting the transactions the node's pool holds
// ready to be mined (PendingNonceReader).
func (c *Client) PendingNonceAt(ctx context.Context, account common.Address) (uint64, error) {
	n, err := c.eth.PendingNonceAt(ctx, account)
	return n, c.classify("pending nonce", err)
}

// EstimateGas returns the gas msg would use: a *chains.RevertError when it would revert,
// chains.ErrInsufficientFunds when the sender cannot pay its value and gas.
func (c *Client) EstimateGas(ctx context.Context, msg ethereum.CallMsg) (uint64, error) {
	gas, err := c.eth.EstimateGas(ctx, msg)
	return gas, c.classify("estimate gas", err)
}

// SuggestFees returns the node's suggested tip and the base fee of its latest block, in that
// order (two calls). A chain without a base fee (before London) is chains.ErrUnsupported.
func (c *Client) SuggestFees(ctx context.Context) (Fees, error) {
	tip, err := c.eth.SuggestGasTipCap(ctx)
	if err != nil {
		return Fees{}, c.classify("tip", err)
	}
	head, err := c.eth.HeaderByNumber(ctx, nil)
	if err != nil {
		return Fees{}, c.classify("head", err)
	}
	if head.BaseFee == nil {
		return Fees{}, &chains.Error{Kind: chains.ErrUnsupported, ChainID: c.chain.ID, Op: "head",
			Err: errors.New("the latest block has no base fee")}
	}
	return Fees{Tip: tip, BaseFee: head.BaseFee}, nil
}

// SendTransactions broadcasts txs in one JSON-RPC batch, in their order (TxBatchSender).
func (c *Client) SendTransactions(ctx context.Context, txs []*types.Transaction) []error {
	errs := make([]error, len(txs))
	elems := make([]rpc.BatchElem, 0, len(txs))
	at := make([]int, 0, len(txs)) // elems[k] is txs[at[k]]
	for i, tx := range txs {
		raw, err := tx.MarshalBinary()
		if err != nil {
			errs[i] = err
			continue
		}
		elems = append(elems, rpc.BatchElem{Method: "eth_sendRawTransaction", Args: []any{hexutil.Encode(raw)}, Result: new(common.Hash)})
		at = append(at, i)
	}
	if len(elems) == 0 {
		return errs
	}
	if err := c.eth.Client().BatchCallContext(ctx, elems); err != nil {
		for _, i := range at {
			errs[i] = c.classify("send transactions", err)
		}
		return errs
	}
	for k, e := range elems {
		errs[at[k]] = c.classify("send transaction", e.Error)
	}
	return errs
}

// SendTransaction broadcasts a signed transaction. Whether a refusal means the transaction is
// out (chains.ErrAlreadyKnown, chains.ErrNonceTooLow) is the caller's call.
func (c *Client) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	return c.classify("send transaction", c.eth.SendTransaction(ctx, tx))
}
