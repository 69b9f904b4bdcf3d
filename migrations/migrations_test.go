package migrations_test

import (
	"context"
	"testing"

	"github.com/intentd/intentd/internal/testenv"
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
