package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/intentd/intentd/testkit/testenv"
)

// A caller that finds every connection of the pool taken waits, and the pool's metrics say so:
// two acquires waited (the first for the connection to open, the second for it to be released),
// together for at least as long as the connection was held.
func TestThePoolMetricsCountAWaitForAConnection(t *testing.T) {
	pool := testenv.PoolOn(t, testenv.Pool(t), 1)
	ctx := context.Background()
	held, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	go func() { time.Sleep(200 * time.Millisecond); held.Release() }()
	second, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	second.Release()

	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(newPoolCollector(pool))
	want := `
# HELP intentd_db_pool_acquires_waited_total Connections taken from the Postgres pool that had to wait, none being idle.
# TYPE intentd_db_pool_acquires_waited_total counter
intentd_db_pool_acquires_waited_total 2
# HELP intentd_db_pool_connections Connections of the Postgres pool: acquired (in use), idle, and max (the pool's size).
# TYPE intentd_db_pool_connections gauge
intentd_db_pool_connections{state="acquired"} 0
intentd_db_pool_connections{state="idle"} 1
intentd_db_pool_connections{state="max"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "intentd_db_pool_acquires_waited_total", "intentd_db_pool_connections"); err != nil {
		t.Error(err)
	}
	waited, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range waited {
		if mf.GetName() == "intentd_db_pool_acquire_wait_seconds_total" {
			if s := mf.GetMetric()[0].GetCounter().GetValue(); s < 0.15 {
				t.Errorf("wait %.3f s, want about the 0.2 s the connection was held", s)
			}
		}
	}
}
