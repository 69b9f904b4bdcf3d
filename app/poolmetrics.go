package app

import (
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

// poolCollector exports the process's Postgres pool (pgxpool.Stat) at each scrape: how often a
// connection was taken and how long callers waited for one, so an operator sees a pool that is
// too small (or transactions that hold their connections too long) before the requests slow.
type poolCollector struct {
	pool                                 *pgxpool.Pool
	acquires, waited, waitSeconds, conns *prometheus.Desc
}

func newPoolCollector(pool *pgxpool.Pool) *poolCollector {
	return &poolCollector{pool: pool,
		acquires: prometheus.NewDesc("intentd_db_pool_acquires_total",
			"Connections taken from the Postgres pool.", nil, nil),
		waited: prometheus.NewDesc("intentd_db_pool_acquires_waited_total",
			"Connections taken from the Postgres pool that had to wait, none being idle.", nil, nil),
		waitSeconds: prometheus.NewDesc("intentd_db_pool_acquire_wait_seconds_total",
			"Time spent waiting for a connection of the Postgres pool, none being idle.", nil, nil),
		conns: prometheus.NewDesc("intentd_db_pool_connections",
			"Connections of the Postgres pool: acquired (in use), idle, and max (the pool's size).", []string{"state"}, nil),
	}
}

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.acquires
	ch <- c.waited
	ch <- c.waitSeconds
	ch <- c.conns
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.pool.Stat()
	ch <- prometheus.MustNewConstMetric(c.acquires, prometheus.CounterValue, float64(s.AcquireCount()))
	ch <- prometheus.MustNewConstMetric(c.waited, prometheus.CounterValue, float64(s.EmptyAcquireCount()))
	ch <- prometheus.MustNewConstMetric(c.waitSeconds, prometheus.CounterValue, s.EmptyAcquireWaitTime().Seconds())
	for state, n := range map[string]int32{"acquired": s.AcquiredConns(), "idle": s.IdleConns(), "max": s.MaxConns()} {
		ch <- prometheus.MustNewConstMetric(c.conns, prometheus.GaugeValue, float64(n), state)
	}
}
