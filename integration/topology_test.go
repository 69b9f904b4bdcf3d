package integration

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/internal/process"
	"github.com/intentd/intentd/testkit"
	"github.com/intentd/intentd/testkit/e2e"
	"github.com/intentd/intentd/testkit/testenv"
)

// Issue 17, "a test starts the same topology as processes (two API, two worker, three oracle
// processes against one Temporal dev server and Postgres) and drives intents through it": the
// production binary in every role, each process with its own metrics port. Intents quoted on
// both APIs settle, each paid once, with a 2-of-3 attestation; every process is ready and its
// metrics show its part: the APIs their requests, the workers their transitions and the
// Temporal SDK's metrics, the oracles their attestations, the dispatcher its deliveries.
func TestProductionTopologyAsProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds intentd and runs eight processes")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin, err := process.BuildIntentd(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := &stack{testkit.Start(t, testkit.Options{WorkerBinary: bin, OracleBinary: bin, ProcessMetrics: true})}
	s.StartWorkerProcess(t, bin, nil)
	redis := map[string]string{"REDIS_URL": testenv.RedisURL(t)}
	apis := []string{s.StartAPIProcess(t, bin, redis), s.StartAPIProcess(t, bin, redis)}
	rcv := testkit.NewWebhookReceiver(t)
	key := s.WebhookKey(t, "topology", rcv)
	s.StartDispatcherProcess(t, bin, map[string]string{"WEBHOOK_RETRY_INITIAL": "200ms"})

	const intents = 6
	ids := make([]string, intents)
	var wg sync.WaitGroup
	for i := range intents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &e2e.Client{BaseURL: apis[i%2], APIKey: key}
			a := devnet.TestAccounts()[1+i]
			q, err := c.Quote(ctx, map[string]any{"user": a.Address.Hex(), "originChainId": 31337, "destinationChainId": 31338,
				"originCurrency": common.Address{}.Hex(), "destinationCurrency": common.Address{}.Hex(),
				"amount": "100000000000000000", "tradeType": "EXACT_INPUT", "includeProtocolData": true})
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := (&e2e.Wallet{Key: a.Key, RPCs: s.RPCs}).ExecuteSteps(ctx, q); err != nil {
				t.Error(err)
				return
			}
			final, _, err := c.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
			if err != nil || final.Status != "success" {
				t.Errorf("intent %d: %+v %v", i, final, err)
				return
			}
			if n := s.fills(t, 31338, common.HexToHash(q.Protocol.V2.OrderID)); n != 1 {
				t.Errorf("intent %d paid %d times", i, n)
			}
			ids[i] = q.RequestID
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if err := s.WaitWebhooksDrained(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	if check, err := s.CheckWebhooks(ctx, rcv, ids); err != nil || !check.OK() {
		t.Fatalf("webhooks: %s %v %v", check, check.Problems, err)
	}

	get := func(url string) (int, string) {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatalf("%s: %v", url, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if len(s.MetricsURLs) != 8 {
		t.Fatalf("metrics ports %v, want two APIs, two workers, three oracles and a dispatcher", s.MetricsURLs)
	}
	sum := map[string]float64{}
	for name, base := range s.MetricsURLs {
		if code, body := get(base + "/readyz"); code != http.StatusOK {
			t.Errorf("%s not ready: %d %s", name, code, body)
		}
		_, m := get(base + "/metrics")
		role := strings.TrimRight(name, "0123456789")
		want := map[string]string{
			"api":        `intentd_http_requests_total{error_code="",method="POST",route="/quote/v2",service="api",status="200"}`,
			"worker":     "temporal_workflow_completed",
			"oracle":     `intentd_oracle_attestations_total{endpoint="/attestations/depository-deposits/v1",outcome="ok"}`,
			"dispatcher": `intentd_webhook_attempts_total{outcome="delivered"}`,
		}[role]
		v := value(m, want)
		if role == "worker" {
			v = sumSeries(m, want)
		}
		t.Logf("%s (%s): %s = %v", name, base, want, v)
		sum[role] += v
		if role == "worker" {
			sum["transitions"] += value(m, `intentd_intent_transitions_total{fail_reason="N/A",status="success"}`)
		}
	}
	// Every intent's workflow completes on one of the workers (its first workflow task comes
	// with the start's answer, eagerly: no schedule-to-start latency is measured for it).
	for role, min := range map[string]float64{"api": intents, "worker": intents, "oracle": intents, "dispatcher": intents, "transitions": intents} {
		if sum[role] < min {
			t.Errorf("%s metrics add up to %v, want at least %v", role, sum[role], min)
		}
	}
}

// sumSeries adds up every series of metric name in a scrape, whatever its labels.
func sumSeries(scrape, name string) float64 {
	total := 0.0
	for _, line := range strings.Split(scrape, "\n") {
		if rest, ok := strings.CutPrefix(line, name); ok && (strings.HasPrefix(rest, "{") || strings.HasPrefix(rest, " ")) {
			if i := strings.LastIndexByte(line, ' '); i > 0 {
				var v float64
				if _, err := fmt.Sscan(line[i+1:], &v); err == nil {
					total += v
				}
			}
		}
	}
	return total
}
