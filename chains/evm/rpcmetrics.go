package evm

import (
	"bytes"
	"io"
	"net/http"
	"strconv"

	"github.com/intentd/intentd/internal/httpclient"
	"github.com/intentd/intentd/internal/metrics"
)

// countingTransport counts every JSON-RPC request the client sends, by chain and method
// (intentd_chain_rpc_requests_total), so an operator sees what the engine asks of each node
// (providers bill per call) and a benchmark can put its reads per intent beside its
// throughput. It reads the method from the start of the request body, which go-ethereum
// writes as {"jsonrpc":"2.0","id":N,"method":"…", and keeps the body for the request.
type countingTransport struct {
	chainID string
	next    http.RoundTripper
}

func (t countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	metrics.ChainRPCRequests.WithLabelValues(t.chainID, rpcMethod(r)).Inc()
	return t.next.RoundTrip(r)
}

// rpcMethod is the JSON-RPC method of r ("batch" for a batch, "other" when it cannot tell).
// It reads a copy of the body through GetBody, which go-ethereum sets, never r.Body itself.
func rpcMethod(r *http.Request) string {
	if r.GetBody == nil {
		return "other"
	}
	body, err := r.GetBody()
	if err != nil {
		return "other"
	}
	defer body.Close()
	var head [96]byte
	n, _ := io.ReadFull(body, head[:])
	b := bytes.TrimLeft(head[:n], " \t\r\n")
	if len(b) > 0 && b[0] == '[' {
		return "batch"
	}
	const key = `"method":"`
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return "other"
	}
	b = b[i+len(key):]
	j := bytes.IndexByte(b, '"')
	if j <= 0 {
		return "other"
	}
	return string(b[:j])
}

// httpClient is the HTTP client of one chain's RPC: the default transport, counted.
func httpClient(chainID uint64) *http.Client {
	return &http.Client{Transport: countingTransport{chainID: strconv.FormatUint(chainID, 10), next: httpclient.Transport()}}
}
