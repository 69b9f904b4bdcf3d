package metrics

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
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
	if code, body := get(Handler([]Probe{ok, bad}), "/readyz"); code != 503 || !strings.Contains(body, `"temporal":"connection refused"`) ||
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
