package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/jackc/pgx/v5/pgxpool"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// runConfig is what `recordload run` does.
type runConfig struct {
	databaseURL string
	api         string
	keysFile    string
	duration    time.Duration
	clients     int
	only        string
}

// population is what the scenarios draw from, read from the seeded database.
type population struct {
	ids   []string // a sample of request ids
	busy  []string // users with at least 200 requests (ten pages of 20)
	users []string // a sample of users of every activity
	key   keyInfo
}

func loadPopulation(ctx context.Context, pool *pgxpool.Pool, keysFile string) (*population, error) {
	keys, err := readKeys(keysFile)
	if err != nil {
		return nil, fmt.Errorf("the seeded keys (run `recordload seed` first): %w", err)
	}
	p := &population{key: keys[0]}
	if err := collect(ctx, pool, &p.ids, `SELECT id FROM requests TABLESAMPLE SYSTEM (2) LIMIT 50000`); err != nil {
		return nil, err
	}
	if err := collect(ctx, pool, &p.busy, `SELECT "user" FROM requests GROUP BY "user" HAVING count(*) >= 200 LIMIT 200`); err != nil {
		return nil, err
	}
	if err := collect(ctx, pool, &p.users, `SELECT DISTINCT "user" FROM requests TABLESAMPLE SYSTEM (1) LIMIT 20000`); err != nil {
		return nil, err
	}
	if len(p.ids) == 0 || len(p.busy) == 0 || len(p.users) == 0 {
		return nil, fmt.Errorf("the database holds too few requests: seed it first")
	}
	return p, nil
}

func collect(ctx context.Context, pool *pgxpool.Pool, into *[]string, sql string) error {
	rows, err := pool.Query(ctx, sql)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return err
		}
		*into = append(*into, s)
	}
	return rows.Err()
}

// scenario is one measured read: the next URL to ask for (path and query, random over the
// population).
type scenario struct {
	name string
	next func(r *rand.Rand) string
}

func scenarios(p *population) []scenario {
	pick := func(r *rand.Rand, s []string) string { return s[r.IntN(len(s))] }
	return []scenario{
		{"status", func(r *rand.Rand) string { return "/intents/status/v3?requestId=" + pick(r, p.ids) }},
		{"v3-user", func(r *rand.Rand) string { return "/requests/v3?limit=20&user=" + pick(r, p.users) }},
		{"v3-filtered-total", func(r *rand.Rand) string {
			chains := []string{"1", "10", "137", "8453", "42161"}
			q := url.Values{"limit": {"20"}, "includeTotal": {"true"}, "originChainId": {pick(r, chains)},
				"status": {"success"}, "currencyInSymbol": {"usdc"}, "apiKeyId": {p.key.ID},
				"startTimestamp": {fmt.Sprint(time.Now().Add(-30 * 24 * time.Hour).Unix())}}
			return "/requests/v3?" + q.Encode()
		}},
	}
}

func runAll(ctx context.Context, cfg runConfig, out io.Writer) error {
	pool, err := pgxpool.New(ctx, cfg.databaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	p, err := loadPopulation(ctx, pool, cfg.keysFile)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "machine: %d CPUs, %s; %d clients, %s per scenario, closed loop\n", runtime.NumCPU(),
		runtime.GOARCH, cfg.clients, cfg.duration)
	fmt.Fprintf(out, "%-20s %10s %9s %9s %9s %9s  %s\n", "scenario", "req/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "status codes")
	for _, sc := range scenarios(p) {
		if cfg.only != "" && cfg.only != sc.name {
			continue
		}
		m := attack(cfg, p.key.Value, sc)
		codes := make([]string, 0, len(m.StatusCodes))
		for c, n := range m.StatusCodes {
			codes = append(codes, fmt.Sprintf("%s:%d", c, n))
		}
		sort.Strings(codes)
		fmt.Fprintf(out, "%-20s %10.0f %9.2f %9.2f %9.2f %9.2f  %s\n", sc.name, m.Throughput, msOf(m.Latencies.P50),
			msOf(m.Latencies.P90), msOf(m.Latencies.P99), msOf(m.Latencies.Max), strings.Join(codes, " "))
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if cfg.only == "" || cfg.only == "v3-paging" {
		if err := paging(ctx, cfg, p, out); err != nil {
			return err
		}
	}
	return nil
}

func msOf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// attack runs one scenario closed loop for cfg.duration after a 3 s warm-up.
func attack(cfg runConfig, key string, sc scenario) vegeta.Metrics {
	header := http.Header{"x-api-key": {key}}
	var mu sync.Mutex
	r := rand.New(rand.NewPCG(7, 11))
	targeter := func(t *vegeta.Target) error {
		mu.Lock()
		path := sc.next(r)
		mu.Unlock()
		t.Method, t.URL, t.Header = http.MethodGet, cfg.api+path, header
		return nil
	}
	// An attacker stops for good when its attack ends: one for the warm-up, one for the run.
	attacker := func() *vegeta.Attacker {
		return vegeta.NewAttacker(vegeta.Workers(uint64(cfg.clients)), vegeta.MaxWorkers(uint64(cfg.clients)),
			vegeta.Connections(cfg.clients), vegeta.KeepAlive(true), vegeta.Timeout(10*time.Second))
	}
	for range attacker().Attack(targeter, vegeta.Rate{}, 3*time.Second, sc.name+"-warmup") { //nolint:revive // drain
	}
	var m vegeta.Metrics
	for res := range attacker().Attack(targeter, vegeta.Rate{}, cfg.duration, sc.name) {
		m.Add(res)
	}
	m.Close()
	return m
}

// paging follows the continuation of /requests/v3 for busy users ten pages deep, from every
// client at once, and compares the latency of page 1 with page 10.
func paging(ctx context.Context, cfg runConfig, p *population, out io.Writer) error {
	const pages = 10
	hists := make([]*hdrhistogram.Histogram, pages)
	for i := range hists {
		hists[i] = hdrhistogram.New(1, 60_000_000, 3)
	}
	var mu sync.Mutex
	var failed error
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: cfg.clients}}
	deadline := time.Now().Add(cfg.duration)
	var wg sync.WaitGroup
	for c := range cfg.clients {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(c), 3))
			for time.Now().Before(deadline) && ctx.Err() == nil {
				user := p.busy[r.IntN(len(p.busy))]
				cont := ""
				for page := range pages {
					u := cfg.api + "/requests/v3?limit=20&user=" + user
					if cont != "" {
						u += "&continuation=" + url.QueryEscape(cont)
					}
					start := time.Now()
					next, err := getPage(client, u, p.key.Value)
					took := time.Since(start)
					mu.Lock()
					if err != nil && failed == nil {
						failed = err
					}
					_ = hists[page].RecordValue(took.Microseconds())
					mu.Unlock()
					if err != nil || next == "" {
						break
					}
					cont = next
				}
			}
		})
	}
	wg.Wait()
	if failed != nil {
		return fmt.Errorf("v3-paging: %w", failed)
	}
	for _, i := range []int{0, pages - 1} {
		h := hists[i]
		fmt.Fprintf(out, "%-20s %10d %9.2f %9.2f %9.2f %9.2f  pages fetched\n", fmt.Sprintf("v3-paging page %d", i+1),
			h.TotalCount(), float64(h.ValueAtQuantile(50))/1000, float64(h.ValueAtQuantile(90))/1000,
			float64(h.ValueAtQuantile(99))/1000, float64(h.Max())/1000)
	}
	return nil
}

func getPage(client *http.Client, u, key string) (continuation string, err error) {
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("x-api-key", key)
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return "", fmt.Errorf("GET %s: %d %s", u, resp.StatusCode, b)
	}
	var body struct {
		Continuation *string `json:"continuation"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return "", err
	}
	if body.Continuation == nil {
		return "", nil
	}
	return *body.Continuation, nil
}
