package activities

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"go.temporal.io/sdk/temporal"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/prices"
	"github.com/intentd/intentd/screening"
)

// ChainActivities pay on chains: fills and refunds, each through its chain's family
// (chains.Payout), which signs, keeps, sends and replaces the payment by its own policy. What
// is checked before a payment is signed (the solver's capacity, screening, whether a refund is
// worth its cost) and what its refusals mean for the request (a failReason) are decided here,
// the same for every family.
type ChainActivities struct {
	// Families are the chains' clients and the payout of each chain family.
	Families *chains.Families
	// Prices values ERC-20 refunds against their gas; optional.
	Prices prices.Source
	// MaxFill is the solver's capacity: the most it pays in one fill, by currency symbol, in
	// whole units (SOLVER_MAX_FILL); a currency not listed has no limit.
	MaxFill map[string]decimal.Decimal
	// Screening is the blocklist a fill's recipient and depositor and a refund's recipient are
	// checked against before they are signed (screening.go); nil screens nothing.
	Screening *screening.List
	// RefundGas is the gas ceiling refunds are signed with, per currency (REFUND_GAS_LIMITS).
	RefundGas RefundGas
	// Relays is the ledger of relayed gas (relay.go); nil relays nothing.
	Relays RelaySponsorships
}

// payout returns the payout of the family the payment names, for one of its chains, and the
// chain's registry entry, with the activity's logger in the context it is used with.
func (a *ChainActivities) payout(ctx context.Context, family chains.VMType, chainID uint64) (context.Context, chains.Payout, *chains.Chain, error) {
	p, err := a.Families.Payout(family, chainID)
	if err != nil {
		return ctx, nil, nil, err
	}
	ch, err := a.Families.Registry().Get(chainID)
	if err != nil {
		return ctx, nil, nil, err
	}
	return chains.WithLogger(ctx, logger(ctx)), p, ch, nil
}

// FillInput names the payment the solver makes for an order.
type FillInput struct {
	RequestID string
	ChainID   uint64
	// Family is the family that pays (the execution's PayoutFamily for a fill, the deposit's
	// Family for a refund); empty in inputs recorded before payments named it: the chain's own.
	Family    chains.VMType `json:",omitempty"`
	OrderID   string
	Currency  string
	Recipient string
	Amount    string
	// Depositor paid the deposit the fill answers: screened with the recipient before the fill is
	// signed. Empty in inputs recorded before it was passed.
	Depositor string `json:",omitempty"`
}

// FillSubmitted is the fill transaction as signed, stored and broadcast.
type FillSubmitted struct {
	TxHash string
}

// SubmitFill has the destination chain's family pay the fill once (signed and stored before it
// is broadcast) and broadcast it. A retry finds the stored payment and broadcasts it again, so
// the solver can never pay an order twice; the output settler also refuses a second fill.
// Before the first signing it checks what would make the fill fail, each a non-retryable
// failure the workflow refunds: the fill is over the solver's capacity per fill
// (SOLVER_CAPACITY_EXCEEDED); the solver holds too little (SOLVER_BALANCE_TOO_LOW), counting as
// spent what its fills and refunds signed but not yet included on the chain commit, so a burst
// larger than the inventory signs only the fills it can pay and refunds the rest (the family
// checks it where it allocates the payment's place: chains.Payout); the recipient or the
// depositor is on the screening blocklist (BLOCKED_WALLET, screenFill); the token refuses the
// recipient (DESTINATION_TOKEN_TRANSFER_REJECTED); or the fill would revert for another reason
// (EXECUTION_REVERTED).
func (a *ChainActivities) SubmitFill(ctx context.Context, in FillInput) (*FillSubmitted, error) {
	ctx, p, ch, err := a.payout(ctx, in.Family, in.ChainID)
	if err != nil {
		return nil, err
	}
	amount, ok := new(big.Int).SetString(in.Amount, 10)
	if !ok || amount.Sign() <= 0 {
		return nil, failure(intent.FailReasonUnknown, "invalid fill amount "+in.Amount, nil)
	}
	sent, err := p.Pay(ctx, chains.Payment{RequestID: in.RequestID, Kind: intent.TxKindFill, ChainID: in.ChainID, OrderID: in.OrderID,
		Currency: in.Currency, Recipient: in.Recipient, Amount: amount,
		Check: func(ctx context.Context, _ *big.Int) error {
			if err := a.screenFill(ch, in); err != nil {
				return err
			}
			return a.checkCapacity(ch, in.Currency, amount)
		}})
	if err != nil {
		return nil, fillFailure(err)
	}
	return &FillSubmitted{TxHash: sent.TxHash}, nil
}

// fillFailure maps a fill's refusal by its chain's family to the workflow's non-retryable
// failure; anything else is retried.
func fillFailure(err error) error {
	var (
		app   *temporal.ApplicationError
		short *intent.InventoryShortfall
		r     *chains.RevertError
		large *chains.TxTooLargeError
	)
	switch {
	case errors.As(err, &app):
		return err // the checks before signing decided
	case errors.As(err, &large):
		return failure(intent.FailReasonTransactionTooLarge, "the fill's transaction cannot be sent: "+large.Error(), large)
	case errors.As(err, &r):
		if r.Blocked {
			return failure(intent.FailReasonDestinationTokenTransferRejected, "the token refuses the recipient: "+r.Reason, r)
		}
		if r.Name == "AlreadyFilled" {
			// Someone else paid the order on the destination: the recipient has its output, so
			// the deposit must not also be refunded.
			return failure(intent.FailReasonOrderAlreadyFilled, "the order is already filled on the destination: "+r.Reason, r)
		}
		if r.Name == "InsufficientBalance" {
			return failure(intent.FailReasonSolverBalanceTooLow, "the solver's balance is too low: "+r.Reason, r)
		}
		return failure(intent.FailReasonExecutionReverted, "the fill would revert: "+r.Reason, r)
	case errors.Is(err, chains.ErrInsufficientFunds):
		return failure(intent.FailReasonSolverBalanceTooLow, "the solver cannot pay the fill and its gas: "+err.Error(), err)
	case errors.As(err, &short):
		return failure(intent.FailReasonSolverBalanceTooLow, "the solver cannot pay the fill and its gas: "+short.Error(), short)
	case errors.Is(err, chains.ErrStoredCorrupt):
		return failure(intent.FailReasonUnknown, "stored transaction does not decode", err)
	}
	return err
}

// checkCapacity fails with SOLVER_CAPACITY_EXCEEDED when the fill pays more than the solver's
// configured capacity for the currency. It is checked when the fill is signed, so a lowered
// capacity also holds for orders quoted before the change.
func (a *ChainActivities) checkCapacity(ch *chains.Chain, currency string, amount *big.Int) error {
	cur, ok := ch.FindCurrency(currency)
	if !ok {
		return nil
	}
	limit, ok := a.MaxFill[strings.ToUpper(cur.Symbol)]
	if !ok {
		return nil
	}
	if decimal.NewFromBigInt(amount, -int32(cur.Decimals)).GreaterThan(limit) {
		return failure(intent.FailReasonSolverCapacityExceeded, fmt.Sprintf("the fill of %s %s is over the solver's capacity of %s %s per fill",
			intent.FormatUnits(amount, cur.Decimals), cur.Symbol, limit, cur.Symbol), nil)
	}
	return nil
}

// AwaitTxInput names a broadcast transaction to wait for.
type AwaitTxInput struct {
	RequestID string
	Kind      intent.TxKind
	ChainID   uint64
	TxHash    string
	// Family is the family that pays (the execution's PayoutFamily for a fill, the deposit's
	// Family for a refund); empty in inputs recorded before payments named it: the chain's own.
	Family chains.VMType `json:",omitempty"`
}

// TxIncluded is the included attempt of a payment (chains.Included).
type TxIncluded = chains.Included

// AwaitTx returns once one attempt of the request's payment of that kind is included (for EVM
// chains all attempts share a nonce, so at most one can be). It is a wait inside one activity
// (see await): it has the chain's family look for the attempts on every new block of the chain
// (chains.InclusionWatch, which sends the latest attempt again while none is included),
// heartbeating between. A chain or database it cannot reach is tried again inside the wait. A
// wait whose attempts were all voided by the chain's reset ends with Voided once the node knows
// none of them. The workflow's schedule-to-close timeout bounds the wait; when it
// passes the activity times out, as before.
func (a *ChainActivities) AwaitTx(ctx context.Context, in AwaitTxInput) (*TxIncluded, error) {
	ctx, p, _, err := a.payout(ctx, in.Family, in.ChainID)
	if err != nil {
		return nil, err
	}
	heads, err := chains.Capability[chains.HeadWatcher](a.Families.Clients(), in.ChainID)
	if err != nil {
		return nil, err
	}
	watch := p.Watch(chains.WatchPayment{RequestID: in.RequestID, Kind: in.Kind, ChainID: in.ChainID, TxHash: in.TxHash})
	var out *TxIncluded
	// deferred: a block's receipts are read once its fills' window has passed, so that a mined
	// fill's success does not hold up the fills that block's confirmations start.
	spec := waitSpec{what: "inclusion", chain: heads, heartbeat: func() { heartbeat(ctx, nil) }, deferred: true,
		attrs: []any{"requestId", in.RequestID, "kind", in.Kind, "chainId", in.ChainID, "tx", in.TxHash}}
	started := time.Now()
	checks, err := await(ctx, spec, func(ctx context.Context) (bool, error) {
		inc, err := watch.Check(ctx)
		if err != nil {
			return false, unavailable(err)
		}
		out = inc
		return inc != nil, nil
	})
	if err != nil {
		return nil, err
	}
	logger(ctx).Info("transaction mined", with(spec.attrs, "mined", out.Hash, "block", out.Block, "success", out.Success,
		"checks", checks, "waited", time.Since(started).Round(time.Millisecond))...)
	return out, nil
}

// StoredTxInput names a request's solver transaction of one kind.
type StoredTxInput struct {
	RequestID string
	Kind      intent.TxKind
}

// StoredTx says whether the transaction was ever signed and stored, and its latest attempt.
type StoredTx struct {
	Found bool
	Hash  string
}

// StoredSolverTx looks up a request's stored payment of one kind.
func (a *ChainActivities) StoredSolverTx(ctx context.Context, in StoredTxInput) (*StoredTx, error) {
	// The request's payments are on one chain; the kind's family keeps them. A request's chain
	// is not in the input (recorded histories), so each family that pays is asked.
	for _, p := range a.Families.Payouts() {
		t, err := p.Stored(ctx, in.RequestID, in.Kind)
		if errors.Is(err, intent.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return &StoredTx{Found: true, Hash: t.TxHash}, nil
	}
	return &StoredTx{}, nil
}

// ReplaceInput names the attempt of a request's payment to replace.
type ReplaceInput struct {
	RequestID string
	Kind      intent.TxKind
	ChainID   uint64
	// Family is the family that pays (the execution's PayoutFamily for a fill, the deposit's
	// Family for a refund); empty in inputs recorded before payments named it: the chain's own.
	Family chains.VMType `json:",omitempty"`
	// After is the attempt being replaced; the replacement is attempt After+1. A retry finds
	// the replacement already stored and broadcasts it again.
	After int
	// MaxBumps is how many replacements may still pay (FILL_MAX_BUMPS); past them the family
	// replaces by its own policy (EVM: a cancellation, which pays nothing) and says so with
	// Replaced.Final.
	MaxBumps int `json:",omitempty"`
}

// Replaced is the replacement as stored and broadcast (chains.Replaced): Final when the family
// replaces the payment no more.
type Replaced = chains.Replaced

// ReplaceTx has the chain's family replace a payment that is not being included, by the
// family's policy (EVM: same nonce and fees raised, then after MaxBumps a cancellation, the
// Final replacement), signed once and stored before broadcast like the first attempt. A
// payment voided by a chain's reset is never replaced (a non-retryable error).
func (a *ChainActivities) ReplaceTx(ctx context.Context, in ReplaceInput) (*Replaced, error) {
	ctx, p, _, err := a.payout(ctx, in.Family, in.ChainID)
	if err != nil {
		return nil, err
	}
	rep, err := p.Replace(ctx, chains.Replacement{RequestID: in.RequestID, Kind: in.Kind, ChainID: in.ChainID, After: in.After,
		MaxBumps: in.MaxBumps})
	switch {
	case errors.Is(err, intent.ErrVoided):
		return nil, temporal.NewNonRetryableApplicationError("not replaced: "+err.Error(), "TX_VOIDED", err)
	case errors.Is(err, chains.ErrStoredCorrupt):
		return nil, failure(intent.FailReasonUnknown, "stored transaction does not decode", err)
	case err != nil:
		return nil, err
	}
	return rep, nil
}
