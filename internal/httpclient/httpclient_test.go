package httpclient

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
)

// newConns runs rounds of concurrent requests through c and returns how many TCP connections
// the server saw opened.
func newConns(t *testing.T, c *http.Client, concurrent, rounds int) int64 {
	t.Helper()
	var opened atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	for range rounds {
		var wg sync.WaitGroup
		for range concurrent {
			wg.Go(func() {
				resp, err := c.Get(srv.URL)
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			})
		}
		wg.Wait()
	}
	return opened.Load()
}

// A burst of concurrent requests to one peer reuses its connections in the next burst: the
// client keeps MaxIdlePerHost idle connections, where Go's default transport keeps two and
// opens (and closes) a new connection for every other request of each burst.
func TestBurstsReuseTheirConnections(t *testing.T) {
	const concurrent, rounds = 16, 5
	got := newConns(t, New(0), concurrent, rounds)
	t.Logf("%d bursts of %d requests opened %d connections", rounds, concurrent, got)
	if got > 2*concurrent {
		t.Errorf("%d bursts of %d concurrent requests opened %d connections; want at most %d (the first burst's, reused)",
			rounds, concurrent, got, 2*concurrent)
	}
	def := newConns(t, &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}, concurrent, rounds)
	t.Logf("the default transport opened %d", def)
}

// The clients ask for answers as they are: a node that would gzip its answer for a client that
// accepts it (as geth does) is not asked to.
func TestAnswersAreNotCompressed(t *testing.T) {
	var accept string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		accept = r.Header.Get("Accept-Encoding")
		_, _ = io.WriteString(w, "ok")
	}))
	defer srv.Close()
	resp, err := New(0).Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if accept != "" {
		t.Errorf("Accept-Encoding %q, want none", accept)
	}
}
