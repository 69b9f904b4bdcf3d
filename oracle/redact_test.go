package oracle

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/internal/metrics"
	"github.com/intentd/intentd/oracle/oracleapi"
)

// Review L4: "RPC URLs (which carry provider keys in their path/query) never reach logs or
// /readyz bodies". A chain whose RPC does not answer, at a URL with a key in its path and its
// query: the attestation is 503 CHAIN_UNAVAILABLE, and neither the oracle's log nor /readyz's
// body holds the key (the readiness log's redaction is internal/metrics' test).
func TestAFailingRPCsURLNeverReachesLogsOrReadyz(t *testing.T) {
	const secret = "SECRETPROVIDERKEY0123"
	dead := chains.Chain{ID: 31339, Name: "dead", VMType: chains.VMTypeEVM, Confirmations: 1,
		HTTPRPCURL:    "http://127.0.0.1:" + strconv.Itoa(freePort(t)) + "/v2/" + secret + "?apikey=" + secret,
		Depository:    devnet.DepositoryAddress.Hex(),
		OutputSettler: devnet.OutputSettlerAddress.Hex(),
		Currency:      chains.Currency{ID: "eth", Symbol: "ETH", Name: "Ether", Decimals: 18}}
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv, hs := newTestServer(t, mustConfig(t, nil), registry(t, dead), logger)

	r := do(t, http.MethodPost, hs.URL+oracleapi.PathDepositAttestation, attestBody(dead.ID, crypto.Keccak256Hash([]byte("tx"))), nil)
	require.Equal(t, http.StatusServiceUnavailable, r.status, string(r.body))
	require.Equal(t, oracleapi.CodeChainUnavailable, r.errorBody(t).Code)
	require.NotContains(t, string(r.body), secret)

	ready := httptest.NewServer(metrics.Handler(srv.Probes()))
	defer ready.Close()
	resp, err := http.Get(ready.URL + "/readyz")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	require.Equal(t, `{"failing":["chain-31339"],"status":"unavailable"}`+"\n", string(body))

	require.Contains(t, logs.String(), "chain RPC failed")
	require.Contains(t, logs.String(), "127.0.0.1")
	if strings.Contains(logs.String(), secret) {
		t.Fatalf("the RPC URL's key reached the log:\n%s", logs.String())
	}
}
