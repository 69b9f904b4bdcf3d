package evm

import (
	"context"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/intentd/intentd/chains"
)

// The EVM family's funding (chains.Funding): a request is funded by a Deposit event of the
// chain's depository naming its order (Deposits and DepositsInTx, heads.go's readers of the
// depository's logs); a funding transaction is found by its receipt and the node's pool.

// TxBlock returns the block a transaction is mined in; chains.ErrNotFound while it is not mined.
func (c *Client) TxBlock(ctx context.Context, tx string) (chains.Block, error) {
	r, err := c.Receipt(ctx, common.HexToHash(tx))
	if err != nil {
		return chains.Block{}, err
	}
	if r.BlockNumber == nil {
		return chains.Block{}, errors.New("receipt without a block number")
	}
	return chains.Block{Number: r.BlockNumber.Uint64(), Hash: r.BlockHash.Hex()}, nil
}

// TxKnown reports whether the node knows the transaction, pending or mined.
func (c *Client) TxKnown(ctx context.Context, tx string) (bool, error) {
	return c.TransactionKnown(ctx, common.HexToHash(tx))
}

// TxFacts reads a mined transaction's block and fee (gas used × effective gas price) from its
// receipt and, withTime, its block's timestamp from the block's header (cached by hash,
// HeaderByHash). A header the node does not have leaves the timestamp 0.
func (c *Client) TxFacts(ctx context.Context, tx string, withTime bool) (*chains.TxFacts, error) {
	r, err := c.Receipt(ctx, common.HexToHash(tx))
	if err != nil {
		return nil, err
	}
	f := &chains.TxFacts{Block: r.BlockNumber.Uint64()}
	if r.EffectiveGasPrice != nil {
		f.Fee = new(big.Int).Mul(r.EffectiveGasPrice, new(big.Int).SetUint64(r.GasUsed))
	}
	if !withTime {
		return f, nil
	}
	h, err := c.HeaderByHash(ctx, r.BlockHash)
	if err != nil && !errors.Is(err, chains.ErrNotFound) {
		return f, err
	}
	if h != nil {
		f.Timestamp = int64(h.Time)
	}
	return f, nil
}
