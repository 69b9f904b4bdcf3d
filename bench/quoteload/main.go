// Command quoteload measures the latency of the quote endpoint of a running intentd API under
// load. It POSTs quote bodies to -url + -path (POST /quote/v2 by default) from -clients
// concurrent goroutines that share one keep-alive HTTP client, discards the first -warmup of
// results, measures for -duration and prints the request count, the throughput, the status code
// and errorCode counts, and the latency percentiles (p50, p90, p99, p99.9, max) recorded in an
// HDR histogram, together with the machine the generator ran on.
//
// Two load models:
//
//   - closed loop (-rate 0, the default): each client sends its next request as soon as the
//     previous one answered. This finds the saturation throughput, but hides queueing: a slow
//     answer delays the requests that would have been sent meanwhile.
//   - open loop (-rate N): N requests per second in total on a fixed schedule (request i is due
//     at start + i/N), taken by whichever client is free. Latency is measured from the scheduled
//     send time, not from the moment a client got round to sending, so a stall shows up in every
//     request it delayed (no coordinated omission). When requests go out late (every client busy,
//     or the generator itself short of CPU) the report says so (send lag) and also gives the
//     latency from the actual send; if every client was busy, raise -clients.
//
// Usage:
//
//	go run ./bench/quoteload [flags]
//	go run ./bench/quoteload -clients 64 -duration 30s -scenario eth-bridge
//	go run ./bench/quoteload -rate 200 -clients 64 -duration 30s -json
//
// Scenarios (devnet chains 31337 and 31338, EXACT_INPUT):
//
//	eth-bridge   native ETH 31337 -> 31338, 0.01 ETH
//	usdc-bridge  USDC 31337 -> 31338, 10 USDC (the engine also reads the user's allowance on-chain)
//	eth-to-usdc  ETH on 31337 -> USDC on 31338, 0.01 ETH (a swap: an engine that only bridges the
//	             same asset answers 400 UNSUPPORTED_CURRENCY, and the run fails)
//
// The request's user cycles over -users addresses: the devnet's funded test accounts, then
// deterministic extra addresses. The API key (-api-key, default $INTENTD_API_KEY) is sent as
// x-api-key and never printed. `make bench-quote` starts a fresh `intentd-dev dev` and runs this
// command against it; see BENCHMARKS.md.
//
// The generator talks to the -url host only: no proxy, no redirects, and every connection is
// checked against that host. A host outside the loopback range is refused unless -allow-remote
// is given. It exits 1 if more than 1% of the measured requests failed (transport error or a
// status other than 200), 2 on bad flags or when the API cannot be reached at all.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/intentd/intentd/devnet"
)

// Devnet constants of the scenarios.
const (
	originChain  = 31337
	destChain    = 31338
	nativeToken  = "0x0000000000000000000000000000000000000000"
	usdcToken    = "0x3F88d0F5403139753a203e6F36BFaE0CeAE3bF42"
	ethAmount    = "10000000000000000" // 0.01 ETH in wei
	usdcAmount   = "10000000"          // 10 USDC (6 decimals)
	failureLimit = 0.01                // exit 1 above this share of failed requests
)

// scenario is the fixed part of a quote body.
type scenario struct {
	OriginCurrency, DestinationCurrency, Amount string
}

var scenarios = map[string]scenario{
	"eth-bridge":  {OriginCurrency: nativeToken, DestinationCurrency: nativeToken, Amount: ethAmount},
	"usdc-bridge": {OriginCurrency: usdcToken, DestinationCurrency: usdcToken, Amount: usdcAmount},
	"eth-to-usdc": {OriginCurrency: nativeToken, DestinationCurrency: usdcToken, Amount: ethAmount},
}

func scenarioNames() []string {
	names := make([]string, 0, len(scenarios))
	for n := range scenarios {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// quoteBody is the body POSTed to the quote endpoint.
type quoteBody struct {
	User                string `json:"user"`
	OriginChainID       uint64 `json:"originChainId"`
	DestinationChainID  uint64 `json:"destinationChainId"`
	OriginCurrency      string `json:"originCurrency"`
	DestinationCurrency string `json:"destinationCurrency"`
	Amount              string `json:"amount"`
	TradeType           string `json:"tradeType"`
}

// users returns n distinct addresses: the devnet's funded test accounts first, then addresses
// derived as the last 20 bytes of keccak256("intentd/bench/user/<i>"), the same on every run.
func users(n int) []common.Address {
	out := devnet.TestAddresses()
	if len(out) >= n {
		return out[:n]
	}
	seen := make(map[common.Address]bool, n)
	for _, a := range out {
		seen[a] = true
	}
	for i := 0; len(out) < n; i++ {
		a := common.BytesToAddress(crypto.Keccak256([]byte("intentd/bench/user/" + strconv.Itoa(i))))
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out
}

// bodies pre-encodes one quote body per user, so the clients spend no time on JSON.
func bodies(sc scenario, amount string, addrs []common.Address) ([][]byte, error) {
	if amount == "" {
		amount = sc.Amount
	}
	out := make([][]byte, len(addrs))
	for i, a := range addrs {
		b, err := json.Marshal(quoteBody{User: a.Hex(), OriginChainID: originChain, DestinationChainID: destChain,
			OriginCurrency: sc.OriginCurrency, DestinationCurrency: sc.DestinationCurrency, Amount: amount,
			TradeType: "EXACT_INPUT"})
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

type config struct {
	url, path, apiKey, scenario, amount string
	clients, users                      int
	duration, warmup, timeout           time.Duration
	rate                                float64
	jsonOut, allowRemote                bool
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	c := &config{}
	fs := flag.NewFlagSet("quoteload", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.url, "url", "http://127.0.0.1:8080", "base URL of the intentd API")
	fs.StringVar(&c.path, "path", "/quote/v2", "quote endpoint: /quote/v2, /quote or /price")
	fs.IntVar(&c.clients, "clients", 64, "concurrent clients (goroutines sharing one HTTP client)")
	fs.DurationVar(&c.duration, "duration", 30*time.Second, "measured duration, after the warm-up")
	fs.DurationVar(&c.warmup, "warmup", 5*time.Second, "warm-up duration; its results are discarded")
	fs.Float64Var(&c.rate, "rate", 0, "total requests per second on a fixed schedule (open loop); 0 = closed loop")
	// The default is read after parsing, so that -h never prints the key.
	fs.StringVar(&c.apiKey, "api-key", "", "sent as x-api-key when set (default $INTENTD_API_KEY)")
	fs.StringVar(&c.scenario, "scenario", "eth-bridge", "request scenario: "+strings.Join(scenarioNames(), ", "))
	fs.StringVar(&c.amount, "amount", "", "override the scenario's amount (base units)")
	fs.IntVar(&c.users, "users", 16, "distinct user addresses the requests cycle over")
	fs.DurationVar(&c.timeout, "timeout", 10*time.Second, "per-request timeout (a timed-out request counts as failed)")
	fs.BoolVar(&c.jsonOut, "json", false, "also print the summary as JSON on stdout (the text summary then goes to stderr)")
	fs.BoolVar(&c.allowRemote, "allow-remote", false, "allow a -url host outside the loopback range")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: quoteload [flags]\n\nLoad generator for the quote endpoint of a running intentd API.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	apiKeySet := false
	fs.Visit(func(f *flag.Flag) { apiKeySet = apiKeySet || f.Name == "api-key" })
	if !apiKeySet {
		c.apiKey = os.Getenv("INTENTD_API_KEY")
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	switch {
	case c.clients < 1:
		return nil, errors.New("-clients must be at least 1")
	case c.users < 1:
		return nil, errors.New("-users must be at least 1")
	case c.duration <= 0:
		return nil, errors.New("-duration must be positive")
	case c.warmup < 0:
		return nil, errors.New("-warmup must not be negative")
	case c.rate < 0:
		return nil, errors.New("-rate must not be negative")
	case c.timeout <= 0:
		return nil, errors.New("-timeout must be positive")
	}
	if _, ok := scenarios[c.scenario]; !ok {
		return nil, fmt.Errorf("-scenario %q: want one of %s", c.scenario, strings.Join(scenarioNames(), ", "))
	}
	switch c.path {
	case "/quote/v2", "/quote", "/price":
	default:
		return nil, fmt.Errorf("-path %q: want /quote/v2, /quote or /price", c.path)
	}
	return c, nil
}

// target checks -url and returns the endpoint and the host:port every connection must go to.
func target(c *config) (endpoint *url.URL, hostPort string, err error) {
	u, err := url.Parse(c.url)
	if err != nil {
		return nil, "", fmt.Errorf("-url: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, "", fmt.Errorf("-url %q: scheme must be http or https", c.url)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Hostname() == "" {
		return nil, "", fmt.Errorf("-url %q: want scheme://host[:port][/prefix]", c.url)
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if !c.allowRemote && !isLoopback(host) {
		return nil, "", fmt.Errorf("-url host %q is not a loopback address; pass -allow-remote to load a remote API", host)
	}
	endpoint = u.JoinPath(c.path)
	return endpoint, net.JoinHostPort(host, port), nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// newHTTPClient returns the client all workers share: keep-alive connections to the one target,
// enough idle connections for every worker, no proxy, no redirects, and a dialer that refuses
// any address other than hostPort.
func newHTTPClient(hostPort string, clients int, timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		Proxy: nil, // never through HTTP_PROXY: the target is the only host we talk to
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if addr != hostPort {
				return nil, fmt.Errorf("quoteload: refusing to dial %s (target is %s)", addr, hostPort)
			}
			return dialer.DialContext(ctx, network, addr)
		},
		MaxIdleConns:          clients + 16,
		MaxIdleConnsPerHost:   clients + 16,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   5 * time.Second,
		ExpectContinueTimeout: time.Second,
		ForceAttemptHTTP2:     false,
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Latencies are recorded in microseconds, from 1 µs to 1 h, with 3 significant digits.
const histMaxMicros = int64(time.Hour / time.Microsecond)

func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(1, histMaxMicros, 3) }

// recorder is one client's results; merged after the run, so no locking on the hot path.
type recorder struct {
	hist      *hdrhistogram.Histogram // latency from the scheduled send time (closed loop: the send)
	svc       *hdrhistogram.Histogram // open loop: latency from the actual send, without the send lag
	maxLat    time.Duration
	maxSvc    time.Duration
	maxLag    time.Duration // open loop: how late a request was sent after its scheduled time
	lateSends int64         // open loop: requests sent more than 1 ms after their scheduled time
	requests  int64
	failed    int64
	status    map[int]int64
	codes     map[string]int64
	transport map[string]int64
}

func newRecorder() *recorder {
	return &recorder{hist: newHist(), svc: newHist(), status: map[int]int64{}, codes: map[string]int64{}, transport: map[string]int64{}}
}

func record(h *hdrhistogram.Histogram, d time.Duration) {
	us := max(int64(d/time.Microsecond), 1)
	_ = h.RecordValue(min(us, histMaxMicros)) // in range by construction
}

func (r *recorder) merge(o *recorder) {
	r.hist.Merge(o.hist)
	r.svc.Merge(o.svc)
	r.maxLat = max(r.maxLat, o.maxLat)
	r.maxSvc = max(r.maxSvc, o.maxSvc)
	r.maxLag = max(r.maxLag, o.maxLag)
	r.lateSends += o.lateSends
	r.requests += o.requests
	r.failed += o.failed
	for k, v := range o.status {
		r.status[k] += v
	}
	for k, v := range o.codes {
		r.codes[k] += v
	}
	for k, v := range o.transport {
		r.transport[k] += v
	}
}

// result of one request.
type outcome struct {
	status    int    // 0 on a transport error
	errorCode string // from a non-200 body
	transport string // transport error class
}

// apiError is the API's error body.
type apiError struct {
	Message   string `json:"message"`
	ErrorCode string `json:"errorCode"`
}

type sender struct {
	client   *http.Client
	endpoint string
	apiKey   string
}

func (s *sender) send(ctx context.Context, body []byte) outcome {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.endpoint, bytes.NewReader(body))
	if err != nil {
		return outcome{transport: "request: " + err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if s.apiKey != "" {
		req.Header.Set("x-api-key", s.apiKey)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return outcome{transport: classify(err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			return outcome{transport: "read body: " + classify(err)}
		}
		return outcome{status: resp.StatusCode}
	}
	o := outcome{status: resp.StatusCode}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	_, _ = io.Copy(io.Discard, resp.Body) // drain the rest so the connection is reused
	var e apiError
	switch {
	case err != nil:
		o.errorCode = "(body read failed)"
	case json.Unmarshal(raw, &e) != nil:
		o.errorCode = "(not JSON)"
	case e.ErrorCode == "":
		o.errorCode = "(no errorCode)"
	default:
		o.errorCode = e.ErrorCode
	}
	return o
}

// classify shortens a transport error to a stable key for counting.
func classify(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return "timeout"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed (EOF)"
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return "no local port (EADDRNOTAVAIL)"
	}
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		s = s[i+2:]
	}
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}

// record counts one measured request: lat is measured from the scheduled send time, svc from
// the actual send (the same in a closed loop).
func (r *recorder) record(o outcome, lat, svc time.Duration) {
	r.requests++
	r.maxLat = max(r.maxLat, lat)
	record(r.hist, lat)
	r.maxSvc = max(r.maxSvc, svc)
	record(r.svc, svc)
	switch {
	case o.transport != "":
		r.failed++
		r.transport[o.transport]++
	case o.status != http.StatusOK:
		r.failed++
		r.status[o.status]++
		r.codes[o.errorCode]++
	default:
		r.status[o.status]++
	}
}

// run drives the load and returns the merged results of the measured window and its length.
func run(ctx context.Context, c *config, s *sender, bodies [][]byte, progress io.Writer) (*recorder, time.Duration) {
	start := time.Now()
	measureFrom := start.Add(c.warmup)
	end := measureFrom.Add(c.duration)
	var next atomic.Uint64 // open loop: next schedule slot; closed loop: request counter (user cycling)
	var interval time.Duration
	if c.rate > 0 {
		interval = time.Duration(float64(time.Second) / c.rate)
	}

	recs := make([]*recorder, c.clients)
	var wg sync.WaitGroup
	for i := range recs {
		rec := newRecorder()
		recs[i] = rec
		wg.Go(func() {
			timer := time.NewTimer(time.Hour)
			timer.Stop()
			for ctx.Err() == nil {
				n := next.Add(1) - 1
				body := bodies[n%uint64(len(bodies))]
				var due time.Time
				if interval > 0 {
					due = start.Add(time.Duration(n) * interval)
					if !due.Before(end) {
						return
					}
					if wait := time.Until(due); wait > 0 {
						timer.Reset(wait)
						select {
						case <-ctx.Done():
							timer.Stop()
							return
						case <-timer.C:
						}
					}
				} else {
					due = time.Now()
					if !due.Before(end) {
						return
					}
				}
				sent := time.Now()
				o := s.send(ctx, body)
				done := time.Now()
				if ctx.Err() != nil {
					return // interrupted: the request did not complete on its own
				}
				if due.Before(measureFrom) {
					continue
				}
				if lag := sent.Sub(due); interval > 0 {
					rec.maxLag = max(rec.maxLag, lag)
					if lag > time.Millisecond {
						rec.lateSends++
					}
				}
				rec.record(o, done.Sub(due), done.Sub(sent))
			}
		})
	}

	stopProgress := make(chan struct{})
	progressDone := make(chan struct{})
	go func() {
		defer close(progressDone)
		if c.warmup > 0 {
			fmt.Fprintf(progress, "warming up for %s...\n", c.warmup)
			select {
			case <-time.After(time.Until(measureFrom)):
			case <-stopProgress:
				return
			}
		}
		fmt.Fprintf(progress, "measuring for %s...\n", c.duration)
		tick := time.NewTicker(10 * time.Second)
		defer tick.Stop()
		for {
			select {
			case t := <-tick.C:
				if t.Before(end) {
					fmt.Fprintf(progress, "  %s elapsed\n", t.Sub(measureFrom).Round(time.Second))
				}
			case <-stopProgress:
				return
			}
		}
	}()
	wg.Wait()
	close(stopProgress)
	<-progressDone

	total := newRecorder()
	for _, r := range recs {
		total.merge(r)
	}
	window := c.duration
	if ctx.Err() != nil { // interrupted: measured only up to now
		window = max(time.Since(measureFrom), 0)
		window = min(window, c.duration)
	}
	return total, window
}

func main() { os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr)) }

func realMain(args []string, stdout, stderr io.Writer) int {
	c, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "quoteload: %v\n", err)
		return 2
	}
	endpoint, hostPort, err := target(c)
	if err != nil {
		fmt.Fprintf(stderr, "quoteload: %v\n", err)
		return 2
	}
	bs, err := bodies(scenarios[c.scenario], c.amount, users(c.users))
	if err != nil {
		fmt.Fprintf(stderr, "quoteload: %v\n", err)
		return 2
	}
	report := stdout
	if c.jsonOut {
		report = stderr
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	s := &sender{client: newHTTPClient(hostPort, c.clients, c.timeout), endpoint: endpoint.String(), apiKey: c.apiKey}
	// One request first, so an unreachable or misconfigured API is reported at once.
	if o := s.send(ctx, bs[0]); o.transport != "" {
		fmt.Fprintf(stderr, "quoteload: POST %s: %s\n", endpoint, o.transport)
		return 2
	} else if o.status != http.StatusOK {
		fmt.Fprintf(stderr, "quoteload: warning: the first request answered %d %s; going on\n", o.status, o.errorCode)
	}
	mode := "closed loop"
	if c.rate > 0 {
		mode = fmt.Sprintf("open loop at %.6g req/s", c.rate)
	}
	fmt.Fprintf(stderr, "quoteload: POST %s, scenario %s, %d clients, %s\n", endpoint, c.scenario, c.clients, mode)

	started := time.Now()
	rec, window := run(ctx, c, s, bs, stderr)
	sum := summarize(c, endpoint.String(), rec, window, started, ctx.Err() != nil)
	sum.print(report)
	if c.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(sum); err != nil {
			fmt.Fprintf(stderr, "quoteload: %v\n", err)
			return 2
		}
	}
	switch {
	case sum.Requests == 0:
		fmt.Fprintln(stderr, "quoteload: FAIL: no request completed in the measured window")
		return 1
	case sum.FailureRatio > failureLimit:
		fmt.Fprintf(stderr, "quoteload: FAIL: %.2f%% of the requests failed (limit %.0f%%)\n", 100*sum.FailureRatio, 100*failureLimit)
		return 1
	}
	return 0
}
