package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/intentd/intentd/intent"
)

// Deposit-address quotes and the reads of the deposit-address endpoints (GET /deposit-addresses/v1
// and /v2, POST /deposit-addresses/{id}/disable/v2; docs/deposit-addresses.md).

// InsertDepositAddressQuote stores a deposit-address quote as InsertQuote stores a quote, with
// the request's deposit_address column written (the records' depositAddress filter reads it)
// and the issued address's row, in one statement: the three rows land together or none does.
func (s *Store) InsertDepositAddressQuote(ctx context.Context, q intent.NewQuote, a intent.DepositAddress) error {
	rec, err := encodeRecord(&q.Record)
	if err != nil {
		return err
	}
	order, err := json.Marshal(q.OrderData)
	if err != nil {
		return err
	}
	quote, err := json.Marshal(q.Execution)
	if err != nil {
		return err
	}
	var apiKeyID any
	if q.APIKeyID != "" {
		apiKeyID = q.APIKeyID
	}
	if _, err := s.pool.Exec(ctx, `WITH r AS (
			INSERT INTO requests (id, status, "user", recipient, origin_chain_id, destination_chain_id, order_id, api_key_id, record,
				volume_usd, deposit_address)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $14) RETURNING id),
		qt AS (INSERT INTO quotes (request_id, order_id, order_data, quote, expires_at) SELECT r.id, $7, $11, $12, $13 FROM r)
		INSERT INTO deposit_addresses (id, address, chain_id, type, order_id, depositor, request_id, currency, refund_to,
			recovery_address, route, created_at)
		SELECT $15, lower($14), $5, $16, $7, lower($17), r.id, lower($18), NULLIF($19, ''), NULLIF($20, ''), $21, $22 FROM r`,
		q.Record.ID, string(q.Record.Status), q.Record.User, q.Record.Recipient, int64(q.Origin), int64(q.Dest),
		q.OrderID, apiKeyID, rec, q.VolumeUSD, order, quote, q.ExpiresAt,
		a.Address, a.ID, string(a.Type), a.Depositor, a.Currency, a.RefundTo, a.RecoveryAddress, a.Route, a.CreatedAt); err != nil {
		return fmt.Errorf("insert deposit-address quote: %w", unavailable(err))
	}
	return nil
}

// DepositAddressCreator is the API key the address's quote was made with ("" for a quote made
// without a key): the key that may disable it. ErrNotFound when the address is unknown.
func (s *Store) DepositAddressCreator(ctx context.Context, id string) (string, error) {
	var key string
	err := s.pool.QueryRow(ctx, `SELECT COALESCE(r.api_key_id::text, '') FROM deposit_addresses a
		JOIN requests r ON r.id = a.request_id WHERE a.id = $1`, id).Scan(&key)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", unavailable(err)
	}
	return key, nil
}

// DisableDepositAddressAsAdmin disables an address on an operator's word, with the audit
// trail's record of who did it and why (action deposit_address.disable), in one transaction.
// Disabling twice keeps the first time; ErrNotFound when the address is unknown.
func (s *Store) DisableDepositAddressAsAdmin(ctx context.Context, id string, at time.Time, by Actor) (*intent.DepositAddress, error) {
	var out *intent.DepositAddress
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		before, err := scanDepositAddress(tx.QueryRow(ctx, `SELECT `+depositAddressColumns+` FROM deposit_addresses WHERE id = $1 FOR UPDATE`, id))
		if errors.Is(err, intent.ErrNotFound) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		out, err = scanDepositAddress(tx.QueryRow(ctx, `UPDATE deposit_addresses SET disabled_at = COALESCE(disabled_at, $2)
			WHERE id = $1 RETURNING `+depositAddressColumns, id, at))
		if err != nil {
			return err
		}
		return audit(ctx, tx, by, "deposit_address.disable", "deposit_address", auditTargetOf(id), auditView(before), auditView(out))
	})
	return out, err
}

// auditTargetOf is the audit trail's target id of a deposit address. The trail's target_id is a
// UUID (keys and integrators), a depositAddressId 32 random bytes: its first 16 bytes written as
// a UUID name it there, and the views before and after carry the whole id.
func auditTargetOf(id string) string {
	h := strings.TrimPrefix(strings.ToLower(id), "0x")
	if len(h) < 32 {
		h += strings.Repeat("0", 32-len(h))
	}
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// auditView is what the audit trail keeps of an address: which it is, who it is for and whether
// it is watched, not its route.
func auditView(a *intent.DepositAddress) map[string]any {
	return map[string]any{"id": a.ID, "address": strings.ToLower(a.Address), "type": a.Type, "requestId": a.RequestID,
		"chainId": a.ChainID, "disabledAt": a.DisabledAt}
}
