// Package activities holds the Intent workflow's activities: structs that carry their
// dependencies (the read model, the chain families, the oracle) with one Input and one Result
// type per activity. Every activity is idempotent, so a retried activity or a reset workflow
// never repeats an effect: fills and refunds are paid through their chain's family
// (chains.Payout), which keeps each payment before it is broadcast and broadcasts it again on
// retry. The activities are chain-neutral: they find a chain's family by the chain's id
// (chains.Families) and name none (internal/archtest).
// Errors are classified here: a failure the workflow should act on is a non-retryable
// application error whose type is a failReason value.
package activities

import (
	"context"
	"strconv"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/metrics"
	"github.com/intentd/intentd/prices"
)

// ReadModel is the part of the read model (store.Store) the workflows write through activities.
type ReadModel interface {
	ApplyTransition(ctx context.Context, t intent.Transition) (applied bool, err error)
	RecordAdminRefund(ctx context.Context, a intent.AdminRefundAudit) error
	CompleteAdminRefund(ctx context.Context, c intent.AdminRefundCompletion) error
	InsertRefundRequest(ctx context.Context, r intent.RefundRequest) error
	ClaimRefund(ctx context.Context, c intent.RefundClaim) (hold intent.RefundHold, created bool, err error)
}

// StoreActivities writes the read model.
type StoreActivities struct {
	Store ReadModel
	// Chains and Prices complete the transactions of a transition with what the workflow did
	// not know (complete): the receipt's fee, block and timestamp, the fee's USD value. Nil
	// leaves them as the workflow wrote them.
	Chains *chains.Clients
	Prices prices.Source
	// RefundBudget is each depositor's budget of automatic refunds of deposits no order can
	// take on a chain (ORPHAN_REFUND_BUDGET); past it they wait for an operator.
	RefundBudget intent.RefundBudget
}

// ApplyTransition writes one transition of a request (idempotent, ordered by version), its
// transactions completed from their receipts first (complete).
func (a *StoreActivities) ApplyTransition(ctx context.Context, t intent.Transition) error {
	if err := a.complete(ctx, &t); err != nil {
		return err
	}
	_, err := a.Store.ApplyTransition(ctx, t)
	return err
}

// failure returns the non-retryable error the workflow maps to a failReason.
func failure(reason intent.FailReason, msg string, cause error) error {
	return temporal.NewNonRetryableApplicationError(msg, string(reason), cause)
}

// RecordAdminRefund writes the audit row of an accepted adminRefund (idempotent by update id).
func (a *StoreActivities) RecordAdminRefund(ctx context.Context, audit intent.AdminRefundAudit) error {
	return a.Store.RecordAdminRefund(ctx, audit)
}

// CompleteAdminRefund records the refund transaction an adminRefund made (idempotent).
func (a *StoreActivities) CompleteAdminRefund(ctx context.Context, in intent.AdminRefundCompletion) error {
	return a.Store.CompleteAdminRefund(ctx, in)
}

// RefundRequestStored is what InsertRefundRequest decided for the request.
type RefundRequestStored struct {
	// Hold is why its automatic refund waits for an operator; "" when it goes ahead.
	Hold intent.RefundHold `json:",omitempty"`
}

// InsertRefundRequest stores the request of a DepositRefund (idempotent) and, when the request
// asks (CheckHold), decides once whether its automatic refund goes ahead or waits for an operator:
// held when the deposit's currency is not listed for its chain, or when its depositor has had
// its budget of such refunds on the chain (store.ClaimRefund). Deciding here, in the activity
// that stores the request, costs the run no call of its own, and a held deposit is decided
// before anything is asked of the oracle or the chain: a transaction of many junk deposits
// costs the engine a row each, not an attestation and a refund's estimate each.
func (a *StoreActivities) InsertRefundRequest(ctx context.Context, r intent.RefundRequest) (*RefundRequestStored, error) {
	if err := a.Store.InsertRefundRequest(ctx, r); err != nil {
		return nil, err
	}
	if !r.CheckHold {
		return &RefundRequestStored{}, nil
	}
	hold, created, err := a.Store.ClaimRefund(ctx, intent.RefundClaim{RequestID: r.ID, ChainID: r.ChainID, Depositor: r.Depositor,
		Currency: r.Currency, Amount: r.Amount, At: r.At, Unlisted: !a.listed(r.ChainID, r.Currency), Budget: a.RefundBudget})
	if err != nil {
		return nil, err
	}
	if created {
		metrics.RefundsHeld.WithLabelValues(strconv.FormatUint(r.ChainID, 10), string(hold)).Inc()
		activity.GetLogger(ctx).Info("refund held for an operator", "requestId", r.ID, "reason", hold, "chainId", r.ChainID,
			"depositor", r.Depositor, "currency", r.Currency, "amount", r.Amount)
	}
	return &RefundRequestStored{Hold: hold}, nil
}

// listed reports whether currency is one of the chain's configured currencies; without the
// chains' configuration nothing is.
func (a *StoreActivities) listed(chainID uint64, currency string) bool {
	if a.Chains == nil {
		return false
	}
	ch, err := a.Chains.Registry().Get(chainID)
	if err != nil {
		return false
	}
	_, ok := ch.FindCurrency(currency)
	return ok
}
