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
	"github.com/intentd/intentd/internal/groupcommit"
)

// Solver transactions are prepared in groups. Every fill, refund and cancellation of one solver
// address on one chain takes its nonce from one row (solver_nonces), locked from the nonce's read
// until the signed transaction is stored: the lock is what keeps two transactions off one nonce
// and two fills off the same funds, across every worker. One transaction per signing held that
// lock for three round trips to Postgres, so a block's burst of fills queued on the row, each
// waiting caller holding a pooled connection meanwhile (at 50 fills a second, about ten of the
// process's sixteen: the read-model writes then waited for a connection, BENCHMARKS.md).
//
// So the callers of one process that prepare transactions of one chain and address at the same
// time share one Postgres transaction, a group commit: the first caller runs it at once, alone;
// the callers that arrive while it runs queue in memory, without a connection, and the next
// transaction takes them all (up to maxSolverBatch). One transaction locks the row once, reads
// what the transactions not yet mined commit and which of its requests are already signed,
// signs the rest one after the other with consecutive nonces, each checked against the
// inventory less what the ones before it in the group commit, and stores them all in one
// round trip. Workers still take turns on the row, one group each.

// maxSolverBatch bounds the transactions one group signs and stores.
const maxSolverBatch = 64

// solverBatchTimeout bounds one group's Postgres transaction: it is not any one caller's, so a
// caller that gives up does not cancel the others' signings (what it asked for may still be
// stored, and its retry then finds it).
const solverBatchTimeout = 30 * time.Second

// solverAsk is one caller's transaction to prepare, answered when done is closed.
type solverAsk struct {
	requestID  string
	kind       intent.TxKind
	chainNonce uint64
	pays       intent.Commitment
	held       *intent.Holdings
	sign       func(nonce uint64) (hash string, raw []byte, err error)

	tx   *SolverTx
	err  error
	done chan struct{}
}

// solverQueue returns the group commit of (chainID, from), from lower-cased: one round in flight
// at a time (a second would only wait on the row's lock holding a connection).
func (s *Store) solverQueue(chainID uint64, from string) *groupcommit.Rounds[*solverAsk] {
	return s.solverQueues.Of(solverKey{chainID, from}, s.newSolverQueue)
}

// solverKey names the group commit of one chain and solver address.
type solverKey struct {
	chainID uint64
	from    string
}

// newSolverQueue is the group commit of key's solver transactions.
func (s *Store) newSolverQueue(key solverKey) *groupcommit.Rounds[*solverAsk] {
	return &groupcommit.Rounds[*solverAsk]{MaxInFlight: 1, MaxBatch: maxSolverBatch,
		Run: func(batch []*solverAsk) { s.runSolverBatch(key.chainID, key.from, batch) }}
}

// prepareSolverTx queues a in its group commit and returns its answer, or ctx's error when ctx
// ends first.
func (s *Store) prepareSolverTx(ctx context.Context, chainID uint64, from string, a *solverAsk) (*SolverTx, error) {
	if err := s.solverQueue(chainID, from).Ask(ctx, a, a.done); err != nil {
		return nil, err
	}
	return a.tx, a.err
}

// runSolverBatch prepares one group and answers each of its callers. A failed Postgres
// transaction stores nothing and answers every caller with its error (each retries); a caller
// refused for its inventory, or whose signing failed, is answered so without failing the others.
func (s *Store) runSolverBatch(chainID uint64, from string, batch []*solverAsk) {
	ctx, cancel := context.WithTimeout(context.Background(), solverBatchTimeout)
	defer cancel()
	err := inPipeTx(ctx, s.signing, func(tx *pipeTx) (err error) {
		// A signer that panics fails its group, not the queue: every caller is answered and the
		// next group runs.
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("solver transactions of chain %d: panic while signing: %v", chainID, p)
			}
		}()
		return prepareGroup(ctx, tx, chainID, from, batch)
	})
	for _, a := range batch {
		if err != nil {
			a.tx, a.err = nil, err
		}
		close(a.done)
	}
}

// prepareGroup is the transaction of one group, two round trips: BEGIN with the row's lock, what
// is in flight and what is already stored; then, after every signing, what stores them and moves
// the nonce on, with COMMIT.
func prepareGroup(ctx context.Context, tx *pipeTx, chainID uint64, from string, batch []*solverAsk) error {
	check := false
	ids := make([]string, 0, len(batch))
	floor := batch[0].chainNonce
	for _, a := range batch {
		ids = append(ids, a.requestID)
		floor = min(floor, a.chainNonce)
		check = check || a.held != nil
	}
	next, inFlight, stored, err := lockNonce(ctx, tx, chainID, from, floor, check, ids)
	if err != nil {
		return err
	}
	// What the group signs commits inventory too: each check counts the signings before it.
	signed := map[string]*big.Int{}
	first := map[string]*solverAsk{}
	var news []*solverAsk
	var twice [][2]*solverAsk
	for _, a := range batch {
		key := a.requestID + "\x00" + string(a.kind)
		if t := stored[key]; t != nil {
			a.tx = t
			continue
		}
		if f := first[key]; f != nil {
			// Asked twice in one group (a retried activity beside the first attempt): the
			// second gets the first's answer.
			twice = append(twice, [2]*solverAsk{a, f})
			continue
		}
		first[key] = a
		if a.held != nil {
			committed := inFlight.since(a.chainNonce)
			for c, v := range signed {
				committed[c] = new(big.Int).Add(orZero(committed[c]), v)
			}
			if a.err = cover(chainID, a.pays, a.held, committed); a.err != nil {
				continue
			}
		}
		nonce := max(uint64(next), a.chainNonce)
		hash, raw, err := a.sign(nonce)
		if err != nil {
			a.err = fmt.Errorf("sign: %w", err)
			continue
		}
		a.tx = &SolverTx{RequestID: a.requestID, Kind: a.kind, ChainID: chainID, From: from, Nonce: nonce, Hash: hash, Raw: raw}
		next = int64(nonce) + 1
		news = append(news, a)
		commit(signed, a.pays)
	}
	group := make([]*SolverTx, len(news))
	for i, a := range news {
		group[i] = a.tx
	}
	for _, a := range news {
		a.tx.Group = group
	}
	for _, p := range twice {
		p[0].tx, p[0].err = p[1].tx, p[1].err
	}
	b := &pgx.Batch{}
	if len(news) == 0 {
		return tx.commit(ctx, b)
	}
	b.Queue(`UPDATE solver_nonces SET next_nonce = $3 WHERE chain_id = $1 AND address = $2`, int64(chainID), from, next)
	for _, a := range news {
		b.Queue(`INSERT INTO solver_transactions (request_id, kind, attempt, chain_id, from_address, nonce, tx_hash, raw_tx,
				pays_currency, pays_amount, max_gas_cost)
			VALUES ($1, $2, 0, $3, $4, $5, $6, $7, $8, $9::numeric, $10::numeric)`, a.requestID, a.kind, int64(chainID), from,
			int64(a.tx.Nonce), a.tx.Hash, a.tx.Raw, currencyOf(a.pays), orZero(a.pays.Amount).String(), orZero(a.pays.MaxGasCost).String())
	}
	return tx.commit(ctx, b)
}

// lockNonce locks the nonce row of (chainID, from) for the transaction and returns its next
// nonce, creating the row at floor the first time (the row exists after the first signing, so
// the insert is tried only when the lock finds none); with withInFlight, what the transactions
// not mined at floor commit, by nonce (inFlightQuery); and the latest stored transaction of each
// of ids, by request id and kind. The three go to Postgres in one round trip, a pipeline: the two
// reads are statements of their own, run once the lock is held, so they see every transaction
// the holders before stored.
func lockNonce(ctx context.Context, tx *pipeTx, chainID uint64, from string, floor uint64, withInFlight bool,
	ids []string) (next int64, inFlight inFlightByNonce, stored map[string]*SolverTx, err error) {
	for try := 0; ; try++ {
		stored = map[string]*SolverTx{}
		b := &pgx.Batch{}
		b.Queue(`SELECT next_nonce FROM solver_nonces WHERE chain_id = $1 AND address = $2 FOR UPDATE`,
			int64(chainID), from).QueryRow(func(row pgx.Row) error { return row.Scan(&next) })
		if withInFlight {
			b.Queue(inFlightQuery, int64(chainID), from, int64(floor)).Query(func(rows pgx.Rows) error {
				inFlight, err = scanInFlight(rows)
				return err
			})
		}
		b.Queue(`SELECT DISTINCT ON (request_id, kind) `+solverTxColumns+` FROM solver_transactions
			WHERE request_id = ANY($1) ORDER BY request_id, kind, attempt DESC`, ids).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				t, err := scanSolverTx(rows)
				if err != nil {
					return err
				}
				stored[t.RequestID+"\x00"+string(t.Kind)] = t
			}
			return rows.Err()
		})
		err = tx.send(ctx, b)
		if !errors.Is(err, pgx.ErrNoRows) || try > 0 {
			return next, inFlight, stored, err
		}
		insert := &pgx.Batch{}
		insert.Queue(`INSERT INTO solver_nonces (chain_id, address, next_nonce) VALUES ($1, $2, $3)
			ON CONFLICT DO NOTHING`, int64(chainID), from, int64(floor))
		if err := tx.send(ctx, insert); err != nil {
			return 0, nil, nil, err
		}
	}
}

// inFlightQuery lists, by nonce and currency, what the stored transactions of ($1 chain, $2
// address) with a nonce at or above $3 commit: the most any attempt of the nonce pays, and the
// most gas any of them can cost. Voided transactions (signed for a chain since reset) commit
// nothing: they are never broadcast again. The attempts of one nonce replace each other, so a nonce counts
// once, at the most any of its attempts can take.
const inFlightQuery = `SELECT nonce, pays_currency, max(pays_amount)::text, max(max_gas_cost)::text FROM solver_transactions
		WHERE chain_id = $1 AND lower(from_address) = $2 AND nonce >= $3 AND pays_currency IS NOT NULL AND NOT voided
		GROUP BY nonce, pays_currency`

// inFlightByNonce is what each nonce's transactions commit.
type inFlightByNonce []nonceCommitment

type nonceCommitment struct {
	nonce          uint64
	currency       string
	amount, maxGas *big.Int
}

// since sums, by currency, what the transactions at or above nonce commit: they are not mined at
// the block where the solver's nonce was nonce, so the balances read at that block still hold
// what they pay. The native currency's sum includes every transaction's gas.
func (f inFlightByNonce) since(nonce uint64) map[string]*big.Int {
	out := map[string]*big.Int{}
	for _, c := range f {
		if c.nonce >= nonce {
			commit(out, intent.Commitment{Currency: c.currency, Amount: c.amount, MaxGasCost: c.maxGas})
		}
	}
	return out
}

// commit adds what c commits to sums by currency: its amount to its currency, its gas to the
// native one.
func commit(sums map[string]*big.Int, c intent.Commitment) {
	add := func(currency string, v *big.Int) {
		sums[currency] = new(big.Int).Add(orZero(sums[currency]), orZero(v))
	}
	add(currencyOf(c), c.Amount)
	add(nativeCurrency, c.MaxGasCost)
}

// scanInFlight reads inFlightQuery's rows.
func scanInFlight(rows pgx.Rows) (inFlightByNonce, error) {
	var out inFlightByNonce
	num := func(currency, v string) (*big.Int, error) {
		n, ok := new(big.Int).SetString(v, 10)
		if !ok {
			return nil, fmt.Errorf("committed amount %q of %s is not an integer", v, currency)
		}
		return n, nil
	}
	for rows.Next() {
		var nonce int64
		var currency, amount, gas string
		if err := rows.Scan(&nonce, &currency, &amount, &gas); err != nil {
			return nil, err
		}
		c := nonceCommitment{nonce: uint64(nonce), currency: strings.ToLower(currency)}
		var err error
		if c.amount, err = num(c.currency, amount); err != nil {
			return nil, err
		}
		if c.maxGas, err = num(nativeCurrency, gas); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
