// Package ratelimit enforces the API's rate limits (the spec's Limits table) per API key, and per
// client IP for callers without one. The buckets live in Redis so that a limit holds across every
// API process: GCRA in one round trip per bucket (github.com/go-redis/redis_rate), admitting a
// burst of a bucket's count and refilling it evenly over its period.
//
// A bucket of a large count is not asked once per request: the process leases a share of it
// (leaseShare of the count, at most maxLease tokens) in one round trip and spends it in memory
// for up to leaseTTL. The tokens come out of the shared bucket, so processes together never
// admit more than the limit; a lease that expires unspent only ever admits less (at most its
// size per process and leaseTTL), which is why it is a small share. A bucket of fewer than
// 2*leaseShare requests is asked every time.
//
// Without Redis (no REDIS_URL, as in `make run`), and while Redis does not answer, the same
// buckets are kept in this process (golang.org/x/time/rate): the limiter fails open to a local
// limit, so an outage of Redis neither refuses every request nor admits every one. Each check so
// answered is counted (FailOpen) and logged at WARN at most once every 10 s.
package ratelimit

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-redis/redis_rate/v10"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/redis/go-redis/v9"
)

// Options configure a Limiter.
type Options struct {
	// Policy decides which limits apply to whom; a Policy without Default limits is
	// DefaultPolicy.
	Policy Policy
	// Redis holds the buckets shared by every API process; nil: in process only.
	Redis *redis.Client
	// Prefix starts every Redis key (after redis_rate's "rate:"), so that tests and
	// environments sharing one Redis keep apart; "intentd:" when empty.
	Prefix string
	// LocalBuckets bounds the buckets kept in process, the least recently used forgotten first;
	// 100,000 when 0.
	LocalBuckets int
	Logger       *slog.Logger
	// Now is the in-process buckets' clock; time.Now when nil. Redis uses its own.
	Now func() time.Time
}

// After Redis fails, the limiter checks in process for redisPause before it asks Redis again,
// so an outage costs one failed call a second, not one per request; warnEvery spaces the
// warnings.
const (
	redisPause = time.Second
	warnEvery  = 10 * time.Second
)

// Leases: a process takes count/leaseShare tokens of a bucket at once, at most maxLease, and
// spends them within leaseTTL.
const (
	leaseShare = 100
	maxLease   = 100
	leaseTTL   = time.Second
)

// Limiter counts requests against their buckets. It is safe for concurrent use.
type Limiter struct {
	policy   Policy
	redis    *redis_rate.Limiter // nil: in process only
	prefix   string
	local    *local
	leases   *lru.Cache[string, *lease]
	logger   *slog.Logger
	now      func() time.Time
	failOpen atomic.Uint64
	pausedTo atomic.Int64 // Unix nanoseconds: Redis is not asked before then
	warnedAt atomic.Int64 // Unix nanoseconds of the last warning
}

// New returns a Limiter.
func New(o Options) *Limiter {
	if o.Prefix == "" {
		o.Prefix = "intentd:"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Policy.Default == nil {
		o.Policy = DefaultPolicy()
	}
	if o.Policy.Elevated == nil {
		o.Policy.Elevated = o.Policy.Default
	}
	l := &Limiter{policy: o.Policy, prefix: o.Prefix, local: newLocal(o.LocalBuckets, o.Now), logger: o.Logger, now: o.Now}
	l.leases, _ = lru.New[string, *lease](max(o.LocalBuckets, 100_000)) // only a size below 1 fails
	if o.Redis != nil {
		l.redis = redis_rate.NewLimiter(o.Redis)
	}
	return l
}

// Shared reports whether the buckets are shared through Redis (when it answers).
func (l *Limiter) Shared() bool { return l.redis != nil }

// FailOpen is how many checks were answered in process because Redis failed: the counter for
// a metrics endpoint to export.
func (l *Limiter) FailOpen() uint64 { return l.failOpen.Load() }

// Result is a check's outcome.
type Result struct {
	Check
	Allowed bool
	// Remaining is how many more requests the bucket admits right now.
	Remaining int
	// RetryAfter is how long until the bucket admits the next request; 0 when Allowed.
	RetryAfter time.Duration
	// ResetAfter is how long until the bucket is full again.
	ResetAfter time.Duration

	taken int // tokens a lease's round trip took
}

// Allow counts a request of caller to bucket against every limit that applies to it (Policy.Checks).
func (l *Limiter) Allow(ctx context.Context, caller Caller, bucket string) []Result {
	return l.Take(ctx, l.policy.Checks(caller, bucket, l.now()))
}

// AllowLookup counts, against ip's UnknownKey bucket, a presented key the API is about to look
// up because its process has never found it live: an IP that has used up its guesses is refused
// before the lookup, not after it (review L3). None when unknown keys are not limited.
func (l *Limiter) AllowLookup(ctx context.Context, ip string) []Result {
	check, ok := l.policy.unknownKeyCheck(ip)
	if !ok {
		return nil
	}
	return l.Take(ctx, []Check{check})
}

// Take counts one request against checks in order and stops at the first that refuses it. The
// results are those of the checks counted: the request is admitted when the last one is
// Allowed (or there are none).
func (l *Limiter) Take(ctx context.Context, checks []Check) []Result {
	out := make([]Result, 0, len(checks))
	for _, c := range checks {
		r := l.take(ctx, c)
		out = append(out, r)
		if !r.Allowed {
			break
		}
	}
	return out
}

func (l *Limiter) take(ctx context.Context, c Check) Result {
	if l.redis == nil || l.now().UnixNano() < l.pausedTo.Load() {
		if l.redis != nil {
			l.failOpen.Add(1)
		}
		return l.local.take(c)
	}
	key := l.prefix + c.Bucket + ":" + c.Subject
	n := min(c.burst()/leaseShare, maxLease) // a lease never holds more than the bucket admits at once
	if n < 2 {
		res, err := l.redisTake(ctx, key, c, 1)
		if err != nil {
			return l.local.take(c)
		}
		return res
	}
	ls, ok := l.leases.Get(key)
	if !ok {
		ls = &lease{}
		if prev, found, _ := l.leases.PeekOrAdd(key, ls); found {
			ls = prev // another request added it first
		}
	}
	ls.mu.Lock() // the process's requests of one bucket wait for one round trip, then share it
	defer ls.mu.Unlock()
	now := l.now()
	if ls.tokens > 0 && now.Before(ls.expires) && ls.last.Rate == c.Rate {
		ls.tokens--
		out := ls.last
		out.Remaining += ls.tokens
		return out
	}
	res, err := l.redisTake(ctx, key, c, n)
	if err != nil {
		ls.tokens = 0
		return l.local.take(c)
	}
	ls.tokens, ls.expires, ls.last = 0, now.Add(leaseTTL), res
	if res.Allowed {
		ls.tokens = res.taken - 1
		res.Remaining += ls.tokens
	}
	return res
}

// lease is the tokens of one bucket this process took from Redis and has not spent yet.
type lease struct {
	mu      sync.Mutex
	tokens  int
	expires time.Time
	last    Result // the answer of the round trip that took them
}

// redisTake takes up to n tokens of the bucket at key in one round trip: Allowed when it took at
// least one. An error has paused Redis (redisFailed) and leaves the check to the local buckets.
func (l *Limiter) redisTake(ctx context.Context, key string, c Check, n int) (Result, error) {
	limit := redis_rate.Limit{Rate: c.Rate.Count, Burst: c.burst(), Period: c.Rate.Period}
	res, err := l.redis.AllowAtMost(ctx, key, limit, n)
	if err != nil {
		l.redisFailed(ctx, err)
		return Result{}, err
	}
	out := Result{Check: c, Allowed: res.Allowed > 0, Remaining: res.Remaining, ResetAfter: max(res.ResetAfter, 0),
		taken: res.Allowed}
	if !out.Allowed {
		out.RetryAfter = max(res.RetryAfter, 0)
	}
	return out, nil
}

// redisFailed pauses Redis, counts the check it leaves to the local buckets and warns, at most
// once every warnEvery. A request whose client has gone is no Redis failure.
func (l *Limiter) redisFailed(ctx context.Context, err error) {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return
	}
	now := l.now().UnixNano()
	l.pausedTo.Store(now + int64(redisPause))
	n := l.failOpen.Add(1)
	last := l.warnedAt.Load()
	if now-last >= int64(warnEvery) && l.warnedAt.CompareAndSwap(last, now) {
		l.logger.Warn("rate limits: redis did not answer, limiting in this process only (fail open)",
			"error", err, "failOpenChecks", n)
	}
}
