package store

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pipeTx is a transaction whose BEGIN goes to Postgres in one round trip with its first
// statements, and whose COMMIT with its last ones (a pipeline each): a transaction that reads
// under a lock, decides in Go and writes takes two round trips instead of four. Under load a
// round trip is most of a short transaction's time, and every one of them holds the pooled
// connection (and the locks taken) while the process waits for its turn on a busy CPU.
type pipeTx struct {
	conn  *pgxpool.Conn
	begun bool
	done  bool
}

// inPipeTx runs fn in a pipeTx on a pooled connection. fn sends its statements with send and
// its last ones with commit; a transaction fn leaves without commit, or that fails, is rolled
// back. A connection whose rollback fails is closed rather than reused.
func inPipeTx(ctx context.Context, pool *pgxpool.Pool, fn func(t *pipeTx) error) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	t := &pipeTx{conn: conn}
	defer func() {
		if t.begun && !t.done {
			// The rollback must run even when ctx has ended.
			rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			if _, err := conn.Exec(rctx, "ROLLBACK"); err != nil {
				_ = conn.Conn().Close(rctx)
			}
			cancel()
		}
		conn.Release() // pgxpool drops a connection left inside a transaction
	}()
	return fn(t)
}

// send runs b's statements in the transaction, after BEGIN when it is the first batch. Each
// statement of a pipeline starts after the one before has finished, so a read queued after a
// statement that takes a lock sees what the lock's holders before committed.
func (t *pipeTx) send(ctx context.Context, b *pgx.Batch) error {
	if !t.begun {
		b.QueuedQueries = append([]*pgx.QueuedQuery{{SQL: "BEGIN"}}, b.QueuedQueries...)
		t.begun = true
	}
	return t.conn.SendBatch(ctx, b).Close()
}

// commit runs b's statements, then COMMIT, in one round trip. When a statement fails the rest
// of the pipeline, COMMIT included, does not run, and inPipeTx rolls the transaction back.
func (t *pipeTx) commit(ctx context.Context, b *pgx.Batch) error {
	b.Queue("COMMIT")
	if err := t.send(ctx, b); err != nil {
		return err
	}
	t.done = true
	return nil
}
