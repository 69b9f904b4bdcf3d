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
)

// deadRPC is where the test chains' RPC "is": nothing listens there, so any chain read fails.
// The rules below are decided before any chain read.
const deadRPC = "http://127.0.0.1:1"

// unreachableChains is the devnet's chain registry (31337 and 31338, ETH and USDC) with RPCs
// that do not answer.
func unreachableChains(t *testing.T) *evm.Pool {
	t.Helper()
	reg, err := chains.NewRegistry(devnet.ChainConfigs(map[uint64]string{31337: deadRPC, 31338: deadRPC}))
	if err != nil {
		t.Fatal(err)
	}
	return evm.NewPool(reg)
}

// quoteServer serves the quote endpoints with the given price source and store (the store may
// be nil when the test never reaches it).
func quoteServer(t *testing.T, pool *evm.Pool, src quote.PriceSource, st *store.Store, logs *bytes.Buffer) http.Handler {
	t.Helper()
	var logger *slog.Logger
	if logs != nil {
		logger = slog.New(slog.NewTextHandler(logs, nil))
	} else {
		logger = slog.New(slog.DiscardHandler)
	}
	engine := &quote.Engine{Chains: pool, Prices: src, Store: st, Solver: devnet.SolverAddress()}
	s := &Server{Store: st, Chains: pool, Quotes: engine, Logger: logger}
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
			m[s] = prices.FeedRef{ChainID: 31337, Address: devnet.ETHUSDFeedAddress}
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
