package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/intentd/intentd/devnet"
)

func TestUsersStartWithTheDevnetAccountsAndAreDistinct(t *testing.T) {
	dev := devnet.TestAddresses()
	got := users(len(dev) + 6)
	seen := map[string]bool{}
	for i, a := range got {
		if i < len(dev) && a != dev[i] {
			t.Fatalf("user %d = %s, want devnet account %s", i, a, dev[i])
		}
		if seen[a.Hex()] {
			t.Fatalf("user %s repeated", a)
		}
		seen[a.Hex()] = true
	}
	if again := users(len(got)); again[len(again)-1] != got[len(got)-1] {
		t.Fatal("derived users differ between calls")
	}
}

func TestScenarioBodies(t *testing.T) {
	want := map[string][3]string{
		"eth-bridge":  {nativeToken, nativeToken, "10000000000000000"},
		"usdc-bridge": {usdcToken, usdcToken, "10000000"},
		"eth-to-usdc": {nativeToken, usdcToken, "10000000000000000"},
	}
	if len(want) != len(scenarios) {
		t.Fatalf("scenarios %v, want %v", scenarioNames(), want)
	}
	addrs := users(3)
	for name, w := range want {
		bs, err := bodies(scenarios[name], "", addrs)
		if err != nil {
			t.Fatal(err)
		}
		for i, b := range bs {
			var got map[string]any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			exp := map[string]any{"user": addrs[i].Hex(), "originChainId": 31337.0, "destinationChainId": 31338.0,
				"originCurrency": w[0], "destinationCurrency": w[1], "amount": w[2], "tradeType": "EXACT_INPUT"}
			if len(got) != len(exp) {
				t.Fatalf("%s: body %s", name, b)
			}
			for k, v := range exp {
				if got[k] != v {
					t.Fatalf("%s: %s = %v, want %v (body %s)", name, k, got[k], v, b)
				}
			}
		}
	}
}

func TestTargetRefusesRemoteHostsUnlessAllowed(t *testing.T) {
	for _, u := range []string{"http://10.0.0.1:8080", "http://example.com", "ftp://127.0.0.1"} {
		if _, _, err := target(&config{url: u, path: "/quote/v2"}); err == nil {
			t.Errorf("%s accepted", u)
		}
	}
	ep, hp, err := target(&config{url: "http://localhost:9/api", path: "/quote/v2"})
	if err != nil || ep.String() != "http://localhost:9/api/quote/v2" || hp != "localhost:9" {
		t.Fatalf("got %v %q %v", ep, hp, err)
	}
	if _, _, err := target(&config{url: "http://10.0.0.1:8080", path: "/price", allowRemote: true}); err != nil {
		t.Fatal(err)
	}
}

// fakeAPI answers 200, and a 400 with an errorCode for every fifth request.
func fakeAPI(t *testing.T, key string) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/quote/v2" || r.Header.Get("x-api-key") != key {
			http.Error(w, "bad request shape", http.StatusTeapot)
			return
		}
		var b quoteBody
		if err := json.NewDecoder(r.Body).Decode(&b); err != nil || b.TradeType != "EXACT_INPUT" {
			http.Error(w, "bad body", http.StatusTeapot)
			return
		}
		if n.Add(1)%5 == 0 {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"message":"nope","errorCode":"AMOUNT_TOO_LOW"}`)
			return
		}
		_, _ = io.WriteString(w, `{"requestId":"0x1"}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestRunCountsStatusesAndErrorCodes(t *testing.T) {
	for _, rate := range []float64{0, 400} {
		srv, _ := fakeAPI(t, "k")
		c := &config{url: srv.URL, path: "/quote/v2", apiKey: "k", scenario: "eth-bridge", clients: 4, users: 3,
			duration: 300 * time.Millisecond, warmup: 100 * time.Millisecond, timeout: time.Second, rate: rate}
		ep, hp, err := target(c)
		if err != nil {
			t.Fatal(err)
		}
		bs, _ := bodies(scenarios[c.scenario], "", users(c.users))
		s := &sender{client: newHTTPClient(hp, c.clients, c.timeout), endpoint: ep.String(), apiKey: c.apiKey}
		rec, window := run(context.Background(), c, s, bs, io.Discard)
		sum := summarize(c, ep.String(), rec, window, time.Now(), false)
		if sum.Requests == 0 || sum.StatusCodes["418"] != 0 || len(sum.TransportErrors) != 0 {
			t.Fatalf("rate %v: %+v", rate, sum)
		}
		if sum.StatusCodes["200"]+sum.StatusCodes["400"] != sum.Requests || sum.ErrorCodes["AMOUNT_TOO_LOW"] != sum.StatusCodes["400"] ||
			sum.Failed != sum.StatusCodes["400"] || sum.Failed == 0 {
			t.Fatalf("rate %v: inconsistent counts %+v", rate, sum)
		}
		if rate > 0 {
			// 300 ms at 400 req/s is 120 scheduled requests.
			if sum.Requests < 110 || sum.Requests > 121 {
				t.Fatalf("open loop sent %d requests in the window, want about 120", sum.Requests)
			}
		}
		var out strings.Builder
		sum.print(&out)
		if strings.Contains(out.String(), "k\n") || !strings.Contains(out.String(), "AMOUNT_TOO_LOW=") {
			t.Fatalf("summary:\n%s", out.String())
		}
	}
}

func TestAPIKeyComesFromTheEnvironmentAndIsNeverPrinted(t *testing.T) {
	t.Setenv("INTENTD_API_KEY", "ik_secret")
	var help strings.Builder
	if _, err := parseFlags([]string{"-h"}, &help); err == nil || strings.Contains(help.String(), "ik_secret") {
		t.Fatalf("help printed the key or did not stop: %v\n%s", err, help.String())
	}
	c, err := parseFlags(nil, io.Discard)
	if err != nil || c.apiKey != "ik_secret" {
		t.Fatalf("env key not used: %v %q", err, c.apiKey)
	}
	c, err = parseFlags([]string{"-api-key", ""}, io.Discard)
	if err != nil || c.apiKey != "" {
		t.Fatalf("explicit empty -api-key overridden: %v %q", err, c.apiKey)
	}
	sum := summarize(c, "http://127.0.0.1:8080/quote/v2", newRecorder(), time.Second, time.Now(), false)
	sum.APIKey = true
	var out strings.Builder
	sum.print(&out)
	if strings.Contains(out.String(), "ik_secret") {
		t.Fatal("summary printed the key")
	}
}
