package activities

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"go.temporal.io/sdk/activity"

	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
)

// ChainActivities act on chains with the solver's key.
type ChainActivities struct {
	Chains    *evm.Pool
	Store     *store.Store
	SolverKey *ecdsa.PrivateKey
}

// solverAddress is the address fills are paid from. (Not exported: every exported method of an
// activity struct is registered as an activity.)
func (a *ChainActivities) solverAddress() common.Address {
	return crypto.PubkeyToAddress(a.SolverKey.PublicKey)
}

// FillInput names the payment the solver makes for an order.
type FillInput struct {
	RequestID string
	ChainID   uint64
	OrderID   string
	Currency  string
	Recipient string
	Amount    string
}

// FillSubmitted is the fill transaction as signed, stored and broadcast.
type FillSubmitted struct {
	TxHash string
	Nonce  uint64
}

// SubmitFill signs the fill once (stored in Postgres with a nonce allocated there) and
// broadcasts it. A retry finds the stored transaction and broadcasts the same bytes again, so
// the solver can never pay an order twice; the output settler also refuses a second fill.
func (a *ChainActivities) SubmitFill(ctx context.Context, in FillInput) (*FillSubmitted, error) {
	c, err := a.Chains.Client(in.ChainID)
	if err != nil {
		return nil, err
	}
	from := a.solverAddress()
	amount, ok := new(big.Int).SetString(in.Amount, 10)
	if !ok || amount.Sign() <= 0 {
		return nil, failure(intent.FailReasonUnknown, "invalid fill amount "+in.Amount, nil)
	}
	settler := common.HexToAddress(c.Chain.OutputSettler)
	data, value := evm.FillCalldata(common.HexToHash(in.OrderID), common.HexToAddress(in.Currency), common.HexToAddress(in.Recipient), amount)

	stored, err := a.Store.SolverTx(ctx, in.RequestID, "fill")
	if errors.Is(err, store.ErrNotFound) {
		chainNonce, err := c.NonceAt(ctx, from)
		if err != nil {
			return nil, err
		}
		gas, err := c.Eth().EstimateGas(ctx, ethereum.CallMsg{From: from, To: &settler, Data: data, Value: value})
		if err != nil {
			if errors.Is(err, evm.ErrUnavailable) {
				return nil, err
			}
			return nil, fmt.Errorf("estimate fill gas: %w", err)
		}
		tip, err := c.Eth().SuggestGasTipCap(ctx)
		if err != nil {
			return nil, fmt.Errorf("%w: tip: %v", evm.ErrUnavailable, err)
		}
		head, err := c.Eth().HeaderByNumber(ctx, nil)
		if err != nil {
			return nil, fmt.Errorf("%w: head: %v", evm.ErrUnavailable, err)
		}
		feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip)
		signer := types.LatestSignerForChainID(new(big.Int).SetUint64(in.ChainID))
		stored, err = a.Store.PrepareSolverTx(ctx, in.RequestID, "fill", in.ChainID, from.Hex(), chainNonce,
			func(nonce uint64) (string, []byte, error) {
				tx, err := types.SignNewTx(a.SolverKey, signer, &types.DynamicFeeTx{
					ChainID: new(big.Int).SetUint64(in.ChainID), Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap,
					Gas: gas * 12 / 10, To: &settler, Value: value, Data: data,
				})
				if err != nil {
					return "", nil, err
				}
				raw, err := tx.MarshalBinary()
				return tx.Hash().Hex(), raw, err
			})
	}
	if err != nil {
		return nil, err
	}
	var tx types.Transaction
	if err := tx.UnmarshalBinary(stored.Raw); err != nil {
		return nil, failure(intent.FailReasonUnknown, "stored fill does not decode", err)
	}
	if err := c.SendRaw(ctx, &tx); err != nil {
		activity.GetLogger(ctx).Warn("fill broadcast failed; will retry", "requestId", in.RequestID, "tx", stored.Hash, "error", err)
		return nil, fmt.Errorf("%w: broadcast: %v", evm.ErrUnavailable, err)
	}
	return &FillSubmitted{TxHash: stored.Hash, Nonce: stored.Nonce}, nil
}

// AwaitTxInput names a broadcast transaction to wait for.
type AwaitTxInput struct {
	RequestID string
	Kind      string
	ChainID   uint64
	TxHash    string
}

// TxIncluded is a mined transaction.
type TxIncluded struct {
	Block     uint64
	Timestamp int64
	Success   bool
	Fee       string
}

// errNotMined makes the activity retry until the transaction is in a block.
var errNotMined = errors.New("transaction not mined yet")

// AwaitTx returns once the transaction is mined. While it is not, the stored transaction is
// broadcast again (a node may have dropped it) and the activity retries.
func (a *ChainActivities) AwaitTx(ctx context.Context, in AwaitTxInput) (*TxIncluded, error) {
	c, err := a.Chains.Client(in.ChainID)
	if err != nil {
		return nil, err
	}
	r, err := c.Receipt(ctx, common.HexToHash(in.TxHash))
	if errors.Is(err, ethereum.NotFound) {
		if stored, serr := a.Store.SolverTx(ctx, in.RequestID, in.Kind); serr == nil {
			var tx types.Transaction
			if tx.UnmarshalBinary(stored.Raw) == nil {
				_ = c.SendRaw(ctx, &tx)
			}
		}
		return nil, errNotMined
	}
	if err != nil {
		return nil, err
	}
	out := &TxIncluded{Block: r.BlockNumber.Uint64(), Success: r.Status == types.ReceiptStatusSuccessful}
	if r.EffectiveGasPrice != nil {
		out.Fee = new(big.Int).Mul(r.EffectiveGasPrice, new(big.Int).SetUint64(r.GasUsed)).String()
	}
	if h, err := c.Eth().HeaderByHash(ctx, r.BlockHash); err == nil {
		out.Timestamp = int64(h.Time)
	}
	return out, nil
}
