// Package httpclient builds the HTTP clients the engine uses for its own busy peers: a chain's
// JSON-RPC node, the attestation oracle, the oracle's peers. Go's default transport keeps only
// two idle connections per host, so under a burst every request beyond the second opens a new
// TCP connection and closes it after one use; these clients keep enough idle connections for
// the concurrency the worker runs at. They also ask for uncompressed answers: Go's transport
// asks for gzip by default, and a geth node then compresses every JSON-RPC answer (a fifth of
// the devnet's CPU under load, BENCHMARKS.md) for the engine to decompress it again, to save a
// few hundred bytes per answer.
package httpclient

import (
	"net/http"
	"time"
)

// MaxIdlePerHost is the number of idle connections kept to one host: above the worker's
// concurrent activities and local activities that may call one peer at once.
const MaxIdlePerHost = 64

// Transport is a copy of Go's default transport (proxy from the environment, dial and TLS
// timeouts, HTTP/2 when offered) that keeps MaxIdlePerHost idle connections per host and asks
// for answers uncompressed.
func Transport() *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = 4 * MaxIdlePerHost
	tr.MaxIdleConnsPerHost = MaxIdlePerHost
	tr.IdleConnTimeout = 90 * time.Second
	tr.DisableCompression = true
	return tr
}

// New is a client over Transport with the given overall timeout per request (0: none).
func New(timeout time.Duration) *http.Client {
	return &http.Client{Transport: Transport(), Timeout: timeout}
}
