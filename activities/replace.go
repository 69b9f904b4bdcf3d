package activities

import (
	"context"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/core/types"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/intentd/intentd/intent"
)

// ReplaceInput names the attempt of a request's transaction to replace.
type ReplaceInput struct {
	RequestID string
	Kind      intent.TxKind
	ChainID   uint64
	// After is the attempt being replaced; the replacement is attempt After+1. A retry finds
	// the replacement already stored and broadcasts it again.
	After int
	// Cancel replaces the transaction with a zero-value transfer from the solver to itself, so
	// the nonce is used without paying anything.
	Cancel bool
}

// Replaced is the replacement as stored and broadcast.
type Replaced struct {
	TxHash  string
	Attempt int
}

// Fee bumps: a replacement pays at least bumpPercent more tip and fee cap than the attempt it
// replaces (nodes ask for 10%), and never less than the chain's current price.
const bumpPercent = 125

// ReplaceTx replaces a transaction that is not being included: same nonce, fees raised by at
// least bumpPercent, signed once and stored before broadcast like the first attempt. A
// transaction voided by a chain's reset is never replaced (a non-retryable error).
func (a *ChainActivities) ReplaceTx(ctx context.Context, in ReplaceInput) (*Replaced, error) {
	c, err := a.chain(in.ChainID)
	if err != nil {
		return nil, err
	}
	fees, err := patientReads{c}.SuggestFees(ctx)
	if err != nil {
		return nil, err
	}
	solver := a.solverAddress()
	stored, err := a.Store.ReplaceSolverTx(ctx, in.RequestID, in.Kind, in.After, in.Cancel,
		func(prev intent.SolverTx) (string, []byte, *big.Int, error) {
			var old types.Transaction
			if err := old.UnmarshalBinary(prev.Raw); err != nil {
				return "", nil, nil, err
			}
			newTip := maxBig(bump(old.GasTipCap()), fees.Tip)
			newCap := maxBig(bump(old.GasFeeCap()), fees.FeeCap(newTip))
			next := &types.DynamicFeeTx{ChainID: old.ChainId(), Nonce: old.Nonce(), GasTipCap: newTip, GasFeeCap: newCap,
				Gas: old.Gas(), To: old.To(), Value: old.Value(), Data: old.Data()}
			if in.Cancel {
				next.To, next.Value, next.Data, next.Gas = &solver, new(big.Int), nil, 21_000
			}
			tx, err := types.SignNewTx(a.SolverKey, types.LatestSignerForChainID(old.ChainId()), next)
			if err != nil {
				return "", nil, nil, err
			}
			raw, err := tx.MarshalBinary()
			return tx.Hash().Hex(), raw, maxGasCost(next.Gas, next.GasFeeCap), err
		})
	if errors.Is(err, intent.ErrVoided) {
		return nil, temporal.NewNonRetryableApplicationError("not replaced: "+err.Error(), "TX_VOIDED", err)
	}
	if err != nil {
		return nil, err
	}
	if err := broadcast(ctx, c, stored); err != nil {
		return nil, err
	}
	activity.GetLogger(ctx).Info("transaction replaced", "requestId", in.RequestID, "kind", in.Kind, "attempt", stored.Attempt,
		"cancel", in.Cancel, "nonce", stored.Nonce, "tx", stored.Hash)
	return &Replaced{TxHash: stored.Hash, Attempt: stored.Attempt}, nil
}

func bump(v *big.Int) *big.Int {
	out := new(big.Int).Mul(v, big.NewInt(bumpPercent))
	out.Add(out, big.NewInt(99))
	out.Div(out, big.NewInt(100))
	return out.Add(out, big.NewInt(1))
}

func maxBig(a, b *big.Int) *big.Int {
	if a.Cmp(b) >= 0 {
		return a
	}
	return new(big.Int).Set(b)
}
