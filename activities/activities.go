// Package activities holds the Intent workflow's activities: structs that carry their
// dependencies (the read model, the chains, the oracle) with one Input and one Result type per
// activity. Every activity is idempotent, so a retried activity or a reset workflow never
// repeats an effect: fills are signed and stored before broadcast and re-broadcast on retry.
// Errors are classified here: a failure the workflow should act on is a non-retryable
// application error whose type is a failReason value.
package activities

import (
	"context"

	"go.temporal.io/sdk/temporal"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
)

// StoreActivities writes the read model.
type StoreActivities struct {
	Store *store.Store
}

// ApplyTransition writes one transition of a request (idempotent, ordered by version).
func (a *StoreActivities) ApplyTransition(ctx context.Context, t store.Transition) error {
	_, err := a.Store.ApplyTransition(ctx, t)
	return err
}

// failure returns the non-retryable error the workflow maps to a failReason.
func failure(reason intent.FailReason, msg string, cause error) error {
	return temporal.NewNonRetryableApplicationError(msg, string(reason), cause)
}

// RecordAdminRefund writes the audit row of an accepted adminRefund (idempotent by update id).
func (a *StoreActivities) RecordAdminRefund(ctx context.Context, audit store.AdminRefundAudit) error {
	return a.Store.RecordAdminRefund(ctx, audit)
}

// CompleteAdminRefund records the refund transaction an adminRefund made (idempotent).
func (a *StoreActivities) CompleteAdminRefund(ctx context.Context, id, txHash string, chainID uint64, amount string) error {
	return a.Store.CompleteAdminRefund(ctx, id, txHash, chainID, amount)
}

// InsertRefundRequest stores the request of a DepositRefund (idempotent).
func (a *StoreActivities) InsertRefundRequest(ctx context.Context, r store.RefundRequest) error {
	return a.Store.InsertRefundRequest(ctx, r)
}
