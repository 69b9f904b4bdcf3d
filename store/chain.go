package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
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

// SolverTx is a signed solver transaction as stored before broadcast.
type SolverTx struct {
	RequestID string
	Kind      string // fill or refund
	Attempt   int
	ChainID   uint64
	From      string
	Nonce     uint64
	Hash      string
	Raw       []byte
}

// SolverTx returns the latest stored attempt of a request's fill or refund.
func (s *Store) SolverTx(ctx context.Context, requestID, kind string) (*SolverTx, error) {
	return scanSolverTx(s.pool.QueryRow(ctx, `SELECT request_id, kind, attempt, chain_id, from_address, nonce, tx_hash, raw_tx
		FROM solver_transactions WHERE request_id = $1 AND kind = $2 ORDER BY attempt DESC LIMIT 1`, requestID, kind))
}

func scanSolverTx(row pgx.Row) (*SolverTx, error) {
	var t SolverTx
	var chain, nonce int64
	if err := row.Scan(&t.RequestID, &t.Kind, &t.Attempt, &chain, &t.From, &nonce, &t.Hash, &t.Raw); err != nil {
		return nil, notFound(err)
	}
	t.ChainID, t.Nonce = uint64(chain), uint64(nonce)
	return &t, nil
}

// SignFunc signs a transaction for the given nonce and returns its hash and raw encoding.
type SignFunc func(nonce uint64) (hash string, raw []byte, err error)

// PrepareSolverTx returns the stored transaction for (requestID, kind) or, when there is none,
// allocates the next nonce of (chainID, from) in Postgres, signs with it and stores the result,
// all in one transaction. chainNonce is the account's confirmed nonce on chain: a floor in case
// the key was used outside the engine. Two workers serialise on the nonce row, so they never
// reuse a nonce, and a retried activity gets the same signed transaction back.
func (s *Store) PrepareSolverTx(ctx context.Context, requestID, kind string, chainID uint64, from string,
	chainNonce uint64, sign SignFunc) (*SolverTx, error) {
	from = strings.ToLower(from)
	var out *SolverTx
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		existing, err := scanSolverTx(tx.QueryRow(ctx, `SELECT request_id, kind, attempt, chain_id, from_address, nonce, tx_hash, raw_tx
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
		out = &SolverTx{RequestID: requestID, Kind: kind, ChainID: chainID, From: from, Nonce: nonce, Hash: hash, Raw: raw}
		_, err = tx.Exec(ctx, `INSERT INTO solver_transactions (request_id, kind, attempt, chain_id, from_address, nonce, tx_hash, raw_tx)
			VALUES ($1, $2, 0, $3, $4, $5, $6, $7)`, requestID, kind, int64(chainID), from, int64(nonce), hash, raw)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
