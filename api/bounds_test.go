package api

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/door"
	"github.com/intentd/intentd/prices"
	"github.com/intentd/intentd/quote"
)

// serve runs s's HTTP server (HTTPServer: the timeouts Run serves with) on a loopback port and
// returns its address.
func serve(t *testing.T, s *Server) string {
	t.Helper()
	if s.Logger == nil {
		s.Logger = slog.New(slog.DiscardHandler)
	}
	return serveOn(t, s.HTTPServer(""))
}

// serveOn serves srv (s.HTTPServer, s.AdminHTTPServer) on a loopback listener and returns its
// address.
func serveOn(t *testing.T, srv *http.Server) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return l.Addr().String()
}

// dial opens a raw connection, so a test can send what no well-behaved client would.
func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// closedWithin reads conn until the server closes it and fails unless that happens within d.
func closedWithin(t *testing.T, conn net.Conn, r io.Reader, d time.Duration, what string) {
	t.Helper()
	start := time.Now()
	_ = conn.SetReadDeadline(start.Add(d + 5*time.Second))
	_, err := io.Copy(io.Discard, r)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || time.Since(start) > d {
		t.Fatalf("%s: the connection was held for %s (%v), want closed within %s", what, time.Since(start).Round(time.Millisecond), err, d)
	}
}

// hintServer is a server for the transaction hints over the devnet's registry at rpc.
func hintServer(t *testing.T, rpc string, timeouts Timeouts) *Server {
	reg, err := chains.NewRegistry(devnet.ChainConfigs(map[uint64]string{31337: rpc, 31338: rpc}))
	if err != nil {
		t.Fatal(err)
	}
	pool := chains.NewClients(reg, evm.VM())
	engine := &quote.Engine{Chains: pool, Prices: prices.NewCached(prices.Table{"ETH": decimal.NewFromInt(3000), "USDC": decimal.NewFromInt(1)},
		time.Minute, time.Hour), Solver: devnet.SolverAddress().Hex()}
	return &Server{Chains: reg, Quotes: engine, Indexer: &door.Door{Chains: pool}, Admin: &fakeRefunder{},
		AdminTokenSHA256: tokenHash(adminToken), Timeouts: timeouts}
}

// TestOversizedBodyIsRefusedUnread: a body declared larger than the route's limit is answered
// 400 at once, without the handler waiting for it (the client here never sends it), and the
// connection is closed; a chunked body with no declared length is cut at the limit.
func TestOversizedBodyIsRefusedUnread(t *testing.T) {
	s := hintServer(t, deadRPC, Timeouts{})
	addr, admin := serve(t, s), serveOn(t, s.AdminHTTPServer(""))
	for path, limit := range map[string]int{"/quote/v2": quote.MaxBodyBytes, "/transactions/index": txBodyLimit,
		"/transactions/single": txBodyLimit, adminReqPath: adminBodyLimit} {
		to := addr
		if path == adminReqPath { // the admin API's own listener
			to = admin
		}
		conn := dial(t, to)
		head := "POST " + path + " HTTP/1.1\r\nHost: api\r\nContent-Type: application/json\r\nAuthorization: Bearer " + adminToken +
			"\r\nContent-Length: " + strconv.Itoa(100<<20) + "\r\n\r\n{\"chainId\": 31337, \"txHash\": \""
		if _, err := conn.Write([]byte(head)); err != nil {
			t.Fatal(err)
		}
		_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
		br := bufio.NewReader(conn)
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("%s: no answer while the body was not sent: %v", path, err)
		}
		body, _ := io.ReadAll(res.Body)
		var e Error
		if res.StatusCode != http.StatusBadRequest || json.Unmarshal(body, &e) != nil || e.Code != CodeInvalidInput ||
			e.Message != "body larger than "+strconv.Itoa(limit)+" bytes" {
			t.Fatalf("%s: %d %s", path, res.StatusCode, body)
		}
		closedWithin(t, conn, br, time.Second, path)
	}

	// Chunked, no length: the server stops reading at the limit and answers; the client's
	// endless body is not read to its end.
	pr, pw := io.Pipe()
	sent := make(chan int64, 1)
	go func() {
		n, _ := io.Copy(pw, io.LimitReader(neverEnding('0'), 1<<30))
		sent <- n
	}()
	res, err := http.Post("http://"+addr+"/transactions/index", "application/json", io.MultiReader(strings.NewReader(`{"txHash": "`), pr))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	pr.CloseWithError(errors.New("answered"))
	if n := <-sent; res.StatusCode != http.StatusBadRequest || n >= 1<<30 || !bytes.Contains(body, []byte("larger than")) {
		t.Fatalf("chunked: %d %s after %d bytes sent", res.StatusCode, body, n)
	}
}

type neverEnding byte

func (b neverEnding) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

// TestSlowBodyIsCutAtTheReadTimeout: a client that trickles its body a byte at a time loses the
// connection at the read timeout instead of holding it until it is done.
func TestSlowBodyIsCutAtTheReadTimeout(t *testing.T) {
	addr := serve(t, hintServer(t, deadRPC, Timeouts{Read: 500 * time.Millisecond}))
	conn := dial(t, addr)
	const body = `{"chainId": 31337, "txHash": "0xabababababababababababababababababababababababababababababababab"}`
	if _, err := conn.Write([]byte("POST /transactions/index HTTP/1.1\r\nHost: api\r\nContent-Type: application/json\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	go func() { // 95 bytes at one per 100 ms: 9.5 s to send it all
		for i := 0; i < len(body); i++ {
			time.Sleep(100 * time.Millisecond)
			if _, err := conn.Write([]byte{body[i]}); err != nil {
				return
			}
		}
	}()
	closedWithin(t, conn, conn, 2*time.Second, "slow body")
}

// TestIdleKeepAliveIsClosed: a keep-alive connection that sends nothing after its request is
// closed at the idle timeout.
func TestIdleKeepAliveIsClosed(t *testing.T) {
	addr := serve(t, hintServer(t, deadRPC, Timeouts{Idle: 300 * time.Millisecond}))
	conn := dial(t, addr)
	if _, err := conn.Write([]byte("GET /lives HTTP/1.1\r\nHost: api\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	res, err := http.ReadResponse(br, nil)
	if err != nil || res.StatusCode != http.StatusOK || res.Close {
		t.Fatalf("GET /lives: %v %v", res, err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	closedWithin(t, conn, br, 1500*time.Millisecond, "idle keep-alive")
}

// stalledRPC is a chain RPC that accepts connections and never answers.
func stalledRPC(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var held []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				for _, c := range held {
					_ = c.Close()
				}
				return
			}
			held = append(held, c)
		}
	}()
	t.Cleanup(func() { _ = l.Close(); <-done })
	return "http://" + l.Addr().String()
}

// TestHungRPCIsAnswered503InTime: with a chain RPC that never answers, a quote and a
// transaction hint are answered 503 SERVICE_UNAVAILABLE at the request deadline.
func TestHungRPCIsAnswered503InTime(t *testing.T) {
	addr := serve(t, hintServer(t, stalledRPC(t), Timeouts{Request: 500 * time.Millisecond}))
	quoteBody, _ := json.Marshal(ethToUSDC(nil))
	for path, body := range map[string]string{
		"/quote/v2":           string(quoteBody),
		"/transactions/index": `{"chainId": 31337, "txHash": "` + hintTx + `"}`,
	} {
		start := time.Now()
		res, err := (&http.Client{Timeout: 20 * time.Second}).Post("http://"+addr+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var e Error
		if took := time.Since(start); res.StatusCode != http.StatusServiceUnavailable || json.Unmarshal(out, &e) != nil ||
			e.Code != CodeServiceUnavailable || took > 3*time.Second {
			t.Errorf("%s: %d %s after %s, want 503 SERVICE_UNAVAILABLE within 3s", path, res.StatusCode, out, took.Round(time.Millisecond))
		}
	}
}
