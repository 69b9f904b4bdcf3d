package api

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/ratelimit"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
	"github.com/intentd/intentd/usage"
)

// The cost of knowing the caller (BENCHMARKS.md, "Keys, limits and usage"): key resolution, the
// rate-limit check against Redis and usage counting, measured together on the status route
// against the same engine without them. The key has a limit no benchmark reaches, so every
// request takes the admitted path.

const benchRequestID = "0x00000000000000000000000000000000000000000000000000000000000b0b0b"

// benchServer is a Server over the test database and Redis with a key that is never limited by
// count, and the request row the status route reads.
func benchServer(b *testing.B) (*Server, string) {
	b.Helper()
	pool := testenv.Pool(b)
	st := store.New(pool)
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `INSERT INTO requests (id, status, "user", recipient, origin_chain_id, destination_chain_id,
		order_id, record) VALUES ($1, 'waiting', '0x1', '0x2', 31337, 31338, $1, '{}') ON CONFLICT DO NOTHING`, benchRequestID); err != nil {
		b.Fatal(err)
	}
	by := store.Actor{Name: "bench", Via: store.ViaCLI}
	in, err := st.CreateIntegrator(ctx, auth.Integrator{Name: "bench"}, by)
	if err != nil {
		b.Fatal(err)
	}
	value, _, err := st.CreateAPIKey(ctx, store.NewKey{IntegratorID: in.ID, Label: "bench", Tier: auth.TierCustom,
		Limits: map[string]auth.Rate{ratelimit.Status: {Count: 1_000_000_000, Period: time.Minute}}}, by)
	if err != nil {
		b.Fatal(err)
	}
	s := &Server{Store: st, Logger: slog.New(slog.DiscardHandler),
		Keys:   auth.NewResolver(st, auth.ResolverOptions{Logger: slog.New(slog.DiscardHandler)}),
		Usage:  usage.NewRecorder(st, usage.Options{Logger: slog.New(slog.DiscardHandler)}),
		Limits: ratelimit.New(ratelimit.Options{Redis: testenv.RedisClient(b), Prefix: fmt.Sprintf("bench%d:", time.Now().UnixNano()), Policy: ratelimit.DefaultPolicy()})}
	s.adminFailures = newAdminFailures()
	return s, value
}

// engine is the status route behind the API's own middleware, with or without the three that
// know the caller (countUsage, authenticate, limitRequests).
func (s *Server) benchEngine(caller bool, handler gin.HandlerFunc) *gin.Engine {
	r := gin.New()
	if caller {
		r.Use(s.countUsage(), s.recoverer(), s.logRequests(), s.bound(), s.authenticate(), s.limitRequests())
	} else {
		r.Use(s.recoverer(), s.logRequests(), s.bound())
	}
	r.GET("/intents/status/v3", handler)
	return r
}

// BenchmarkCallerOverhead times one request through the middleware to a handler that does
// nothing, with and without key resolution, the limit check and usage counting; the p99 of the
// difference is the overhead the issue bounds (0.2 ms).
func BenchmarkCallerOverhead(b *testing.B) {
	s, key := benchServer(b)
	noop := func(c *gin.Context) { c.Status(http.StatusNoContent) }
	for _, on := range []bool{false, true} {
		name := "bare"
		if on {
			name = "key+limit+usage"
		}
		b.Run(name, func(b *testing.B) {
			h := s.benchEngine(on, noop)
			req := httptest.NewRequest(http.MethodGet, "/intents/status/v3?requestId="+benchRequestID, nil)
			req.Header.Set("x-api-key", key)
			req.RemoteAddr = "127.0.0.1:40000"
			h.ServeHTTP(httptest.NewRecorder(), req) // resolve the key once
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				w := httptest.NewRecorder()
				t0 := time.Now()
				h.ServeHTTP(w, req)
				lat = append(lat, time.Since(t0))
				if w.Code != http.StatusNoContent {
					b.Fatalf("status %d", w.Code)
				}
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// BenchmarkStatusThroughput serves GET /intents/status/v3 (one indexed Postgres read) over real
// HTTP from parallel clients, with and without the caller's key, limit and usage, and reports
// requests per second.
func BenchmarkStatusThroughput(b *testing.B) {
	s, key := benchServer(b)
	for _, on := range []bool{false, true} {
		name := "without"
		if on {
			name = "with-key-limit-usage"
		}
		b.Run(name, func(b *testing.B) {
			hs := httptest.NewServer(s.benchEngine(on, s.intentStatus(statusV3)))
			defer hs.Close()
			tr := &http.Transport{MaxIdleConnsPerHost: 64}
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr}
			url := hs.URL + "/intents/status/v3?requestId=" + benchRequestID
			b.SetParallelism(16)
			start := time.Now()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					req, _ := http.NewRequest(http.MethodGet, url, nil)
					req.Header.Set("x-api-key", key)
					resp, err := client.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body) // read to the end, or the connection is not reused
					_ = resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						b.Errorf("status %d", resp.StatusCode)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
		})
	}
}
