package faultproxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"
)

// upstream is a JSON-RPC echo: every call answers {"result": <method>}, and it counts what it
// received.
type upstream struct {
	*httptest.Server
	calls atomic.Int64
}

func newUpstream(t *testing.T) *upstream {
	u := &upstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.calls.Add(1)
		body, _ := io.ReadAll(r.Body)
		calls, batch := parseCalls(body)
		type answer struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  string          `json:"result"`
		}
		var out []answer
		for _, c := range calls {
			res := c.Method
			if c.Method == "eth_chainId" {
				res = "0x7a69"
			}
			out = append(out, answer{"2.0", c.ID, res})
		}
		w.Header().Set("Content-Type", "application/json")
		if batch {
			_ = json.NewEncoder(w).Encode(out)
		} else {
			_ = json.NewEncoder(w).Encode(out[0])
		}
	}))
	t.Cleanup(u.Close)
	return u
}

func start(t *testing.T, cfg Config) *Server {
	t.Helper()
	s, err := Start("127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// post sends one call and returns the status code and the decoded body (nil when not JSON).
func post(t *testing.T, url, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return resp.StatusCode, nil
	}
	return resp.StatusCode, m
}

func TestConfigIsChecked(t *testing.T) {
	for _, c := range []Config{
		{Target: "not a url"},
		{Target: "ftp://x"},
		{Target: "http://x", FailRate: 1.5},
		{Target: "http://x", FailRate: 0.6, DelayRate: 0.6},
		{Target: "http://x", RPCErrorShare: -0.1},
		{Target: "http://x", MinDelay: time.Second, MaxDelay: time.Millisecond},
	} {
		if _, err := New(c); err == nil {
			t.Errorf("New(%+v) accepted", c)
		}
	}
}

// Every request meets the fate FateOf gives its position, so the same seed gives the same
// pattern, and the counts follow the configured rates.
func TestFatesAreDeterministicAndFollowTheRates(t *testing.T) {
	up := newUpstream(t)
	cfg := Config{Target: up.URL, Seed: 42, FailRate: 0.2, DelayRate: 0.1, MinDelay: time.Millisecond,
		MaxDelay: 3 * time.Millisecond, RPCErrorShare: 0.5}
	s := start(t, cfg)
	twin, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := New(Config{Target: up.URL, Seed: 43, FailRate: 0.2, DelayRate: 0.1, RPCErrorShare: 0.5})

	const n = 2000
	want := map[Kind]int{}
	differs := 0
	for i := range n {
		f := s.FateOf(uint64(i))
		if f != twin.FateOf(uint64(i)) {
			t.Fatalf("request %d: same seed, different fates %+v and %+v", i, f, twin.FateOf(uint64(i)))
		}
		if f.Kind != other.FateOf(uint64(i)).Kind {
			differs++
		}
		want[f.Kind]++
		code, body := post(t, s.URL, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"eth_blockNumber","params":[]}`, i))
		switch f.Kind {
		case Pass, Delay:
			if code != 200 || body["result"] != "eth_blockNumber" || body["id"] != float64(i) {
				t.Fatalf("request %d (%v): %d %v", i, f.Kind, code, body)
			}
		case Fail503:
			if code != http.StatusServiceUnavailable {
				t.Fatalf("request %d (%v): %d %v", i, f.Kind, code, body)
			}
		case FailRPC:
			e, _ := body["error"].(map[string]any)
			if code != 200 || e == nil || e["code"] != float64(f.RPCCode) || body["id"] != float64(i) || body["result"] != nil {
				t.Fatalf("request %d (%v): %d %v", i, f.Kind, code, body)
			}
		}
	}
	if differs == 0 {
		t.Fatal("another seed gave the same pattern")
	}
	st := s.Stats()
	if st.Requests != n || st.Failed503 != int64(want[Fail503]) || st.FailedRPC != int64(want[FailRPC]) ||
		st.Delayed != int64(want[Delay]) || st.Forwarded != int64(want[Pass]+want[Delay]) || st.LostResponses != 0 {
		t.Fatalf("stats %s, fates %v", st, want)
	}
	if up.calls.Load() != st.Forwarded {
		t.Fatalf("upstream saw %d calls, proxy forwarded %d", up.calls.Load(), st.Forwarded)
	}
	// 2000 draws: the shares are within a few points of the rates.
	if f := float64(st.Failed()) / n; f < 0.17 || f > 0.23 {
		t.Fatalf("failed share %.3f, configured 0.2", f)
	}
	if d := float64(st.Delayed) / n; d < 0.08 || d > 0.12 {
		t.Fatalf("delayed share %.3f, configured 0.1", d)
	}
	if r := float64(st.FailedRPC) / float64(st.Failed()); r < 0.4 || r > 0.6 {
		t.Fatalf("JSON-RPC error share of failures %.3f, configured 0.5", r)
	}
	if st.FailedByMethod["eth_blockNumber"] != st.Failed() {
		t.Fatalf("failures by method %v", st.FailedByMethod)
	}
	if !strings.Contains(st.String(), "failed_by_method=eth_blockNumber:") {
		t.Fatalf("summary %q", st)
	}
}

func TestDelaysHoldRequestsBack(t *testing.T) {
	up := newUpstream(t)
	s := start(t, Config{Target: up.URL, DelayRate: 1, MinDelay: 50 * time.Millisecond, MaxDelay: 60 * time.Millisecond})
	begin := time.Now()
	code, body := post(t, s.URL, `{"jsonrpc":"2.0","id":1,"method":"eth_gasPrice"}`)
	if code != 200 || body["result"] != "eth_gasPrice" {
		t.Fatalf("%d %v", code, body)
	}
	if d := time.Since(begin); d < 50*time.Millisecond {
		t.Fatalf("answered after %v, want at least the 50ms delay", d)
	}
	if s.Stats().Delayed != 1 {
		t.Fatalf("stats %s", s.Stats())
	}
}

// A batch failed with a JSON-RPC error gets one error per call, with the calls' ids.
func TestBatchesGetOneErrorPerCall(t *testing.T) {
	up := newUpstream(t)
	s := start(t, Config{Target: up.URL, FailRate: 1, RPCErrorShare: 1})
	resp, err := http.Post(s.URL, "application/json", strings.NewReader(
		`[{"jsonrpc":"2.0","id":7,"method":"eth_chainId"},{"jsonrpc":"2.0","id":"x","method":"eth_blockNumber"}]`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []struct {
		ID    any `json:"id"`
		Error struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0].ID != float64(7) || out[1].ID != "x" || out[0].Error.Code == 0 || out[1].Error.Code == 0 {
		t.Fatalf("batch answer %+v", out)
	}
	if up.calls.Load() != 0 || s.Stats().FailedByMethod["batch"] != 1 {
		t.Fatalf("upstream calls %d, stats %s", up.calls.Load(), s.Stats())
	}
}

// A lost response reaches the node (it acts on the call) but the client sees the failure.
func TestLostResponsesReachTheNode(t *testing.T) {
	up := newUpstream(t)
	s := start(t, Config{Target: up.URL, FailRate: 1, LostResponseShare: 1})
	code, _ := post(t, s.URL, `{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":["0x00"]}`)
	if code != http.StatusServiceUnavailable || up.calls.Load() != 1 {
		t.Fatalf("status %d, upstream calls %d", code, up.calls.Load())
	}
	if st := s.Stats(); st.LostResponses != 1 || st.Forwarded != 1 || st.Failed503 != 1 || st.FailedByMethod["eth_sendRawTransaction"] != 1 {
		t.Fatalf("stats %s", st)
	}
}

// Switched off, the proxy forwards everything.
func TestDisabledForwardsEverything(t *testing.T) {
	up := newUpstream(t)
	s := start(t, Config{Target: up.URL, FailRate: 1})
	s.SetEnabled(false)
	for i := range 20 {
		if code, body := post(t, s.URL, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"net_version"}`, i)); code != 200 || body["result"] != "net_version" {
			t.Fatalf("%d %v", code, body)
		}
	}
	s.SetEnabled(true)
	if code, _ := post(t, s.URL, `{"jsonrpc":"2.0","id":1,"method":"net_version"}`); code != http.StatusServiceUnavailable {
		t.Fatalf("re-enabled: status %d", code)
	}
	if st := s.Stats(); st.Requests != 21 || st.Forwarded != 20 || st.Failed() != 1 {
		t.Fatalf("stats %s", st)
	}
}

// go-ethereum's client sees both kinds of injected failure as errors it can retry, never as an
// answer (and never as a revert).
func TestEthClientSeesFailuresAsErrors(t *testing.T) {
	up := newUpstream(t)
	for _, share := range []float64{0, 1} {
		s := start(t, Config{Target: up.URL, FailRate: 1, RPCErrorShare: share})
		c, err := ethclient.Dial(s.URL)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.ChainID(t.Context())
		c.Close()
		if err == nil || strings.Contains(strings.ToLower(err.Error()), "revert") {
			t.Fatalf("RPCErrorShare %v: error %v", share, err)
		}
	}
	s := start(t, Config{Target: up.URL})
	c, err := ethclient.Dial(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if id, err := c.ChainID(t.Context()); err != nil || id.Uint64() != 31337 {
		t.Fatalf("chain id through the proxy: %v %v", id, err)
	}
}

// Concurrent clients: every request is counted exactly once and the counts add up.
func TestConcurrentRequestsAreCountedOnce(t *testing.T) {
	up := newUpstream(t)
	s := start(t, Config{Target: up.URL, Seed: 7, FailRate: 0.3, DelayRate: 0.2, MinDelay: time.Millisecond,
		MaxDelay: 2 * time.Millisecond, RPCErrorShare: 0.5, LostResponseShare: 0.5})
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				resp, err := http.Post(s.URL, "application/json", bytes.NewReader([]byte(
					fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"eth_call"}`, w*1000+i))))
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	st := s.Stats()
	want := Stats{Requests: 400}
	for i := range uint64(400) {
		switch f := s.FateOf(i); f.Kind {
		case Pass:
			want.Forwarded++
		case Delay:
			want.Delayed++
			want.Forwarded++
		case Fail503, FailRPC:
			if f.Kind == Fail503 {
				want.Failed503++
			} else {
				want.FailedRPC++
			}
			if f.LostResponse {
				want.LostResponses++
				want.Forwarded++
			}
		}
	}
	if st.Requests != want.Requests || st.Forwarded != want.Forwarded || st.Failed503 != want.Failed503 ||
		st.FailedRPC != want.FailedRPC || st.Delayed != want.Delayed || st.LostResponses != want.LostResponses {
		t.Fatalf("stats %s, want %s", st, want)
	}
	if up.calls.Load() != st.Forwarded {
		t.Fatalf("upstream saw %d, forwarded %d", up.calls.Load(), st.Forwarded)
	}
}
