package api

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
	"github.com/intentd/intentd/usage"
)

// usageKey is a key the usage tests call with: its value and what is stored of it.
type usageKey struct {
	plain string
	*auth.Key
}

// usageRig is an API over a fresh database, served over real HTTP, with keys of two
// integrators (acme: a1, a2; globex: g1) and one key alone in its integrator (solo), and a
// route that panics.
type usageRig struct {
	st               *store.Store
	srv              *Server
	url              string
	a1, a2, g1, solo usageKey
}

func newUsageRig(t *testing.T) *usageRig {
	t.Helper()
	st := store.New(testenv.Pool(t))
	r := &usageRig{st: st}
	ctx, by := context.Background(), store.Actor{Name: "test", Via: store.ViaCLI}
	integrators := map[string]string{}
	for _, k := range []struct {
		into       *usageKey
		name, intg string
	}{{&r.a1, "a1", "acme"}, {&r.a2, "a2", "acme"}, {&r.g1, "g1", "globex"}, {&r.solo, "solo", "solo"}} {
		if integrators[k.intg] == "" {
			in, err := st.CreateIntegrator(ctx, auth.Integrator{Name: k.intg}, by)
			if err != nil {
				t.Fatal(err)
			}
			integrators[k.intg] = in.ID
		}
		plain, key, err := st.CreateAPIKey(ctx, store.NewKey{IntegratorID: integrators[k.intg], Label: k.name}, by)
		if err != nil {
			t.Fatal(err)
		}
		*k.into = usageKey{plain: plain, Key: key}
	}
	r.srv = &Server{Store: st, Logger: slog.New(slog.DiscardHandler), Usage: usage.NewRecorder(st, usage.Options{FlushEvery: time.Hour})}
	h := r.srv.Handler().(*gin.Engine)
	h.GET("/test/panic", func(*gin.Context) { panic("boom") })
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	r.url = hs.URL
	return r
}

// get calls path with key (none when "") and decodes the JSON answer.
func get(t *testing.T, base, path, key string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("x-api-key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("GET %s: %d, not JSON: %v", path, resp.StatusCode, err)
	}
	return resp.StatusCode, out
}

// metrics is GET /metrics/usage's rows summed per "apiKeyId endpoint statusCode errorCode",
// after checking each row's shape.
func metrics(t *testing.T, r *usageRig, query, key string) map[string]int64 {
	t.Helper()
	code, out := get(t, r.url, "/metrics/usage"+query, key)
	if code != http.StatusOK {
		t.Fatalf("GET /metrics/usage%s: %d %v", query, code, out)
	}
	rows, ok := out["metrics"].([]any)
	if !ok || len(out) != 1 {
		t.Fatalf("GET /metrics/usage%s: %v, want {metrics: [...]}", query, out)
	}
	prefixes := map[string]string{r.a1.ID: r.a1.Prefix, r.a2.ID: r.a2.Prefix, r.g1.ID: r.g1.Prefix, r.solo.ID: r.solo.Prefix}
	sums := map[string]int64{}
	for _, row := range rows {
		m := row.(map[string]any)
		id, _ := m["apiKeyId"].(string)
		ts, _ := m["timestamp"].(string)
		if _, err := time.Parse(time.RFC3339, ts); err != nil || m["apiKey"] != prefixes[id] {
			t.Fatalf("row %v: want apiKey the prefix of apiKeyId and an RFC 3339 timestamp", m)
		}
		code, hasCode := m["errorCode"].(string)
		if hasCode == (code == "") || hasCode != (m["statusCode"].(float64) >= 400) {
			t.Fatalf("row %v: errorCode is on failed rows only", m)
		}
		sums[fmt.Sprintf("%s %s %v %s", id, m["endpoint"], m["statusCode"], code)] += int64(m["count"].(float64))
	}
	return sums
}

// anonymous is api_usage's count of anonymous calls per "endpoint status errorCode".
func anonymous(t *testing.T, st *store.Store) map[string]int64 {
	t.Helper()
	rows, err := st.Pool().Query(context.Background(), `SELECT endpoint, status, error_code, sum(count)::bigint FROM api_usage
		WHERE api_key_id = '00000000-0000-0000-0000-000000000000' GROUP BY 1, 2, 3`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var endpoint, code string
		var status int16
		var n int64
		if err := rows.Scan(&endpoint, &status, &code, &n); err != nil {
			t.Fatal(err)
		}
		out[fmt.Sprintf("%s %d %s", endpoint, status, code)] = n
	}
	return out
}

// burstCall is one kind of call of the burst and how its row reads.
type burstCall struct {
	path, key string
	row       string // "endpoint status errorCode"
	times     int
}

func burst(r *usageRig) []burstCall {
	unknownReq := "0x" + strings.Repeat("ab", 32)
	return []burstCall{
		{"/lives", "", "/lives 200 ", 40},
		{"/metrics/usage", "", "/metrics/usage 401 UNAUTHORIZED", 7},
		{"/intents/status/v3", r.a1.plain, "/intents/status/v3 400 INVALID_INPUT", 25},
		{"/intents/status/v3?requestId=" + unknownReq, r.a1.plain, "/intents/status/v3 404 REQUEST_NOT_FOUND", 30},
		{"/no/such/path?x=1", r.a2.plain, usage.Unrouted + " 404 NOT_FOUND", 11},
		{"/intents/status/v2?requestId=nope", r.a2.plain, "/intents/status/v2 404 REQUEST_NOT_FOUND", 9},
		{"/test/panic", r.a2.plain, "/test/panic 500 UNKNOWN_ERROR", 3}, // counted after the recoverer answers
		{"/lives", "ik_" + strings.Repeat("0", 64), "/lives 200 ", 5},   // a key that is no key counts as anonymous
	}
}

// After a burst of concurrent calls, GET /metrics/usage and the anonymous rows count exactly
// the calls sent, by key, endpoint (the route pattern), status and errorCode.
func TestUsageCountsAfterABurstEqualTheRequestsSent(t *testing.T) {
	r := newUsageRig(t)
	calls := burst(r)
	var wg sync.WaitGroup
	for _, c := range calls {
		for range c.times {
			wg.Go(func() { get(t, r.url, c.path, c.key) })
		}
	}
	wg.Wait()
	if err := r.srv.Usage.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	want, wantAnon := map[string]int64{}, map[string]int64{}
	for _, c := range calls {
		switch c.key {
		case r.a1.plain:
			want[r.a1.ID+" "+c.row] += int64(c.times)
		case r.a2.plain:
			want[r.a2.ID+" "+c.row] += int64(c.times)
		default:
			wantAnon[c.row] += int64(c.times)
		}
	}
	got := metrics(t, r, "?apiKey="+r.a1.ID+","+r.a2.plain, r.a1.plain)
	if !maps.Equal(got, want) {
		t.Fatalf("GET /metrics/usage counts\n%v\nwant\n%v", got, want)
	}
	if got := anonymous(t, r.st); !maps.Equal(got, wantAnon) {
		t.Fatalf("anonymous counts\n%v\nwant\n%v", got, wantAnon)
	}
}

// freeAddr is a loopback address nothing listens on (for Run, which takes an address).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// A graceful stop (Run's context ending, as on SIGINT or SIGTERM) flushes every call it
// served: the scheduled flush is an hour away, so only the stop can have written them.
func TestAGracefulStopLosesNoUsage(t *testing.T) {
	r := newUsageRig(t)
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- r.srv.Run(ctx, addr) }()
	base := "http://" + addr
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get(base + "/lives"); err == nil {
			resp.Body.Close()
			break
		} else if time.Now().After(deadline) {
			t.Fatal(err)
		}
	}
	const n = 60
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if i%2 == 0 {
				get(t, base, "/lives", r.a1.plain)
			} else {
				get(t, base, "/intents/status/v3", r.a1.plain)
			}
		})
	}
	wg.Wait()
	if got := anonymous(t, r.st); len(got) != 0 {
		t.Fatalf("counts stored before the stop: %v", got)
	}
	// The client's spare connections, dialed but never used, would hold the shutdown for its
	// 5 s (net/http treats a new connection as busy that long).
	http.DefaultClient.CloseIdleConnections()
	cancel()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	if held := r.srv.Usage.Held(); held != 0 {
		t.Fatalf("%d calls held after the stop", held)
	}
	rows, err := r.st.Usage(context.Background(), store.UsageQuery{KeyIDs: []string{r.a1.ID},
		From: time.Now().Add(-time.Hour), To: time.Now(), Step: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, c := range rows {
		got[fmt.Sprintf("%s %d %s", c.Endpoint, c.Status, c.ErrorCode)] += c.N
	}
	want := map[string]int64{"/lives 200 ": n / 2, "/intents/status/v3 400 INVALID_INPUT": n / 2}
	if !maps.Equal(got, want) {
		t.Fatalf("stored after the stop %v, want %v (and 1 anonymous /lives from the wait)", got, want)
	}
}

// GET /metrics/usage needs a key (401), names at most 50 keys (400), only keys of the
// caller's integrator (403, also for a key that does not exist, and for every key but its
// own when the caller's integrator has no other), and a well-formed window (400).
func TestUsageMetricsRefusals(t *testing.T) {
	r := newUsageRig(t)
	var fifty, fiftyOne []string
	for i := range 51 {
		id := uuid.NewString()
		if i < 50 {
			fifty = append(fifty, id)
		}
		fiftyOne = append(fiftyOne, id)
	}
	now := time.Now().Unix()
	cases := []struct {
		what, query, key string
		status           int
		code             string
	}{
		{"no key", "", "", 401, CodeUnauthorized},
		{"a key that is no key", "", "ik_" + strings.Repeat("1", 64), 401, CodeUnauthorized},
		{"51 keys", "?apiKey=" + strings.Join(fiftyOne, ","), r.a1.plain, 400, CodeInvalidInput},
		{"an empty entry", "?apiKey=" + r.a1.ID + ",", r.a1.plain, 400, CodeInvalidInput},
		{"an unknown granularity", "?granularity=weekly", r.a1.plain, 400, CodeInvalidInput},
		{"a start that is no number", "?startTimestamp=yesterday", r.a1.plain, 400, CodeInvalidInput},
		{"a start in milliseconds", fmt.Sprintf("?startTimestamp=%d", now*1000), r.a1.plain, 400, CodeInvalidInput},
		{"start after end", fmt.Sprintf("?startTimestamp=%d&endTimestamp=%d", now, now-60), r.a1.plain, 400, CodeInvalidInput},
		{"minutely wider than a day", fmt.Sprintf("?startTimestamp=%d", now-25*3600), r.a1.plain, 400, CodeInvalidInput},
		{"hourly wider than 14 days", fmt.Sprintf("?granularity=hourly&startTimestamp=%d", now-15*86400), r.a1.plain, 400, CodeInvalidInput},
		{"another integrator's key by id", "?apiKey=" + r.g1.ID, r.a1.plain, 403, CodeForbidden},
		{"another integrator's key by value", "?apiKey=" + r.a2.plain + "," + r.g1.plain, r.a1.plain, 403, CodeForbidden},
		{"a key id that does not exist", "?apiKey=" + uuid.NewString(), r.a1.plain, 403, CodeForbidden},
		{"50 keys that do not exist", "?apiKey=" + strings.Join(fifty, ","), r.a1.plain, 403, CodeForbidden},
		{"a key value that does not exist", "?apiKey=ik_" + strings.Repeat("2", 64), r.a1.plain, 403, CodeForbidden},
		{"a key alone in its integrator asking for another integrator's key", "?apiKey=" + r.solo.ID + "," + r.a1.ID, r.solo.plain, 403, CodeForbidden},
	}
	for _, c := range cases {
		status, body := get(t, r.url, "/metrics/usage"+c.query, c.key)
		checkError(t, c.what, status, body, c.code)
		if status != c.status {
			t.Errorf("%s: %d, want %d", c.what, status, c.status)
		}
	}
	// The allowed: a key's own usage, its integrator's other keys (by id or value, a key
	// revoked since included), the 50 keys at the limit when they are all the integrator's.
	if _, err := r.st.Pool().Exec(context.Background(), `UPDATE api_keys SET revoked_at = now() WHERE id = $1`, r.a2.ID); err != nil {
		t.Fatal(err)
	}
	dup := strings.Repeat(r.a1.ID+",", 60) + r.a2.ID
	for _, q := range []struct{ query, key string }{{"", r.solo.plain}, {"?apiKey=" + r.solo.ID, r.solo.plain},
		{"?apiKey=" + r.a2.ID + "," + r.a1.plain, r.a1.plain}, {"?apiKey=" + dup, r.a1.plain}, {"?granularity=daily", r.g1.plain}} {
		metrics(t, r, q.query, q.key)
	}
}

// The granularities sum the minutes into UTC minutes, hours and days over their default
// windows (24 hours, 7 days, 14 days) unless startTimestamp and endTimestamp say otherwise.
func TestUsageMetricsGranularityWindows(t *testing.T) {
	r := newUsageRig(t)
	now := time.Now().UTC()
	agos := []time.Duration{10 * time.Minute, 11 * time.Minute, 2 * time.Hour, 30 * time.Hour, 3 * 24 * time.Hour,
		8 * 24 * time.Hour, 13 * 24 * time.Hour, 15 * 24 * time.Hour}
	var counts []usage.Count
	for i, ago := range agos {
		counts = append(counts, usage.Count{KeyID: r.a1.ID, Time: now.Add(-ago).Truncate(time.Minute), Endpoint: "/quote/v2",
			Status: 200, N: int64(i + 1)})
	}
	// Another key's calls are not the caller's.
	counts = append(counts, usage.Count{KeyID: r.g1.ID, Time: now.Truncate(time.Minute), Endpoint: "/quote/v2", Status: 200, N: 100})
	if err := r.st.AddUsage(context.Background(), uuid.NewString(), counts); err != nil {
		t.Fatal(err)
	}
	// want sums the rows aged within (..max] into buckets of step.
	want := func(step, max time.Duration, min time.Duration) map[string]int64 {
		out := map[string]int64{}
		for i, ago := range agos {
			if ago <= max && ago >= min {
				out[now.Add(-ago).Truncate(step).Format(time.RFC3339)] += int64(i + 1)
			}
		}
		return out
	}
	got := func(query string) map[string]int64 {
		code, out := get(t, r.url, "/metrics/usage"+query, r.a1.plain)
		if code != http.StatusOK {
			t.Fatalf("%s: %d %v", query, code, out)
		}
		sums := map[string]int64{}
		for _, row := range out["metrics"].([]any) {
			m := row.(map[string]any)
			sums[m["timestamp"].(string)] += int64(m["count"].(float64))
		}
		return sums
	}
	day := 24 * time.Hour
	for _, c := range []struct {
		query string
		want  map[string]int64
	}{
		{"", want(time.Minute, day, 0)},
		{"?granularity=minutely", want(time.Minute, day, 0)},
		{"?granularity=hourly", want(time.Hour, 7*day, 0)},
		{"?granularity=daily", want(day, 14*day, 0)},
		{fmt.Sprintf("?startTimestamp=%d&endTimestamp=%d", now.Add(-31*time.Hour).Unix(), now.Add(-29*time.Hour).Unix()),
			want(time.Minute, 31*time.Hour, 29*time.Hour)},
		{fmt.Sprintf("?granularity=daily&endTimestamp=%d", now.Add(-2*day).Unix()), want(day, 16*day, 2*day)},
	} {
		if g := got(c.query); !maps.Equal(g, c.want) {
			t.Errorf("%q: %v, want %v", c.query, g, c.want)
		}
	}
}
