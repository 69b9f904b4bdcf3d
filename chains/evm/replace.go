package evm

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
)

// Fee bumps: a replacement pays at least bumpPercent more tip and fee cap than the attempt it
// replaces (nodes ask for 10%), and never less than the chain's current price.
const bumpPercent = 125

// Replace replaces a transaction that is not being included, by the EVM family's policy: the
// first MaxBumps replacements are the same call with the same nonce and fees raised by at least
// bumpPercent (a relayed set-code transaction stays one, with its authorizations); the one after
// them is a cancellation (a plain zero-value transfer from the signer, the solver or for a relay
// the relayer, to itself with the same nonce, which uses the nonce without paying anything) and
// the last (Final): whichever attempt is mined, the nonce allows only one. Each is signed once
// and stored before broadcast like the first attempt. A transaction voided by a chain's reset is
// never replaced (intent.ErrVoided).
func (p *Payout) Replace(ctx context.Context, in chains.Replacement) (*chains.Replaced, error) {
	c, err := p.chain(in.ChainID)
	if err != nil {
		return nil, err
	}
	fees, err := patientReads{c}.SuggestFees(ctx)
	if err != nil {
		return nil, err
	}
	cancel := in.After >= in.MaxBumps
	// A relay is the relayer's transaction: its replacements and its cancellation are the
	// relayer's too, at its nonce.
	key := p.key
	if in.Kind == intent.TxKindRelay {
		if p.relayer == nil {
			return nil, errNoRelayer(in.ChainID)
		}
		key = p.relayer
	}
	self := crypto.PubkeyToAddress(key.PublicKey)
	stored, err := p.store.ReplaceSolverTx(ctx, in.RequestID, in.Kind, in.After, cancel,
		func(prev store.SolverTx) (string, []byte, *big.Int, error) {
			var old types.Transaction
			if err := old.UnmarshalBinary(prev.Raw); err != nil {
				return "", nil, nil, err
			}
			newTip := maxBig(bump(old.GasTipCap()), fees.Tip)
			newCap := maxBig(bump(old.GasFeeCap()), fees.FeeCap(newTip))
			var next types.TxData
			gas := old.Gas()
			switch {
			case cancel:
				// A cancellation is a plain self-send, whatever it replaces: it uses the nonce
				// and carries nothing (no call, no authorization).
				gas = 21_000
				next = &types.DynamicFeeTx{ChainID: old.ChainId(), Nonce: old.Nonce(), GasTipCap: newTip, GasFeeCap: newCap,
					Gas: gas, To: &self, Value: new(big.Int)}
			case old.Type() == types.SetCodeTxType:
				// A relayed set-code transaction keeps its shape and its authorizations.
				next = &types.SetCodeTx{ChainID: uint256.MustFromBig(old.ChainId()), Nonce: old.Nonce(),
					GasTipCap: uint256.MustFromBig(newTip), GasFeeCap: uint256.MustFromBig(newCap), Gas: gas, To: *old.To(),
					Value: uint256.MustFromBig(old.Value()), Data: old.Data(), AuthList: old.SetCodeAuthorizations()}
			default:
				next = &types.DynamicFeeTx{ChainID: old.ChainId(), Nonce: old.Nonce(), GasTipCap: newTip, GasFeeCap: newCap,
					Gas: gas, To: old.To(), Value: old.Value(), Data: old.Data()}
			}
			tx, err := types.SignNewTx(key, types.LatestSignerForChainID(old.ChainId()), next)
			if err != nil {
				return "", nil, nil, err
			}
			raw, err := tx.MarshalBinary()
			return tx.Hash().Hex(), raw, maxGasCost(gas, newCap), err
		})
	if err != nil {
		return nil, err
	}
	if err := broadcast(ctx, c, stored); err != nil {
		return nil, err
	}
	chains.LoggerFrom(ctx).Info("transaction replaced", "requestId", in.RequestID, "kind", in.Kind, "attempt", stored.Attempt,
		"cancel", cancel, "nonce", stored.Nonce, "tx", stored.Hash)
	return &chains.Replaced{TxHash: stored.Hash, Attempt: stored.Attempt, Final: cancel}, nil
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
