package api

import (
	"math"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/time/rate"

	"github.com/intentd/intentd/ratelimit"
)

// Failed admin authentications are limited per client, an IPv6 client counted by its /64
// (ratelimit.ClientKey, as every other limit counts it: one subscriber holds a whole /64):
// adminFailureBurst failures, refilled at one per adminFailureEvery (10 a minute). A client that
// has used them up is answered 429 with Retry-After, whatever token it sends, until one is
// refilled: guessing the token costs a minute per ten guesses per client, and an operator with the
// right token is never slowed by their own traffic. The count is per API process (an attacker
// spread over n processes gets n times as many guesses, still nothing against a 128-bit token).
const (
	adminFailureBurst = 10
	adminFailureEvery = 6 * time.Second
	// adminFailureClients bounds the clients tracked, the least recently seen forgotten first.
	// A flood of addresses therefore never locks anyone out (before, a full table refused every
	// new address): a client forgotten starts again with a whole budget, which an attacker buys
	// only by failing from more than this many other /64s meanwhile, for ten more guesses.
	adminFailureClients = 10_000
)

// adminFailures is the per-client failure budget of the admin API.
type adminFailures struct {
	mu      sync.Mutex // one check at a time: read the budget, then spend it
	clients *lru.Cache[string, *rate.Limiter]
	now     func() time.Time
}

func newAdminFailures() *adminFailures {
	c, _ := lru.New[string, *rate.Limiter](adminFailureClients) // only a size below 1 fails
	return &adminFailures{clients: c, now: time.Now}
}

// wait is how long ip's client must wait before it may try a token again; 0 when it may now.
func (a *adminFailures) wait(ip string) time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	lim, ok := a.clients.Get(ratelimit.ClientKey(ip))
	if !ok {
		return 0
	}
	tokens := lim.TokensAt(a.now())
	if tokens >= 1 {
		return 0
	}
	return time.Duration(math.Ceil((1 - tokens) * float64(adminFailureEvery)))
}

// fail spends one of ip's client's failures.
func (a *adminFailures) fail(ip string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	key := ratelimit.ClientKey(ip)
	lim, ok := a.clients.Get(key)
	if !ok {
		lim = rate.NewLimiter(rate.Every(adminFailureEvery), adminFailureBurst)
		a.clients.Add(key, lim)
	}
	lim.AllowN(a.now(), 1)
}
