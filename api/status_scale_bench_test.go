package api

import (
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/usage"
)

// BenchmarkStatusAtScale serves GET /intents/status/v3 through the API's whole middleware over
// real HTTP, in this process, from 16 clients per core asking for random requests of a seeded
// database (BENCHMARKS.md, "Request records": `bench/recordload seed`, one million requests). It
// runs only when RECORDS_BENCH_DATABASE_URL names that database, and reports requests per second
// and the latency percentiles.
func BenchmarkStatusAtScale(b *testing.B) {
	dbURL := os.Getenv("RECORDS_BENCH_DATABASE_URL")
	if dbURL == "" {
		b.Skip("RECORDS_BENCH_DATABASE_URL is not set (a database seeded by bench/recordload)")
	}
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	var ids []string
	rows, err := pool.Query(ctx, `SELECT id FROM requests TABLESAMPLE SYSTEM (5) LIMIT 50000`)
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			b.Fatal(err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	st := store.New(pool)
	s := &Server{Store: st, Logger: slog.New(slog.DiscardHandler), Usage: usage.NewRecorder(st, usage.Options{FlushEvery: time.Hour})}
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	var mu sync.Mutex
	var lat []time.Duration
	b.SetParallelism(16)
	start := time.Now()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		r := rand.New(rand.NewPCG(rand.Uint64(), 1))
		mine := make([]time.Duration, 0, 1024)
		for pb.Next() {
			t0 := time.Now()
			resp, err := client.Get(hs.URL + "/intents/status/v3?requestId=" + ids[r.IntN(len(ids))])
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body) // read to the end, or the connection is not reused
			_ = resp.Body.Close()
			mine = append(mine, time.Since(t0))
			if resp.StatusCode != http.StatusOK {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
		mu.Lock()
		lat = append(lat, mine...)
		mu.Unlock()
	})
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}
