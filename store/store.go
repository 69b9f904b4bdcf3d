// Package store is the Postgres side of the engine, through pgx: the request read model and its
// transactions, quotes with their order data, API keys (hashed), block cursors, solver nonces and
// the signed solver transactions that make a fill happen at most once. Nothing here knows about
// HTTP or Temporal.
package store

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrNotFound is returned when a row asked for by key does not exist.
var ErrNotFound = errors.New("not found")

// Store wraps a pgx pool. It is safe for concurrent use.
type Store struct {
	pool *pgxpool.Pool
}

// New returns a store over an open pool.
func New(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

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
