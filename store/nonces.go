package store

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// What the engine holds of a chain besides its deposits' cursor: the solver's next nonce of each
// address (solver_nonces) and the transactions signed with them (solver_transactions). Both
// describe one chain's history. A chain that comes back with another genesis (a restarted
// devnet) has none of that history: its solver nonces start again at 0, and a fill signed for the
// old chain, sent there, could take a nonce the new chain's fills need, or pay twice
// (docs/operations.md, "Restarting").

// ResetChain records that chain chainID now has the genesis block genesis (its hash, as the
// cursor keeps it). When the chain's cursor names another genesis, in one transaction: every
// solver transaction signed for the chain is voided (SolverTx.Voided: never broadcast or
// replaced again, committing nothing, its nonce free again), the solver nonces of the chain are
// forgotten (the next signing starts from the chain's own nonce) and the cursor moves to the new
// genesis at block 0, so the scanner reads the new chain from its start. It returns whether it
// reset anything and how many transactions it voided. With no cursor yet, or one at genesis
// already, it changes nothing: the reset happens once, whichever worker or scanner sees the new
// genesis first. The nonce rows are locked first, so a signing group under way finishes before
// the reset and a group after it starts from the new chain's nonce.
func (s *Store) ResetChain(ctx context.Context, chainID uint64, genesis string) (reset bool, voided int64, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var known string
		err := tx.QueryRow(ctx, `SELECT genesis_hash FROM chain_cursors WHERE chain_id = $1 FOR UPDATE`, int64(chainID)).Scan(&known)
		if errors.Is(err, pgx.ErrNoRows) || err == nil && strings.EqualFold(known, genesis) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT 1 FROM solver_nonces WHERE chain_id = $1 FOR UPDATE`, int64(chainID)); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE solver_transactions SET voided = true WHERE chain_id = $1 AND NOT voided`, int64(chainID))
		if err != nil {
			return err
		}
		voided = tag.RowsAffected()
		if _, err := tx.Exec(ctx, `DELETE FROM solver_nonces WHERE chain_id = $1`, int64(chainID)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE chain_cursors SET genesis_hash = $2, block_number = 0, block_hash = $2, updated_at = now()
			WHERE chain_id = $1`, int64(chainID), genesis); err != nil {
			return err
		}
		reset = true
		return nil
	})
	return reset, voided, err
}

// NonceGap is what the engine holds at the nonces of a gap in a solver's transactions on a chain
// (HealNonceGap): Next is the next nonce the engine would allocate, Stored the latest attempt of
// every transaction not voided at a nonce from the gap's first up to Next (at most the limit
// asked for), by nonce, with whether its request has reached a final status.
type NonceGap struct {
	Next   uint64
	Stored map[uint64]GapTx
}

// GapTx is a stored transaction at a nonce of a gap.
type GapTx struct {
	SolverTx
	// Final is set when the request it was signed for is done (success, refund or failure): no
	// workflow waits for it any longer.
	Final bool
}

// healLockTimeout bounds the transaction HealNonceGap holds the nonce row in.
const healLockTimeout = 20 * time.Second

// HealNonceGap runs heal under the lock of the nonce row of (chainID, from), with what the engine
// holds at the nonces from first up to its next nonce (at most limit of them), and returns heal's
// error. Under the lock no signing can allocate a nonce below Next, and a transaction stored at a
// nonce is seen here: a nonce below Next with nothing stored is one nothing will ever be signed
// at again (but by heal), so a cancellation there competes with nothing that pays. The row's lock
// is held while heal runs (it signs and broadcasts), so the signings of (chainID, from) wait that
// long: heal is for the rare gap, not the hot path. Without a nonce row (no signing yet, or a
// chain since reset) heal is not called.
func (s *Store) HealNonceGap(ctx context.Context, chainID uint64, from string, first uint64, limit int,
	heal func(gap NonceGap) error) error {
	from = strings.ToLower(from)
	ctx, cancel := context.WithTimeout(ctx, healLockTimeout)
	defer cancel()
	return pgx.BeginFunc(ctx, s.signing, func(tx pgx.Tx) error {
		var next int64
		err := tx.QueryRow(ctx, `SELECT next_nonce FROM solver_nonces WHERE chain_id = $1 AND address = $2 FOR UPDATE`,
			int64(chainID), from).Scan(&next)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		gap := NonceGap{Next: uint64(next), Stored: map[uint64]GapTx{}}
		if first >= gap.Next {
			return heal(gap)
		}
		rows, err := tx.Query(ctx, `SELECT DISTINCT ON (t.nonce) `+prefixed("t.", solverTxColumns)+`,
				coalesce(r.status IN ('success', 'refund', 'failure'), false)
			FROM solver_transactions t LEFT JOIN requests r ON r.id = t.request_id
			WHERE t.chain_id = $1 AND lower(t.from_address) = $2 AND t.nonce >= $3 AND t.nonce < $4 AND NOT t.voided
			ORDER BY t.nonce, t.attempt DESC`, int64(chainID), from, int64(first), int64(min(gap.Next, first+uint64(limit))))
		if err != nil {
			return err
		}
		for rows.Next() {
			var g GapTx
			var chain, nonce int64
			if err := rows.Scan(&g.RequestID, &g.Kind, &g.Attempt, &g.Cancel, &chain, &g.From, &nonce, &g.Hash, &g.Raw, &g.Voided,
				&g.Final); err != nil {
				rows.Close()
				return err
			}
			g.ChainID, g.Nonce = uint64(chain), uint64(nonce)
			gap.Stored[g.Nonce] = g
		}
		if err := rows.Err(); err != nil {
			return err
		}
		return heal(gap)
	})
}

// prefixed qualifies each column of a comma-separated list with prefix.
func prefixed(prefix, columns string) string {
	cols := strings.Split(columns, ",")
	for i, c := range cols {
		cols[i] = prefix + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}

// TryHealLock takes the nonce healing of (chainID, from) for this caller if no other holds it:
// one healer per chain and solver address across every worker (see TryScanLock).
func (s *Store) TryHealLock(ctx context.Context, chainID uint64, from string) (release func(), ok bool, err error) {
	return s.tryAdvisoryLock(ctx, "nonce-heal:"+strings.ToLower(from)+":", chainID)
}

// SolverNextNonce reads the next nonce the engine would allocate to (chainID, from), without a
// lock; ok is false when it holds none (no signing yet, or a chain since reset).
func (s *Store) SolverNextNonce(ctx context.Context, chainID uint64, from string) (next uint64, ok bool, err error) {
	var n int64
	err = s.pool.QueryRow(ctx, `SELECT next_nonce FROM solver_nonces WHERE chain_id = $1 AND address = $2`,
		int64(chainID), strings.ToLower(from)).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	return uint64(n), err == nil, err
}
