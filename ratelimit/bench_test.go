package ratelimit

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/intentd/intentd/auth"
)

// BenchmarkAllow is the limit check one request pays (one bucket): through Redis on loopback,
// as every API process does with REDIS_URL, and in process. It reports the 99th percentile
// too, the figure issue 13's speed budget is given in.
func BenchmarkAllow(b *testing.B) {
	key := &auth.Key{ID: "bench", Tier: auth.TierCustom, Limits: map[string]auth.Rate{Quote: {Count: 1_000_000_000, Period: time.Second}}}
	for _, tc := range []struct {
		name string
		l    *Limiter
	}{{"redis", shared(b)}, {"in-process", New(Options{})}} {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			took := make([]time.Duration, 0, 1<<16)
			for b.Loop() {
				start := time.Now()
				r := tc.l.Allow(ctx, Caller{Key: key}, Quote)
				took = append(took, time.Since(start))
				if !r[0].Allowed {
					b.Fatalf("refused: %+v", r)
				}
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)*99/100].Nanoseconds()), "p99-ns")
			if tc.l.FailOpen() != 0 {
				b.Fatal("Redis failed during the benchmark")
			}
		})
	}
}
