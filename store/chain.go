package store

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"time"

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

// TryScanLock takes the scan of a chain for this caller if no other holds it: a session
// advisory lock on a connection kept until release, so that of several workers (each with its
// scanner) one scans a chain at a time from the shared cursor and a deposit is routed once, not
// once per worker. ok is false when another session holds it. Should the holder's process die,
// Postgres ends its session and the lock with it; the next scan elsewhere takes over.
func (s *Store) TryScanLock(ctx context.Context, chainID uint64) (release func(), ok bool, err error) {
	return s.tryAdvisoryLock(ctx, "deposit-scan:", chainID)
}

// tryAdvisoryLock takes the session advisory lock named prefix || chainID on a connection kept
// until release; ok is false when another session holds it.
func (s *Store) tryAdvisoryLock(ctx context.Context, prefix string, chainID uint64) (release func(), ok bool, err error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, false, err
	}
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(hashtextextended($1 || $2::bigint, 0))`, prefix, int64(chainID)).Scan(&ok); err != nil || !ok {
		conn.Release()
		return nil, false, err
	}
	return func() {
		// The unlock must run even when ctx has ended; a connection whose unlock failed is
		// closed, which ends its session and so the lock.
		uctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := conn.Exec(uctx, `SELECT pg_advisory_unlock(hashtextextended($1 || $2::bigint, 0))`, prefix, int64(chainID)); err != nil {
			_ = conn.Conn().Close(uctx)
		}
		conn.Release()
	}, true, nil
}

const solverTxColumns = `request_id, kind, attempt, purpose = 'cancel', chain_id, from_address, nonce, tx_hash, raw_tx, voided`

// SolverTx returns the latest stored attempt of a request's fill or refund.
func (s *Store) SolverTx(ctx context.Context, requestID string, kind intent.TxKind) (*SolverTx, error) {
	return scanSolverTx(s.pool.QueryRow(ctx, `SELECT `+solverTxColumns+`
		FROM solver_transactions WHERE request_id = $1 AND kind = $2 ORDER BY attempt DESC LIMIT 1`, requestID, kind))
}

// SolverTxAttempts returns every stored attempt of a request's transaction of one kind, the
// first signing first.
func (s *Store) SolverTxAttempts(ctx context.Context, requestID string, kind intent.TxKind) ([]SolverTx, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+solverTxColumns+`
		FROM solver_transactions WHERE request_id = $1 AND kind = $2 ORDER BY attempt`, requestID, kind)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SolverTx
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
// once per attempt. sign also returns the replacement's gas limit × fee cap (wei): the
// replacement commits that and what the attempt it replaces pays (a cancellation pays nothing).
func (s *Store) ReplaceSolverTx(ctx context.Context, requestID string, kind intent.TxKind, after int, cancel bool,
	sign func(prev SolverTx) (hash string, raw []byte, maxGasCost *big.Int, err error)) (*SolverTx, error) {
	var out *SolverTx
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
		if latest.Voided {
			// Signed for a chain since reset: a replacement would put a second transaction on a
			// nonce that is the new chain's to use.
			return fmt.Errorf("replace attempt %d of %s %s: %w", after, kind, requestID, intent.ErrVoided)
		}
		if latest.Attempt != after {
			return fmt.Errorf("replace attempt %d of %s %s: the latest stored attempt is %d", after, kind, requestID, latest.Attempt)
		}
		hash, raw, gasCost, err := sign(*latest)
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
		// The replacement pays what the attempt it replaces pays, in the same currency (a
		// cancellation nothing), at its own gas cost.
		tag, err := tx.Exec(ctx, `INSERT INTO solver_transactions (request_id, kind, attempt, purpose, chain_id, from_address, nonce,
				tx_hash, raw_tx, pays_currency, pays_amount, max_gas_cost)
			SELECT request_id, kind, $3::integer, $4::text, chain_id, from_address, nonce, $5::text, $6::bytea, pays_currency,
				CASE WHEN $4::text = 'cancel' THEN 0 ELSE pays_amount END, $7::numeric
			FROM solver_transactions WHERE request_id = $1 AND kind = $2 AND attempt = $8`,
			requestID, kind, next.Attempt, purpose, hash, raw, orZero(gasCost).String(), latest.Attempt)
		if err == nil && tag.RowsAffected() != 1 {
			err = fmt.Errorf("replace attempt %d of %s %s: %d rows stored", after, kind, requestID, tag.RowsAffected())
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func scanSolverTx(row pgx.Row) (*SolverTx, error) {
	var t SolverTx
	var chain, nonce int64
	if err := row.Scan(&t.RequestID, &t.Kind, &t.Attempt, &t.Cancel, &chain, &t.From, &nonce, &t.Hash, &t.Raw, &t.Voided); err != nil {
		return nil, notFound(err)
	}
	t.ChainID, t.Nonce = uint64(chain), uint64(nonce)
	return &t, nil
}

// PrepareSolverTx returns the stored transaction for (requestID, kind) or, when there is none,
// allocates the next nonce of (chainID, from) in Postgres, signs with it and stores the result
// with what it commits (pays), all in one transaction. chainNonce is the account's nonce at the
// latest block: a floor in case the key was used outside the engine. Two workers serialise on
// the nonce row, so they never reuse a nonce, and a retried activity gets the same signed
// transaction back. The callers of one process share their transactions (solverbatch.go).
//
// With held, the solver's balances at the block of chainNonce, the transaction is signed only
// when they cover pays once what the stored transactions of (chainID, from) not yet mined (a
// nonce at or above chainNonce) commit is taken off (inFlight); otherwise it is refused with an
// *intent.InventoryShortfall and nothing is stored, no nonce allocated. The check runs under the
// nonce row's lock, so two callers never both count the same funds as available. Nil held
// stores the commitment without a check.
func (s *Store) PrepareSolverTx(ctx context.Context, requestID string, kind intent.TxKind, chainID uint64, from string,
	chainNonce uint64, pays intent.Commitment, held *intent.Holdings,
	sign func(nonce uint64) (hash string, raw []byte, err error)) (*SolverTx, error) {
	from = strings.ToLower(from)
	return s.prepareSolverTx(ctx, chainID, from, &solverAsk{requestID: requestID, kind: kind, chainNonce: chainNonce,
		pays: pays, held: held, sign: sign, done: make(chan struct{})})
}

// nativeCurrency is how the native currency is written in pays_currency.
const nativeCurrency = "0x0000000000000000000000000000000000000000"

// currencyOf is the commitment's currency as stored: lower-case, the native one when unset.
func currencyOf(c intent.Commitment) string {
	if c.Currency == "" {
		return nativeCurrency
	}
	return strings.ToLower(c.Currency)
}

func orZero(v *big.Int) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	return v
}

// cover returns an *intent.InventoryShortfall when held, less committed, does not cover pays:
// its amount out of the balance of its currency, and its gas (with its amount when native) out
// of the native balance.
func cover(chainID uint64, pays intent.Commitment, held *intent.Holdings, committed map[string]*big.Int) error {
	currency, amount := currencyOf(pays), orZero(pays.Amount)
	needNative := new(big.Int).Set(orZero(pays.MaxGasCost))
	if currency == nativeCurrency {
		needNative.Add(needNative, amount)
	} else if err := shortfall(chainID, currency, held.Token, committed[currency], amount); err != nil {
		return err
	}
	return shortfall(chainID, nativeCurrency, held.Native, committed[nativeCurrency], needNative)
}

func shortfall(chainID uint64, currency string, balance, committed, need *big.Int) error {
	balance, committed = orZero(balance), orZero(committed)
	if new(big.Int).Sub(balance, committed).Cmp(need) >= 0 {
		return nil
	}
	return &intent.InventoryShortfall{ChainID: chainID, Currency: currency, Balance: balance, InFlight: committed, Need: need}
}
