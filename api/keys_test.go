package api

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/prices"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// createKey creates an integrator named integrator and a key for it (k.IntegratorID is
// ignored) and returns the key's value and the key.
func createKey(t *testing.T, st *store.Store, integrator string, k store.NewKey) (string, *auth.Key) {
	t.Helper()
	ctx := context.Background()
	by := store.Actor{Name: "test", Via: store.ViaCLI}
	in, err := st.CreateIntegrator(ctx, auth.Integrator{Name: integrator}, by)
	if err != nil {
		t.Fatal(err)
	}
	k.IntegratorID = in.ID
	value, key, err := st.CreateAPIKey(ctx, k, by)
	if err != nil {
		t.Fatal(err)
	}
	return value, key
}

// Fee sponsorship is paid by the key's integrator: any sponsorship field without a valid key is
// 401 UNAUTHORIZED_QUOTE naming the fields, on every quote endpoint; with a key the quote goes
// on (here to the chain read, which fails: 503).
func TestSponsorshipFieldsRequireAnAPIKey(t *testing.T) {
	st := store.New(testenv.Pool(t))
	value, _ := createKey(t, st, "acme", store.NewKey{Label: "server"})
	h := quoteServer(t, unreachableChains(t), prices.Table{"ETH": decimal.NewFromInt(3000), "USDC": decimal.NewFromInt(1)}, st, nil)
	for _, tc := range []struct {
		fields map[string]any
		named  string
	}{
		{map[string]any{"subsidizeFees": true}, "subsidizeFees"},
		{map[string]any{"subsidizeFees": true, "sponsoredFeeComponents": []string{"swap"}}, "subsidizeFees, sponsoredFeeComponents"},
		{map[string]any{"subsidizeFees": true, "subsidizationBps": 5000}, "subsidizeFees, subsidizationBps"},
		{map[string]any{"subsidizeFees": true, "maxSubsidizationAmount": "1000"}, "subsidizeFees, maxSubsidizationAmount"},
		{map[string]any{"sponsoredFeeComponents": []string{"swap"}}, "sponsoredFeeComponents"},
		{map[string]any{"subsidizationBps": 100}, "subsidizationBps"},
		{map[string]any{"maxSubsidizationAmount": "1"}, "maxSubsidizationAmount"},
	} {
		body := ethToUSDC(tc.fields)
		for _, path := range []string{"/quote/v2", "/quote", "/price"} {
			for _, key := range []string{"", "ik_" + strings.Repeat("0", 64), "not-a-key"} {
				code, out := postQuote(t, h, path, key, body)
				wantError(t, path+" "+tc.named, code, out, http.StatusUnauthorized, quote.CodeUnauthorizedQuote)
				if !strings.HasPrefix(out["message"].(string), tc.named+":") {
					t.Fatalf("%s: message %q does not name %s", path, out["message"], tc.named)
				}
			}
		}
	}
	// subsidizeFees false asks for nothing.
	code, out := postQuote(t, h, "/quote/v2", "", ethToUSDC(map[string]any{"subsidizeFees": false}))
	wantError(t, "subsidizeFees false", code, out, http.StatusServiceUnavailable, quote.CodeServiceUnavailable)
	// With a key the request passes authentication (and fails at the unreachable chain).
	code, out = postQuote(t, h, "/quote/v2", value, ethToUSDC(map[string]any{"subsidizeFees": true}))
	wantError(t, "with a key", code, out, http.StatusServiceUnavailable, quote.CodeServiceUnavailable)
}

// requireKey: no key or one that is no live key is 401 UNAUTHORIZED, a live key passes, and a
// key that cannot be looked up is 503 SERVICE_UNAVAILABLE, never anonymous.
func TestRequireKey(t *testing.T) {
	pool := testenv.Pool(t)
	st := store.New(pool)
	value, key := createKey(t, st, "acme", store.NewKey{Label: "server"})
	revoked, rk := createKey(t, st, "acme", store.NewKey{Label: "old"})
	if _, err := st.RevokeAPIKey(context.Background(), rk.Integrator.ID, rk.ID, store.Actor{Name: "t", Via: store.ViaCLI}); err != nil {
		t.Fatal(err)
	}
	newRouter := func() http.Handler {
		s := &Server{Store: st, Logger: slog.New(slog.DiscardHandler), Keys: auth.NewResolver(st, auth.ResolverOptions{})}
		r := gin.New()
		r.Use(s.authenticate())
		r.GET("/private", s.requireKey(), func(c *gin.Context) { c.String(http.StatusOK, apiKeyOf(c).ID) })
		return r
	}
	h := newRouter()
	call := func(h http.Handler, v string) (int, string) {
		r := httptest.NewRequest(http.MethodGet, "/private", nil)
		if v != "" {
			r.Header.Set("x-api-key", v)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code, w.Body.String()
	}
	if code, body := call(h, value); code != http.StatusOK || body != key.ID {
		t.Fatalf("live key: %d %s", code, body)
	}
	for _, v := range []string{"", revoked, "ik_" + strings.Repeat("0", 64), "junk"} {
		code, body := call(h, v)
		var e Error
		if code != http.StatusUnauthorized || json.Unmarshal([]byte(body), &e) != nil || e.Code != CodeUnauthorized {
			t.Fatalf("key %q: %d %s", v, code, body)
		}
	}
	fresh := newRouter() // nothing cached
	pool.Close()
	code, body := call(fresh, value)
	var e Error
	if code != http.StatusServiceUnavailable || json.Unmarshal([]byte(body), &e) != nil || e.Code != CodeServiceUnavailable {
		t.Fatalf("database down: %d %s", code, body)
	}
}
