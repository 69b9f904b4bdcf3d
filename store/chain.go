package store

import (
	"context"
	"errors"
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
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, false, err
	}
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(hashtextextended('deposit-scan:' || $1::bigint, 0))`, int64(chainID)).Scan(&ok); err != nil || !ok {
		conn.Release()
		return nil, false, err
	}
	return func() {
		// The unlock must run even when ctx has ended; a connection whose unlock failed is
		// closed, which ends its session and so the lock.
		uctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := conn.Exec(uctx, `SELECT pg_advisory_unlock(hashtextextended('deposit-scan:' || $1::bigint, 0))`, int64(chainID)); err != nil {
			_ = conn.Conn().Close(uctx)
		}
		conn.Release()
	}, true, nil
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
// once per attempt. sign also returns the replacement's gas limit × fee cap (wei): the
// replacement commits that and what the attempt it replaces pays (a cancellation pays nothing).
func (s *Store) ReplaceSolverTx(ctx context.Context, requestID string, kind intent.TxKind, after int, cancel bool,
	sign func(prev intent.SolverTx) (hash string, raw []byte, maxGasCost *big.Int, err error)) (*intent.SolverTx, error) {
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
// allocates the next nonce of (chainID, from) in Postgres, signs with it and stores the result
// with what it commits (pays), all in one transaction. chainNonce is the account's nonce at the
// latest block: a floor in case the key was used outside the engine. Two workers serialise on
// the nonce row, so they never reuse a nonce, and a retried activity gets the same signed
// transaction back.
//
// With held, the solver's balances at the block of chainNonce, the transaction is signed only
// when they cover pays once what the stored transactions of (chainID, from) not yet mined (a
// nonce at or above chainNonce) commit is taken off (inFlight); otherwise it is refused with an
// *intent.InventoryShortfall and nothing is stored, no nonce allocated. The check runs under the
// nonce row's lock, so two callers never both count the same funds as available. Nil held
// stores the commitment without a check.
func (s *Store) PrepareSolverTx(ctx context.Context, requestID string, kind intent.TxKind, chainID uint64, from string,
	chainNonce uint64, pays intent.Commitment, held *intent.Holdings,
	sign func(nonce uint64) (hash string, raw []byte, err error)) (*intent.SolverTx, error) {
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
		next, committed, err := lockNonce(ctx, tx, chainID, from, chainNonce, held != nil)
		if err != nil {
			return err
		}
		if held != nil {
			if err := cover(chainID, pays, held, committed); err != nil {
				return err
			}
		}
		nonce := uint64(next)
		if chainNonce > nonce {
			nonce = chainNonce
		}
		hash, raw, err := sign(nonce)
		if err != nil {
			return fmt.Errorf("sign: %w", err)
		}
		// One statement moves the nonce on and stores the transaction: the lock is held for one
		// round trip fewer.
		out = &intent.SolverTx{RequestID: requestID, Kind: kind, ChainID: chainID, From: from, Nonce: nonce, Hash: hash, Raw: raw}
		_, err = tx.Exec(ctx, `WITH moved AS (
				UPDATE solver_nonces SET next_nonce = $5 + 1 WHERE chain_id = $3 AND address = $4)
			INSERT INTO solver_transactions (request_id, kind, attempt, chain_id, from_address, nonce, tx_hash, raw_tx,
				pays_currency, pays_amount, max_gas_cost)
			VALUES ($1, $2, 0, $3, $4, $5, $6, $7, $8, $9::numeric, $10::numeric)`, requestID, kind, int64(chainID), from, int64(nonce),
			hash, raw, currencyOf(pays), orZero(pays.Amount).String(), orZero(pays.MaxGasCost).String())
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// lockNonce locks the nonce row of (chainID, from) for the transaction and returns its next
// nonce, creating the row at chainNonce the first time (the row exists after the first
// signing, so the insert is tried only when the lock finds none), and, withInFlight, what the
// transactions not mined at chainNonce commit (inFlight). The lock and the sum go to Postgres
// in one round trip, a pipeline: the sum is a statement of its own, run once the lock is held,
// so it sees every transaction stored by the holders before.
func lockNonce(ctx context.Context, tx pgx.Tx, chainID uint64, from string, chainNonce uint64,
	withInFlight bool) (next int64, committed map[string]*big.Int, err error) {
	for try := 0; ; try++ {
		b := &pgx.Batch{}
		b.Queue(`SELECT next_nonce FROM solver_nonces WHERE chain_id = $1 AND address = $2 FOR UPDATE`,
			int64(chainID), from).QueryRow(func(row pgx.Row) error { return row.Scan(&next) })
		if withInFlight {
			b.Queue(inFlightQuery, int64(chainID), from, int64(chainNonce)).Query(func(rows pgx.Rows) error {
				committed, err = scanInFlight(rows)
				return err
			})
		}
		err = tx.SendBatch(ctx, b).Close()
		if !errors.Is(err, pgx.ErrNoRows) || try > 0 {
			return next, committed, err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO solver_nonces (chain_id, address, next_nonce) VALUES ($1, $2, $3)
			ON CONFLICT DO NOTHING`, int64(chainID), from, int64(chainNonce)); err != nil {
			return 0, nil, err
		}
	}
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

// inFlightQuery sums, by currency, what the stored transactions of ($1 chain, $2 address) with a
// nonce at or above $3 (mined) commit: those are not mined, so their payments and gas are still
// part of the balances read at the block of mined. The native currency's sum includes every
// transaction's gas. The attempts of one nonce replace each other, so a nonce counts once, at the
// most any of its attempts can take.
const inFlightQuery = `SELECT pays_currency, coalesce(sum(amount), 0)::text, coalesce(sum(gas), 0)::text FROM (
			SELECT nonce, pays_currency, max(pays_amount) AS amount, max(max_gas_cost) AS gas FROM solver_transactions
			WHERE chain_id = $1 AND lower(from_address) = $2 AND nonce >= $3 AND pays_currency IS NOT NULL
			GROUP BY nonce, pays_currency) per_nonce
		GROUP BY pays_currency`

// scanInFlight reads inFlightQuery's rows into the sums by currency.
func scanInFlight(rows pgx.Rows) (map[string]*big.Int, error) {
	out := map[string]*big.Int{}
	add := func(currency, v string) error {
		n, ok := new(big.Int).SetString(v, 10)
		if !ok {
			return fmt.Errorf("committed amount %q of %s is not an integer", v, currency)
		}
		out[currency] = n.Add(n, orZero(out[currency]))
		return nil
	}
	for rows.Next() {
		var currency, amount, gas string
		if err := rows.Scan(&currency, &amount, &gas); err != nil {
			return nil, err
		}
		if err := add(strings.ToLower(currency), amount); err != nil {
			return nil, err
		}
		if err := add(nativeCurrency, gas); err != nil {
			return nil, err
		}
	}
	return out, rows.Err()
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
