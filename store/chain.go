package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/intentd/intentd/intent"
)

// Cursor is the last block of a chain whose deposit events have all been routed.
type Cursor struct {
	ChainID     uint64
	GenesisHash string
	Block       uint64
	BlockHash   string
}

// Cursor reads a chain's cursor; ErrNotFound before the first scan.
func (s *Store) Cursor(ctx context.Context, chainID uint64) (*Cursor, error) {
	c := Cursor{ChainID: chainID}
	var block int64
	err := s.pool.QueryRow(ctx, `SELECT genesis_hash, block_number, block_hash FROM chain_cursors WHERE chain_id = $1`, int64(chainID)).
		Scan(&c.GenesisHash, &block, &c.BlockHash)
	if err != nil {
		return nil, notFound(err)
	}
	c.Block = uint64(block)
	return &c, nil
}

// SetCursor records that every block up to c.Block has been scanned.
func (s *Store) SetCursor(ctx context.Context, c Cursor) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO chain_cursors (chain_id, genesis_hash, block_number, block_hash) VALUES ($1, $2, $3, $4)
		ON CONFLICT (chain_id) DO UPDATE SET genesis_hash = $2, block_number = $3, block_hash = $4, updated_at = now()`,
		int64(c.ChainID), c.GenesisHash, int64(c.Block), c.BlockHash)
	return err
}

const solverTxColumns = `request_id, kind, attempt, purpose = 'cancel', chain_id, from_address, nonce, tx_hash, raw_tx`

// SolverTx returns the latest stored attempt of a request's fill or refund.
func (s *Store) SolverTx(ctx context.Context, requestID string, kind intent.TxKind) (*intent.SolverTx, error) {
	return scanSolverTx(s.pool.QueryRow(ctx, `SELECT `+solverTxColumns+`
		FROM solver_transactions WHERE request_id = $1 AND kind = $2 ORDER BY attempt DESC LIMIT 1`, requestID, kind))
}

// SolverTxAttempts returns every stored attempt of a request's transaction of one kind, the
// first signing first.
func (s *Store) SolverTxAttempts(ctx context.Context, requestID string, kind intent.TxKind) ([]intent.SolverTx, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+solverTxColumns+`
		FROM solver_transactions WHERE request_id = $1 AND kind = $2 ORDER BY attempt`, requestID, kind)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []intent.SolverTx
	for rows.Next() {
		t, err := scanSolverTx(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *t)
	}
	return out, rows.Err()
}

// ReplaceSolverTx stores a replacement of attempt `after` of a request's transaction: attempt
// after+1, signed by sign with the same nonce. When a later attempt is already stored (a
// retried activity), that one is returned and sign is not called, so a replacement is made
// once per attempt.
func (s *Store) ReplaceSolverTx(ctx context.Context, requestID string, kind intent.TxKind, after int, cancel bool,
	sign func(prev intent.SolverTx) (hash string, raw []byte, err error)) (*intent.SolverTx, error) {
	var out *intent.SolverTx
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		latest, err := scanSolverTx(tx.QueryRow(ctx, `SELECT `+solverTxColumns+`
			FROM solver_transactions WHERE request_id = $1 AND kind = $2 ORDER BY attempt DESC LIMIT 1 FOR UPDATE`, requestID, kind))
		if err != nil {
			return err
		}
		if latest.Attempt > after {
			out = latest
			return nil
		}
		if latest.Attempt != after {
			return fmt.Errorf("replace attempt %d of %s %s: the latest stored attempt is %d", after, kind, requestID, latest.Attempt)
		}
		hash, raw, err := sign(*latest)
		if err != nil {
			return fmt.Errorf("sign: %w", err)
		}
		purpose := "pay"
		if cancel {
			purpose = "cancel"
		}
		next := *latest
		next.Attempt, next.Cancel, next.Hash, next.Raw = after+1, cancel, hash, raw
		out = &next
		_, err = tx.Exec(ctx, `INSERT INTO solver_transactions (request_id, kind, attempt, purpose, chain_id, from_address, nonce, tx_hash, raw_tx)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, requestID, kind, next.Attempt, purpose, int64(next.ChainID), next.From,
			int64(next.Nonce), hash, raw)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func scanSolverTx(row pgx.Row) (*intent.SolverTx, error) {
	var t intent.SolverTx
	var chain, nonce int64
	if err := row.Scan(&t.RequestID, &t.Kind, &t.Attempt, &t.Cancel, &chain, &t.From, &nonce, &t.Hash, &t.Raw); err != nil {
		return nil, notFound(err)
	}
	t.ChainID, t.Nonce = uint64(chain), uint64(nonce)
	return &t, nil
}

// PrepareSolverTx returns the stored transaction for (requestID, kind) or, when there is none,
// allocates the next nonce of (chainID, from) in Postgres, signs with it and stores the result,
// all in one transaction. chainNonce is the account's confirmed nonce on chain: a floor in case
// the key was used outside the engine. Two workers serialise on the nonce row, so they never
// reuse a nonce, and a retried activity gets the same signed transaction back.
func (s *Store) PrepareSolverTx(ctx context.Context, requestID string, kind intent.TxKind, chainID uint64, from string,
	chainNonce uint64, sign func(nonce uint64) (hash string, raw []byte, err error)) (*intent.SolverTx, error) {
	from = strings.ToLower(from)
	var out *intent.SolverTx
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// Two callers preparing the same request's transaction (two workers, a retried
		// activity) take turns: the second finds what the first stored.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1 || ':' || $2, 0))`, requestID, kind); err != nil {
			return err
		}
		existing, err := scanSolverTx(tx.QueryRow(ctx, `SELECT `+solverTxColumns+`
			FROM solver_transactions WHERE request_id = $1 AND kind = $2 ORDER BY attempt DESC LIMIT 1`, requestID, kind))
		if err == nil {
			out = existing
			return nil
		}
		if err != ErrNotFound {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO solver_nonces (chain_id, address, next_nonce) VALUES ($1, $2, $3)
			ON CONFLICT DO NOTHING`, int64(chainID), from, int64(chainNonce)); err != nil {
			return err
		}
		var next int64
		if err := tx.QueryRow(ctx, `SELECT next_nonce FROM solver_nonces WHERE chain_id = $1 AND address = $2 FOR UPDATE`,
			int64(chainID), from).Scan(&next); err != nil {
			return err
		}
		nonce := uint64(next)
		if chainNonce > nonce {
			nonce = chainNonce
		}
		hash, raw, err := sign(nonce)
		if err != nil {
			return fmt.Errorf("sign: %w", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE solver_nonces SET next_nonce = $3 WHERE chain_id = $1 AND address = $2`,
			int64(chainID), from, int64(nonce+1)); err != nil {
			return err
		}
		out = &intent.SolverTx{RequestID: requestID, Kind: kind, ChainID: chainID, From: from, Nonce: nonce, Hash: hash, Raw: raw}
		_, err = tx.Exec(ctx, `INSERT INTO solver_transactions (request_id, kind, attempt, chain_id, from_address, nonce, tx_hash, raw_tx)
			VALUES ($1, $2, 0, $3, $4, $5, $6, $7)`, requestID, kind, int64(chainID), from, int64(nonce), hash, raw)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
