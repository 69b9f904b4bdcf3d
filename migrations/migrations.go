// Package migrations holds the ordered SQL schema files and applies them with goose
// (github.com/pressly/goose/v3, its Provider over the embedded files). Files are named
// NNNN_name.sql, embedded in the binary, and applied once each, in version order, recorded in
// goose's table goose_db_version; running Apply twice changes nothing.
//
// Writing a file: its first line is `-- +goose Up` (there are no Down sections: a schema
// change is undone by a new file). goose splits the file at each line that ends with a
// semicolon, so a statement with semicolons inside it (a DO block, a plpgsql function) sits
// between `-- +goose StatementBegin` and `-- +goose StatementEnd`. Each file runs in one
// transaction, all or nothing; a file whose statements Postgres refuses in a transaction
// (CREATE INDEX CONCURRENTLY) carries `-- +goose NO TRANSACTION`, and then holds that one
// statement only, so a failure leaves nothing half done.
//
// Two migrators at once (a migrate job started twice, dev processes starting together) are
// serialised by a Postgres session advisory lock, the one the runner before goose took, so a
// process of either kind waits for the other. A database that runner migrated, recorded in its
// own table schema_migrations, is taken over once (adopt): its versions are written into
// goose's table and nothing is run again.
package migrations

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/database"
	"github.com/pressly/goose/v3/lock"
)

//go:embed *.sql
var files embed.FS

// lockID serialises concurrent migrators. It is the key the runner before goose locked, so
// that an old binary and a new one migrating the same database at once wait for each other.
const lockID = 0x696e74656e7464 // "intentd"

// lockWait is how long a migrator waits for another one to finish, asking every lockPoll (goose's
// session locker polls pg_try_advisory_lock rather than blocking): far longer than any of the
// files takes, short enough that a migrator stuck behind a lost one fails with an error.
const (
	lockWait = 30 * time.Minute
	lockPoll = time.Second
)

// legacyTable is the runner before goose's record of what it applied: version, file name and
// time. Adoption reads it and leaves it as it is.
const legacyTable = "schema_migrations"

// Apply applies every migration not yet recorded and returns the names of the files it applied
// (on an error, those applied before it). A database migrated by the runner before goose is
// adopted first.
func Apply(ctx context.Context, pool *pgxpool.Pool) ([]string, error) {
	return apply(ctx, pool, files, math.MaxInt64)
}

// apply brings pool's database to version upTo of the migrations in fsys.
func apply(ctx context.Context, pool *pgxpool.Pool, fsys fs.FS, upTo int64) ([]string, error) {
	// The *sql.DB borrows its connections from pool and closes none of them.
	db := stdlib.OpenDBFromPool(pool)
	defer func() { _ = db.Close() }()
	p, err := provider(db, fsys)
	if err != nil {
		return nil, err
	}
	if err := adopt(ctx, db, p); err != nil {
		return nil, err
	}
	results, err := p.UpTo(ctx, upTo)
	var partial *goose.PartialError
	if errors.As(err, &partial) {
		results = partial.Applied
	}
	applied := make([]string, 0, len(results))
	for _, r := range results {
		applied = append(applied, path.Base(r.Source.Path))
	}
	if err != nil {
		return applied, fmt.Errorf("migrate: %w", err)
	}
	return applied, nil
}

// provider is goose over fsys, locked by lockID, logging nothing (Apply's callers report
// what it applied).
func provider(db *sql.DB, fsys fs.FS) (*goose.Provider, error) {
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(lockID),
		lock.WithLockTimeout(uint64(lockPoll/time.Second), uint64(lockWait/lockPoll)))
	if err != nil {
		return nil, err
	}
	return goose.NewProvider(goose.DialectPostgres, db, fsys,
		goose.WithSessionLocker(locker),
		goose.WithDisableGlobalRegistry(true),
		goose.WithLogger(goose.NopLogger()))
}

// adopt takes over a database that the runner before goose migrated: when its table
// schema_migrations exists and goose's does not, it creates goose's table and records in it
// every version schema_migrations holds, in one transaction under lockID, so what was applied
// is never run again and a second migrator adopting at the same time finds it done. A version
// recorded there that this binary does not hold under the same file name (a file renumbered
// since) is refused, nothing changed: it needs an operator, not a guess.
func adopt(ctx context.Context, db *sql.DB, p *goose.Provider) (err error) {
	store, err := database.NewStore(goose.DialectPostgres, goose.DefaultTablename)
	if err != nil {
		return err
	}
	ext, ok := store.(database.StoreExtender)
	if !ok {
		return errors.New("goose's postgres store cannot tell whether its table exists")
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(lockID)); err != nil {
		return err
	}
	var legacy bool
	if err := tx.QueryRowContext(ctx, `SELECT to_regclass($1) IS NOT NULL`, legacyTable).Scan(&legacy); err != nil {
		return err
	}
	adopted, err := ext.TableExists(ctx, tx)
	if err != nil {
		return err
	}
	if !legacy || adopted {
		return tx.Commit()
	}
	files := map[int64]string{}
	for _, s := range p.ListSources() {
		files[s.Version] = path.Base(s.Path)
	}
	rows, err := tx.QueryContext(ctx, `SELECT version, name FROM `+legacyTable+` ORDER BY version`)
	if err != nil {
		return err
	}
	var versions []int64
	for rows.Next() {
		var v int64
		var name string
		if err := rows.Scan(&v, &name); err != nil {
			_ = rows.Close()
			return err
		}
		if held := files[v]; held != name {
			_ = rows.Close()
			if held == "" {
				held = "no file"
			}
			return fmt.Errorf("migrate: %s records version %d as %s, and this binary holds %s under that version: "+
				"the database was migrated with other files; nothing was changed (docs/operations.md, \"Migrations\")",
				legacyTable, v, name, held)
		}
		versions = append(versions, v)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if err := store.CreateVersionTable(ctx, tx); err != nil {
		return err
	}
	// Version 0 is the row goose writes with its table, as goose itself would.
	for _, v := range append([]int64{0}, versions...) {
		if err := store.Insert(ctx, tx, database.InsertRequest{Version: v}); err != nil {
			return err
		}
	}
	return tx.Commit()
}
