package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// Of several workers' deposit scanners one scans a chain at a time: the chain's scan lock is
// held by one session, free for other chains, taken by the next scanner once released, and
// released with the holder's connections when its process goes away without releasing it.
func TestOneScannerHoldsAChainAtATime(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Pool(t)
	st := store.New(pool)
	take := func(s *store.Store, chainID uint64) (func(), bool) {
		t.Helper()
		release, ok, err := s.TryScanLock(ctx, chainID)
		if err != nil {
			t.Fatal(err)
		}
		return release, ok
	}

	release, ok := take(st, 31337)
	if !ok {
		t.Fatal("the first scanner did not get chain 31337")
	}
	if _, ok := take(st, 31337); ok {
		t.Fatal("a second scanner got chain 31337 while the first held it")
	}
	if other, ok := take(st, 31338); !ok {
		t.Fatal("chain 31338 was not free while 31337 was held")
	} else {
		other()
	}
	release()

	// Another process: its own pool. It gets the chain once the first has released it, and
	// holds it until its process dies without releasing it: Postgres then ends its session.
	otherPool, err := pgxpool.New(ctx, pool.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer otherPool.Close()
	other := store.New(otherPool)
	otherRelease, ok := take(other, 31337)
	if !ok {
		t.Fatal("the other process did not get the released chain")
	}
	if _, ok := take(st, 31337); ok {
		t.Fatal("this process got chain 31337 while the other held it")
	}
	if _, err := pool.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_locks
		WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if release, ok := take(st, 31337); ok {
			release()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("chain 31337 is still held 10 s after its holder's session ended")
		}
		time.Sleep(50 * time.Millisecond)
	}
	otherRelease() // the dead session's connection is closed and returned, so the pool can close
}
