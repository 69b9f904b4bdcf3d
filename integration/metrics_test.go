package integration

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/intentd/intentd/internal/metrics"
)

// Issue 17, metrics: after a real intent the process's /metrics shows it: the HTTP requests by
// route and status, the quote's outcome, the transitions to success, the fill's latency from
// the deposit's block, the oracles' attestations, the solver's balance on each chain, the
// Temporal SDK's own metrics and the read model's gauges.
func TestMetricsShowARealIntent(t *testing.T) {
	s := startStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	before := scrape(t)
	bridge(t, ctx, s, s.API, 2)
	_ = metrics.Registry.Register(s.Sys.Store.NewGauges(time.Minute))
	// The metrics are recorded just after the writes the API reads (a transition's counter after
	// its status is stored), and the inventory is read every 30 s: scrape until every series
	// checked below has moved, or 40 s have passed.
	grows := []string{
		`intentd_http_requests_total{error_code="",method="POST",route="/quote/v2",service="api",status="200"}`,
		`intentd_quotes_total{endpoint="/quote/v2",outcome="ok"}`,
		`intentd_intent_transitions_total{fail_reason="N/A",status="success"}`,
		`intentd_fill_latency_seconds_count{phase="broadcast"}`,
		`intentd_fill_latency_seconds_count{phase="mined"}`,
		`intentd_oracle_attestations_total{endpoint="/attestations/depository-deposits/v1",outcome="ok"}`,
	}
	for _, phase := range []string{"reads", "prepare", "broadcast"} {
		grows = append(grows, `intentd_solver_signing_seconds_count{phase="`+phase+`"}`)
	}
	deadline := time.Now().Add(40 * time.Second)
	var after string
	for {
		after = scrape(t)
		moved := value(after, `intentd_solver_balance{chain_id="31338",symbol="ETH"}`) > 0
		for _, series := range grows {
			moved = moved && value(after, series) > value(before, series)
		}
		if moved || time.Now().After(deadline) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	for _, series := range grows {
		if value(after, series) <= value(before, series) {
			t.Errorf("%s did not grow: %v -> %v", series, value(before, series), value(after, series))
		}
	}
	for _, present := range []string{`intentd_solver_balance{chain_id="31338",symbol="ETH"}`, `intentd_requests_in_flight{status="pending"}`,
		`intentd_webhook_deliveries{state="dead"}`, "temporal_request",
		// An intent alone, its start eager and its activities local, schedules no task on a
		// queue: these two are what it does record.
		"temporal_workflow_task_execution_latency", "temporal_local_activity_execution_latency", `intentd_read_model_up 1`} {
		if !strings.Contains(after, present) {
			t.Errorf("/metrics has no %s", present)
		}
	}
}

func scrape(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(metrics.Handler(nil))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// value is a series' value in a scrape, 0 when absent.
func value(scrape, series string) float64 {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(scrape)
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}
