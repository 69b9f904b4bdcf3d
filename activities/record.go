package activities

import (
	"context"
	"errors"
	"math/big"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/prices"
)

// receiptAttempts is how many attempts of a read-model write wait for a transaction's receipt
// that cannot be read; after them the transition is written without the fee and timestamp it
// lacks (a later write of the same transaction completes the item), so that a chain outage
// never holds up a request's status.
const receiptAttempts = 5

// receiptTimeout bounds one receipt or header read of a write.
const receiptTimeout = 5 * time.Second

// complete fills in what a transition's mined transactions lack before it is written: fee (gas
// used × effective gas price), block and timestamp from the receipt and its block when the
// workflow did not know them (a deposit), and feeUsd, the fee at the price of the chain's
// native currency now. It also names the depository of the deposit's chain. Unknown stays
// unknown: a receipt not found (not mined, or reorged away) and a price the source has not are
// left out.
func (a *StoreActivities) complete(ctx context.Context, t *intent.Transition) error {
	if a.Chains == nil {
		return nil
	}
	reg := a.Chains.Registry()
	if t.Deposit != nil && t.Depository == "" {
		if c, err := reg.Get(t.Deposit.ChainID); err == nil {
			t.Depository = c.Depository
		}
	}
	for i := range t.Txs {
		x := &t.Txs[i]
		if x.Status == intent.TxPending || x.Hash == "" {
			continue
		}
		if x.Fee == "" || x.Timestamp == 0 {
			if err := a.fromReceipt(ctx, x); err != nil {
				if attempt(ctx) < receiptAttempts {
					return err
				}
				logger(ctx).Warn("transaction written without its receipt", "requestId", t.RequestID, "tx", x.Hash, "error", err)
			}
		}
		if x.Fee != "" && x.FeeUsd == "" && a.Prices != nil {
			if c, err := reg.Get(x.ChainID); err == nil {
				x.FeeUsd = a.feeUSD(ctx, c.Currency, x.Fee)
			}
		}
	}
	return nil
}

// fromReceipt reads a mined transaction's fee, block and timestamp (chains.TxFactsReader).
func (a *StoreActivities) fromReceipt(ctx context.Context, x *intent.Tx) error {
	c, err := chains.Capability[chains.TxFactsReader](a.Chains, x.ChainID)
	if err != nil {
		return nil // a chain this engine cannot read: nothing to add
	}
	rctx, cancel := context.WithTimeout(ctx, receiptTimeout)
	defer cancel()
	f, err := c.TxFacts(rctx, x.Hash, x.Timestamp == 0)
	if errors.Is(err, chains.ErrNotFound) && f == nil {
		return nil
	}
	if f == nil {
		return err
	}
	if f.Fee != nil && x.Fee == "" {
		x.Fee = f.Fee.String()
	}
	if x.Block == 0 {
		x.Block = f.Block
	}
	if x.Timestamp == 0 {
		x.Timestamp = f.Timestamp
	}
	return err
}

// feeUSD values a fee in wei of the native currency; "" when the price cannot be had.
func (a *StoreActivities) feeUSD(ctx context.Context, native chains.Currency, fee string) string {
	wei, ok := new(big.Int).SetString(fee, 10)
	if !ok {
		return ""
	}
	price, err := a.Prices.USDPrice(ctx, native.Symbol)
	if err != nil {
		if !errors.Is(err, prices.ErrNoSource) {
			logger(ctx).Warn("transaction fee not valued", "symbol", native.Symbol, "error", err)
		}
		return ""
	}
	return intent.USDValue(wei, native.Decimals, price).StringFixed(6)
}

// attempt is the activity's attempt number (1 for the first), 1 outside an activity.
func attempt(ctx context.Context) int32 {
	if activity.IsActivity(ctx) {
		return activity.GetInfo(ctx).Attempt
	}
	return 1
}
