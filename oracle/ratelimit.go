package oracle

import (
	"crypto/sha256"
	"crypto/subtle"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/intentd/intentd/ratelimit"
)

// maxLimiterClients bounds the limiter's memory within one window. When the table is full, a
// new client takes the place of the one that asked least recently (an LRU, the project's
// golang-lru): a flood of rotating addresses (100,000 /64s) then costs the forgotten clients a
// fresh count, not every new keyless client its access, as failing closed did.
const maxLimiterClients = 100_000

// fixedWindowLimiter counts requests per client in fixed windows aligned to the clock (every
// client's window turns at the same instant). Because all windows turn together, the whole
// table is dropped when the window changes: memory holds at most one window's clients, and at
// most capacity of them.
type fixedWindowLimiter struct {
	max      int
	window   time.Duration
	now      func() time.Time
	capacity int

	mu     sync.Mutex
	start  time.Time
	counts *simplelru.LRU[string, int] // guarded by mu
}

func newFixedWindowLimiter(max int, window time.Duration, now func() time.Time) *fixedWindowLimiter {
	if now == nil {
		now = time.Now
	}
	l := &fixedWindowLimiter{max: max, window: window, now: now, capacity: maxLimiterClients}
	l.counts = l.newTable()
	return l
}

func (l *fixedWindowLimiter) newTable() *simplelru.LRU[string, int] {
	c, _ := simplelru.NewLRU[string, int](l.capacity, nil) // only a size below 1 fails
	return c
}

// limitDecision is what the HTTP layer needs for its headers.
type limitDecision struct {
	allowed   bool
	limit     int
	remaining int
	reset     time.Time     // end of the current window
	wait      time.Duration // until reset, by the limiter's clock
}

func (l *fixedWindowLimiter) allow(client string) limitDecision {
	now := l.now()
	start := now.Truncate(l.window)
	l.mu.Lock()
	defer l.mu.Unlock()
	if !start.Equal(l.start) {
		l.start = start
		if l.counts.Len() > 0 {
			// A fresh table rather than Purge(): a purged map keeps its buckets, so a past flood
			// would pin its memory.
			l.counts = l.newTable()
		}
	}
	d := limitDecision{limit: l.max, reset: start.Add(l.window), wait: start.Add(l.window).Sub(now)}
	n, _ := l.counts.Get(client)
	if n >= l.max {
		return d
	}
	n++
	l.counts.Add(client, n) // evicts the least recently seen client when full
	d.allowed = true
	d.remaining = l.max - n
	return d
}

func (l *fixedWindowLimiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.counts.Len()
}

// clientKey is the limiter key of a remote address: IPv6 clients are keyed by their /64, as the
// API's limits key theirs (ratelimit.ClientKey), so rotating addresses within it does not
// multiply the allowance.
var clientKey = ratelimit.ClientKey

// apiKeySet holds SHA-256 hashes of the configured keys and compares in constant time, so
// neither memory nor response timing reveals a key.
type apiKeySet struct {
	keys []APIKey
}

// match returns the label of the key, or ok=false. It compares against every entry without
// stopping early.
func (s apiKeySet) match(presented string) (label string, ok bool) {
	if presented == "" || len(s.keys) == 0 {
		return "", false
	}
	h := sha256.Sum256([]byte(presented))
	for _, k := range s.keys {
		if subtle.ConstantTimeCompare(h[:], k.hash[:]) == 1 && !ok {
			label, ok = k.Label, true
		}
	}
	return label, ok
}
