package metrics

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Issue 17, health: /livez answers while the process runs; /readyz is 200 when every dependency
// answers and 503 naming the ones that do not; /metrics serves the registry in Prometheus's
// text format.
func TestHealthAndMetricsEndpoints(t *testing.T) {
	down := errors.New("connection refused")
	ok := Probe{Name: "postgres", Check: func(context.Context) error { return nil }}
	bad := Probe{Name: "temporal", Check: func(context.Context) error { return down }}
	get := func(h http.Handler, path string) (int, string) {
		srv := httptest.NewServer(h)
		defer srv.Close()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get(Handler([]Probe{ok, bad}), "/livez"); code != 200 || !strings.Contains(body, "ok") {
		t.Fatalf("livez: %d %s", code, body)
	}
	if code, body := get(Handler([]Probe{ok}), "/readyz"); code != 200 || !strings.Contains(body, "ready") {
		t.Fatalf("readyz with every probe up: %d %s", code, body)
	}
	if code, body := get(Handler([]Probe{ok, bad}), "/readyz"); code != 503 || !strings.Contains(body, `"failing":["temporal"]`) ||
		strings.Contains(body, "postgres") {
		t.Fatalf("readyz with temporal down: %d %s", code, body)
	}
	ObserveHTTP("api", "/quote/v2", "POST", 400, "INVALID_INPUT", 0)
	code, body := get(Handler(nil), "/metrics")
	if code != 200 || !strings.Contains(body, `intentd_http_requests_total{error_code="INVALID_INPUT",method="POST",route="/quote/v2",service="api",status="400"} 1`) ||
		!strings.Contains(body, "go_goroutines") {
		t.Fatalf("metrics: %d\n%s", code, body)
	}
}

// Review L4: "/readyz returns only probe names and states"; a probe's error, which for a chain
// quotes its RPC URL and so the provider's key, is logged with its URLs redacted and never
// answered.
func TestReadyzNamesFailingProbesButNotTheirErrors(t *testing.T) {
	const secret = "SECRETPROVIDERKEY0123"
	rpc := Probe{Name: "chain-1", Check: func(context.Context) error {
		return fmt.Errorf(`Post "https://eth.example/v2/%s?apikey=%s": dial tcp: connection refused`, secret, secret)
	}}
	var logs bytes.Buffer
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	ready := newReadiness([]Probe{rpc}, slog.New(slog.NewTextHandler(&logs, nil)), func() time.Time { return now })
	srv := httptest.NewServer(handler(ready))
	defer srv.Close()
	for range 2 {
		resp, err := http.Get(srv.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != 503 || string(b) != `{"failing":["chain-1"],"status":"unavailable"}`+"\n" {
			t.Fatalf("readyz: %d %s", resp.StatusCode, b)
		}
		now = now.Add(readyFor)
	}
	if strings.Contains(logs.String(), secret) || !strings.Contains(logs.String(), "https://eth.example/***") ||
		strings.Count(logs.String(), "readiness probe failing") != 1 {
		t.Fatalf("the probe's failure is logged once, redacted:\n%s", logs.String())
	}
}

// Review L17: "cache /readyz probe results for about 1 s": however many requests come within a
// second, the probes run once; after it, again.
func TestReadyzRunsTheProbesAtMostOncePerSecond(t *testing.T) {
	var runs atomic.Int64
	probe := Probe{Name: "postgres", Check: func(context.Context) error { runs.Add(1); return nil }}
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	srv := httptest.NewServer(handler(newReadiness([]Probe{probe}, nil, func() time.Time { return now })))
	defer srv.Close()
	ask := func() {
		resp, err := http.Get(srv.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("readyz: %d", resp.StatusCode)
		}
	}
	for range 50 {
		ask()
	}
	if runs.Load() != 1 {
		t.Fatalf("50 requests within a second ran the probes %d times, want 1", runs.Load())
	}
	now = now.Add(readyFor)
	ask()
	if runs.Load() != 2 {
		t.Fatalf("a request a second later ran the probes %d times in all, want 2", runs.Load())
	}
}

// Review L17: "Read, Write and Idle timeouts on the metrics servers": a trickled request or an
// idle keep-alive cannot hold a connection for good.
func TestMetricsServerHasConnectionTimeouts(t *testing.T) {
	srv := server(http.NotFoundHandler())
	if srv.ReadHeaderTimeout <= 0 || srv.ReadTimeout <= 0 || srv.WriteTimeout <= 0 || srv.IdleTimeout <= 0 {
		t.Fatalf("timeouts: read header %v, read %v, write %v, idle %v", srv.ReadHeaderTimeout, srv.ReadTimeout,
			srv.WriteTimeout, srv.IdleTimeout)
	}
}
