package oracle

import (
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestErrorRetryable(t *testing.T) {
	cases := []struct {
		err  Error
		want bool
	}{
		{Error{Status: 0, Code: CodeNetworkError}, true},
		{Error{Status: 0, Code: CodeInvalidResponse}, true},
		{Error{Status: 409, Code: CodeNotConfirmed}, true},
		{Error{Status: 409, Code: "SOMETHING_ELSE"}, false},
		{Error{Status: 429, Code: CodeRateLimited}, true},
		{Error{Status: 500, Code: CodeInternal}, true},
		{Error{Status: 502}, true},
		{Error{Status: 503, Code: CodeChainUnavailable}, true},
		{Error{Status: 501, Code: CodeNotImplemented}, false},
		{Error{Status: 400, Code: CodeInvalidRequest}, false},
		{Error{Status: 400, Code: CodeUnknownChain}, false},
		{Error{Status: 404, Code: CodeTransactionNotFound}, false},
		{Error{Status: 404, Code: CodeNoDepositEvents}, false},
		{Error{Status: 422, Code: CodeTransactionReverted}, false},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, c.err.Retryable(), "%d %s", c.err.Status, c.err.Code)
	}
}

func clientErr(t *testing.T, err error) *Error {
	t.Helper()
	require.Error(t, err)
	e, ok := AsError(err)
	require.True(t, ok, "want *Error, got %T: %v", err, err)
	return e
}

// TestClientClassifiesServerErrors runs the Client against a real oracle (httptest) whose chains
// are offline, plus a dead address and a misbehaving server.
func TestClientClassifiesServerErrors(t *testing.T) {
	ctx := context.Background()
	srv, hs := newTestServer(t, mustConfig(t, map[string]string{EnvAPIKeys: testAPIKey + ":engine"}), offlineRegistry(t), nil)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	srv.limiter.now = func() time.Time { return now }
	tx := common.HexToHash("0x01")
	keyed := NewClient(hs.URL+"/", testAPIKey, nil)

	// 400 unknown chain: not retryable.
	e := clientErr(t, mustFail(keyed.AttestDeposit(ctx, 999, tx)))
	assert.Equal(t, http.StatusBadRequest, e.Status)
	assert.Equal(t, CodeUnknownChain, e.Code)
	assert.NotEmpty(t, e.Message)
	assert.False(t, e.Retryable())

	// 503 unreachable chain RPC: retryable.
	e = clientErr(t, mustFail(keyed.AttestDeposit(ctx, 31337, tx)))
	assert.Equal(t, http.StatusServiceUnavailable, e.Status)
	assert.Equal(t, CodeChainUnavailable, e.Code)
	assert.True(t, e.Retryable())

	// The key is sent: ten calls, never rate limited.
	for range 10 {
		e = clientErr(t, mustFail(keyed.AttestDeposit(ctx, 999, tx)))
		require.Equal(t, http.StatusBadRequest, e.Status)
	}

	// Without a key the third call in the window is 429: retryable, with a Retry-After hint.
	anon := NewClient(hs.URL, "", nil)
	for range 2 {
		e = clientErr(t, mustFail(anon.AttestDeposit(ctx, 999, tx)))
		require.Equal(t, http.StatusBadRequest, e.Status)
	}
	e = clientErr(t, mustFail(anon.AttestDeposit(ctx, 999, tx)))
	assert.Equal(t, http.StatusTooManyRequests, e.Status)
	assert.Equal(t, CodeRateLimited, e.Code)
	assert.True(t, e.Retryable())
	assert.Equal(t, time.Second, e.RetryAfter)

	// 404 route (wrong base URL): not retryable.
	e = clientErr(t, mustFail(NewClient(hs.URL+"/v0", testAPIKey, nil).AttestDeposit(ctx, 999, tx)))
	assert.Equal(t, http.StatusNotFound, e.Status)
	assert.Equal(t, CodeNotFound, e.Code)
	assert.False(t, e.Retryable())

	// Nothing listening: a network error, retryable.
	e = clientErr(t, mustFail(NewClient("http://127.0.0.1:"+strconv.Itoa(freePort(t)), "", nil).AttestDeposit(ctx, 1, tx)))
	assert.Equal(t, 0, e.Status)
	assert.Equal(t, CodeNetworkError, e.Code)
	assert.True(t, e.Retryable())
}

func mustFail(_ *DepositAttestation, err error) error { return err }

// TestClientRejectsBadAttestations: a proxy error page, an undecodable body, a forged signer and
// a message about another transaction are all refused.
func TestClientRejectsBadAttestations(t *testing.T) {
	ctx := context.Background()
	srv, err := NewServer(mustConfig(t, nil), offlineRegistry(t), nil)
	require.NoError(t, err)
	d := sampleDeposit()
	good := func() DepositAttestation {
		sig, err := srv.sign(d)
		require.NoError(t, err)
		return DepositAttestation{Messages: []DepositMessage{{Data: d, Signatures: []Signature{sig}}}, Domain: OracleDomain}
	}

	var reply atomic.Value // func(http.ResponseWriter)
	var gotKey atomic.Value
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotKey.Store(r.Header.Get(HeaderAPIKey))
		reply.Load().(func(http.ResponseWriter))(w)
	}))
	defer hs.Close()
	client := NewClient(hs.URL, "k", nil)
	send := func(status int, body any) func(http.ResponseWriter) {
		return func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_ = json.NewEncoder(w).Encode(body)
		}
	}

	reply.Store(send(http.StatusOK, good()))
	att, err := client.AttestDeposit(ctx, d.ChainID, d.TransactionID)
	require.NoError(t, err)
	assert.Equal(t, srv.SignerAddress(), att.Messages[0].Signatures[0].Signer)
	assert.Equal(t, "k", gotKey.Load())

	reply.Store(func(w http.ResponseWriter) {
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte("<html>bad gateway</html>"))
	})
	e := clientErr(t, mustFail(client.AttestDeposit(ctx, d.ChainID, d.TransactionID)))
	assert.Equal(t, http.StatusBadGateway, e.Status)
	assert.Contains(t, e.Message, "bad gateway")
	assert.True(t, e.Retryable())

	reply.Store(func(w http.ResponseWriter) { _, _ = w.Write([]byte("{not json")) })
	e = clientErr(t, mustFail(client.AttestDeposit(ctx, d.ChainID, d.TransactionID)))
	assert.Equal(t, CodeInvalidResponse, e.Code)

	forged := good()
	forged.Messages[0].Signatures[0].Signer = common.HexToAddress(addrA)
	reply.Store(send(http.StatusOK, forged))
	e = clientErr(t, mustFail(client.AttestDeposit(ctx, d.ChainID, d.TransactionID)))
	assert.Equal(t, CodeInvalidResponse, e.Code)
	assert.Contains(t, e.Message, "recovers to")

	tampered := good()
	tampered.Messages[0].Data.Amount = new(big.Int).Add(d.Amount, big.NewInt(1))
	reply.Store(send(http.StatusOK, tampered))
	e = clientErr(t, mustFail(client.AttestDeposit(ctx, d.ChainID, d.TransactionID)))
	assert.Equal(t, CodeInvalidResponse, e.Code)

	reply.Store(send(http.StatusOK, good()))
	e = clientErr(t, mustFail(client.AttestDeposit(ctx, d.ChainID, common.HexToHash("0x77"))))
	assert.Equal(t, CodeInvalidResponse, e.Code, "a message about another transaction")

	reply.Store(send(http.StatusOK, DepositAttestation{Domain: OracleDomain}))
	e = clientErr(t, mustFail(client.AttestDeposit(ctx, d.ChainID, d.TransactionID)))
	assert.Equal(t, CodeInvalidResponse, e.Code, "no messages")
}
