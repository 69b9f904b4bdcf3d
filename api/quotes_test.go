package api

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/prices"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// deadRPC is where the test chains' RPC "is": nothing listens there, so any chain read fails.
// The rules below are decided before any chain read.
const deadRPC = "http://127.0.0.1:1"

// unreachableChains is the devnet's chain registry (31337 and 31338, ETH and USDC) with RPCs
// that do not answer.
func unreachableChains(t *testing.T) *chains.Clients {
	t.Helper()
	reg, err := chains.NewRegistry(devnet.ChainConfigs(map[uint64]string{31337: deadRPC, 31338: deadRPC}))
	if err != nil {
		t.Fatal(err)
	}
	return chains.NewClients(reg, evm.VM())
}

// quoteServer serves the quote endpoints with the given price source and store (the store may
// be nil when the test never reaches it).
func quoteServer(t *testing.T, pool *chains.Clients, src quote.PriceSource, st *store.Store, logs *bytes.Buffer) http.Handler {
	t.Helper()
	var logger *slog.Logger
	if logs != nil {
		logger = slog.New(slog.NewTextHandler(logs, nil))
	} else {
		logger = slog.New(slog.DiscardHandler)
	}
	engine := &quote.Engine{Chains: pool, Prices: src, Store: st, Solver: devnet.SolverAddress().Hex()}
	s := &Server{Store: st, Chains: pool.Registry(), Quotes: engine, Logger: logger}
	return s.Handler()
}

// postQuote posts body to path with an optional x-api-key and returns the status and the
// decoded {message, errorCode} body.
func postQuote(t *testing.T, h http.Handler, path, apiKey string, body map[string]any) (int, map[string]any) {
	t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(raw))
	r.Header.Set("Content-Type", "application/json")
	if apiKey != "" {
		r.Header.Set("x-api-key", apiKey)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var out map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
		t.Fatalf("%s: %d %s is not JSON", path, w.Code, w.Body)
	}
	return w.Code, out
}

// ethToUSDC is a swap quote body from ETH on 31337 to USDC on 31338, with overrides.
func ethToUSDC(over map[string]any) map[string]any {
	b := map[string]any{"user": devnet.TestAccounts()[0].Address.Hex(), "originChainId": 31337, "destinationChainId": 31338,
		"originCurrency": "0x0000000000000000000000000000000000000000", "destinationCurrency": devnet.USDCAddress.Hex(),
		"amount": "1000000000000000000", "tradeType": "EXACT_INPUT"}
	for k, v := range over {
		b[k] = v
	}
	return b
}

func wantError(t *testing.T, what string, code int, out map[string]any, wantCode int, wantErrorCode string) {
	t.Helper()
	msg, _ := out["message"].(string)
	if code != wantCode || out["errorCode"] != wantErrorCode || msg == "" || len(out) != 2 {
		t.Fatalf("%s: got %d %v, want %d {message, errorCode: %s}", what, code, out, wantCode, wantErrorCode)
	}
}

func TestQuoteForAListedCurrencyWithNoPriceConfiguredIs400UnsupportedCurrencyNot503(t *testing.T) {
	pool := unreachableChains(t)

	t.Run("no entry in the PRICES_USD table: 400 UNSUPPORTED_CURRENCY", func(t *testing.T) {
		h := quoteServer(t, pool, prices.NewCached(prices.Table{"ETH": decimal.NewFromInt(3000)}, time.Second, time.Minute), nil, nil)
		for _, path := range []string{"/quote/v2", "/quote", "/price"} {
			code, out := postQuote(t, h, path, "", ethToUSDC(nil))
			wantError(t, path, code, out, http.StatusBadRequest, quote.CodeUnsupportedCurr)
			if !strings.Contains(out["message"].(string), "USDC") {
				t.Errorf("%s: message %q does not name the currency", path, out["message"])
			}
		}
	})

	feeds := func(syms ...string) *prices.Feeds {
		m := map[string]prices.FeedRef{}
		for _, s := range syms {
			m[s] = prices.FeedRef{ChainID: 31337, Address: devnet.ETHUSDFeedAddress.Hex()}
		}
		return prices.NewFeeds(pool, m, time.Hour)
	}
	usdcToETH := ethToUSDC(map[string]any{"originCurrency": devnet.USDCAddress.Hex(), "destinationCurrency": "0x0000000000000000000000000000000000000000",
		"amount": "1000000"})

	t.Run("no feed configured for the symbol in PRICE_FEEDS: 400 UNSUPPORTED_CURRENCY", func(t *testing.T) {
		h := quoteServer(t, pool, prices.NewCached(feeds("ETH"), time.Second, time.Minute), nil, nil)
		code, out := postQuote(t, h, "/price", "", usdcToETH)
		wantError(t, "USDC without a feed", code, out, http.StatusBadRequest, quote.CodeUnsupportedCurr)
	})

	t.Run("a configured feed that cannot be read (RPC down) stays 503 PRICE_FETCH_FAILED", func(t *testing.T) {
		h := quoteServer(t, pool, prices.NewCached(feeds("ETH", "USDC"), time.Second, time.Minute), nil, nil)
		code, out := postQuote(t, h, "/price", "", usdcToETH)
		wantError(t, "USDC feed unreachable", code, out, http.StatusServiceUnavailable, quote.CodePriceFetchFailed)
	})
}

func TestQuoteWhoseAPIKeyCannotBeLookedUpIs503ServiceUnavailableNot401(t *testing.T) {
	pool := testenv.Pool(t)
	st := store.New(pool)
	key, _ := createKey(t, st, "acme", store.NewKey{Label: "integrator"})
	chainPool := unreachableChains(t)
	src := prices.Table{"ETH": decimal.NewFromInt(3000), "USDC": decimal.NewFromInt(1)}
	// An origin currency the chain does not list fails after authentication and before any
	// chain read: 400 UNSUPPORTED_CURRENCY shows that the key was accepted.
	unlisted := ethToUSDC(map[string]any{"referrer": "acme", "originCurrency": "0x00000000000000000000000000000000000000aa"})

	t.Run("database up: a known key with referrer passes, an unknown key with referrer is 401 UNAUTHORIZED_QUOTE", func(t *testing.T) {
		h := quoteServer(t, chainPool, src, st, nil)
		code, out := postQuote(t, h, "/quote/v2", key, unlisted)
		wantError(t, "known key", code, out, http.StatusBadRequest, quote.CodeUnsupportedCurr)
		code, out = postQuote(t, h, "/quote/v2", "ik_"+strings.Repeat("0", 64), unlisted)
		wantError(t, "unknown key", code, out, http.StatusUnauthorized, quote.CodeUnauthorizedQuote)
	})

	t.Run("database unreachable: the key lookup fails, so 503 SERVICE_UNAVAILABLE (retryable), not 401", func(t *testing.T) {
		var logs bytes.Buffer
		h := quoteServer(t, chainPool, src, st, &logs) // a fresh server: the key is not cached
		pool.Close()
		for _, path := range []string{"/quote/v2", "/quote", "/price"} {
			code, out := postQuote(t, h, path, key, unlisted)
			wantError(t, path+" with referrer", code, out, http.StatusServiceUnavailable, quote.CodeServiceUnavailable)
		}
		// Without a referrer too: the key also names the stored request's owner.
		delete(unlisted, "referrer")
		code, out := postQuote(t, h, "/quote/v2", key, unlisted)
		wantError(t, "without referrer", code, out, http.StatusServiceUnavailable, quote.CodeServiceUnavailable)
		if !strings.Contains(logs.String(), "api key lookup failed") {
			t.Fatalf("the lookup failure was not logged: %s", logs.String())
		}
		if strings.Contains(logs.String(), key) {
			t.Fatal("the key was logged")
		}
		// Without an x-api-key nothing needs the database before pricing.
		code, out = postQuote(t, h, "/quote/v2", "", unlisted)
		wantError(t, "no key", code, out, http.StatusBadRequest, quote.CodeUnsupportedCurr)
	})
}
