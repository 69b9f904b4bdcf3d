package oracle

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/internal/metrics"
	"github.com/intentd/intentd/oracle/oracleapi"
)

// offlineRegistry is a registry whose RPC is never called by the tests using it.
func offlineRegistry(t testing.TB) *chains.Registry {
	eth := chains.Currency{Symbol: "ETH", Name: "Ether", Decimals: 18}
	return registry(t,
		chains.Chain{ID: 31338, Name: "devnet-b", HTTPRPCURL: "http://127.0.0.1:1", Confirmations: 0,
			Depository: "0x00000000000000000000000000000000000000b0", Currency: eth},
		chains.Chain{ID: 31337, Name: "devnet-a", VMType: chains.VMTypeEVM, HTTPRPCURL: "http://127.0.0.1:1", Confirmations: 2,
			Depository: "0x00000000000000000000000000000000000000a0", Currency: eth},
		chains.Chain{ID: 31339, Name: "off", HTTPRPCURL: "http://127.0.0.1:1", Disabled: true, Currency: eth},
	)
}

func TestLives(t *testing.T) {
	_, hs := newTestServer(t, mustConfig(t, nil), offlineRegistry(t), nil)
	for range 5 { // health checks are never rate limited
		r := do(t, http.MethodGet, hs.URL+oracleapi.PathLives, "", nil)
		require.Equal(t, http.StatusOK, r.status)
		assert.JSONEq(t, `{"status":"ok"}`, string(r.body))
		assert.Empty(t, r.header.Get("X-RateLimit-Limit"))
	}
}

func TestChains(t *testing.T) {
	_, hs := newTestServer(t, mustConfig(t, nil), offlineRegistry(t), nil)
	r := do(t, http.MethodGet, hs.URL+oracleapi.PathChains, "", nil)
	require.Equal(t, http.StatusOK, r.status)
	assert.JSONEq(t, `{"chains":[
		{"id":31337,"name":"devnet-a","vmType":"ethereum-vm","depository":"0x00000000000000000000000000000000000000a0","confirmations":2},
		{"id":31338,"name":"devnet-b","vmType":"ethereum-vm","depository":"0x00000000000000000000000000000000000000b0","confirmations":1}
	]}`, string(r.body))
}

// GET /documentation is an interactive reference generated from the same schemas the handlers
// validate with, and loads nothing from outside the oracle: the OpenAPI viewer embedded in the
// binary, its assets under /documentation/assets/.
func TestDocumentation(t *testing.T) {
	srv, hs := newTestServer(t, mustConfig(t, nil), offlineRegistry(t), nil)
	r := do(t, http.MethodGet, hs.URL+oracleapi.PathDocumentation, "", nil)
	require.Equal(t, http.StatusOK, r.status)
	assert.Contains(t, r.header.Get("Content-Type"), "text/html")
	page := string(r.body)
	assert.Contains(t, page, `data-openapi="/documentation/openapi.json"`)
	assert.Contains(t, page, `<script src="/documentation/assets/`, "the page is interactive: it renders the document and sends requests")
	assert.NotRegexp(t, `(src|href)="(https?:)?//`, page, "no outside assets")
	assert.Contains(t, r.header.Get("Content-Security-Policy"), "script-src 'self';")
	assert.NotContains(t, r.header.Get("Content-Security-Policy"), "http")
	for _, m := range regexp.MustCompile(`(?:src|href)="(/documentation/assets/[^"]+)"`).FindAllStringSubmatch(page, -1) {
		a := do(t, http.MethodGet, hs.URL+m[1], "", nil)
		assert.Equal(t, http.StatusOK, a.status, m[1])
		assert.Regexp(t, `^text/(javascript|css); charset=utf-8$`, a.header.Get("Content-Type"), m[1])
		assert.Contains(t, a.header.Get("Cache-Control"), "immutable", m[1])
	}
	r = do(t, http.MethodGet, hs.URL+oracleapi.PathDocumentation+"/assets/nope.js", "", nil)
	assert.Equal(t, http.StatusNotFound, r.status)
	assert.Contains(t, string(r.body), oracleapi.CodeNotFound)

	r = do(t, http.MethodGet, hs.URL+oracleapi.PathDocumentation+"/openapi.json", "", nil)
	require.Equal(t, http.StatusOK, r.status)
	var doc struct {
		OpenAPI string `json:"openapi"`
		Paths   map[string]map[string]struct {
			RequestBody struct {
				Content map[string]struct {
					Schema json.RawMessage `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
			Responses map[string]json.RawMessage `json:"responses"`
		} `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(r.body, &doc), "the OpenAPI document must be valid JSON")
	assert.Equal(t, "3.0.3", doc.OpenAPI)
	assert.Contains(t, doc.Paths, oracleapi.PathLives)
	assert.Contains(t, doc.Paths, oracleapi.PathChains)
	require.Len(t, srv.endpoints, 6)
	for _, e := range srv.endpoints {
		op, ok := doc.Paths[e.path]["post"]
		require.True(t, ok, e.path)
		published := op.RequestBody.Content["application/json"].Schema
		enforced, err := json.Marshal(e.requestSchema)
		require.NoError(t, err)
		assert.JSONEq(t, string(enforced), string(published), "%s publishes the schema it validates with", e.path)
		assert.Contains(t, op.Responses, "200")
		assert.Contains(t, op.Responses, "400")
	}
	for _, code := range oracleapi.ServerCodes() {
		assert.Contains(t, string(r.body), `"`+code+`"`, "every error code is documented")
	}
}

func TestUnknownRouteIs404(t *testing.T) {
	_, hs := newTestServer(t, mustConfig(t, map[string]string{EnvAPIKeys: testAPIKey + ":ops"}), offlineRegistry(t), nil)
	r := do(t, http.MethodGet, hs.URL+"/nope", "", map[string]string{oracleapi.HeaderAPIKey: testAPIKey})
	require.Equal(t, http.StatusNotFound, r.status)
	assert.Equal(t, oracleapi.CodeNotFound, r.errorBody(t).Code)
}

// TestRateLimit: the third unauthenticated request in a window is refused with the headers and
// Retry-After; a valid key is never limited; exempt paths are never limited.
func TestRateLimit(t *testing.T) {
	srv, hs := newTestServer(t, mustConfig(t, map[string]string{EnvAPIKeys: testAPIKey + ":engine;" + strings.Repeat("x", MinAPIKeyLength) + ":x"}), offlineRegistry(t), nil)
	// A clock frozen mid-window makes "the same window" certain.
	now := time.Date(2026, 1, 1, 12, 0, 0, 400*int(time.Millisecond), time.UTC)
	srv.limiter.now = func() time.Time { return now }

	for i, wantRemaining := range []string{"1", "0"} {
		r := do(t, http.MethodGet, hs.URL+oracleapi.PathChains, "", nil)
		require.Equal(t, http.StatusOK, r.status, "request %d", i+1)
		assert.Equal(t, "2", r.header.Get("X-RateLimit-Limit"))
		assert.Equal(t, wantRemaining, r.header.Get("X-RateLimit-Remaining"))
		assert.Equal(t, strconv.FormatInt(now.Unix()+1, 10), r.header.Get("X-RateLimit-Reset"))
	}
	r := do(t, http.MethodGet, hs.URL+oracleapi.PathChains, "", nil)
	require.Equal(t, http.StatusTooManyRequests, r.status)
	assert.Equal(t, oracleapi.CodeRateLimited, r.errorBody(t).Code)
	assert.Equal(t, "0", r.header.Get("X-RateLimit-Remaining"))
	retry, err := strconv.Atoi(r.header.Get("Retry-After"))
	require.NoError(t, err)
	assert.GreaterOrEqual(t, retry, 1)

	// Attestation routes share the same per-IP budget.
	r = do(t, http.MethodPost, hs.URL+oracleapi.PathDepositAttestation, `{}`, nil)
	require.Equal(t, http.StatusTooManyRequests, r.status)

	// An invalid key is just an unauthenticated request.
	r = do(t, http.MethodGet, hs.URL+oracleapi.PathChains, "", map[string]string{oracleapi.HeaderAPIKey: "wrong"})
	require.Equal(t, http.StatusTooManyRequests, r.status)

	// A valid key is never limited and carries no rate-limit headers.
	for range 10 {
		r = do(t, http.MethodGet, hs.URL+oracleapi.PathChains, "", map[string]string{oracleapi.HeaderAPIKey: testAPIKey})
		require.Equal(t, http.StatusOK, r.status)
		assert.Empty(t, r.header.Get("X-RateLimit-Limit"))
	}
	// Exempt paths are never limited.
	for _, p := range []string{"/", oracleapi.PathDocumentation, oracleapi.PathDocumentation + "/openapi.json", oracleapi.PathLives, "/lives/anything"} {
		r = do(t, http.MethodGet, hs.URL+p, "", nil)
		assert.NotEqual(t, http.StatusTooManyRequests, r.status, p)
	}

	// The next window starts afresh.
	now = now.Add(time.Second)
	r = do(t, http.MethodGet, hs.URL+oracleapi.PathChains, "", nil)
	require.Equal(t, http.StatusOK, r.status)
}

// TestRateLimitDefaultsRealClock checks the spec defaults (2 per 1000 ms) with the real clock:
// of three back-to-back requests at least one is refused unless a window boundary fell between
// them, in which case it retries once.
func TestRateLimitDefaultsRealClock(t *testing.T) {
	_, hs := newTestServer(t, mustConfig(t, nil), offlineRegistry(t), nil)
	for attempt := 0; attempt < 2; attempt++ {
		refused := 0
		for range 3 {
			if do(t, http.MethodGet, hs.URL+oracleapi.PathChains, "", nil).status == http.StatusTooManyRequests {
				refused++
			}
		}
		if refused > 0 {
			return
		}
		time.Sleep(1100 * time.Millisecond)
	}
	t.Fatal("three requests within one window were all allowed")
}

func TestLimiterMemoryIsBounded(t *testing.T) {
	now := time.Unix(1000, 0)
	l := newFixedWindowLimiter(2, time.Second, func() time.Time { return now })
	for i := range 500 {
		require.True(t, l.allow("10.0.0."+strconv.Itoa(i)).allowed)
	}
	assert.Equal(t, 500, l.size())
	now = now.Add(time.Second)
	require.True(t, l.allow("10.0.0.1").allowed)
	assert.Equal(t, 1, l.size(), "a new window forgets every client of the old one")

	// The table never grows beyond its cap within a window.
	for i := range maxLimiterClients + 10 {
		l.allow("c" + strconv.Itoa(i))
	}
	assert.Equal(t, maxLimiterClients, l.size())
}

// Review L5: "100k distinct /64s make the oracle refuse every new keyless client — evict (LRU)
// instead of failing closed for everyone." A full table forgets the client that asked least
// recently; a client over its limit stays refused, and a new one is served.
func TestLimiterFullOfRotatingClientsStillServesANewClient(t *testing.T) {
	now := time.Unix(1000, 0)
	l := newFixedWindowLimiter(2, time.Second, func() time.Time { return now })
	require.True(t, l.allow("busy").allowed)
	require.True(t, l.allow("busy").allowed)
	for i := range maxLimiterClients - 1 {
		require.True(t, l.allow("2001:db8:"+strconv.Itoa(i)+"::/64").allowed)
	}
	assert.False(t, l.allow("busy").allowed, "a client over its limit, recently seen, stays refused")
	d := l.allow("new-client")
	assert.True(t, d.allowed, "a new keyless client is served although the table is full")
	assert.Equal(t, 1, d.remaining)
	assert.Equal(t, maxLimiterClients, l.size())
}

func TestClientKeyGroupsIPv6By64(t *testing.T) {
	assert.Equal(t, clientKey("2001:db8:1:2::1"), clientKey("2001:db8:1:2:ffff::9"))
	assert.NotEqual(t, clientKey("2001:db8:1:2::1"), clientKey("2001:db8:1:3::1"))
	assert.Equal(t, "192.0.2.7", clientKey("::ffff:192.0.2.7"))
}

func TestAPIKeyMatch(t *testing.T) {
	k1, k2, k3 := strings.Repeat("1", MinAPIKeyLength), strings.Repeat("2", MinAPIKeyLength), strings.Repeat("3", MinAPIKeyLength)
	cfg := mustConfig(t, map[string]string{EnvAPIKeys: k1 + ":first; " + k2 + ":second ;" + k1 + ":dup"})
	set := apiKeySet{keys: cfg.APIKeys}
	label, ok := set.match(k2)
	assert.True(t, ok)
	assert.Equal(t, "second", label)
	label, ok = set.match(k1)
	assert.True(t, ok)
	assert.Equal(t, "first", label)
	_, ok = set.match(k3)
	assert.False(t, ok)
	_, ok = set.match("")
	assert.False(t, ok)
}

// TestServeShutsDownGracefully: Serve returns nil once its context ends.
func TestServeShutsDownGracefully(t *testing.T) {
	srv, err := NewServer(mustConfig(t, nil), offlineRegistry(t), nil)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()

	r := do(t, http.MethodGet, "http://"+ln.Addr().String()+oracleapi.PathLives, "", nil)
	require.Equal(t, http.StatusOK, r.status)
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after its context ended")
	}

	// Run binds the address itself and stops the same way.
	ctx, cancel = context.WithCancel(context.Background())
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	go func() { done <- srv.Run(ctx, addr) }()
	require.Eventually(t, func() bool {
		resp, err := http.Get("http://" + addr + oracleapi.PathLives)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 5*time.Second, 10*time.Millisecond)
	cancel()
	require.NoError(t, <-done)
}

func TestNewServerRequiresSigningKey(t *testing.T) {
	_, err := NewServer(Config{RateLimitMax: 1, RateLimitWindow: time.Second}, offlineRegistry(t), nil)
	require.Error(t, err)
	_, err = NewServer(mustConfig(t, nil), nil, nil)
	require.Error(t, err)
}

// TestRecoveredPanicIsAJSONError: a panicking handler answers 500 in the error shape and the log
// holds the panic, not the request's headers (gin.Recovery would dump x-api-key).
func TestRecoveredPanicIsAJSONError(t *testing.T) {
	logs := &syncBuffer{}
	srv, err := NewServer(mustConfig(t, nil), offlineRegistry(t), debugLogger(logs))
	require.NoError(t, err)
	r := gin.New()
	r.Use(srv.recoverer, srv.requestLog)
	r.GET("/boom", func(*gin.Context) { panic("boom") })
	hs := httptest.NewServer(r)
	defer hs.Close()

	resp := do(t, http.MethodGet, hs.URL+"/boom", "", map[string]string{oracleapi.HeaderAPIKey: testAPIKey})
	require.Equal(t, http.StatusInternalServerError, resp.status)
	assert.Equal(t, oracleapi.CodeInternal, resp.errorBody(t).Code)
	assert.Contains(t, logs.String(), "handler panicked")
	assertNoSecrets(t, logs.String())
}

// TestEveryConnectionIsBounded: the oracle's server bounds the headers, the whole request, the
// answer and the idle keep-alive, and the answer's bound leaves room for an attestation's chain
// reads (rpcTimeout).
func TestEveryConnectionIsBounded(t *testing.T) {
	s, err := NewServer(mustConfig(t, nil), offlineRegistry(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := s.httpServer()
	if hs.ReadHeaderTimeout <= 0 || hs.ReadTimeout <= 0 || hs.IdleTimeout <= 0 || hs.WriteTimeout <= rpcTimeout {
		t.Fatalf("read header %s, read %s, write %s (rpc %s), idle %s", hs.ReadHeaderTimeout, hs.ReadTimeout,
			hs.WriteTimeout, rpcTimeout, hs.IdleTimeout)
	}
}

// An attestation whose caller went away before the answer (an aggregating peer that had its
// signatures and cancelled the rest) is counted as cancelled (HTTP 499, outcome "canceled"),
// not as the CHAIN_UNAVAILABLE its interrupted chain read would name: at 50 intents a second on
// a healthy devnet those were one attestation in fifteen.
func TestAnAttestationWhoseCallerWentAwayIsCountedAsCancelledNotAsTheChainsFailure(t *testing.T) {
	reads, stop := make(chan struct{}, 1), make(chan struct{})
	node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // a node that answers nothing until the oracle gives up on it (or the test ends)
		case reads <- struct{}{}:
		default:
		}
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	t.Cleanup(func() { close(stop); node.Close() })
	eth := chains.Currency{Symbol: "ETH", Name: "Ether", Decimals: 18}
	reg := registry(t, chains.Chain{ID: 31337, Name: "devnet-a", VMType: chains.VMTypeEVM, HTTPRPCURL: node.URL,
		Confirmations: 1, Depository: "0x00000000000000000000000000000000000000a0", Currency: eth})
	cfg := mustConfig(t, map[string]string{EnvAPIKeys: testAPIKey + ":engine"})
	_, hs := newTestServer(t, cfg, reg, debugLogger(io.Discard))

	route := oracleapi.PathDepositAttestation
	cancelled := metrics.OracleAttestations.WithLabelValues(route, "canceled")
	unavailable := metrics.OracleAttestations.WithLabelValues(route, oracleapi.CodeChainUnavailable)
	closed := metrics.HTTPRequests.WithLabelValues("oracle", route, http.MethodPost, "499", "")
	before, beforeUnavailable, beforeClosed := testutil.ToFloat64(cancelled), testutil.ToFloat64(unavailable), testutil.ToFloat64(closed)

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := oracleapi.NewClient(hs.URL, testAPIKey, nil).AttestDeposit(ctx, 31337, common.HexToHash("0x01"))
		done <- err
	}()
	<-reads // the oracle is reading the chain
	cancel()
	require.ErrorContains(t, <-done, "context canceled")
	require.Eventually(t, func() bool { return testutil.ToFloat64(cancelled) == before+1 }, 5*time.Second, 10*time.Millisecond,
		"the cancelled attestation is counted as canceled")
	assert.Equal(t, beforeUnavailable, testutil.ToFloat64(unavailable), "counted as CHAIN_UNAVAILABLE")
	assert.Equal(t, beforeClosed+1, testutil.ToFloat64(closed), "its HTTP answer counted as 499")
}
