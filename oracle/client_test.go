package oracle

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/oracle/oracleapi"
)

func clientErr(t *testing.T, err error) *oracleapi.Error {
	t.Helper()
	require.Error(t, err)
	e, ok := oracleapi.AsError(err)
	require.True(t, ok, "want *oracleapi.Error, got %T: %v", err, err)
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
	keyed := oracleapi.NewClient(hs.URL+"/", testAPIKey, nil)

	// 400 unknown chain: not retryable.
	e := clientErr(t, mustFail(keyed.AttestDeposit(ctx, 999, tx)))
	assert.Equal(t, http.StatusBadRequest, e.Status)
	assert.Equal(t, oracleapi.CodeUnknownChain, e.Code)
	assert.NotEmpty(t, e.Message)
	assert.False(t, e.Retryable())

	// 503 unreachable chain RPC: retryable.
	e = clientErr(t, mustFail(keyed.AttestDeposit(ctx, 31337, tx)))
	assert.Equal(t, http.StatusServiceUnavailable, e.Status)
	assert.Equal(t, oracleapi.CodeChainUnavailable, e.Code)
	assert.True(t, e.Retryable())

	// The key is sent: ten calls, never rate limited.
	for range 10 {
		e = clientErr(t, mustFail(keyed.AttestDeposit(ctx, 999, tx)))
		require.Equal(t, http.StatusBadRequest, e.Status)
	}

	// Without a key the third call in the window is 429: retryable, with a Retry-After hint.
	anon := oracleapi.NewClient(hs.URL, "", nil)
	for range 2 {
		e = clientErr(t, mustFail(anon.AttestDeposit(ctx, 999, tx)))
		require.Equal(t, http.StatusBadRequest, e.Status)
	}
	e = clientErr(t, mustFail(anon.AttestDeposit(ctx, 999, tx)))
	assert.Equal(t, http.StatusTooManyRequests, e.Status)
	assert.Equal(t, oracleapi.CodeRateLimited, e.Code)
	assert.True(t, e.Retryable())
	assert.Equal(t, time.Second, e.RetryAfter)

	// 404 route (wrong base URL): not retryable.
	e = clientErr(t, mustFail(oracleapi.NewClient(hs.URL+"/v0", testAPIKey, nil).AttestDeposit(ctx, 999, tx)))
	assert.Equal(t, http.StatusNotFound, e.Status)
	assert.Equal(t, oracleapi.CodeNotFound, e.Code)
	assert.False(t, e.Retryable())

	// Nothing listening: a network error, retryable.
	e = clientErr(t, mustFail(oracleapi.NewClient("http://127.0.0.1:"+strconv.Itoa(freePort(t)), "", nil).AttestDeposit(ctx, 1, tx)))
	assert.Equal(t, 0, e.Status)
	assert.Equal(t, oracleapi.CodeNetworkError, e.Code)
	assert.True(t, e.Retryable())
}

func mustFail(_ *oracleapi.DepositAttestation, err error) error { return err }
