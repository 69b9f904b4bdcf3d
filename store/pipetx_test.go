package store

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/intentd/intentd/testkit/testenv"
)

// A pipelined transaction is all or nothing like any other: what its first round trip wrote is
// kept only once its last one commits. A statement that fails in the commit's pipeline, or an
// error of the code between the two round trips, rolls back the whole of it, and the pool's
// connections stay usable.
func TestPipeTxCommitsAllOrNothing(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Pool(t)
	if _, err := pool.Exec(ctx, `CREATE TABLE pipe (k text PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	insert := func(keys ...string) *pgx.Batch {
		b := &pgx.Batch{}
		for _, k := range keys {
			b.Queue(`INSERT INTO pipe (k) VALUES ($1)`, k)
		}
		return b
	}
	run := func(first, last []string, between error) error {
		return inPipeTx(ctx, pool, func(tx *pipeTx) error {
			if err := tx.send(ctx, insert(first...)); err != nil {
				return err
			}
			if between != nil {
				return between
			}
			return tx.commit(ctx, insert(last...))
		})
	}
	if err := run([]string{"a"}, []string{"b"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"c"}, []string{"d", "a"}, nil); err == nil { // "a" is taken: the commit's pipeline fails
		t.Fatal("a duplicate key in the commit's pipeline committed")
	}
	if err := run([]string{"e"}, []string{"f"}, errors.New("decided against it")); err == nil {
		t.Fatal("an error between the round trips committed")
	}
	for range 2 * int(pool.Config().MaxConns) { // every connection of the pool, none left inside a transaction
		if err := run(nil, nil, nil); err != nil {
			t.Fatalf("a connection after the failures: %v", err)
		}
	}
	rows, err := pool.Query(ctx, `SELECT k FROM pipe ORDER BY k`)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(keys) != 2 || keys[0] != "a" || keys[1] != "b" {
		t.Fatalf("rows %v (%v), want only a and b", keys, err)
	}
}
