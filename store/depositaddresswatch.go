package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/intentd/intentd/intent"
)

// RouteFirstDepositAddressTransfer decides which request a recorded payment at a deposit address
// funds, once, and returns it: the address's quote-time request when no other payment of the
// address funds a request yet, the request it was routed to before when it was, and "" when
// another payment of the address came first (it stays unrouted: a strict address is single-use;
// an open address's later payments are requoted, RouteRequotedDepositAddressTransfer). The
// address's row is locked while it decides, so the scanners of two chains (an address is the
// same on every chain of its family) never route two first payments. intent.ErrNotFound when the
// payment is not recorded.
func (s *Store) RouteFirstDepositAddressTransfer(ctx context.Context, chainID uint64, txHash string, logIndex int) (string, error) {
	var routed string
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		p, err := lockPayment(ctx, tx, chainID, txHash, logIndex)
		if err != nil || p.routed != "" {
			routed = p.routed
			return err
		}
		if p.taken {
			return nil
		}
		routed = p.quoteRequest
		_, err = tx.Exec(ctx, `UPDATE deposit_address_transfers SET request_id = $4
			WHERE chain_id = $1 AND tx_hash = $2 AND log_index = $3`, int64(chainID), strings.ToLower(txHash), logIndex, routed)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("route deposit address transfer: %w", err)
	}
	return routed, nil
}

// RecordDepositAddressSweep records a sweep the scanner saw (a depository deposit of amount
// whose SweptFrom names address) on the one payment it moved. Every sweep moves one routed
// payment's amount for the request it was routed to (only the solver sweeps, a request sweeps
// its own payment), so the payment is the one routed to the request whose kept sweep is sweepTx,
// else (a sweep kept nowhere: another solver's, an operator's) the earliest routed payment of
// that amount not swept yet, on the sweep's chain, at the address, in its currency, up to its
// block. It returns how many it marked: 1, or 0 for a sweep recorded before (a rescan) or one it
// finds no payment for.
func (s *Store) RecordDepositAddressSweep(ctx context.Context, chainID uint64, address, currency, amount, sweepTx string, block uint64) (int64, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE deposit_address_transfers u SET sweep_tx = $5
		WHERE (u.chain_id, u.tx_hash, u.log_index) = (
			SELECT t.chain_id, t.tx_hash, t.log_index FROM deposit_address_transfers t
			JOIN deposit_addresses a ON a.id = t.address_id
			LEFT JOIN solver_transactions k ON k.tx_hash = $5 AND k.kind = 'sweep'
			WHERE a.address = $2 AND t.chain_id = $1 AND t.currency = $3 AND t.block_number <= $6
				AND t.request_id IS NOT NULL AND t.sweep_tx IS NULL
				AND (t.request_id = k.request_id OR (k.request_id IS NULL AND t.amount = $4))
			ORDER BY t.block_number, t.log_index LIMIT 1)
		AND NOT EXISTS (SELECT 1 FROM deposit_address_transfers d WHERE d.sweep_tx = $5 AND d.chain_id = $1)`,
		int64(chainID), strings.ToLower(address), strings.ToLower(currency), amount, strings.ToLower(sweepTx), int64(block))
	if err != nil {
		return 0, fmt.Errorf("record deposit address sweep: %w", err)
	}
	return tag.RowsAffected(), nil
}

// lockedPayment is a recorded payment at a deposit address, read under its address's row lock.
type lockedPayment struct {
	addressID, quoteRequest string
	routed                  string // the request the payment funds, "" while unrouted
	taken                   bool   // some payment at the address funds a request already
}

// lockPayment reads a recorded payment and locks its address's row, so the scanners of every
// chain (the address is the same on each) route the address's payments one at a time.
// intent.ErrNotFound when the payment is not recorded.
func lockPayment(ctx context.Context, tx pgx.Tx, chainID uint64, txHash string, logIndex int) (lockedPayment, error) {
	var p lockedPayment
	err := tx.QueryRow(ctx, `SELECT a.id, a.request_id, COALESCE(t.request_id, '') FROM deposit_address_transfers t
		JOIN deposit_addresses a ON a.id = t.address_id
		WHERE t.chain_id = $1 AND t.tx_hash = $2 AND t.log_index = $3 FOR UPDATE OF a`,
		int64(chainID), strings.ToLower(txHash), logIndex).Scan(&p.addressID, &p.quoteRequest, &p.routed)
	if errors.Is(err, pgx.ErrNoRows) {
		return p, intent.ErrNotFound
	}
	if err != nil || p.routed != "" {
		return p, err
	}
	// A statement of its own, after the lock: its snapshot sees what the lock's last holder
	// committed (one statement's snapshot would be taken before the wait).
	err = tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM deposit_address_transfers
		WHERE address_id = $1 AND request_id IS NOT NULL)`, p.addressID).Scan(&p.taken)
	return p, err
}
