// Package faultproxy is a reverse proxy for JSON-RPC over HTTP that injects faults: it fails a
// configured fraction of calls, with HTTP 503 or with a JSON-RPC error, and delays another
// fraction, and counts what it did. The reliability tests put it in front of a chain's RPC
// endpoint to show that the engine still ends every intent correctly when its node misbehaves.
//
// Faults are deterministic for a seed: the n-th request the proxy receives (counting from 0)
// always meets the same fate (FateOf(n)), whatever the timing. Which call is the n-th depends on
// the order in which concurrent clients arrive, so a run is reproducible in its fault pattern,
// not call for call.
package faultproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/intentd/intentd/internal/httpclient"
)

// Config configures a Proxy. Rates are fractions of all requests, from 0 to 1; FailRate +
// DelayRate must not exceed 1 (a request is failed, delayed or passed, never two of these).
type Config struct {
	// Target is the upstream JSON-RPC endpoint, e.g. http://127.0.0.1:8545.
	Target string
	// Seed selects the fault pattern; the same seed gives the same fate to the n-th request.
	Seed int64
	// FailRate is the fraction of requests that fail.
	FailRate float64
	// DelayRate is the fraction of requests that are held back for a while before they are
	// forwarded (and then answered normally).
	DelayRate float64
	// MinDelay and MaxDelay bound a delay (uniformly between them); 0 means 100ms and 1s.
	MinDelay, MaxDelay time.Duration
	// RPCErrorShare is the fraction of failures answered with a JSON-RPC error (HTTP 200 with an
	// "error" member: -32603 internal error or -32005 limit exceeded, as providers answer when
	// overloaded); the other failures are HTTP 503. 0 means every failure is a 503.
	RPCErrorShare float64
	// LostResponseShare is the fraction of failures that are forwarded first: the node executes
	// the call (a transaction is broadcast) and its answer is replaced by the failure, as when a
	// connection drops after the request was sent. 0 means failed requests never reach the node.
	LostResponseShare float64
}

// Kind is what the proxy does with one request.
type Kind int

// The fates of a request.
const (
	Pass    Kind = iota // forwarded and answered unchanged
	Fail503             // answered with HTTP 503
	FailRPC             // answered with a JSON-RPC error
	Delay               // held back for Fate.Delay, then forwarded
)

func (k Kind) String() string {
	switch k {
	case Pass:
		return "pass"
	case Fail503:
		return "503"
	case FailRPC:
		return "rpc-error"
	case Delay:
		return "delay"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Fate is what happens to one request.
type Fate struct {
	Kind Kind
	// Delay is how long a delayed request is held back.
	Delay time.Duration
	// LostResponse is set on a failure that is forwarded before it is answered with the failure.
	LostResponse bool
	// RPCCode is the JSON-RPC error code of a FailRPC.
	RPCCode int
}

// Stats counts what a proxy did.
type Stats struct {
	// Requests is every HTTP request received (a JSON-RPC batch counts once).
	Requests int64
	// Calls is every JSON-RPC call received (each call of a batch counts).
	Calls int64
	// Forwarded is every request sent to the target, including lost responses.
	Forwarded int64
	// Failed503 and FailedRPC are the injected failures by kind.
	Failed503, FailedRPC int64
	// LostResponses is the failures that were forwarded first (part of Failed503 + FailedRPC).
	LostResponses int64
	// Delayed is the requests held back.
	Delayed int64
	// UpstreamErrors is the requests the target itself could not answer (not injected), which
	// the proxy answers with HTTP 502.
	UpstreamErrors int64
	// FailedByMethod counts injected failures by JSON-RPC method ("batch" for a batch).
	FailedByMethod map[string]int64
	// ByMethod counts every request received by JSON-RPC method ("batch" for a batch), what
	// the client asked of the node whatever the proxy did with it.
	ByMethod map[string]int64
}

// Failed is the number of injected failures.
func (s Stats) Failed() int64 { return s.Failed503 + s.FailedRPC }

// Faults is the number of requests failed or delayed.
func (s Stats) Faults() int64 { return s.Failed() + s.Delayed }

// Add sums two counts.
func (s Stats) Add(o Stats) Stats {
	out := Stats{Requests: s.Requests + o.Requests, Calls: s.Calls + o.Calls, Forwarded: s.Forwarded + o.Forwarded,
		Failed503: s.Failed503 + o.Failed503, FailedRPC: s.FailedRPC + o.FailedRPC,
		LostResponses: s.LostResponses + o.LostResponses, Delayed: s.Delayed + o.Delayed,
		UpstreamErrors: s.UpstreamErrors + o.UpstreamErrors, FailedByMethod: map[string]int64{}, ByMethod: map[string]int64{}}
	for _, st := range []Stats{s, o} {
		for m, n := range st.FailedByMethod {
			out.FailedByMethod[m] += n
		}
		for m, n := range st.ByMethod {
			out.ByMethod[m] += n
		}
	}
	return out
}

// String is a one-line summary, stable in format: key=value pairs.
func (s Stats) String() string {
	methods := make([]string, 0, len(s.FailedByMethod))
	for m := range s.FailedByMethod {
		methods = append(methods, m)
	}
	sort.Strings(methods)
	var by strings.Builder
	for i, m := range methods {
		if i > 0 {
			by.WriteByte(',')
		}
		fmt.Fprintf(&by, "%s:%d", m, s.FailedByMethod[m])
	}
	return fmt.Sprintf("requests=%d forwarded=%d failed=%d failed_503=%d failed_rpc=%d lost_responses=%d delayed=%d upstream_errors=%d failed_by_method=%s",
		s.Requests, s.Forwarded, s.Failed(), s.Failed503, s.FailedRPC, s.LostResponses, s.Delayed, s.UpstreamErrors, by.String())
}

// Proxy is the fault-injecting reverse proxy; it is an http.Handler.
type Proxy struct {
	cfg    Config
	target *url.URL
	client *http.Client

	seq      atomic.Uint64
	disabled atomic.Bool

	requests, calls, forwarded, failed503, failedRPC, lost, delayed, upstreamErrors atomic.Int64

	mu       sync.Mutex
	byMethod map[string]int64 // failures
	received map[string]int64 // every request
}

// New checks cfg and returns a proxy to cfg.Target.
func New(cfg Config) (*Proxy, error) {
	u, err := url.Parse(cfg.Target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("faultproxy: target %q is not an http(s) URL", cfg.Target)
	}
	for name, r := range map[string]float64{"FailRate": cfg.FailRate, "DelayRate": cfg.DelayRate,
		"RPCErrorShare": cfg.RPCErrorShare, "LostResponseShare": cfg.LostResponseShare} {
		if r < 0 || r > 1 {
			return nil, fmt.Errorf("faultproxy: %s %v is not a fraction from 0 to 1", name, r)
		}
	}
	if cfg.FailRate+cfg.DelayRate > 1 {
		return nil, fmt.Errorf("faultproxy: FailRate + DelayRate = %v exceeds 1", cfg.FailRate+cfg.DelayRate)
	}
	if cfg.MinDelay <= 0 {
		cfg.MinDelay = 100 * time.Millisecond
	}
	if cfg.MaxDelay <= 0 {
		cfg.MaxDelay = time.Second
	}
	if cfg.MaxDelay < cfg.MinDelay {
		return nil, fmt.Errorf("faultproxy: MaxDelay %v is below MinDelay %v", cfg.MaxDelay, cfg.MinDelay)
	}
	return &Proxy{cfg: cfg, target: u, client: httpclient.New(0), byMethod: map[string]int64{}, received: map[string]int64{}}, nil
}

// SetEnabled turns fault injection on (the default) or off; while off every request is
// forwarded unchanged (and still counted in Requests and Forwarded).
func (p *Proxy) SetEnabled(on bool) { p.disabled.Store(!on) }

// Stats returns the counts so far.
func (p *Proxy) Stats() Stats {
	s := Stats{Requests: p.requests.Load(), Calls: p.calls.Load(), Forwarded: p.forwarded.Load(), Failed503: p.failed503.Load(),
		FailedRPC: p.failedRPC.Load(), LostResponses: p.lost.Load(), Delayed: p.delayed.Load(),
		UpstreamErrors: p.upstreamErrors.Load(), FailedByMethod: map[string]int64{}, ByMethod: map[string]int64{}}
	p.mu.Lock()
	for m, n := range p.byMethod {
		s.FailedByMethod[m] = n
	}
	for m, n := range p.received {
		s.ByMethod[m] = n
	}
	p.mu.Unlock()
	return s
}

// FateOf is the fate of the n-th request (from 0) under the proxy's configuration.
func (p *Proxy) FateOf(n uint64) Fate {
	c := p.cfg
	u := unit(c.Seed, n, 0)
	switch {
	case u < c.FailRate:
		f := Fate{Kind: Fail503, LostResponse: unit(c.Seed, n, 2) < c.LostResponseShare}
		if unit(c.Seed, n, 1) < c.RPCErrorShare {
			f.Kind, f.RPCCode = FailRPC, -32603
			if unit(c.Seed, n, 3) < 0.5 {
				f.RPCCode = -32005
			}
		}
		return f
	case u < c.FailRate+c.DelayRate:
		span := c.MaxDelay - c.MinDelay
		return Fate{Kind: Delay, Delay: c.MinDelay + time.Duration(unit(c.Seed, n, 4)*float64(span))}
	}
	return Fate{Kind: Pass}
}

// unit is a uniform number in [0, 1) drawn from (seed, n, stream): splitmix64 over the three.
func unit(seed int64, n, stream uint64) float64 {
	x := uint64(seed) ^ (n+1)*0x9e3779b97f4a7c15 ^ (stream+1)*0xbf58476d1ce4e5b9
	for range 2 {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		x = z ^ (z >> 31)
	}
	return float64(x>>11) / (1 << 53)
}

// maxBody bounds a request body; JSON-RPC requests are small.
const maxBody = 16 << 20

// ServeHTTP forwards one request, or fails or delays it as its fate says.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := p.seq.Add(1) - 1
	p.requests.Add(1)
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		http.Error(w, "faultproxy: read request: "+err.Error(), http.StatusBadRequest)
		return
	}
	method := methodOf(body)
	if calls, _ := parseCalls(body); len(calls) > 0 {
		p.calls.Add(int64(len(calls)))
	}
	p.mu.Lock()
	p.received[method]++
	p.mu.Unlock()
	fate := Fate{Kind: Pass}
	if !p.disabled.Load() {
		fate = p.FateOf(n)
	}
	switch fate.Kind {
	case Delay:
		p.delayed.Add(1)
		t := time.NewTimer(fate.Delay)
		select {
		case <-r.Context().Done():
			t.Stop()
			return
		case <-t.C:
		}
	case Fail503, FailRPC:
		if fate.LostResponse {
			p.lost.Add(1)
			if resp, err := p.forward(r.Context(), r, body); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
		p.mu.Lock()
		p.byMethod[method]++
		p.mu.Unlock()
		if fate.Kind == Fail503 {
			p.failed503.Add(1)
			http.Error(w, "faultproxy: injected 503 service unavailable", http.StatusServiceUnavailable)
			return
		}
		p.failedRPC.Add(1)
		writeRPCError(w, body, fate.RPCCode)
		return
	}
	resp, err := p.forward(r.Context(), r, body)
	if err != nil {
		if r.Context().Err() == nil {
			p.upstreamErrors.Add(1)
			http.Error(w, "faultproxy: upstream: "+err.Error(), http.StatusBadGateway)
		}
		return
	}
	defer resp.Body.Close()
	for _, h := range []string{"Content-Type", "Content-Encoding"} {
		if v := resp.Header.Get(h); v != "" {
			w.Header().Set(h, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

func (p *Proxy) forward(ctx context.Context, r *http.Request, body []byte) (*http.Response, error) {
	p.forwarded.Add(1)
	u := *p.target
	if r.URL.Path != "" && r.URL.Path != "/" {
		u.Path = strings.TrimRight(u.Path, "/") + r.URL.Path
	}
	u.RawQuery = r.URL.RawQuery
	req, err := http.NewRequestWithContext(ctx, r.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for _, h := range []string{"Content-Type", "Accept", "Accept-Encoding"} {
		if v := r.Header.Get(h); v != "" {
			req.Header.Set(h, v)
		}
	}
	return p.client.Do(req)
}

// rpcCall is what the proxy reads of a JSON-RPC request.
type rpcCall struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// parseCalls returns the calls of a request body and whether it is a batch.
func parseCalls(body []byte) ([]rpcCall, bool) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var calls []rpcCall
		if json.Unmarshal(trimmed, &calls) != nil {
			return nil, true
		}
		return calls, true
	}
	var c rpcCall
	if json.Unmarshal(trimmed, &c) != nil {
		return nil, false
	}
	return []rpcCall{c}, false
}

// methodOf is the JSON-RPC method of a request body: "batch" for a batch, "unknown" when it
// names none.
func methodOf(body []byte) string {
	if calls, batch := parseCalls(body); batch {
		return "batch"
	} else if len(calls) == 1 && calls[0].Method != "" {
		return calls[0].Method
	}
	return "unknown"
}

// writeRPCError answers every call of the request with a JSON-RPC error; a body that is no
// JSON-RPC request gets a 503 instead.
func writeRPCError(w http.ResponseWriter, body []byte, code int) {
	calls, batch := parseCalls(body)
	if len(calls) == 0 && !batch {
		http.Error(w, "faultproxy: injected 503 service unavailable", http.StatusServiceUnavailable)
		return
	}
	msg := "faultproxy: injected internal error"
	if code == -32005 {
		msg = "faultproxy: injected limit exceeded"
	}
	type rpcErr struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	type answer struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcErr          `json:"error"`
	}
	out := make([]answer, 0, len(calls))
	for _, c := range calls {
		id := c.ID
		if len(id) == 0 {
			id = json.RawMessage("null")
		}
		out = append(out, answer{JSONRPC: "2.0", ID: id, Error: rpcErr{Code: code, Message: msg}})
	}
	w.Header().Set("Content-Type", "application/json")
	if batch {
		_ = json.NewEncoder(w).Encode(out)
		return
	}
	_ = json.NewEncoder(w).Encode(out[0])
}

// Server is a Proxy listening on a local port.
type Server struct {
	*Proxy
	// URL is where clients send their JSON-RPC requests instead of the target.
	URL string

	srv *http.Server
	l   net.Listener
}

// Start runs a proxy for cfg on addr ("127.0.0.1:0" picks a free port) until Close.
func Start(addr string, cfg Config) (*Server, error) {
	p, err := New(cfg)
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("faultproxy: listen: %w", err)
	}
	s := &Server{Proxy: p, URL: "http://" + l.Addr().String(), srv: &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}, l: l}
	go func() {
		if err := s.srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = l.Close()
		}
	}()
	return s, nil
}

// Close stops the listener and drops open connections.
func (s *Server) Close() error {
	err := s.srv.Close()
	s.Proxy.client.CloseIdleConnections()
	return err
}
