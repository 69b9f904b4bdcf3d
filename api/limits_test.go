package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/ratelimit"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// redisPrefix keeps a test's buckets apart on the shared Redis; servers given the same prefix
// share their buckets, as API processes do.
func redisPrefix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "test-" + hex.EncodeToString(b) + ":"
}

// limitedAPI is one API process over st, limited by p through the tests' Redis under prefix, and
// served over real HTTP.
func limitedAPI(t *testing.T, st *store.Store, prefix string, p ratelimit.Policy, proxies ...string) (*Server, string) {
	t.Helper()
	s := &Server{Store: st, Chains: unreachableChains(t).Registry(), Quotes: &quote.Engine{}, Indexer: &fakeIndexer{},
		Logger: slog.New(slog.DiscardHandler), TrustedProxies: proxies,
		Limits: ratelimit.New(ratelimit.Options{Redis: testenv.RedisClient(t), Prefix: prefix, Policy: p})}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	return s, hs.URL
}

// call is one request: each needs nothing but the router (a bad body is answered before any
// dependency is asked), so only the limit decides between its usual answer and 429.
type call struct{ method, path, body string }

// calls are a request of every route group that exists, with its bucket.
var calls = map[string]call{
	ratelimit.Quote:        {"POST", "/quote/v2", "{"},
	ratelimit.Status:       {"GET", "/intents/status/v3", ""},
	ratelimit.Transactions: {"POST", "/transactions/index", "nope"},
	ratelimit.Chains:       {"GET", "/chains", ""},
	ratelimit.Config:       {"GET", "/config/v2", ""},
	ratelimit.Catalog:      {"POST", "/currencies/v2", "{"},
	ratelimit.Withdrawals:  {"GET", "/withdrawals/status", ""},
	ratelimit.Integrators:  {"GET", "/integrators/quote-data", ""},
	ratelimit.Other:        {"GET", "/no/such/path", ""},
}

type answer struct {
	status int
	header http.Header
	body   map[string]any
}

func send(t *testing.T, base string, c call, header map[string]string) answer {
	t.Helper()
	req, err := http.NewRequest(c.method, base+c.path, strings.NewReader(c.body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return answer{resp.StatusCode, resp.Header, body}
}

// overLimit sends c until it is refused and checks the refusal: no sooner than the bucket's
// count and no later than what refilled meanwhile, 429 RATE_LIMITED with Retry-After, and the
// IETF fields naming the policy that refused, exposed to browsers. Every admitted answer
// carries the fields too.
func overLimit(t *testing.T, what, base string, c call, header map[string]string, policy string, r auth.Rate) answer {
	t.Helper()
	start := time.Now()
	wantPolicy := fmt.Sprintf("%q;q=%d;w=%d", policy, r.Count, int(math.Ceil(r.Period.Seconds())))
	burst := r.Count // what the bucket admits at once: its count, or its lower burst (ratelimit.DefaultBursts)
	if b := ratelimit.DefaultBursts()[policy]; b > 0 && b < burst {
		burst = b
	}
	for n := 0; n <= 3*r.Count+10; n++ {
		a := send(t, base, c, header)
		if a.status != http.StatusTooManyRequests {
			if !strings.Contains(a.header.Get("RateLimit-Policy"), wantPolicy) || a.header.Get("RateLimit") == "" {
				t.Fatalf("%s: admitted answer %d without the limit's fields: %v", what, n+1, a.header)
			}
			continue
		}
		refill := int(time.Since(start).Seconds() * float64(r.Count) / r.Period.Seconds()) // GCRA: the burst, plus one a emission interval
		if n < burst || n > burst+refill {
			t.Fatalf("%s: refused after %d admitted, want %d (+%d refilled)", what, n, burst, refill)
		}
		checkError(t, what, a.status, a.body, CodeRateLimited)
		retry, err := strconv.Atoi(a.header.Get("Retry-After"))
		if err != nil || retry < 1 || time.Duration(retry)*time.Second > r.Period/time.Duration(r.Count)+time.Second {
			t.Fatalf("%s: Retry-After %q, want whole seconds within one emission interval", what, a.header.Get("Retry-After"))
		}
		if got := a.header.Get("RateLimit-Policy"); !strings.Contains(got, wantPolicy) {
			t.Fatalf("%s: RateLimit-Policy %q, want %s", what, got, wantPolicy)
		}
		if got, want := a.header.Get("RateLimit"), fmt.Sprintf("%q;r=0;t=%d", policy, retry); !strings.HasSuffix(got, want) {
			t.Fatalf("%s: RateLimit %q, want it to end with %s", what, got, want)
		}
		exposed := a.header.Get("Access-Control-Expose-Headers")
		for _, h := range []string{"RateLimit-Policy", "RateLimit", "Retry-After"} {
			if !strings.Contains(exposed, h) {
				t.Fatalf("%s: Access-Control-Expose-Headers %q lacks %s", what, exposed, h)
			}
		}
		return a
	}
	t.Fatalf("%s: never refused", what)
	return answer{}
}

// TestEveryRouteGroupIsLimitedPerKeyAndPerIP sends every route group one request over its limit,
// with a key of the default tier and without a key.
func TestEveryRouteGroupIsLimitedPerKeyAndPerIP(t *testing.T) {
	st := store.New(testenv.Pool(t))
	key, _ := createKey(t, st, "acme", store.NewKey{Label: "server"})
	p := ratelimit.DefaultPolicy()
	_, base := limitedAPI(t, st, redisPrefix(), p)
	for bucket, c := range calls {
		overLimit(t, bucket+" with a key", base, c, map[string]string{"x-api-key": key}, bucket, p.Default[bucket])
		overLimit(t, bucket+" without a key", base, c, nil, bucket, p.Anonymous[bucket])
		if bucket != ratelimit.Status {
			continue
		}
		// The status endpoints share one bucket: v3's limit is spent, so v2 and v1 are refused
		// too (asked at once, before the bucket refills).
		for _, path := range []string{"/intents/status/v2", "/intents/status"} {
			if a := send(t, base, call{"GET", path, ""}, nil); a.status != http.StatusTooManyRequests {
				t.Errorf("%s after /intents/status/v3's limit: %d", path, a.status)
			}
		}
	}
}

// TestTiersAndCustomLimitsOverHTTP: an elevated key gets the spec's per-second quote limit, a
// custom key its own.
func TestTiersAndCustomLimitsOverHTTP(t *testing.T) {
	st := store.New(testenv.Pool(t))
	_, base := limitedAPI(t, st, redisPrefix(), ratelimit.DefaultPolicy())
	for _, tc := range []struct {
		key  store.NewKey
		rate auth.Rate
	}{
		{store.NewKey{Label: "elevated", Tier: auth.TierElevated}, auth.Rate{Count: 10, Period: time.Second}},
		{store.NewKey{Label: "custom", Tier: auth.TierCustom, Limits: map[string]auth.Rate{ratelimit.Quote: {Count: 4, Period: time.Hour}}},
			auth.Rate{Count: 4, Period: time.Hour}},
	} {
		key, _ := createKey(t, st, tc.key.Label, tc.key)
		overLimit(t, tc.key.Label, base, calls[ratelimit.Quote], map[string]string{"x-api-key": key}, ratelimit.Quote, tc.rate)
	}
}

// TestTheDevKeyIsUnlimited: the key `intentd-dev dev` makes is never refused and carries no
// limit fields, so the SDK suite and the load tools run against `make run`.
func TestTheDevKeyIsUnlimited(t *testing.T) {
	st := store.New(testenv.Pool(t))
	dev, _ := createKey(t, st, "dev", store.NewKey{Label: "dev", Environment: "dev", Unlimited: true}) // as intentd-dev dev makes it
	p := ratelimit.DefaultPolicy()
	_, base := limitedAPI(t, st, redisPrefix(), p)
	for n := range p.Default[ratelimit.Quote].Count + 10 {
		a := send(t, base, calls[ratelimit.Quote], map[string]string{"x-api-key": dev})
		if a.status == http.StatusTooManyRequests || a.header.Get("RateLimit") != "" {
			t.Fatalf("dev key, request %d: %d %v", n+1, a.status, a.header)
		}
	}
}

// TestHealthAndAdminAreNotLimited: /lives answers load balancers however often they ask, and
// the admin API, on its own listener, has its own credential.
func TestHealthAndAdminAreNotLimited(t *testing.T) {
	p := ratelimit.DefaultPolicy()
	p.Anonymous = map[string]auth.Rate{ratelimit.Other: {Count: 1, Period: time.Hour}}
	s, base := limitedAPI(t, nil, redisPrefix(), p)
	admin := httptest.NewServer(s.AdminHandler())
	t.Cleanup(admin.Close)
	for range 3 {
		for _, c := range []struct {
			base string
			call
		}{{base, call{"GET", "/lives", ""}}, {admin.URL, call{"POST", adminReqPath, "{}"}}} {
			if a := send(t, c.base, c.call, nil); a.status == http.StatusTooManyRequests || a.header.Get("RateLimit") != "" {
				t.Fatalf("%s %s: %d %v", c.method, c.path, a.status, a.header)
			}
		}
	}
	overLimit(t, "other routes still are", base, calls[ratelimit.Other], nil, ratelimit.Other, p.Anonymous[ratelimit.Other])
}

// TestGuessingKeysIsLimitedPerIP: wrong keys from one IP are refused after the unknown-key
// bucket's count, each also counted against the IP; a live key the process has served is not
// refused for its neighbours' guesses from the same IP. (Its first use, a lookup of a key the
// process had never found live, took one of the bucket's count: countLookup.)
func TestGuessingKeysIsLimitedPerIP(t *testing.T) {
	st := store.New(testenv.Pool(t))
	key, _ := createKey(t, st, "acme", store.NewKey{Label: "server"})
	p := ratelimit.DefaultPolicy()
	_, base := limitedAPI(t, st, redisPrefix(), p)
	if a := send(t, base, calls[ratelimit.Chains], map[string]string{"x-api-key": key}); a.status != http.StatusOK {
		t.Fatalf("the live key: %d %v", a.status, a.body)
	}
	n := 0
	guess := func() map[string]string {
		n++
		return map[string]string{"x-api-key": fmt.Sprintf("ik_%064x", n)}
	}
	chains := calls[ratelimit.Chains]
	start := time.Now()
	for range p.UnknownKey.Count - 1 {
		if a := send(t, base, chains, guess()); a.status != http.StatusOK {
			t.Fatalf("guess %d: %d %v", n, a.status, a.body)
		}
	}
	a := send(t, base, chains, guess())
	checkError(t, "guess over the limit", a.status, a.body, CodeRateLimited)
	if want := fmt.Sprintf("%q;q=%d;w=60", ratelimit.UnknownKey, p.UnknownKey.Count); !strings.Contains(a.header.Get("RateLimit-Policy"), want) ||
		a.header.Get("Retry-After") == "" {
		t.Fatalf("guess over the limit: %v, want policy %s and Retry-After", a.header, want)
	}
	if a := send(t, base, chains, map[string]string{"x-api-key": key}); a.status != http.StatusOK {
		t.Fatalf("a live key from the guessing IP: %d %v", a.status, a.body)
	}
	// The admitted guesses were counted against the IP's own bucket; the refused one was not.
	a = send(t, base, chains, nil)
	var left int
	if _, err := fmt.Sscanf(a.header.Get("RateLimit"), `"chains";r=%d`, &left); err != nil || a.status != http.StatusOK {
		t.Fatalf("no key from the guessing IP: %d %v", a.status, a.header)
	}
	refill := int(time.Since(start).Seconds() * 200 / 60)
	if want := p.Anonymous[ratelimit.Chains].Count - (p.UnknownKey.Count - 1) - 1; left < want || left > want+refill {
		t.Fatalf("the IP's chains bucket has %d left, want %d (+%d refilled)", left, want, refill)
	}
}

// TestAKeyThatCannotBeLookedUpIsLimitedByIP: the database not answering does not lift the
// limit, nor counts as a guess.
func TestAKeyThatCannotBeLookedUpIsLimitedByIP(t *testing.T) {
	deadDB, err := pgxpool.New(context.Background(), "postgres://intentd@127.0.0.1:1/none?connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(deadDB.Close)
	p := ratelimit.DefaultPolicy()
	p.Anonymous[ratelimit.Chains] = auth.Rate{Count: 3, Period: time.Hour}
	_, base := limitedAPI(t, store.New(deadDB), redisPrefix(), p)
	a := overLimit(t, "unchecked key", base, calls[ratelimit.Chains], map[string]string{"x-api-key": "ik_" + strings.Repeat("1", 64)},
		ratelimit.Chains, p.Anonymous[ratelimit.Chains])
	if strings.Contains(a.header.Get("RateLimit-Policy"), ratelimit.UnknownKey) {
		t.Fatalf("a key that could not be checked counted as a guess: %v", a.header)
	}
}

// TestXForwardedForIsBelievedOnlyFromTrustedProxies: from a peer outside TRUSTED_PROXIES the
// header is ignored, so a client cannot spread its requests over made-up addresses; from a
// trusted proxy it names the client, so the clients behind one proxy are limited apart.
func TestXForwardedForIsBelievedOnlyFromTrustedProxies(t *testing.T) {
	p := ratelimit.DefaultPolicy()
	rate := auth.Rate{Count: 2, Period: time.Hour}
	p.Anonymous[ratelimit.Chains] = rate
	chains := calls[ratelimit.Chains]
	from := func(ip string) map[string]string { return map[string]string{"X-Forwarded-For": ip} }

	_, direct := limitedAPI(t, nil, redisPrefix(), p) // the test's peer, 127.0.0.1, is no proxy
	overLimit(t, "untrusted, first address", direct, chains, from("198.51.100.1"), ratelimit.Chains, rate)
	if a := send(t, direct, chains, from("198.51.100.2")); a.status != http.StatusTooManyRequests {
		t.Fatalf("untrusted X-Forwarded-For gave a new bucket: %d", a.status)
	}

	_, proxied := limitedAPI(t, nil, redisPrefix(), p, "127.0.0.1/32")
	overLimit(t, "trusted, first client", proxied, chains, from("198.51.100.1"), ratelimit.Chains, rate)
	overLimit(t, "trusted, second client", proxied, chains, from("198.51.100.2"), ratelimit.Chains, rate)
	// X-Real-IP is not read even from a proxy: with the proxy's own address refused, it names
	// no other client.
	overLimit(t, "trusted, the proxy itself", proxied, chains, nil, ratelimit.Chains, rate)
	if a := send(t, proxied, chains, map[string]string{"X-Real-IP": "198.51.100.3"}); a.status != http.StatusTooManyRequests {
		t.Fatalf("X-Real-IP from a trusted proxy gave a new bucket: %d", a.status)
	}
	// A client's own X-Forwarded-For entry, left of what the proxy appended, is not believed.
	if a := send(t, proxied, chains, from("203.0.113.9, 198.51.100.1")); a.status != http.StatusTooManyRequests {
		t.Fatalf("a forged entry before the proxy's gave a new bucket: %d", a.status)
	}
}

// TestTwoAPIProcessesAdmitOneLimitTogether: two servers over one Redis, one key, requests spread
// over both at once: together they admit the bucket's count, within 5%.
func TestTwoAPIProcessesAdmitOneLimitTogether(t *testing.T) {
	st := store.New(testenv.Pool(t))
	key, _ := createKey(t, st, "acme", store.NewKey{Label: "server"})
	p := ratelimit.DefaultPolicy()
	prefix := redisPrefix()
	_, a := limitedAPI(t, st, prefix, p)
	_, b := limitedAPI(t, st, prefix, p)
	limit := p.Default[ratelimit.Chains]
	const workers, each = 8, 50
	var admitted, refused atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for w := range workers {
		wg.Go(func() {
			base := a
			if w%2 == 1 {
				base = b
			}
			for range each {
				switch s := send(t, base, calls[ratelimit.Chains], map[string]string{"x-api-key": key}).status; s {
				case http.StatusOK:
					admitted.Add(1)
				case http.StatusTooManyRequests:
					refused.Add(1)
				default:
					t.Errorf("status %d", s)
				}
			}
		})
	}
	wg.Wait()
	refill := math.Floor(time.Since(start).Seconds() * float64(limit.Count) / limit.Period.Seconds())
	t.Logf("%d admitted, %d refused in %v (limit %d, %.1f refilled)", admitted.Load(), refused.Load(), time.Since(start), limit.Count, refill)
	if got := float64(admitted.Load()); got < float64(limit.Count) || got > float64(limit.Count)*1.05 || got > float64(limit.Count)+refill {
		t.Fatalf("two processes admitted %v, want %d within 5%%", got, limit.Count)
	}
}

// countingKeys is the store as the key resolver sees it, counting its lookups.
type countingKeys struct {
	*store.Store
	lookups atomic.Int64
}

func (c *countingKeys) KeyByHash(ctx context.Context, hash []byte) (*auth.Key, []byte, error) {
	c.lookups.Add(1)
	return c.Store.KeyByHash(ctx, hash)
}

// Review L3: "apply the unknown-key and per-IP limit BEFORE the key lookup". An IP that has
// used up its unknown-key bucket is refused (429, the unknown-key policy) without its key being
// looked up, however many random ik_… keys it sends; another IP's first key is looked up and
// served.
func TestAnIPOutOfGuessesCostsNoLookup(t *testing.T) {
	st := store.New(testenv.Pool(t))
	key, _ := createKey(t, st, "acme", store.NewKey{Label: "server"})
	src := &countingKeys{Store: st}
	p := ratelimit.DefaultPolicy()
	s := &Server{Store: st, Chains: unreachableChains(t).Registry(), Quotes: &quote.Engine{}, Indexer: &fakeIndexer{},
		Logger: slog.New(slog.DiscardHandler), TrustedProxies: []string{"127.0.0.1/32"},
		Keys:   auth.NewResolver(src, auth.ResolverOptions{}),
		Limits: ratelimit.New(ratelimit.Options{Redis: testenv.RedisClient(t), Prefix: redisPrefix(), Policy: p})}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	chains := calls[ratelimit.Chains]
	guess := func(i int) map[string]string {
		return map[string]string{"x-api-key": fmt.Sprintf("ik_%064x", 0xbad000+i), "X-Forwarded-For": "2001:db8:7:7::1"}
	}
	for i := range p.UnknownKey.Count {
		if a := send(t, hs.URL, chains, guess(i)); a.status != http.StatusOK {
			t.Fatalf("guess %d: %d %v", i+1, a.status, a.body)
		}
	}
	if n := src.lookups.Load(); n != int64(p.UnknownKey.Count) {
		t.Fatalf("%d guesses were looked up %d times", p.UnknownKey.Count, n)
	}
	for i := range 20 {
		h := guess(100 + i)
		h["X-Forwarded-For"] = fmt.Sprintf("2001:db8:7:7::%x", 100+i) // the same /64
		a := send(t, hs.URL, chains, h)
		checkError(t, "a guess over the limit", a.status, a.body, CodeRateLimited)
		if !strings.Contains(a.header.Get("RateLimit-Policy"), `"unknown-key"`) || a.header.Get("Retry-After") == "" {
			t.Fatalf("a guess over the limit: %v", a.header)
		}
	}
	if n := src.lookups.Load(); n != int64(p.UnknownKey.Count) {
		t.Fatalf("guesses over the limit were looked up: %d lookups in all, want %d", n, p.UnknownKey.Count)
	}
	if a := send(t, hs.URL, chains, map[string]string{"x-api-key": key, "X-Forwarded-For": "198.51.100.20"}); a.status != http.StatusOK ||
		src.lookups.Load() != int64(p.UnknownKey.Count)+1 {
		t.Fatalf("a live key from another IP: %d %v", a.status, a.body)
	}
}

// Review L3's limit before the lookup never takes a live key's first burst for guesses: thirty
// requests at once with a key the process has never seen share one lookup, which takes one of
// the IP's unknown-key requests, and are all served.
func TestANewKeysFirstBurstIsNotTakenForGuesses(t *testing.T) {
	st := store.New(testenv.Pool(t))
	key, _ := createKey(t, st, "acme", store.NewKey{Label: "server"})
	p := ratelimit.DefaultPolicy()
	_, base := limitedAPI(t, st, redisPrefix(), p)
	var wg sync.WaitGroup
	for range 30 {
		wg.Go(func() {
			if a := send(t, base, calls[ratelimit.Chains], map[string]string{"x-api-key": key}); a.status != http.StatusOK {
				t.Errorf("the new key's burst: %d %v", a.status, a.body)
			}
		})
	}
	wg.Wait()
	for i := range p.UnknownKey.Count - 1 {
		if a := send(t, base, calls[ratelimit.Chains], map[string]string{"x-api-key": fmt.Sprintf("ik_%064x", 0xb0057+i)}); a.status != http.StatusOK {
			t.Fatalf("guess %d after the burst: %d %v", i+1, a.status, a.body)
		}
	}
	a := send(t, base, calls[ratelimit.Chains], map[string]string{"x-api-key": fmt.Sprintf("ik_%064x", 0xb0057+99)})
	checkError(t, "the guess over the bucket", a.status, a.body, CodeRateLimited)
}
