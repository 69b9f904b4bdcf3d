package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
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
	var depositAddress *string
	if da := r.DepositAddress; da != nil {
		rec.DepositAddress, rec.Features = da, []string{intent.FeatureDepositAddress}
		depositAddress = &da.Address
	}
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
				order_id, record, created_at, updated_at, deposit_address)
			VALUES ($1, 'waiting', $2, $3, $4, $4, 'refund:' || $1, $5, $6, $6, lower($7)) ON CONFLICT (id) DO NOTHING`,
			r.ID, r.Depositor, r.RefundTo, int64(r.ChainID), body, r.At, depositAddress); err != nil {
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

// ClaimRefund decides, once for each refund request, whether its automatic refund goes ahead
// ("") or waits for an operator (the hold), and reports whether this call made the hold (so it
// is counted once). A request decided before keeps its decision, whatever the budget says now:
// a retried activity, or a worker that died after the commit, finds its row. Otherwise a
// deposit in an unlisted currency is held; any other claims one of its depositor's automatic
// refunds on the chain within the budget's window (ending at the request's time), and is held
// once they are all claimed. The claims of one depositor and chain are serialized by an
// advisory lock, so two workers never both take the last one.
func (s *Store) ClaimRefund(ctx context.Context, c intent.RefundClaim) (hold intent.RefundHold, created bool, err error) {
	depositor := foldAddress(c.Depositor)
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`,
			fmt.Sprintf("intentd.refund-budget:%d:%s", c.ChainID, depositor)); err != nil {
			return err
		}
		var prior *string
		var claimed bool
		if err := tx.QueryRow(ctx, `SELECT (SELECT reason FROM refund_holds WHERE request_id = $1),
				EXISTS (SELECT 1 FROM orphan_refund_claims WHERE request_id = $1)`, c.RequestID).Scan(&prior, &claimed); err != nil {
			return err
		}
		switch {
		case prior != nil:
			hold = intent.RefundHold(*prior)
			return nil
		case claimed:
			return nil
		case c.Unlisted:
			hold = intent.RefundHoldUnlistedCurrency
		default:
			var n int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM orphan_refund_claims
					WHERE chain_id = $1 AND depositor = $2 AND claimed_at > $3`,
				int64(c.ChainID), depositor, c.At.Add(-c.Budget.Window)).Scan(&n); err != nil {
				return err
			}
			if n < c.Budget.PerDepositor {
				_, err := tx.Exec(ctx, `INSERT INTO orphan_refund_claims (request_id, chain_id, depositor, claimed_at)
					VALUES ($1, $2, $3, $4)`, c.RequestID, int64(c.ChainID), depositor, c.At)
				return err
			}
			hold = intent.RefundHoldBudgetExceeded
		}
		created = true
		_, err := tx.Exec(ctx, `INSERT INTO refund_holds (request_id, reason, chain_id, depositor, currency, amount, held_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, c.RequestID, string(hold), int64(c.ChainID), depositor,
			foldAddress(c.Currency), c.Amount, c.At)
		return err
	})
	if err != nil {
		return "", false, fmt.Errorf("claim refund %s: %w", c.RequestID, err)
	}
	return hold, created, nil
}

// RefundHold is a refund held for an operator (refund_holds).
type RefundHold struct {
	RequestID string
	Reason    intent.RefundHold
	ChainID   uint64
	Depositor string
	Currency  string
	Amount    string
	HeldAt    time.Time
}

// RefundHolds lists the refunds held on a chain, oldest first, at most limit.
func (s *Store) RefundHolds(ctx context.Context, chainID uint64, limit int) ([]RefundHold, error) {
	rows, err := s.pool.Query(ctx, `SELECT request_id, reason, chain_id, depositor, currency, amount, held_at
		FROM refund_holds WHERE chain_id = $1 ORDER BY held_at, request_id LIMIT $2`, int64(chainID), limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (RefundHold, error) {
		var h RefundHold
		var chain int64
		err := row.Scan(&h.RequestID, &h.Reason, &chain, &h.Depositor, &h.Currency, &h.Amount, &h.HeldAt)
		h.ChainID = uint64(chain)
		return h, err
	})
}

// foldAddress is an address as the store keys it: an EVM address (0x-hex) in lower case, so
// that any spelling of it is one key; any other family's (a Solana base58 key, case-sensitive)
// as written.
func foldAddress(a string) string {
	if strings.HasPrefix(a, "0x") || strings.HasPrefix(a, "0X") {
		return strings.ToLower(a)
	}
	return a
}
