package api

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Failed admin authentications are limited per client IP: adminFailureBurst failures, refilled
// at one per adminFailureEvery (10 a minute). An IP that has used them up is answered 429 with
// Retry-After, whatever token it sends, until one is refilled: guessing the token costs a minute
// per ten guesses per address, and an operator with the right token is never slowed by their own
// traffic. The count is per API process (an attacker spread over n processes gets n times as
// many guesses, still nothing against a 128-bit token).
const (
	adminFailureBurst = 10
	adminFailureEvery = 6 * time.Second
	// adminFailureIPs bounds the IPs tracked. When it is reached, IPs whose budget is whole are
	// forgotten first; if every tracked IP is still being limited, a new IP is refused (429)
	// rather than tracked: the admin endpoint fails closed under a flood of addresses.
	adminFailureIPs = 10_000
)

// adminFailures is the per-IP failure budget of the admin endpoint.
type adminFailures struct {
	mu  sync.Mutex
	ips map[string]*rate.Limiter
	now func() time.Time
}

func newAdminFailures() *adminFailures {
	return &adminFailures{ips: map[string]*rate.Limiter{}, now: time.Now}
}

// wait is how long ip must wait before it may try a token again; 0 when it may now.
func (a *adminFailures) wait(ip string) time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	lim, full := a.limiterLocked(ip, now, false)
	switch {
	case full:
		return adminFailureEvery
	case lim == nil:
		return 0
	}
	tokens := lim.TokensAt(now)
	if tokens >= 1 {
		return 0
	}
	return time.Duration(math.Ceil((1 - tokens) * float64(adminFailureEvery)))
}

// fail spends one of ip's failures.
func (a *adminFailures) fail(ip string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	if lim, full := a.limiterLocked(ip, now, true); !full { // a full table refuses the IP anyway
		lim.AllowN(now, 1)
	}
}

// limiterLocked returns ip's limiter, nil when ip has none and create is not set. full reports
// that ip has none and there is no room for one: every tracked IP is still being limited.
func (a *adminFailures) limiterLocked(ip string, now time.Time, create bool) (lim *rate.Limiter, full bool) {
	if lim, ok := a.ips[ip]; ok {
		return lim, false
	}
	if len(a.ips) >= adminFailureIPs {
		// Forget the IPs whose budget is whole again.
		for k, l := range a.ips {
			if l.TokensAt(now) >= adminFailureBurst {
				delete(a.ips, k)
			}
		}
		if len(a.ips) >= adminFailureIPs {
			return nil, true
		}
	}
	if create {
		lim = rate.NewLimiter(rate.Every(adminFailureEvery), adminFailureBurst)
		a.ips[ip] = lim
	}
	return lim, false
}
