// Package store is the Postgres side of the engine, through pgx: the request read model and its
// transactions, quotes with their order data, API keys (hashed), block cursors, solver nonces,
// the signed solver transactions that make a fill happen at most once, and the sponsorship
// ledger that makes integrators pay what they sponsor. Nothing here knows about HTTP or Temporal.
package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/groupcommit"
)

// ErrNotFound is returned when a row asked for by key does not exist (intent.ErrNotFound, so
// packages that depend on the store through interfaces can test for it without importing it).
var ErrNotFound = intent.ErrNotFound

// Store wraps a pgx pool. It is safe for concurrent use.
type Store struct {
	pool *pgxpool.Pool
	// signing is the pool of the solver transactions' group commits: pool unless SignOn.
	signing *pgxpool.Pool
	status  *statusBatch
	// solverQueues are the group commits of solver transactions, by chain and address
	// (solverbatch.go).
	solverQueues groupcommit.Keyed[solverKey, *solverAsk]
	// transitions is the group commit of read-model writes (transitionbatch.go).
	transitions groupcommit.Rounds[*transitionAsk]
}

// New returns a store over an open pool.
func New(pool *pgxpool.Pool) *Store {
	s := &Store{pool: pool, signing: pool}
	// At most two status queries run at once (one on a pool of two or three): a query costs
	// Postgres about the same whatever its size, so fewer in flight means larger batches and
	// less work per read. Measured at one million requests under wrk (BENCHMARKS.md): one in
	// flight 5.5k reads/s (p99 38 ms), two 9.9k (p99 15 ms), four 7.8k (p99 20 ms).
	s.status = newStatusBatch(s.statusRows, max(1, min(2, int(pool.Config().MaxConns)/2)), 64)
	s.transitions = groupcommit.Rounds[*transitionAsk]{Run: s.runTransitions, MaxInFlight: maxTransitionRounds, MaxBatch: maxTransitionBatch}
	return s
}

// SignOn has the group commits that sign the solver's transactions (solverbatch.go) take their
// connection from pool rather than from the store's, and returns s. A fill is signed in the
// middle of a block's bursts: at 50 intents a second the read-model writes, the quotes and the
// status reads of the same moment had half of the pool's acquires wait, 46 ms each, and the
// group that signs the fills waited with them, before its lock and again before the next group
// (BENCHMARKS.md). On a pool of their own, which they use one group at a time, the signings
// never wait behind those. Call it before the store is used; the caller closes pool.
func (s *Store) SignOn(pool *pgxpool.Pool) *Store {
	s.signing = pool
	return s
}

// Pool exposes the pool for health checks and tests.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Ping checks the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.pool.Ping(ctx) }

func notFound(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

// unavailable marks err as intent.ErrUnavailable unless the server answered it for good. An
// error the server answered (*pgconn.PgError: a constraint, a type, a schema problem) fails the
// same way on every retry, so it is passed on as it is, except those that say the server could
// not take the request this time (transientCode: no connection slot left, shutting down or
// starting up, a broken connection, a transaction it had to abort); anything else (a refused or
// dropped connection, a timeout, a closed pool) means the database could not be reached this
// time. Callers that test errors.Is(err, intent.ErrUnavailable) answer "retry" without knowing
// pgx.
func unavailable(err error) error {
	var pgErr *pgconn.PgError
	if err == nil || (errors.As(err, &pgErr) && !transientCode(pgErr.Code)) {
		return err
	}
	return fmt.Errorf("%w: %w", intent.ErrUnavailable, err)
}

// transientCode reports whether a server's SQLSTATE means "not now" rather than "never":
// class 08 (connection exception), class 53 (insufficient resources: 53300, too many
// connections, is what a full server answers a new connection), 57P01 to 57P03 (shutting down,
// or not yet accepting connections), 40001 and 40P01 (a serialization failure or a deadlock:
// the transaction was rolled back and may be run again).
func transientCode(code string) bool {
	switch {
	case strings.HasPrefix(code, "08"), strings.HasPrefix(code, "53"):
		return true
	}
	switch code {
	case "57P01", "57P02", "57P03", "40001", "40P01":
		return true
	}
	return false
}
