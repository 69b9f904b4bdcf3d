package store

import (
	"context"
	"fmt"

	"github.com/intentd/intentd/intent"
)

// RecordAdminRefund stores an accepted admin refund. It is idempotent (it runs in a retried
// activity): a second call with the same ID changes nothing. A zero RequestedAt means now.
func (s *Store) RecordAdminRefund(ctx context.Context, a intent.AdminRefundAudit) error {
	var requestedAt any
	if !a.RequestedAt.IsZero() {
		requestedAt = a.RequestedAt
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO admin_refunds (id, request_id, operator, reason, recipient, requested_at)
		VALUES ($1, $2, $3, $4, $5, COALESCE($6::timestamptz, now())) ON CONFLICT (id) DO NOTHING`,
		a.ID, a.RequestID, a.Operator, a.Reason, a.Recipient, requestedAt); err != nil {
		return fmt.Errorf("record admin refund %s: %w", a.ID, err)
	}
	return nil
}

// CompleteAdminRefund records the mined refund transaction of an admin refund. It is
// idempotent: calling it again rewrites the same values and keeps the first completion time.
// ErrNotFound when no admin refund has that ID.
func (s *Store) CompleteAdminRefund(ctx context.Context, c intent.AdminRefundCompletion) error {
	id := c.ID
	tag, err := s.pool.Exec(ctx, `UPDATE admin_refunds SET tx_hash = $2, chain_id = $3, amount = $4,
		completed_at = COALESCE(completed_at, now()) WHERE id = $1`, id, c.TxHash, int64(c.ChainID), c.Amount)
	if err != nil {
		return fmt.Errorf("complete admin refund %s: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return ErrNotFound
	}
	return nil
}

// AdminRefunds lists a request's admin refunds, oldest first (none is an empty list, not an
// error).
func (s *Store) AdminRefunds(ctx context.Context, requestID string) ([]intent.AdminRefundAudit, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, request_id, operator, reason, recipient, requested_at,
		coalesce(tx_hash, ''), coalesce(chain_id, 0), coalesce(amount, ''), completed_at
		FROM admin_refunds WHERE request_id = $1 ORDER BY requested_at, id`, requestID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []intent.AdminRefundAudit
	for rows.Next() {
		var a intent.AdminRefundAudit
		var chain int64
		if err := rows.Scan(&a.ID, &a.RequestID, &a.Operator, &a.Reason, &a.Recipient, &a.RequestedAt,
			&a.TxHash, &chain, &a.Amount, &a.CompletedAt); err != nil {
			return nil, err
		}
		a.ChainID = uint64(chain)
		out = append(out, a)
	}
	return out, rows.Err()
}
