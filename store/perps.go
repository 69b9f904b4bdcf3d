package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// RequestRef is what a request's order id tells of it without its record: which request, whose,
// and between which chains.
type RequestRef struct {
	ID          string
	OrderID     string
	User        string
	Origin      uint64
	Destination uint64
}

// RequestByOrderID finds the request whose order id is orderID (as stored: lower-case hex);
// ErrNotFound when there is none.
func (s *Store) RequestByOrderID(ctx context.Context, orderID string) (*RequestRef, error) {
	var r RequestRef
	var origin, dest int64
	err := s.pool.QueryRow(ctx, `SELECT id, order_id, "user", origin_chain_id, destination_chain_id FROM requests WHERE order_id = $1`,
		orderID).Scan(&r.ID, &r.OrderID, &r.User, &origin, &dest)
	if err != nil {
		return nil, missingOr(err)
	}
	r.Origin, r.Destination = uint64(origin), uint64(dest)
	return &r, nil
}

// PerpsNonceMapping binds the nonce of a transfer on the perps exchange to an order (POST
// /authorize): Depositor's transfer with Nonce funds the request RequestID of OrderID, as Wallet
// signed on chain SignatureChainID. Addresses are lower-case hex.
type PerpsNonceMapping struct {
	OrderID          string
	RequestID        string
	Wallet           string
	Depositor        string
	Nonce            uint64
	SignatureChainID uint64
	Signature        string
	CreatedAt        time.Time
}

// same reports whether m and o bind the same: one order to one depositor's nonce, signed by one
// wallet (on whichever chain, with whichever of the signatures).
func (m PerpsNonceMapping) same(o PerpsNonceMapping) bool {
	return m.OrderID == o.OrderID && m.RequestID == o.RequestID && m.Nonce == o.Nonce &&
		strings.EqualFold(m.Wallet, o.Wallet) && strings.EqualFold(m.Depositor, o.Depositor)
}

// ErrNonceMappingConflict is a binding that contradicts one stored: the order is bound to another
// nonce, or the depositor's nonce to another order. The error names the one stored.
var ErrNonceMappingConflict = errors.New("nonce mapping conflict")

// NonceMappingConflict is ErrNonceMappingConflict with the binding that stands.
type NonceMappingConflict struct{ Stored PerpsNonceMapping }

func (e *NonceMappingConflict) Error() string {
	return fmt.Sprintf("%v: order %s is bound to nonce %d of %s", ErrNonceMappingConflict, e.Stored.OrderID, e.Stored.Nonce, e.Stored.Depositor)
}

func (e *NonceMappingConflict) Unwrap() error { return ErrNonceMappingConflict }

const nonceMappingColumns = `order_id, request_id, wallet, depositor, nonce, signature_chain_id, signature, created_at`

func scanNonceMapping(row pgx.Row) (*PerpsNonceMapping, error) {
	var m PerpsNonceMapping
	var nonce, chain int64
	if err := row.Scan(&m.OrderID, &m.RequestID, &m.Wallet, &m.Depositor, &nonce, &chain, &m.Signature, &m.CreatedAt); err != nil {
		return nil, err
	}
	m.Nonce, m.SignatureChainID = uint64(nonce), uint64(chain)
	return &m, nil
}

// BindPerpsNonce stores m, once: binding what is already bound (the same order, wallet,
// depositor and nonce) returns the binding stored first, unchanged; a binding that contradicts
// one stored (the order bound to another nonce, the depositor's nonce to another order) is a
// *NonceMappingConflict and changes nothing. The unique keys decide between concurrent bindings.
func (s *Store) BindPerpsNonce(ctx context.Context, m PerpsNonceMapping) (*PerpsNonceMapping, error) {
	if m.Nonce == 0 || m.Nonce > math.MaxInt64 || m.SignatureChainID == 0 || m.SignatureChainID > math.MaxInt64 {
		return nil, fmt.Errorf("bind nonce: nonce %d or signature chain %d out of range", m.Nonce, m.SignatureChainID)
	}
	m.Wallet, m.Depositor = strings.ToLower(m.Wallet), strings.ToLower(m.Depositor)
	stored, err := scanNonceMapping(s.pool.QueryRow(ctx, `INSERT INTO perps_nonce_mappings
		(order_id, request_id, wallet, depositor, nonce, signature_chain_id, signature)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING RETURNING `+nonceMappingColumns,
		m.OrderID, m.RequestID, m.Wallet, m.Depositor, int64(m.Nonce), int64(m.SignatureChainID), m.Signature))
	if err == nil {
		return stored, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("bind nonce: %w", unavailable(err))
	}
	// A row holds the order or the nonce: the order's own row first.
	stored, err = scanNonceMapping(s.pool.QueryRow(ctx, `SELECT `+nonceMappingColumns+` FROM perps_nonce_mappings
		WHERE order_id = $1 OR (depositor = $2 AND nonce = $3) ORDER BY order_id = $1 DESC LIMIT 1`,
		m.OrderID, m.Depositor, int64(m.Nonce)))
	if err != nil {
		return nil, fmt.Errorf("read the binding that stands: %w", unavailable(err))
	}
	if stored.same(m) {
		return stored, nil
	}
	return nil, &NonceMappingConflict{Stored: *stored}
}

// PerpsNonceMapping is the binding of depositor's transfer nonce (the exchange account the
// transfer is sent from, which NonceMapping names as its depositor and the signer as its wallet):
// the order the transfer with that nonce funds. ErrNotFound when the nonce is bound to none.
func (s *Store) PerpsNonceMapping(ctx context.Context, depositor string, nonce uint64) (*PerpsNonceMapping, error) {
	m, err := scanNonceMapping(s.pool.QueryRow(ctx, `SELECT `+nonceMappingColumns+` FROM perps_nonce_mappings
		WHERE depositor = $1 AND nonce = $2`, strings.ToLower(depositor), int64(nonce)))
	if err != nil {
		return nil, missingOr(err)
	}
	return m, nil
}

// missingOr is ErrNotFound for no row, else err as unavailable reads it.
func missingOr(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	return unavailable(err)
}

// OrderOfNonce is the order depositor bound nonce to (PerpsNonceMapping), for the perps family's
// deposits (chains/perps.NonceMappings); ErrNotFound when none.
func (s *Store) OrderOfNonce(ctx context.Context, depositor string, nonce uint64) (string, error) {
	m, err := s.PerpsNonceMapping(ctx, depositor, nonce)
	if err != nil {
		return "", err
	}
	return m.OrderID, nil
}

// PerpsNonceMappingOfOrder is the binding of an order (its order id), ErrNotFound when the order
// is bound to no nonce: what the engine hands the oracle with an exchange deposit.
func (s *Store) PerpsNonceMappingOfOrder(ctx context.Context, orderID string) (*PerpsNonceMapping, error) {
	m, err := scanNonceMapping(s.pool.QueryRow(ctx, `SELECT `+nonceMappingColumns+` FROM perps_nonce_mappings
		WHERE order_id = $1`, strings.ToLower(orderID)))
	if err != nil {
		return nil, missingOr(err)
	}
	return m, nil
}
