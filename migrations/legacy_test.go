package migrations_test

import (
	"context"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/intentd/intentd/migrations"
)

// legacyApply is the runner the package had before goose (migrations.go at 75e2a87), kept
// verbatim but for upTo, to build the databases that goose must take over: it records each
// file it applies in schema_migrations (version, name, applied_at), one transaction per file
// under the advisory lock 0x696e74656e7464. The goose annotations in the files are SQL comments
// to it.
func legacyApply(ctx context.Context, pool *pgxpool.Pool, upTo int) ([]string, error) {
	type migration struct {
		Version int
		Name    string
		SQL     string
	}
	entries, err := fs.ReadDir(migrations.Files, ".")
	if err != nil {
		return nil, err
	}
	var all []migration
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || !strings.HasSuffix(name, ".sql") {
			return nil, fmt.Errorf("migration file %q is not named NNNN_name.sql", name)
		}
		body, err := fs.ReadFile(migrations.Files, name)
		if err != nil {
			return nil, err
		}
		if v <= upTo {
			all = append(all, migration{Version: v, Name: name, SQL: string(body)})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Version < all[j].Version })
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	const lockID = 0x696e74656e7464
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, lockID); err != nil {
		return nil, err
	}
	defer func() { _, _ = conn.Exec(context.Background(), `SELECT pg_advisory_unlock($1)`, lockID) }()
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return nil, err
	}
	var applied []string
	for _, m := range all {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			var exists bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)`, m.Version).Scan(&exists); err != nil {
				return err
			}
			if exists {
				return nil
			}
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return fmt.Errorf("%s: %w", m.Name, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, m.Version, m.Name); err != nil {
				return err
			}
			applied = append(applied, m.Name)
			return nil
		})
		if err != nil {
			return applied, err
		}
	}
	return applied, nil
}
