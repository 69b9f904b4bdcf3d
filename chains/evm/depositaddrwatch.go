package evm

import (
	"cmp"
	"context"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
)

// Watching deposit addresses (chains.DepositAddressReader, docs/deposit-addresses.md, "Watching
// and sweeping"). However many addresses are issued, a block range costs the same few calls,
// none per address: the payments are found in what the range holds and matched against the
// watched set in memory.
//
//   - ERC-20 payments: one eth_getLogs of the Transfer events of the chain's listed ERC-20
//     currencies in the range; a log whose recipient (its third topic) is watched is a payment.
//   - Native payments: the range's blocks with their transactions (eth_getBlockByNumber, full
//     transaction objects), read in the same JSON-RPC batch as the logs; a transaction to a
//     watched address with a value is a payment if it succeeded, which its receipt says: a
//     receipt is read only for such a transaction (one batch for all of them), never a balance
//     of every address. A balance would not do: it does not tell a failed transfer from money
//     that was there before.
//
// Native value a contract moves to an address inside its own execution (an exchange's batch
// withdrawal contract, a smart-contract wallet's call) is in no transaction's to and value, and
// leaves no log: it is not seen. Its payer asks for a reindex of the address, which reads the
// address's balance (docs/deposit-addresses.md).

// blocksPerBatch bounds the blocks of one JSON-RPC batch of a range's native payments.
const blocksPerBatch = 100

// transferEventID is the ERC-20 Transfer event's topic.
var transferEventID = ERC20ABI.GetABI().Events["Transfer"].ID

// DepositAddressTransfers returns the payments to the watched addresses in blocks [from, to], in
// the chain's order (chains.DepositAddressReader). With no address watched it reads nothing.
func (c *Client) DepositAddressTransfers(ctx context.Context, from, to uint64, watched chains.WatchedAddresses) ([]intent.DepositAddressTransfer, error) {
	if watched == nil || watched.Len() == 0 || to < from {
		return nil, nil
	}
	var found []located
	var tokens []common.Address
	for _, cur := range c.chain.Currencies() {
		if !cur.IsNative() {
			tokens = append(tokens, common.HexToAddress(cur.Address))
		}
	}
	var candidates []located // native transfers to a watched address, success unknown
	for start := from; start <= to; start += blocksPerBatch {
		end := min(to, start+blocksPerBatch-1)
		var logs []types.Log
		elems := make([]rpc.BatchElem, 0, end-start+2)
		if start == from && len(tokens) > 0 {
			elems = append(elems, rpc.BatchElem{Method: "eth_getLogs", Args: []any{map[string]any{
				"fromBlock": hexutil.EncodeUint64(from), "toBlock": hexutil.EncodeUint64(to), "address": tokens,
				"topics": [][]common.Hash{{transferEventID}}}}, Result: &logs})
		}
		blocks := make([]*rpcBlock, end-start+1)
		for i := range blocks {
			elems = append(elems, rpc.BatchElem{Method: "eth_getBlockByNumber", Args: []any{hexutil.EncodeUint64(start + uint64(i)), true},
				Result: &blocks[i]})
		}
		if err := c.batch(ctx, "deposit address reads", elems); err != nil {
			return nil, err
		}
		for i := range logs {
			if t, ok := c.tokenTransfer(&logs[i], watched); ok {
				found = append(found, t)
			}
		}
		for i, b := range blocks {
			if b == nil {
				return nil, &chains.Error{Kind: chains.ErrUnavailable, ChainID: c.chain.ID, Op: "block",
					Err: fmt.Errorf("the node has no block %d yet", start+uint64(i))}
			}
			candidates = append(candidates, c.nativeTransfers(b, watched)...)
		}
	}
	landed, err := c.landed(ctx, candidates)
	if err != nil {
		return nil, err
	}
	found = append(found, landed...)
	slices.SortFunc(found, func(a, b located) int {
		return cmp.Or(cmp.Compare(a.BlockNumber, b.BlockNumber), cmp.Compare(a.txIndex, b.txIndex), cmp.Compare(a.LogIndex, b.LogIndex))
	})
	out := make([]intent.DepositAddressTransfer, len(found))
	for i, f := range found {
		out[i] = f.DepositAddressTransfer
	}
	return out, nil
}

// located is a payment with its transaction's place in its block, to put payments in the
// chain's order.
type located struct {
	intent.DepositAddressTransfer
	txIndex uint
}

// rpcBlock is what the watch reads of a block with its transactions (eth_getBlockByNumber with
// full transaction objects): nothing is decoded or checked beyond it.
type rpcBlock struct {
	Number       hexutil.Uint64 `json:"number"`
	Transactions []rpcTx        `json:"transactions"`
}

// rpcTx is what the watch reads of a transaction.
type rpcTx struct {
	Hash  common.Hash     `json:"hash"`
	From  common.Address  `json:"from"`
	To    *common.Address `json:"to"`
	Value *hexutil.Big    `json:"value"`
	Index hexutil.Uint64  `json:"transactionIndex"`
}

// watchedKey is how an address is looked up in the watched set: lower-case hex, as the store
// keeps addresses.
func watchedKey(a common.Address) string { return strings.ToLower(a.Hex()) }

// tokenTransfer is the payment a Transfer log makes to a watched address.
func (c *Client) tokenTransfer(l *types.Log, watched chains.WatchedAddresses) (located, bool) {
	if l.Removed || len(l.Topics) != 3 || l.Topics[0] != transferEventID || len(l.Data) != 32 {
		return located{}, false
	}
	to := common.BytesToAddress(l.Topics[2].Bytes())
	id, ok := watched.Watched(watchedKey(to))
	if !ok {
		return located{}, false
	}
	amount := new(big.Int).SetBytes(l.Data)
	if amount.Sign() == 0 {
		return located{}, false
	}
	return located{DepositAddressTransfer: intent.DepositAddressTransfer{ChainID: c.chain.ID, TxHash: l.TxHash.Hex(),
		LogIndex: int(l.Index), AddressID: id, BlockNumber: l.BlockNumber, Sender: common.BytesToAddress(l.Topics[1].Bytes()).Hex(),
		Currency: l.Address.Hex(), Amount: amount.String()}, txIndex: l.TxIndex}, true
}

// nativeTransfers are the transactions of b that send value to a watched address: payments if
// they succeeded.
func (c *Client) nativeTransfers(b *rpcBlock, watched chains.WatchedAddresses) []located {
	var out []located
	for _, tx := range b.Transactions {
		if tx.To == nil || tx.Value == nil || tx.Value.ToInt().Sign() <= 0 {
			continue
		}
		id, ok := watched.Watched(watchedKey(*tx.To))
		if !ok {
			continue
		}
		out = append(out, located{DepositAddressTransfer: intent.DepositAddressTransfer{ChainID: c.chain.ID, TxHash: tx.Hash.Hex(),
			LogIndex: intent.NativeTransferLogIndex, AddressID: id, BlockNumber: uint64(b.Number), Sender: tx.From.Hex(),
			Currency: common.Address{}.Hex(), Amount: tx.Value.ToInt().String()}, txIndex: uint(tx.Index)})
	}
	return out
}

// landed keeps the native transfers whose transactions succeeded, reading their receipts in one
// batch.
func (c *Client) landed(ctx context.Context, candidates []located) ([]located, error) {
	if len(candidates) == 0 {
		return nil, nil
	}
	receipts := make([]*types.Receipt, len(candidates))
	elems := make([]rpc.BatchElem, len(candidates))
	for i, t := range candidates {
		elems[i] = rpc.BatchElem{Method: "eth_getTransactionReceipt", Args: []any{common.HexToHash(t.TxHash)}, Result: &receipts[i]}
	}
	if err := c.batch(ctx, "deposit address receipts", elems); err != nil {
		return nil, err
	}
	var out []located
	for i, r := range receipts {
		if r == nil {
			return nil, &chains.Error{Kind: chains.ErrUnavailable, ChainID: c.chain.ID, Op: "receipt",
				Err: fmt.Errorf("no receipt of %s, a transaction of a block read", candidates[i].TxHash)}
		}
		if r.Status == types.ReceiptStatusSuccessful {
			out = append(out, candidates[i])
		}
	}
	return out, nil
}

// batch sends elems in one JSON-RPC batch; the first failure, of the batch or of an element, is
// its error, classified.
func (c *Client) batch(ctx context.Context, op string, elems []rpc.BatchElem) error {
	if err := c.eth.Client().BatchCallContext(ctx, elems); err != nil {
		return c.classify(op, err)
	}
	for _, e := range elems {
		if e.Error != nil {
			return c.classify(op, fmt.Errorf("%s: %w", e.Method, e.Error))
		}
	}
	return nil
}
