package store

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/intentd/intentd/intent"
)

// PerpsPayment is a request's payment on the perps exchange as kept before it is sent (table
// perps_payments, migration 0026): the signed sendAsset action, its signer and nonce, and its
// id (the EIP-712 digest it signs). It is the perps family's record of a payment
// (chains/perps.PaymentStore): a retry sends Action again instead of signing anew.
type PerpsPayment struct {
	RequestID string
	Kind      intent.TxKind
	ChainID   uint64
	Signer    string
	Nonce     uint64
	Action    json.RawMessage
	Signature string
	TxHash    string
	CreatedAt time.Time
}

const perpsPaymentColumns = `request_id, kind, chain_id, signer, nonce, action, signature, tx_hash, created_at`

// ErrPerpsNonceTaken refuses to keep a payment whose nonce its signer used for another payment
// already: the caller signs again with a new nonce (NextPerpsNonce).
var ErrPerpsNonceTaken = errors.New("the signer's nonce is taken")

// PerpsPayment returns the kept payment of a request of kind, intent.ErrNotFound when none is.
func (s *Store) PerpsPayment(ctx context.Context, requestID string, kind intent.TxKind) (*PerpsPayment, error) {
	return scanPerpsPayment(s.pool.QueryRow(ctx, `SELECT `+perpsPaymentColumns+`
		FROM perps_payments WHERE request_id = $1 AND kind = $2`, requestID, kind))
}

// NextPerpsNonce returns a nonce for signer's next action: the current time in milliseconds, or
// one more than the highest the signer has kept when that is later (two payments in one
// millisecond, a clock that stepped back). Two callers may get the same one; KeepPerpsPayment
// keeps one of them.
func (s *Store) NextPerpsNonce(ctx context.Context, signer string, now time.Time) (uint64, error) {
	var n int64
	err := s.pool.QueryRow(ctx, `SELECT GREATEST($2::bigint, COALESCE(max(nonce) + 1, 0)) FROM perps_payments WHERE signer = $1`,
		signer, now.UnixMilli()).Scan(&n)
	return uint64(n), err
}

// KeepPerpsPayment keeps p, signed but not yet sent, unless the request's payment of its kind is
// kept already: then that one is returned and p is dropped (kept is false), never sent. A nonce
// its signer used for another payment is ErrPerpsNonceTaken and nothing is kept.
func (s *Store) KeepPerpsPayment(ctx context.Context, p PerpsPayment) (out *PerpsPayment, kept bool, err error) {
	row, err := scanPerpsPayment(s.pool.QueryRow(ctx, `INSERT INTO perps_payments (request_id, kind, chain_id, signer, nonce, action,
			signature, tx_hash)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (request_id, kind) DO NOTHING
		RETURNING `+perpsPaymentColumns,
		p.RequestID, p.Kind, int64(p.ChainID), p.Signer, int64(p.Nonce), []byte(p.Action), p.Signature, p.TxHash))
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		return row, true, nil
	case errors.As(err, &pgErr) && pgErr.Code == "23505":
		// Not the request's own key (ON CONFLICT took that): the signer's nonce, or the digest.
		return nil, false, ErrPerpsNonceTaken
	case !errors.Is(err, intent.ErrNotFound):
		return nil, false, err
	}
	// Kept already (a retry, or another worker first): that payment is the one.
	out, err = s.PerpsPayment(ctx, p.RequestID, p.Kind)
	return out, false, err
}

func scanPerpsPayment(row pgx.Row) (*PerpsPayment, error) {
	var p PerpsPayment
	var chain, nonce int64
	var action []byte
	if err := row.Scan(&p.RequestID, &p.Kind, &chain, &p.Signer, &nonce, &action, &p.Signature, &p.TxHash, &p.CreatedAt); err != nil {
		return nil, notFound(err)
	}
	p.ChainID, p.Nonce, p.Action = uint64(chain), uint64(nonce), action
	return &p, nil
}
