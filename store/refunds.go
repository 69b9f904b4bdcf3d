package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/intentd/intentd/intent"
)

// InsertRefundRequest stores a refund request (status waiting) and, for a duplicate deposit,
// links it with its parent: both records get duplicateDeposits {parentRequestId,
// refundRequestIds}. It is idempotent: a request already stored is left as it is and a link
// already made is not repeated.
func (s *Store) InsertRefundRequest(ctx context.Context, r intent.RefundRequest) error {
	at := r.At.UTC().Format(time.RFC3339Nano)
	rec := intent.Record{ID: r.ID, Status: intent.StatusWaiting, User: r.Depositor, Recipient: r.RefundTo, Sender: r.Depositor,
		RefundTo: r.RefundTo, RequestType: "refund", Features: []string{}, CreatedAt: at, UpdatedAt: at,
		Data: intent.RecordData{FailReason: intent.FailReasonNA, RefundFailReason: intent.RefundFailReasonNA,
			InTxs: []intent.TxItem{}, OutTxs: []intent.TxItem{}}}
	if r.ParentID != "" {
		rec.DuplicateDeposits = &intent.DuplicateDeposits{ParentRequestID: r.ParentID, RefundRequestIDs: []string{r.ID}}
	}
	body, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// A refund request has no order; its order_id is its own id, which no order id can equal.
		if _, err := tx.Exec(ctx, `INSERT INTO requests (id, status, "user", recipient, origin_chain_id, destination_chain_id,
				order_id, record, created_at, updated_at)
			VALUES ($1, 'waiting', $2, $3, $4, $4, 'refund:' || $1, $5, $6, $6) ON CONFLICT (id) DO NOTHING`,
			r.ID, r.Depositor, r.RefundTo, int64(r.ChainID), body, r.At); err != nil {
			return fmt.Errorf("insert refund request: %w", err)
		}
		if r.ParentID == "" {
			return nil
		}
		// parent_request_id is the record's duplicateDeposits.parentRequestId (migration 0014):
		// this is the one statement that changes it after the insert.
		_, err := tx.Exec(ctx, `UPDATE requests SET record = jsonb_set(record, '{duplicateDeposits}', jsonb_build_object(
				'parentRequestId', id::text,
				'refundRequestIds', COALESCE(record->'duplicateDeposits'->'refundRequestIds', '[]'::jsonb) || to_jsonb($2::text))),
				parent_request_id = id::text
			WHERE id = $1 AND NOT COALESCE(record->'duplicateDeposits'->'refundRequestIds', '[]'::jsonb) ? $2`, r.ParentID, r.ID)
		return err
	})
}
