package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/api"
	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/migrations"
	"github.com/intentd/intentd/prices"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/e2e"
	"github.com/intentd/intentd/testkit/testenv"
)

// apiWith serves an engine built from the given parts over real HTTP.
func apiWith(t *testing.T, st *store.Store, reg *chains.Registry, src quote.PriceSource) *e2e.Client {
	t.Helper()
	pool := chains.NewClients(reg, evm.VM())
	engine := &quote.Engine{Chains: pool, Prices: src, Store: st, Solver: devnet.SolverAddress().Hex()}
	srv := &api.Server{Store: st, Chains: reg, Quotes: engine, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	h := httptest.NewServer(srv.Handler())
	t.Cleanup(h.Close)
	return &e2e.Client{BaseURL: h.URL}
}

var tablePrices = prices.Table{"ETH": decimal.NewFromInt(3000), "USDC": decimal.NewFromInt(1)}

// The transient and unclassified failures of the quote endpoints (spec, Errors): 503
// SERVICE_UNAVAILABLE, 503 PRICE_FETCH_FAILED, 500 UNKNOWN_ERROR, each {message, errorCode}
// with nothing internal in the message, and nothing stored.
func TestQuoteFailuresAreTransientOrUnknownErrors(t *testing.T) {
	s := startStack(t)
	ctx := context.Background()

	t.Run("503 SERVICE_UNAVAILABLE when the destination chain's RPC is down", func(t *testing.T) {
		reg, err := chains.NewRegistry(devnet.ChainConfigs(map[uint64]string{31337: s.RPCs[31337], 31338: "http://127.0.0.1:1"}))
		if err != nil {
			t.Fatal(err)
		}
		c := apiWith(t, s.Sys.Store, reg, tablePrices)
		before := countRows(t, s)
		code, out := post(t, c, "/quote/v2", quoteBody(nil))
		if code != 503 || out["errorCode"] != "SERVICE_UNAVAILABLE" || len(out) != 2 || strings.Contains(out["message"].(string), "127.0.0.1") {
			t.Fatalf("got %d %v", code, out)
		}
		if countRows(t, s) != before {
			t.Fatal("stored rows")
		}
	})

	t.Run("503 PRICE_FETCH_FAILED when the feed is stale", func(t *testing.T) {
		reg, err := s.Devnet.Registry()
		if err != nil {
			t.Fatal(err)
		}
		// Chain 31338's ETH/USD feed, last updated two hours ago, against a one-hour bound.
		if err := s.Devnet.Chain(31338).SetPrice(ctx, devnet.ETHUSDFeedAddress, big.NewInt(devnet.ETHUSDAnswer),
			time.Now().Add(-2*time.Hour)); err != nil {
			t.Fatal(err)
		}
		feeds := map[string]prices.FeedRef{"ETH": {ChainID: 31338, Address: devnet.ETHUSDFeedAddress.Hex()},
			"USDC": {ChainID: 31338, Address: devnet.USDCUSDFeedAddress.Hex()}}
		pool := chains.NewClients(reg, evm.VM())
		c := apiWith(t, s.Sys.Store, reg, prices.NewCached(prices.NewFeeds(pool, feeds, time.Hour), time.Second, time.Hour))
		code, out := post(t, c, "/quote/v2", quoteBody(nil))
		if code != 503 || out["errorCode"] != "PRICE_FETCH_FAILED" || len(out) != 2 {
			t.Fatalf("stale feed: got %d %v", code, out)
		}
		// A bridge of USDC needs no ETH price for its input but does for the destination gas.
		code, out = post(t, c, "/price", quoteBody(obj{"originCurrency": devnet.USDCAddress.Hex(), "amount": "1000000"}))
		if code != 503 || out["errorCode"] != "PRICE_FETCH_FAILED" {
			t.Fatalf("stale gas-token feed: got %d %v", code, out)
		}
		// A feed address that is not a feed at all fails the same way.
		broken := apiWith(t, s.Sys.Store, reg, prices.NewFeeds(pool, map[string]prices.FeedRef{
			"ETH": {ChainID: 31337, Address: devnet.DepositoryAddress.Hex()}, "USDC": feeds["USDC"]}, time.Hour))
		if code, out := post(t, broken, "/price", quoteBody(nil)); code != 503 || out["errorCode"] != "PRICE_FETCH_FAILED" {
			t.Fatalf("not a feed: got %d %v", code, out)
		}
	})

	t.Run("500 UNKNOWN_ERROR without internals when the store refuses the write", func(t *testing.T) {
		pool := testenv.Pool(t)
		if _, err := migrations.Apply(ctx, pool); err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(ctx, `DROP TABLE quotes CASCADE`); err != nil {
			t.Fatal(err)
		}
		reg, err := s.Devnet.Registry()
		if err != nil {
			t.Fatal(err)
		}
		c := apiWith(t, store.New(pool), reg, tablePrices)
		code, out := post(t, c, "/quote/v2", quoteBody(nil))
		if code != 500 || out["errorCode"] != "UNKNOWN_ERROR" || len(out) != 2 {
			t.Fatalf("got %d %v", code, out)
		}
		msg := out["message"].(string)
		for _, leak := range []string{"quotes", "relation", "SQLSTATE", "goroutine", ".go:"} {
			if strings.Contains(msg, leak) {
				t.Fatalf("message %q leaks %q", msg, leak)
			}
		}
	})
}

// rpcProxy forwards JSON-RPC to a chain, counts the HTTP requests it carries, and answers 503
// (as an RPC provider in an outage does) while down is set, or for a request (a batch too) that
// calls a method refused names while it is set (a provider failing one method: the reads a
// signing needs, while the simulations still answer).
type rpcProxy struct {
	URL    string
	calls  atomic.Int64
	down   atomic.Bool
	refuse atomic.Pointer[[]string]
}

func newRPCProxy(t *testing.T, target string) *rpcProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &rpcProxy{}
	rp := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.calls.Add(1)
		if p.down.Load() || p.refused(r) {
			http.Error(w, "upstream unavailable", http.StatusServiceUnavailable)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

// refused reports whether r calls a method p refuses now; r's body is kept for the upstream.
func (p *rpcProxy) refused(r *http.Request) bool {
	methods := p.refuse.Load()
	if methods == nil || len(*methods) == 0 || r.Body == nil {
		return false
	}
	body, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return false
	}
	var calls []struct{ Method string }
	if err := json.Unmarshal(body, &calls); err != nil {
		var one struct{ Method string }
		if json.Unmarshal(body, &one) != nil {
			return false
		}
		calls = append(calls, one)
	}
	for _, c := range calls {
		if slices.Contains(*methods, c.Method) {
			return true
		}
	}
	return false
}

// Issue 3, speed: "no RPC call on the hot path when caches are warm". Every chain call of the
// engine (gas price, price feeds, balances, fill simulation) goes through a counting proxy;
// after one warming quote, further native bridge quotes make none.
func TestWarmQuotesMakeNoRPCCalls(t *testing.T) {
	s := startStack(t)
	a, b := newRPCProxy(t, s.RPCs[31337]), newRPCProxy(t, s.RPCs[31338])
	reg, err := chains.NewRegistry(devnet.ChainConfigs(map[uint64]string{31337: a.URL, 31338: b.URL}))
	if err != nil {
		t.Fatal(err)
	}
	pool := chains.NewClients(reg, evm.VM())
	feeds, err := prices.ParseFeeds(devnet.PriceFeedsConfig(31337))
	if err != nil {
		t.Fatal(err)
	}
	c := apiWith(t, s.Sys.Store, reg, prices.NewCached(prices.NewFeeds(pool, feeds, time.Hour), time.Minute, time.Hour))
	body := quoteBody(obj{"destinationCurrency": nativeAddr})
	mustQuote(t, c, "/quote/v2", body) // warms gas price, prices, balance, fill simulation
	warm := a.calls.Load() + b.calls.Load()
	if warm == 0 {
		t.Fatal("the proxy saw no calls: the engine is not using it")
	}
	for range 20 {
		mustQuote(t, c, "/quote/v2", body)
	}
	if after := a.calls.Load() + b.calls.Load(); after != warm {
		t.Fatalf("20 warm quotes made %d RPC calls, want 0", after-warm)
	}
}
