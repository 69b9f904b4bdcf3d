package evm

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	dto "github.com/prometheus/client_model/go"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/internal/metrics"
)

// Every JSON-RPC request is counted by chain and method (intentd_chain_rpc_requests_total),
// and the node still receives the whole request.
func TestRPCRequestsAreCountedByMethod(t *testing.T) {
	var bodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, b)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":"0x2a"}`)
	}))
	defer srv.Close()
	const chainID = 990001
	c, err := Dial(&chains.Chain{ID: chainID, VMType: chains.VMTypeEVM, HTTPRPCURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	count := func(method string) float64 {
		var m dto.Metric
		if err := metrics.ChainRPCRequests.WithLabelValues("990001", method).Write(&m); err != nil {
			t.Fatal(err)
		}
		return m.GetCounter().GetValue()
	}
	// The counters are the process's: what this run adds (-count=2 runs it twice).
	heads, nonces := count("eth_blockNumber"), count("eth_getTransactionCount")
	for range 2 {
		if _, err := c.Head(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.NonceAt(context.Background(), common.Address{}); err != nil {
		t.Fatal(err)
	}
	if got := count("eth_blockNumber") - heads; got != 2 {
		t.Errorf("eth_blockNumber counted %v times, want 2", got)
	}
	if got := count("eth_getTransactionCount") - nonces; got != 1 {
		t.Errorf("eth_getTransactionCount counted %v times, want 1", got)
	}
	if len(bodies) != 3 || !bytes.Contains(bodies[2], []byte(`"method":"eth_getTransactionCount"`)) {
		t.Errorf("the node received %q", bodies)
	}
}

func TestRPCMethodOfABatch(t *testing.T) {
	r, _ := http.NewRequest(http.MethodPost, "http://node", nil)
	r.GetBody = func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader([]byte(` [{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}]`))), nil
	}
	if got := rpcMethod(r); got != "batch" {
		t.Errorf("rpcMethod = %q, want batch", got)
	}
	r.GetBody = nil
	if got := rpcMethod(r); got != "other" {
		t.Errorf("rpcMethod without GetBody = %q, want other", got)
	}
}
