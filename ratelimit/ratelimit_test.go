package ratelimit

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/testkit/testenv"
)

// prefix keeps a test's buckets apart from every other test's on the shared Redis.
func prefix(t testing.TB) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "test-" + hex.EncodeToString(b) + ":"
}

// shared is a limiter over the tests' Redis with buckets of its own.
func shared(t testing.TB) *Limiter {
	return New(Options{Redis: testenv.RedisClient(t), Prefix: prefix(t)})
}

// untilRefused takes from a bucket of rate r until it refuses, and checks that it admitted r's
// count (GCRA's burst), plus at most what refilled while the test ran.
func untilRefused(t *testing.T, what string, r auth.Rate, take func() []Result) Result {
	t.Helper()
	return untilRefusedAfter(t, what, r, r.Count, take)
}

// untilRefusedAfter is untilRefused for a bucket that admits burst requests at once.
func untilRefusedAfter(t *testing.T, what string, r auth.Rate, burst int, take func() []Result) Result {
	t.Helper()
	start := time.Now()
	for n := 0; n <= 3*r.Count+10; n++ {
		res := take()
		last := res[len(res)-1]
		if last.Allowed {
			continue
		}
		refill := int(time.Since(start).Seconds() * float64(r.Count) / r.Period.Seconds()) // GCRA: the burst, plus one a emission interval
		if n < burst || n > burst+refill {
			t.Fatalf("%s: %d admitted before the first refusal, want %d (+%d refilled)", what, n, burst, refill)
		}
		if last.Remaining != 0 || last.RetryAfter <= 0 || last.RetryAfter > r.Period/time.Duration(r.Count)+time.Second {
			t.Fatalf("%s: refusal %+v: want no remaining and a retry within one emission interval", what, last)
		}
		return last
	}
	t.Fatalf("%s: never refused", what)
	return Result{}
}

// TestEveryLimitRefusesTheRequestOverIt drives each bucket of the Limits table, for each kind of
// caller, through Redis to one request over its limit.
func TestEveryLimitRefusesTheRequestOverIt(t *testing.T) {
	l := shared(t)
	ctx := context.Background()
	p := DefaultPolicy()
	anon := Caller{IP: "203.0.113.7"}
	for _, tc := range []struct {
		name   string
		caller Caller
		bucket string
		rate   auth.Rate
	}{
		{"requests+v2, default key", Caller{Key: defKey}, Requests, p.Default[Requests]},
		{"requests+v2, elevated key", Caller{Key: elevKey}, Requests, p.Elevated[Requests]},
		{"requests/v3, default key", Caller{Key: defKey}, RequestsV3, p.Default[RequestsV3]},
		{"requests/v3, elevated key", Caller{Key: elevKey}, RequestsV3, p.Elevated[RequestsV3]},
		{"authorize ceiling, no wallet", Caller{Key: elevKey}, Authorize, p.Elevated[Authorize]},
		{"authorize per wallet", Caller{Key: defKey, Wallet: "0x01"}, Authorize, p.Default[AuthorizeWallet]},
		{"quotes, default key", Caller{Key: defKey}, Quote, p.Default[Quote]},
		{"quotes, elevated key", Caller{Key: elevKey}, Quote, p.Elevated[Quote]},
		{"status, default key", Caller{Key: defKey}, Status, p.Default[Status]},
		{"chains, default key", Caller{Key: defKey}, Chains, p.Default[Chains]},
		{"metrics, default key", Caller{Key: defKey}, Metrics, p.Default[Metrics]},
		{"other, default key", Caller{Key: defKey}, Other, p.Default[Other]},
		{"quotes, anonymous per IP", anon, Quote, p.Anonymous[Quote]},
		{"status, anonymous per IP", anon, Status, p.Anonymous[Status]},
		{"unknown keys per IP", Caller{IP: "203.0.113.8", UnknownKey: true}, Chains, p.UnknownKey},
		{"custom key", Caller{Key: &auth.Key{ID: "k-custom", Tier: auth.TierCustom,
			Limits: map[string]auth.Rate{Quote: {Count: 3, Period: time.Minute}}}}, Quote, auth.Rate{Count: 3, Period: time.Minute}},
	} {
		refused := untilRefused(t, tc.name, tc.rate, func() []Result { return l.Allow(ctx, tc.caller, tc.bucket) })
		if refused.Rate != tc.rate {
			t.Errorf("%s: refused by %+v, want rate %+v", tc.name, refused.Check, tc.rate)
		}
	}
	if l.FailOpen() != 0 {
		t.Fatalf("%d checks failed open with Redis up", l.FailOpen())
	}
}

// Review M1: "POST /transactions/index is an amplifier … one IP may burst 200 such requests at
// once … Give hints their own low burst." The hints' bucket admits 10 at once (DefaultBursts),
// for a key as for an IP, through Redis and in process alike, and refills at its rate, 200 a
// minute, which stays the Limits table's.
func TestTransactionHintsAdmitALowBurst(t *testing.T) {
	ctx := context.Background()
	p := DefaultPolicy()
	burst := DefaultBursts()[Transactions]
	if burst != 10 || p.Anonymous[Transactions] != (auth.Rate{Count: 200, Period: time.Minute}) {
		t.Fatalf("burst %d, rate %+v", burst, p.Anonymous[Transactions])
	}
	l := shared(t)
	for _, c := range []struct {
		name   string
		caller Caller
	}{{"an elevated key", Caller{Key: elevKey}}, {"an IP without a key", Caller{IP: "203.0.113.9"}}} {
		refused := untilRefusedAfter(t, c.name, p.Elevated[Transactions], burst, func() []Result { return l.Allow(ctx, c.caller, Transactions) })
		if refused.Bucket != Transactions || refused.Burst != burst {
			t.Errorf("%s: refused by %+v", c.name, refused.Check)
		}
	}
	if l.FailOpen() != 0 {
		t.Fatalf("%d checks failed open with Redis up", l.FailOpen())
	}

	clock := time.Date(2026, 9, 15, 12, 0, 0, 0, time.UTC)
	local := New(Options{Now: func() time.Time { return clock }})
	anon := Caller{IP: "203.0.113.10"}
	for n := range burst {
		if r := local.Allow(ctx, anon, Transactions)[0]; !r.Allowed || r.Remaining != burst-1-n {
			t.Fatalf("in process, hint %d: %+v", n+1, r)
		}
	}
	r := local.Allow(ctx, anon, Transactions)[0]
	if r.Allowed || r.RetryAfter != 300*time.Millisecond || r.ResetAfter != 3*time.Second {
		t.Fatalf("in process, hint %d: %+v, want refused, the next in 0.3 s (200 a minute), all 10 again in 3 s", burst+1, r)
	}
}

// TestAuthorizeLimitsEachWalletAndTheKey: 5 per (key, wallet) and 30 per key, a wallet's refused
// requests leaving the key's ceiling untouched.
func TestAuthorizeLimitsEachWalletAndTheKey(t *testing.T) {
	l := shared(t)
	ctx := context.Background()
	take := func(wallet string) Result {
		r := l.Allow(ctx, Caller{Key: elevKey, Wallet: wallet}, Authorize)
		return r[len(r)-1]
	}
	for i := range 6 {
		wallet := fmt.Sprintf("0x%02d", i)
		for n := range 5 {
			if r := take(wallet); !r.Allowed {
				t.Fatalf("wallet %s request %d refused: %+v", wallet, n+1, r)
			}
		}
		if r := take(wallet); r.Allowed || r.Bucket != AuthorizeWallet {
			t.Fatalf("wallet %s's 6th: %+v, want refused by %s", wallet, r, AuthorizeWallet)
		}
	}
	if r := take("0x99"); r.Allowed || r.Bucket != Authorize {
		t.Fatalf("the key's 31st admitted request: %+v, want refused by the ceiling %s", r, Authorize)
	}
}

// TestLimitsHoldAcrossLimiters: two API processes (two limiters, two Redis clients) together
// admit one bucket's count, not one each.
func TestLimitsHoldAcrossLimiters(t *testing.T) {
	pfx := prefix(t)
	a := New(Options{Redis: testenv.RedisClient(t), Prefix: pfx})
	b := New(Options{Redis: testenv.RedisClient(t), Prefix: pfx})
	ctx := context.Background()
	i := 0
	untilRefused(t, "two limiters", DefaultLimits()[Quote], func() []Result {
		i++
		if i%2 == 0 {
			return a.Allow(ctx, Caller{Key: defKey}, Quote)
		}
		return b.Allow(ctx, Caller{Key: defKey}, Quote)
	})
}

// TestLeasesNeverAdmitMoreThanTheLimitAcrossLimiters: a bucket large enough to be leased
// (10,000 a minute: each round trip takes 100 tokens) is shared by two limiters hammered from
// many goroutines at once; together they admit at most its count, and, leases expiring unspent
// only ever costing admissions, at least 95% of it.
func TestLeasesNeverAdmitMoreThanTheLimitAcrossLimiters(t *testing.T) {
	pfx := prefix(t)
	limiters := []*Limiter{New(Options{Redis: testenv.RedisClient(t), Prefix: pfx}), New(Options{Redis: testenv.RedisClient(t), Prefix: pfx})}
	check := []Check{{Bucket: Quote, Subject: "k:leased", Rate: auth.Rate{Count: 10_000, Period: time.Hour}}}
	ctx := context.Background()
	var admitted atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := limiters[g%2]
			for range 1_000 {
				if res := l.Take(ctx, check); res[len(res)-1].Allowed {
					admitted.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	// The bucket refills evenly while the test runs (one token every 360 ms): those are admitted
	// too, and no more.
	refilled := int64(time.Since(start) / (check[0].Rate.Period / time.Duration(check[0].Rate.Count)))
	if n := admitted.Load(); n > 10_000+refilled || n < 9_500 {
		t.Fatalf("%d of 16,000 admitted by a bucket of 10,000 (+%d refilled while it ran) shared by two limiters", n, refilled)
	}
	t.Logf("%d of 16,000 admitted by a bucket of 10,000 shared by two limiters", admitted.Load())
}

// TestRedisDownFailsOpenToALocalLimit: with Redis gone the limiter neither refuses every request
// nor admits every one: it limits in process, counts each such check and warns once per 10 s.
func TestRedisDownFailsOpenToALocalLimit(t *testing.T) {
	srv := testenv.StartRedis(t)
	opt, err := redis.ParseURL(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	opt.DialTimeout, opt.ReadTimeout, opt.MaxRetries, opt.DialerRetries = 200*time.Millisecond, 100*time.Millisecond, 1, 1
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { _ = rdb.Close() })
	var logs bytes.Buffer // the limiter logs on the caller's goroutine
	l := New(Options{Redis: rdb, Prefix: prefix(t), Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	ctx := context.Background()
	rate := auth.Rate{Count: 5, Period: time.Minute}
	key := &auth.Key{ID: "k", Tier: auth.TierCustom, Limits: map[string]auth.Rate{Quote: rate}}
	if r := l.Allow(ctx, Caller{Key: key}, Quote); !r[0].Allowed || l.FailOpen() != 0 {
		t.Fatalf("with Redis up: %+v, %d failed open", r, l.FailOpen())
	}
	srv.Stop()
	start := time.Now()
	untilRefused(t, "Redis down", rate, func() []Result { return l.Allow(ctx, Caller{Key: key}, Quote) })
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("failing open took %v: an outage must not stall requests", d)
	}
	if n := l.FailOpen(); n < uint64(rate.Count)+1 {
		t.Errorf("FailOpen = %d, want every check since the outage (%d)", n, rate.Count+1)
	}
	if n := strings.Count(logs.String(), "level=WARN"); n != 1 || !strings.Contains(logs.String(), "fail open") {
		t.Errorf("want one warning for the outage, got %d:\n%s", n, logs.String())
	}
}

// TestWithoutRedisTheLimitIsInProcess: no REDIS_URL, the same buckets in this process.
func TestWithoutRedisTheLimitIsInProcess(t *testing.T) {
	clock := time.Date(2026, 9, 15, 12, 0, 0, 0, time.UTC)
	l := New(Options{Now: func() time.Time { return clock }})
	if l.Shared() {
		t.Fatal("a limiter without Redis says it is shared")
	}
	ctx := context.Background()
	key := &auth.Key{ID: "k", Tier: auth.TierCustom, Limits: map[string]auth.Rate{Quote: {Count: 3, Period: time.Minute}}}
	for n := range 3 {
		if r := l.Allow(ctx, Caller{Key: key}, Quote)[0]; !r.Allowed || r.Remaining != 2-n {
			t.Fatalf("request %d: %+v", n+1, r)
		}
	}
	r := l.Allow(ctx, Caller{Key: key}, Quote)[0]
	if r.Allowed || r.RetryAfter != 20*time.Second || r.ResetAfter != time.Minute {
		t.Fatalf("4th: %+v, want refused, retry in 20 s (one of 3 a minute), full again in 1 min", r)
	}
	clock = clock.Add(20 * time.Second)
	if r := l.Allow(ctx, Caller{Key: key}, Quote)[0]; !r.Allowed {
		t.Fatalf("after 20 s: %+v", r)
	}
	if l.FailOpen() != 0 {
		t.Fatal("in-process by configuration is no failure")
	}
}
