package ratelimit

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/intentd/intentd/auth"
)

// Bucket names: one per route group of the spec's Limits table, and the names auth.Key.Limits
// and RATE_LIMITS_ANONYMOUS use. A caller's requests to the routes of one group share one
// bucket, so alternating between the versions of an endpoint never multiplies its limit. Which
// route counts against which bucket is a column of the API's route table (api/routes.go); the
// routes named here are what it assigns.
const (
	// Requests is GET /requests and GET /requests/v2 (one shared bucket, reduced monthly until
	// v2's sunset: Policy.RequestsSchedule).
	Requests = "requests"
	// RequestsV3 is GET /requests/v3.
	RequestsV3 = "requests-v3"
	// Authorize is POST /authorize's ceiling per key; AuthorizeWallet its bucket per (key,
	// wallet), which is counted first (Caller.Wallet); its handler counts both, once it has
	// read the wallet from the body (api/authorize.go).
	Authorize       = "authorize"
	AuthorizeWallet = "authorize-wallet"
	// Quote is POST /quote/v2, POST /quote and POST /price.
	Quote = "quote"
	// Status is GET /intents/status/v3, /v2 and the legacy /intents/status.
	Status = "status"
	// Transactions is POST /transactions/index and POST /transactions/single.
	Transactions = "transactions"
	// Chains is GET /chains.
	Chains = "chains"
	// Metrics is GET /metrics/usage.
	Metrics = "metrics"
	// Config is GET /config/v2: each call reads balances on two chains, so it has a bucket of
	// its own rather than sharing the catalog's.
	Config = "config"
	// Catalog is the static catalog: GET and POST /currencies/v2 and GET /prices/rates.
	Catalog = "catalog"
	// Withdrawals is GET /withdrawals/status.
	Withdrawals = "withdrawals"
	// Integrators is GET /integrators/quote-data.
	Integrators = "integrators"
	// WS is GET /ws, the websocket stream's upgrades: a bucket of its own, tighter without a
	// key, so that opening and dropping connections in a loop is bounded apart from the calls
	// of other routes (its connections held at once are the stream's own limits, events.Limits).
	WS = "ws"
	// DepositAddressReindex is POST /transactions/deposit-address/reindex: every call reads a
	// balance per listed currency, so it is counted apart from the other routes (Other's rate
	// unless configured), and on top of it one address is reindexed once a minute per chain
	// (429 {message}: deposits.Reindexer).
	DepositAddressReindex = "deposit-address-reindex"
	// Other is every route not named above, and paths the API does not serve.
	Other = "other"
	// UnknownKey counts, per client IP, the requests that present an x-api-key that is no live
	// key: guessing keys is limited however the guesses are spread over the routes.
	UnknownKey = "unknown-key"
)

// Buckets lists every bucket name a limit can be configured for.
func Buckets() []string {
	return []string{Requests, RequestsV3, Authorize, AuthorizeWallet, Quote, Status, Transactions, Chains, Metrics, Config,
		Catalog, Withdrawals, Integrators, WS, DepositAddressReindex, Other, UnknownKey}
}

func knownBucket(name string) bool { return slices.Contains(Buckets(), name) }

func perMinute(n int) auth.Rate { return auth.Rate{Count: n, Period: time.Minute} }
func perSecond(n int) auth.Rate { return auth.Rate{Count: n, Period: time.Second} }

// DefaultLimits are the spec's Limits table for a key of the default tier. Where the spec says
// "not shown" they are the public service's documented defaults: quotes 50 a minute, every
// other endpoint 200 a minute (docs/api.md, "Rate limits").
func DefaultLimits() map[string]auth.Rate {
	return map[string]auth.Rate{
		Requests:        perMinute(100),
		RequestsV3:      perMinute(200),
		AuthorizeWallet: perMinute(5),
		Authorize:       perMinute(30),
		Quote:           perMinute(50),
		Status:          perMinute(200),
		Transactions:    perMinute(200),
		Chains:          perMinute(200),
		Metrics:         perMinute(200),
		Config:          perMinute(200),
		Catalog:         perMinute(200),
		Withdrawals:     perMinute(200),
		Integrators:     perMinute(200),
		WS:              perMinute(200),
		Other:           perMinute(200),
	}
}

// AnonymousLimits are the limits per client IP of callers without a key: the default tier's,
// but 20 websocket upgrades a minute (an IP holds 10 connections without a key at once).
func AnonymousLimits() map[string]auth.Rate {
	m := DefaultLimits()
	m[WS] = perMinute(20)
	return m
}

// DefaultBursts are the buckets that admit fewer requests at once than their count (a GCRA
// bucket admits its whole count at once otherwise): the transaction hints, 10, refilled at the
// bucket's rate. Each hint reads a chain and may route deposits through the database and
// Temporal, and a client sends one per deposit it makes: 200 at once from one IP was the
// review's amplifier (M1), 10 is more than any wallet sends at once.
func DefaultBursts() map[string]int {
	return map[string]int{Transactions: 10}
}

// ElevatedLimits are the spec's limits for an elevated key: per second where the spec raises
// them, the default's where it does not (/authorize, and every endpoint the public service
// gives 200 a minute either way).
func ElevatedLimits() map[string]auth.Rate {
	m := DefaultLimits()
	m[Requests] = perSecond(5)
	m[RequestsV3] = perSecond(20)
	m[Quote] = perSecond(10)
	return m
}

// Step is one monthly reduction of the shared GET /requests and /requests/v2 bucket: from From
// on, keys of the default tier get Default and elevated keys Elevated.
type Step struct {
	From     time.Time
	Default  auth.Rate
	Elevated auth.Rate
}

// Policy is which limit applies to whom. The zero value is not useful: start from
// DefaultPolicy.
type Policy struct {
	Default  map[string]auth.Rate // keys of TierDefault, and the base of TierCustom
	Elevated map[string]auth.Rate // keys of TierElevated
	// Anonymous are the limits per client IP of callers without a key (and of callers whose
	// key could not be looked up); nil: no limit for them (AnonymousOff).
	Anonymous map[string]auth.Rate
	// UnknownKey is the limit per client IP on requests that present a key that is no live
	// key, on top of the IP's anonymous limits.
	UnknownKey auth.Rate
	// RequestsSchedule reduces the Requests bucket over time, latest step last.
	RequestsSchedule []Step
	// Bursts caps how many requests a bucket admits at once, by bucket name, for every caller
	// (DefaultBursts); the rate over time stays the bucket's.
	Bursts map[string]int
}

// DefaultPolicy is the spec's table, anonymous callers limited per IP as a key of the default
// tier is (AnonymousLimits: fewer websocket upgrades), 10 unknown keys a minute per IP, and the
// hints' low burst (DefaultBursts).
func DefaultPolicy() Policy {
	return Policy{Default: DefaultLimits(), Elevated: ElevatedLimits(), Anonymous: AnonymousLimits(), UnknownKey: perMinute(10),
		Bursts: DefaultBursts()}
}

// Caller is who a request counts against.
type Caller struct {
	Key *auth.Key // nil: no key, or one that is not a live key (UnknownKey)
	IP  string    // the client IP (gin's ClientIP, behind TRUSTED_PROXIES only)
	// UnknownKey is set when the request presented an x-api-key that is no live key.
	UnknownKey bool
	// Wallet is POST /authorize's wallet field, which its (key, wallet) bucket is counted by.
	Wallet string
}

// Check is one bucket a request is counted against: Subject's requests to Bucket, at Rate,
// at most Burst at once (0: Rate.Count).
type Check struct {
	Bucket  string
	Subject string // "k:<key id>" or "ip:<address>", with ":w:<wallet>" for AuthorizeWallet
	Rate    auth.Rate
	Burst   int
}

// burst is how many requests the bucket admits at once: Burst, at most the rate's count.
func (c Check) burst() int {
	if c.Burst > 0 && c.Burst < c.Rate.Count {
		return c.Burst
	}
	return c.Rate.Count
}

// Checks lists what a request of c to bucket counts against, in the order they are counted
// (Limiter.Take stops at the first that refuses, so a tighter bucket that refuses leaves the
// wider ones untouched). None when c is not limited: the Unlimited key, or a caller without a
// key while anonymous limits are off.
func (p Policy) Checks(c Caller, bucket string, now time.Time) []Check {
	if c.Key != nil && c.Key.Unlimited {
		return nil
	}
	var out []Check
	subject, limits := "ip:"+ClientKey(c.IP), p.Anonymous
	if c.Key != nil {
		subject, limits = "k:"+c.Key.ID, p.keyLimits(c.Key)
	} else if check, ok := p.unknownKeyCheck(c.IP); c.UnknownKey && ok {
		out = append(out, check)
	}
	if limits == nil {
		return out
	}
	if bucket == Authorize && c.Wallet != "" {
		if r, ok := p.rate(limits, c.Key, AuthorizeWallet, now); ok {
			out = append(out, Check{Bucket: AuthorizeWallet, Subject: subject + ":w:" + strings.ToLower(c.Wallet), Rate: r})
		}
	}
	if r, ok := p.rate(limits, c.Key, bucket, now); ok {
		out = append(out, Check{Bucket: bucket, Subject: subject, Rate: r, Burst: p.Bursts[bucket]})
	}
	return out
}

// unknownKeyCheck is the check of ip's UnknownKey bucket; false when unknown keys are not limited.
func (p Policy) unknownKeyCheck(ip string) (Check, bool) {
	return Check{Bucket: UnknownKey, Subject: "ip:" + ClientKey(ip), Rate: p.UnknownKey}, p.UnknownKey.Count > 0
}

// keyLimits are a key's limits by bucket: its tier's, with its own Limits over them.
func (p Policy) keyLimits(k *auth.Key) map[string]auth.Rate {
	base := p.Default
	if k.Tier == auth.TierElevated {
		base = p.Elevated
	}
	if len(k.Limits) == 0 {
		return base
	}
	m := make(map[string]auth.Rate, len(base)+len(k.Limits))
	for b, r := range base {
		m[b] = r
	}
	for b, r := range k.Limits {
		m[b] = r
	}
	return m
}

// rate is bucket's rate in limits at now (Other's when limits has none for it). The Requests
// schedule only ever lowers that rate, and leaves alone a key that has a Requests limit of its
// own. A rate of no requests (Count 0) is no limit: a key that must be refused is revoked, not
// limited.
func (p Policy) rate(limits map[string]auth.Rate, k *auth.Key, bucket string, now time.Time) (auth.Rate, bool) {
	r, ok := limits[bucket]
	if !ok {
		r, ok = limits[Other]
	}
	if !ok || r.Count <= 0 || r.Period <= 0 {
		return auth.Rate{}, false
	}
	if bucket == Requests && !ownLimit(k, Requests) {
		if s, ok := p.step(now); ok {
			step := s.Default
			if k != nil && k.Tier == auth.TierElevated {
				step = s.Elevated
			}
			if slower(step, r) {
				r = step
			}
		}
	}
	return r, true
}

// step is the Requests schedule's step in force at now.
func (p Policy) step(now time.Time) (Step, bool) {
	for i := len(p.RequestsSchedule) - 1; i >= 0; i-- {
		if !now.Before(p.RequestsSchedule[i].From) {
			return p.RequestsSchedule[i], true
		}
	}
	return Step{}, false
}

// slower reports whether a admits fewer requests over time than b.
func slower(a, b auth.Rate) bool {
	return float64(a.Count)/a.Period.Seconds() < float64(b.Count)/b.Period.Seconds()
}

// ownLimit reports whether k has a limit of its own for bucket.
func ownLimit(k *auth.Key, bucket string) bool {
	if k == nil {
		return false
	}
	_, ok := k.Limits[bucket]
	return ok
}

// ClientKey is what a client IP is limited by: the address itself for IPv4 (an IPv4-mapped IPv6
// address is its IPv4 one), its /64 for IPv6, since one subscriber usually holds a whole /64 and
// could otherwise spread its requests over 2^64 buckets. The oracle's limiter keys its clients
// the same way.
func ClientKey(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	a = a.Unmap()
	if a.Is4() {
		return a.String()
	}
	p, _ := a.Prefix(64)
	return p.String()
}

// ParseRate reads a rate as count/period: "100/1m", "5/1s", "30/60s" (a Go duration; a bare
// unit such as "m" means one of it).
func ParseRate(s string) (auth.Rate, error) {
	count, period, ok := strings.Cut(strings.TrimSpace(s), "/")
	n, err := strconv.Atoi(strings.TrimSpace(count))
	if !ok || err != nil || n < 1 {
		return auth.Rate{}, fmt.Errorf("%q is not a rate like 100/1m (a positive count, a slash, a period)", s)
	}
	period = strings.TrimSpace(period)
	d, err := time.ParseDuration(period)
	if err != nil {
		d, err = time.ParseDuration("1" + period)
	}
	if err != nil || d < time.Second {
		return auth.Rate{}, fmt.Errorf("%q: the period must be a duration of at least 1s, like 1m", s)
	}
	return auth.Rate{Count: n, Period: d}, nil
}

// ParseLimits reads bucket=rate pairs separated by commas ("quote=20/1m,status=100/1m"); every
// bucket must be one of Buckets.
func ParseLimits(s string) (map[string]auth.Rate, error) {
	out := map[string]auth.Rate{}
	for _, item := range strings.Split(s, ",") {
		if strings.TrimSpace(item) == "" {
			continue
		}
		name, rate, ok := strings.Cut(item, "=")
		name = strings.TrimSpace(name)
		if !ok {
			return nil, fmt.Errorf("%q is not bucket=rate", strings.TrimSpace(item))
		}
		if !knownBucket(name) {
			return nil, fmt.Errorf("%q is no bucket (one of %s)", name, strings.Join(Buckets(), ", "))
		}
		r, err := ParseRate(rate)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = r
	}
	return out, nil
}

// ParseSchedule reads the Requests bucket's reductions: steps separated by semicolons, each
// "DATE DEFAULT ELEVATED" ("2026-10-01 50/1m 3/1s; 2026-11-01 25/1m 2/1s"), dates (UTC)
// strictly increasing.
func ParseSchedule(s string) ([]Step, error) {
	var out []Step
	for _, item := range strings.Split(s, ";") {
		f := strings.Fields(item)
		if len(f) == 0 {
			continue
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("%q is not \"DATE DEFAULT ELEVATED\" like \"2026-10-01 50/1m 3/1s\"", strings.TrimSpace(item))
		}
		from, err := time.Parse(time.DateOnly, f[0])
		if err != nil {
			return nil, fmt.Errorf("%q is not a date like 2026-10-01", f[0])
		}
		if len(out) > 0 && !from.After(out[len(out)-1].From) {
			return nil, fmt.Errorf("%s: the dates must increase", f[0])
		}
		st := Step{From: from}
		if st.Default, err = ParseRate(f[1]); err != nil {
			return nil, fmt.Errorf("%s: %w", f[0], err)
		}
		if st.Elevated, err = ParseRate(f[2]); err != nil {
			return nil, fmt.Errorf("%s: %w", f[0], err)
		}
		out = append(out, st)
	}
	return out, nil
}
