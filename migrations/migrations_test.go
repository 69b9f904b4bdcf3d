package migrations_test

import (
	"context"
	"testing"

	"github.com/intentd/intentd/internal/testkit/testenv"
	"github.com/intentd/intentd/migrations"
)

// testenv.Pool has applied every migration once; a second run must change nothing.
func TestApplyTwiceChangesNothing(t *testing.T) {
	pool := testenv.Pool(t)
	applied, err := migrations.Apply(context.Background(), pool)
	if err != nil || len(applied) != 0 {
		t.Fatalf("second apply: %v %v", applied, err)
	}
	all, _ := migrations.All()
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil || n != len(all) {
		t.Fatalf("schema_migrations has %d rows, want %d (%v)", n, len(all), err)
	}
}

// 0005 moves every existing key's integrator name and revenue-share profile into an integrator
// row: keys of one integrator with one profile share it, a key without an integrator name gets
// its own, and no profile is lost.
func TestKeysMigrateIntoIntegrators(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Pool(t)
	all, err := migrations.All()
	if err != nil {
		t.Fatal(err)
	}
	// Back to the schema before 0005.
	if _, err := pool.Exec(ctx, `DROP SCHEMA public CASCADE; CREATE SCHEMA public`); err != nil {
		t.Fatal(err)
	}
	var keys migrations.Migration
	for _, m := range all {
		if m.Version == 5 {
			keys = m
			break
		}
		if _, err := pool.Exec(ctx, m.SQL); err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
	}
	if _, err := pool.Exec(ctx, `INSERT INTO api_keys (id, name, key_hash, key_prefix, integrator, business_verified, payout_address) VALUES
		('00000000-0000-4000-8000-000000000001', 'prod', '\x01', 'ik_000001', 'acme', true, '0xPAYOUT'),
		('00000000-0000-4000-8000-000000000002', 'staging', '\x02', 'ik_000002', 'acme', true, '0xPAYOUT'),
		('00000000-0000-4000-8000-000000000003', 'legacy', '\x03', 'ik_000003', 'acme', false, ''),
		('00000000-0000-4000-8000-000000000004', 'dev', '\x04', 'ik_000004', '', false, ''),
		('00000000-0000-4000-8000-000000000005', 'dev', '\x05', 'ik_000005', '', false, '')`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, keys.SQL); err != nil {
		t.Fatalf("%s: %v", keys.Name, err)
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
