package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/intentd/intentd/intent"
)

// SolanaPayment is one attempt of a request's payment on a Solana chain as kept before its
// broadcast (table solana_payments, migration 0021): the signed transaction's bytes, its
// signature (the transaction's id) and the blockhash it was signed with, with the last block
// height at which that blockhash lets it land. It is the Solana family's record of a payment
// (chains/solana.PaymentStore), as SolverTx is the EVM family's: a retry broadcasts Raw again
// instead of signing anew, and attempt n+1 is kept only once attempt n can never land.
type SolanaPayment struct {
	RequestID string
	Kind      intent.TxKind
	// Attempt is 0 for the first signing; each replacement (a new blockhash, signed again)
	// counts up.
	Attempt              int
	ChainID              uint64
	Signature            string
	Raw                  []byte
	Blockhash            string
	LastValidBlockHeight uint64
	CreatedAt            time.Time
}

const solanaPaymentColumns = `request_id, kind, attempt, chain_id, signature, raw_tx, blockhash, last_valid_block_height, created_at`

// SolanaPayment returns the latest kept attempt of a request's payment of kind,
// intent.ErrNotFound when none is kept.
func (s *Store) SolanaPayment(ctx context.Context, requestID string, kind intent.TxKind) (*SolanaPayment, error) {
	return scanSolanaPayment(s.pool.QueryRow(ctx, `SELECT `+solanaPaymentColumns+`
		FROM solana_payments WHERE request_id = $1 AND kind = $2 ORDER BY attempt DESC LIMIT 1`, requestID, kind))
}

// SolanaPaymentAttempts returns every kept attempt of a request's payment of kind, the first
// signing first; none is an empty slice and no error.
func (s *Store) SolanaPaymentAttempts(ctx context.Context, requestID string, kind intent.TxKind) ([]SolanaPayment, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+solanaPaymentColumns+`
		FROM solana_payments WHERE request_id = $1 AND kind = $2 ORDER BY attempt`, requestID, kind)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SolanaPayment
	for rows.Next() {
		p, err := scanSolanaPayment(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *p)
	}
	return out, rows.Err()
}

// ErrSolanaAttemptOutOfOrder refuses to keep attempt n of a payment while attempt n-1 is not
// kept: a replacement replaces a kept attempt.
var ErrSolanaAttemptOutOfOrder = errors.New("the attempt before it is not kept")

// KeepSolanaPayment keeps p, an attempt signed but not yet broadcast, unless an attempt with
// its request, kind and number is kept already: then that one is returned and p is dropped
// (kept is false), never broadcast. Of two workers that sign the same attempt at once, one
// keeps its transaction and both broadcast that one. Attempt n > 0 is kept only beside a
// kept attempt n-1 (ErrSolanaAttemptOutOfOrder otherwise).
func (s *Store) KeepSolanaPayment(ctx context.Context, p SolanaPayment) (out *SolanaPayment, kept bool, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if p.Attempt > 0 {
			var ok bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM solana_payments WHERE request_id = $1 AND kind = $2 AND attempt = $3)`,
				p.RequestID, p.Kind, p.Attempt-1).Scan(&ok); err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("keep attempt %d of %s %s: %w", p.Attempt, p.Kind, p.RequestID, ErrSolanaAttemptOutOfOrder)
			}
		}
		row, err := scanSolanaPayment(tx.QueryRow(ctx, `INSERT INTO solana_payments (request_id, kind, attempt, chain_id, signature,
				raw_tx, blockhash, last_valid_block_height)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
			ON CONFLICT (request_id, kind, attempt) DO NOTHING
			RETURNING `+solanaPaymentColumns,
			p.RequestID, p.Kind, p.Attempt, int64(p.ChainID), p.Signature, p.Raw, p.Blockhash, int64(p.LastValidBlockHeight)))
		if err == nil {
			out, kept = row, true
			return nil
		}
		if !errors.Is(err, intent.ErrNotFound) {
			return err
		}
		// Kept already (a retry, or another worker first): that attempt is the one.
		out, err = scanSolanaPayment(tx.QueryRow(ctx, `SELECT `+solanaPaymentColumns+`
			FROM solana_payments WHERE request_id = $1 AND kind = $2 AND attempt = $3`, p.RequestID, p.Kind, p.Attempt))
		return err
	})
	if err != nil {
		return nil, false, err
	}
	return out, kept, nil
}

func scanSolanaPayment(row pgx.Row) (*SolanaPayment, error) {
	var p SolanaPayment
	var chain, lvbh int64
	if err := row.Scan(&p.RequestID, &p.Kind, &p.Attempt, &chain, &p.Signature, &p.Raw, &p.Blockhash, &lvbh, &p.CreatedAt); err != nil {
		return nil, notFound(err)
	}
	p.ChainID, p.LastValidBlockHeight = uint64(chain), uint64(lvbh)
	return &p, nil
}
