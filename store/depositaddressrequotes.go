package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/intentd/intentd/intent"
)

// Requotes of open deposit addresses (docs/deposit-addresses.md, "Requotes and superseded
// requests"): a payment at an open address that is not the quoted amount, or not the address's
// first, funds a request of its own, quoted again on the address's route.

// OpenTransfer is what the routing of a payment at an open deposit address decides on.
type OpenTransfer struct {
	// Routed is the request the payment was routed to before ("" when it was not).
	Routed string
	// First reports that no payment at the address funds a request yet.
	First bool
	// QuotedAmount and QuotedCurrency are the quote-time request's amountIn and input currency.
	QuotedAmount, QuotedCurrency string
	// APIKeyID is the key the address was quoted with ("" for none): the requote's.
	APIKeyID string
}

// OpenDepositAddressTransfer reads, for a recorded payment, what its routing decides on (without
// a lock: RouteFirstDepositAddressTransfer and RouteRequotedDepositAddressTransfer decide again
// under the address's lock). intent.ErrNotFound when the payment is not recorded.
func (s *Store) OpenDepositAddressTransfer(ctx context.Context, chainID uint64, txHash string, logIndex int) (OpenTransfer, error) {
	var o OpenTransfer
	err := s.pool.QueryRow(ctx, `SELECT COALESCE(t.request_id, ''),
			NOT EXISTS (SELECT 1 FROM deposit_address_transfers x WHERE x.address_id = a.id AND x.request_id IS NOT NULL),
			COALESCE(q.quote->>'amountIn', ''), COALESCE(q.quote->'currencyIn'->>'address', ''), COALESCE(r.api_key_id::text, '')
		FROM deposit_address_transfers t
		JOIN deposit_addresses a ON a.id = t.address_id
		LEFT JOIN requests r ON r.id = a.request_id
		LEFT JOIN quotes q ON q.request_id = a.request_id
		WHERE t.chain_id = $1 AND t.tx_hash = $2 AND t.log_index = $3`,
		int64(chainID), strings.ToLower(txHash), logIndex).Scan(&o.Routed, &o.First, &o.QuotedAmount, &o.QuotedCurrency, &o.APIKeyID)
	if errors.Is(err, pgx.ErrNoRows) {
		return o, intent.ErrNotFound
	}
	if err != nil {
		return o, fmt.Errorf("open deposit address transfer: %w", unavailable(err))
	}
	return o, nil
}

// RouteRequotedDepositAddressTransfer stores the requote q of a recorded payment at an open
// deposit address and routes the payment to it, in one transaction under the lock of the
// address's row (the one RouteFirstDepositAddressTransfer takes): the new request's rows, as
// InsertQuote writes a quote's, with its deposit_address column and parent_request_id the
// address's quote-time request (includeChildRequests with the original's id lists it); the
// payment's request_id; and, when no other payment at the address funds a request yet (the
// payment is the address's first), the quote-time request's record naming the new one in
// supersededByRequestId. It returns the request the payment funds and the request superseded
// ("" when none). A payment routed before (a rescan, the scanner of another chain) keeps its
// request and q is not stored. intent.ErrNotFound when the payment is not recorded.
func (s *Store) RouteRequotedDepositAddressTransfer(ctx context.Context, chainID uint64, txHash string, logIndex int,
	q intent.NewQuote) (routed, superseded string, err error) {
	da := q.Execution.DepositAddress
	if da == nil {
		return "", "", errors.New("route requoted deposit address transfer: the requote names no deposit address")
	}
	rec, err := encodeRecord(&q.Record)
	if err != nil {
		return "", "", err
	}
	order, err := json.Marshal(q.OrderData)
	if err != nil {
		return "", "", err
	}
	quote, err := json.Marshal(q.Execution)
	if err != nil {
		return "", "", err
	}
	var apiKeyID any
	if q.APIKeyID != "" {
		apiKeyID = q.APIKeyID
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		routed, superseded = "", ""
		p, err := lockPayment(ctx, tx, chainID, txHash, logIndex)
		if err != nil || p.routed != "" {
			routed = p.routed
			return err
		}
		if p.addressID != da.ID {
			return fmt.Errorf("the requote is funded by deposit address %s, the payment was made to %s", da.ID, p.addressID)
		}
		quoteRequest, taken := p.quoteRequest, p.taken
		if _, err := tx.Exec(ctx, `WITH r AS (
				INSERT INTO requests (id, status, "user", recipient, origin_chain_id, destination_chain_id, order_id, api_key_id, record,
					volume_usd, deposit_address)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $14) RETURNING id)
			INSERT INTO quotes (request_id, order_id, order_data, quote, expires_at) SELECT r.id, $7, $11, $12, $13 FROM r`,
			q.Record.ID, string(q.Record.Status), q.Record.User, q.Record.Recipient, int64(q.Origin), int64(q.Dest),
			q.OrderID, apiKeyID, rec, q.VolumeUSD, order, quote, q.ExpiresAt, da.Address); err != nil {
			return err
		}
		// parent_request_id is otherwise duplicateDeposits.parentRequestId, set by the insert's
		// trigger (migration 0014): a requote is a child of the address's quote-time request.
		if _, err := tx.Exec(ctx, `UPDATE requests SET parent_request_id = $2 WHERE id = $1`, q.Record.ID, quoteRequest); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE deposit_address_transfers SET request_id = $4
			WHERE chain_id = $1 AND tx_hash = $2 AND log_index = $3`, int64(chainID), strings.ToLower(txHash), logIndex, q.Record.ID); err != nil {
			return err
		}
		routed = q.Record.ID
		if taken {
			return nil
		}
		superseded = quoteRequest
		_, err = tx.Exec(ctx, `UPDATE requests SET record = jsonb_set(record, '{supersededByRequestId}', to_jsonb($2::text))
			WHERE id = $1`, quoteRequest, q.Record.ID)
		return err
	})
	if err != nil {
		if errors.Is(err, intent.ErrNotFound) {
			return "", "", err
		}
		return "", "", fmt.Errorf("route requoted deposit address transfer: %w", unavailable(err))
	}
	return routed, superseded, nil
}
