package migrations_test

import (
	"context"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/intentd/intentd/migrations"
	"github.com/intentd/intentd/testkit/testenv"
)

// Issue 34, point 6: "the migrations through a maintained runner (pressly/goose with the embedded
// SQL), keeping the files and what is already applied". The runner before goose is
// legacyApply (legacy_test.go); its databases are taken over without running anything again.

// wipe empties pool's database (testenv gives it migrated): a database no runner has touched.
func wipe(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), `DROP SCHEMA public CASCADE; CREATE SCHEMA public`); err != nil {
		t.Fatal(err)
	}
}

// files are the embedded migrations' names, in version order.
func files(t *testing.T) []string {
	t.Helper()
	names, err := fs.Glob(migrations.Files, "*.sql")
	if err != nil || len(names) == 0 {
		t.Fatalf("embedded migrations: %v %v", names, err)
	}
	slices.Sort(names)
	return names
}

// gooseVersions are the versions goose records as applied, in the order it recorded them,
// without its own version 0.
func gooseVersions(t *testing.T, pool *pgxpool.Pool) []int64 {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT version_id FROM goose_db_version WHERE is_applied AND version_id > 0 ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// upTo is 1, 2, ... n.
func upTo(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i + 1)
	}
	return out
}

func TestAFreshDatabaseGetsEveryFileOnceInVersionOrder(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Pool(t)
	wipe(t, pool)
	applied, err := migrations.Apply(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	all := files(t)
	if !slices.Equal(applied, all) {
		t.Fatalf("applied %v, want %v", applied, all)
	}
	if got := gooseVersions(t, pool); !slices.Equal(got, upTo(len(all))) {
		t.Fatalf("goose_db_version holds %v", got)
	}
	// The last file's function is there: every file ran to its end.
	var fn bool
	if err := pool.QueryRow(ctx, `SELECT to_regproc('reserve_deposit_exposure') IS NOT NULL`).Scan(&fn); err != nil || !fn {
		t.Fatalf("reserve_deposit_exposure: %v %v", fn, err)
	}
}

// "Keep the SQL files": goose, which splits each file into its statements at the annotations,
// builds the very schema the old runner built from the same files sent whole.
func TestGooseBuildsTheSchemaTheOldRunnerBuilt(t *testing.T) {
	ctx := context.Background()
	old, goose := testenv.Pool(t), testenv.Pool(t)
	wipe(t, old)
	wipe(t, goose)
	if _, err := legacyApply(ctx, old, len(files(t))); err != nil {
		t.Fatal(err)
	}
	if _, err := migrations.Apply(ctx, goose); err != nil {
		t.Fatal(err)
	}
	want, got := schema(t, old), schema(t, goose)
	if len(want) < 100 {
		t.Fatalf("the old runner's schema has %d parts", len(want))
	}
	if !slices.Equal(got, want) {
		for _, line := range got {
			if !slices.Contains(want, line) {
				t.Errorf("goose's only: %s", line)
			}
		}
		for _, line := range want {
			if !slices.Contains(got, line) {
				t.Errorf("the old runner's only: %s", line)
			}
		}
	}
}

// schema describes the public schema of pool's database, but for the runners' own tables: its
// columns, constraints, indexes, functions, triggers and column storage, one sorted line each.
func schema(t *testing.T, pool *pgxpool.Pool) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `
		SELECT format('column %s.%s %s null=%s default=%s generated=%s', table_name, column_name, data_type,
			is_nullable, coalesce(column_default, ''), coalesce(generation_expression, ''))
		FROM information_schema.columns WHERE table_schema = 'public'
			AND table_name NOT IN ('schema_migrations', 'goose_db_version')
		UNION ALL
		SELECT format('constraint %s %s %s', conrelid::regclass, conname, pg_get_constraintdef(oid))
		FROM pg_constraint WHERE connamespace = 'public'::regnamespace
			AND conrelid::regclass::text NOT IN ('schema_migrations', 'goose_db_version')
		UNION ALL
		SELECT format('index %s', indexdef) FROM pg_indexes WHERE schemaname = 'public'
			AND tablename NOT IN ('schema_migrations', 'goose_db_version')
		UNION ALL
		SELECT format('function %s', pg_get_functiondef(oid)) FROM pg_proc WHERE pronamespace = 'public'::regnamespace
		UNION ALL
		SELECT format('trigger %s', pg_get_triggerdef(oid)) FROM pg_trigger WHERE NOT tgisinternal
		UNION ALL
		SELECT format('compression %s.%s %s', attrelid::regclass, attname, attcompression) FROM pg_attribute
		WHERE attrelid IN (SELECT oid FROM pg_class WHERE relnamespace = 'public'::regnamespace) AND attcompression <> ''`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// testenv.Pool has applied every migration once; a second run must change nothing.
func TestApplyTwiceChangesNothing(t *testing.T) {
	pool := testenv.Pool(t)
	applied, err := migrations.Apply(context.Background(), pool)
	if err != nil || len(applied) != 0 {
		t.Fatalf("second apply: %v %v", applied, err)
	}
	if got := gooseVersions(t, pool); !slices.Equal(got, upTo(len(files(t)))) {
		t.Fatalf("goose_db_version holds %v", got)
	}
}

// "A database migrated by the old runner (its own version table) must be taken over by the new
// one without re-running anything": its versions are imported into goose's table once, the
// files it did not apply are applied, and schema_migrations is left as it was.
func TestADatabaseTheOldRunnerMigratedIsTakenOverWithoutRunningAnythingAgain(t *testing.T) {
	ctx := context.Background()
	all := files(t)
	for _, old := range []int{14, len(all)} {
		pool := testenv.Pool(t)
		wipe(t, pool)
		if applied, err := legacyApply(ctx, pool, old); err != nil || len(applied) != old {
			t.Fatalf("old runner: %v %v", applied, err)
		}
		// A solver's nonce, which running 0001 again would not keep (it fails first: its tables exist).
		if _, err := pool.Exec(ctx, `INSERT INTO solver_nonces (chain_id, address, next_nonce) VALUES (1, '0xsolver', 42)`); err != nil {
			t.Fatal(err)
		}
		applied, err := migrations.Apply(ctx, pool)
		if err != nil {
			t.Fatalf("after %d by the old runner: %v", old, err)
		}
		if !slices.Equal(applied, all[old:]) {
			t.Fatalf("after %d by the old runner: applied %v, want %v", old, applied, all[old:])
		}
		if got := gooseVersions(t, pool); !slices.Equal(got, upTo(len(all))) {
			t.Fatalf("goose_db_version holds %v", got)
		}
		var legacy, nonce int
		if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM schema_migrations), (SELECT next_nonce FROM solver_nonces WHERE chain_id = 1)`).Scan(&legacy, &nonce); err != nil {
			t.Fatal(err)
		}
		if legacy != old || nonce != 42 {
			t.Fatalf("schema_migrations has %d rows (want %d), the solver's nonce is %d", legacy, old, nonce)
		}
		if again, err := migrations.Apply(ctx, pool); err != nil || len(again) != 0 {
			t.Fatalf("once adopted, a second run: %v %v", again, err)
		}
	}
}

// Bad input gets a clear error and changes nothing: a version the old runner recorded under a
// file this binary does not hold (a file renumbered since) is not adopted by guess.
func TestAnOldRunnersVersionUnderAnotherFileIsRefusedAndNothingChanges(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Pool(t)
	wipe(t, pool)
	if _, err := legacyApply(ctx, pool, 14); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES (15, '0015_something_else.sql')`); err != nil {
		t.Fatal(err)
	}
	applied, err := migrations.Apply(ctx, pool)
	if err == nil || len(applied) != 0 || !strings.Contains(err.Error(), "0015_something_else.sql") {
		t.Fatalf("got %v %v", applied, err)
	}
	var goose bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass('goose_db_version') IS NOT NULL`).Scan(&goose); err != nil || goose {
		t.Fatalf("goose_db_version created: %v %v", goose, err)
	}
}

// "Advisory locking so two migrating processes at once are safe": two processes (two pools)
// migrating one database at once, fresh or left by the old runner, apply each file once
// between them and both succeed.
func TestTwoMigratorsAtOnceApplyEachFileOnce(t *testing.T) {
	ctx := context.Background()
	all := files(t)
	for _, old := range []int{0, 14} {
		pool := testenv.Pool(t)
		wipe(t, pool)
		if old > 0 {
			if _, err := legacyApply(ctx, pool, old); err != nil {
				t.Fatal(err)
			}
		}
		pools := []*pgxpool.Pool{testenv.PoolOn(t, pool, 0), testenv.PoolOn(t, pool, 0)}
		applied := make([][]string, len(pools))
		errs := make([]error, len(pools))
		var ready, wg sync.WaitGroup
		start := make(chan struct{})
		for i, p := range pools {
			ready.Add(1)
			wg.Go(func() {
				ready.Done()
				<-start
				applied[i], errs[i] = migrations.Apply(ctx, p)
			})
		}
		ready.Wait()
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("after %d by the old runner, migrator %d: %v", old, i, err)
			}
		}
		both := append(slices.Clone(applied[0]), applied[1]...)
		slices.Sort(both)
		if !slices.Equal(both, all[old:]) {
			t.Fatalf("after %d by the old runner: the two applied %v and %v", old, applied[0], applied[1])
		}
		if got := gooseVersions(t, pool); !slices.Equal(got, upTo(len(all))) {
			t.Fatalf("goose_db_version holds %v", got)
		}
	}
}

// "Keep -- +goose NO TRANSACTION semantics where a file must run outside a transaction": none of
// today's files needs it (none creates an index CONCURRENTLY); a file that does runs through
// this runner, locked, as goose runs it.
func TestAFileMarkedNoTransactionRunsOutsideATransaction(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Pool(t)
	wipe(t, pool)
	fsys := fstest.MapFS{
		"0001_t.sql": {Data: []byte("-- +goose Up\nCREATE TABLE t (x integer);\n")},
		"0002_t_x.sql": {Data: []byte("-- +goose NO TRANSACTION\n-- +goose Up\n" +
			"CREATE INDEX CONCURRENTLY t_x_idx ON t (x);\n")},
	}
	applied, err := migrations.ApplyTo(ctx, pool, fsys, 2)
	if err != nil || !slices.Equal(applied, []string{"0001_t.sql", "0002_t_x.sql"}) {
		t.Fatalf("got %v %v", applied, err)
	}
	var idx bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass('t_x_idx') IS NOT NULL`).Scan(&idx); err != nil || !idx {
		t.Fatalf("t_x_idx: %v %v", idx, err)
	}
}

// 0005 moves every existing key's integrator name and revenue-share profile into an integrator
// row: keys of one integrator with one profile share it, a key without an integrator name gets
// its own, and no profile is lost.
func TestKeysMigrateIntoIntegrators(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Pool(t)
	// Back to the schema before 0005.
	wipe(t, pool)
	if _, err := migrations.ApplyTo(ctx, pool, migrations.Files, 4); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO api_keys (id, name, key_hash, key_prefix, integrator, business_verified, payout_address) VALUES
		('00000000-0000-4000-8000-000000000001', 'prod', '\x01', 'ik_000001', 'acme', true, '0xPAYOUT'),
		('00000000-0000-4000-8000-000000000002', 'staging', '\x02', 'ik_000002', 'acme', true, '0xPAYOUT'),
		('00000000-0000-4000-8000-000000000003', 'legacy', '\x03', 'ik_000003', 'acme', false, ''),
		('00000000-0000-4000-8000-000000000004', 'dev', '\x04', 'ik_000004', '', false, ''),
		('00000000-0000-4000-8000-000000000005', 'dev', '\x05', 'ik_000005', '', false, '')`); err != nil {
		t.Fatal(err)
	}
	if applied, err := migrations.ApplyTo(ctx, pool, migrations.Files, 5); err != nil || !slices.Equal(applied, []string{"0005_keys.sql"}) {
		t.Fatalf("0005: %v %v", applied, err)
	}
	rows, err := pool.Query(ctx, `SELECT k.label, i.id::text, i.name, i.business_verified, i.payout_address, k.tier, k.environment
		FROM api_keys k JOIN integrators i ON i.id = k.integrator_id ORDER BY k.id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type owner struct {
		label, id, name, payout, tier, env string
		verified                           bool
	}
	var got []owner
	for rows.Next() {
		var o owner
		if err := rows.Scan(&o.label, &o.id, &o.name, &o.verified, &o.payout, &o.tier, &o.env); err != nil {
			t.Fatal(err)
		}
		got = append(got, o)
	}
	if len(got) != 5 {
		t.Fatalf("%d keys", len(got))
	}
	prod, staging, legacy, dev1, dev2 := got[0], got[1], got[2], got[3], got[4]
	switch {
	case prod.label != "prod" || prod.name != "acme" || !prod.verified || prod.payout != "0xPAYOUT" || prod.tier != "default" || prod.env != "production":
		t.Fatalf("prod %+v", prod)
	case staging.id != prod.id:
		t.Fatalf("keys of one integrator with one profile have two integrators: %+v %+v", prod, staging)
	case legacy.id == prod.id || legacy.name != "acme" || legacy.verified:
		t.Fatalf("a key with another profile shares it: %+v", legacy)
	case dev1.id == dev2.id || dev1.name != "dev":
		t.Fatalf("keys without an integrator share one: %+v %+v", dev1, dev2)
	}
}
