package ratelimit

import (
	"math"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/time/rate"
)

// local keeps buckets in process: token buckets of Check.Rate.Count tokens (Check.Burst when
// lower) refilled at Check.Rate.Count per Check.Rate.Period, the same admission as Redis's GCRA. They are bounded; a forgotten bucket
// starts full again, which only ever admits more, never refuses a caller wrongly.
type local struct {
	mu      sync.Mutex // one check at a time: read the tokens, then spend one
	buckets *lru.Cache[string, *rate.Limiter]
	now     func() time.Time
}

func newLocal(size int, now func() time.Time) *local {
	if size <= 0 {
		size = 100_000
	}
	c, _ := lru.New[string, *rate.Limiter](size) // only a size below 1 fails
	return &local{buckets: c, now: now}
}

func (l *local) take(c Check) Result {
	per := float64(c.Rate.Count) / c.Rate.Period.Seconds()
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	key := c.Bucket + "|" + c.Subject
	burst := c.burst()
	lim, ok := l.buckets.Get(key)
	if !ok {
		lim = rate.NewLimiter(rate.Limit(per), burst)
		l.buckets.Add(key, lim)
	} else if lim.Burst() != burst || lim.Limit() != rate.Limit(per) {
		lim.SetLimitAt(now, rate.Limit(per)) // the caller's limit changed (tier, schedule)
		lim.SetBurstAt(now, burst)
	}
	tokens := lim.TokensAt(now)
	out := Result{Check: c}
	if tokens >= 1 {
		lim.AllowN(now, 1)
		tokens--
		out.Allowed = true
	} else {
		out.RetryAfter = seconds((1 - tokens) / per)
	}
	out.Remaining = int(math.Floor(tokens))
	out.ResetAfter = seconds((float64(burst) - tokens) / per)
	return out
}

func seconds(s float64) time.Duration { return time.Duration(math.Ceil(s * float64(time.Second))) }
