package oracleapi

import (
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClientRejectsBadAttestations: a proxy error page, an undecodable body, a forged signer and
// a message about another transaction are all refused.
func TestClientRejectsBadAttestations(t *testing.T) {
	ctx := context.Background()
	d := sampleDeposit()
	domain := NewDomain("test", d.ChainID, d.Depository)
	sig, signer := signUnder(t, domain, d)
	good := func() DepositAttestation {
		return DepositAttestation{Messages: []DepositMessage{{Data: d,
			Signatures: []Signature{{Signer: signer, Signature: append([]byte(nil), sig...)}}}}, Domain: domain}
	}

	var reply atomic.Value // func(http.ResponseWriter)
	var gotKey, gotBody atomic.Value
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotKey.Store(r.Header.Get(HeaderAPIKey))
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		gotBody.Store(body)
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
	assert.Equal(t, signer, att.Messages[0].Signatures[0].Signer)
	assert.Equal(t, "k", gotKey.Load())
	assert.Equal(t, true, gotBody.Load().(map[string]any)["requestPeerSignatures"], "the engine asks for its peers' signatures")

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
	forged.Messages[0].Signatures[0].Signer = common.HexToAddress("0x1111111111111111111111111111111111111111")
	reply.Store(send(http.StatusOK, forged))
	e = clientErr(t, mustFail(client.AttestDeposit(ctx, d.ChainID, d.TransactionID)))
	assert.Equal(t, CodeInvalidResponse, e.Code)
	assert.Contains(t, e.Message, "recovers to")

	tampered := good()
	tampered.Messages[0].Data.Amount = NewAmount(new(big.Int).Add(d.Amount.Int(), big.NewInt(1)))
	reply.Store(send(http.StatusOK, tampered))
	e = clientErr(t, mustFail(client.AttestDeposit(ctx, d.ChainID, d.TransactionID)))
	assert.Equal(t, CodeInvalidResponse, e.Code)

	reply.Store(send(http.StatusOK, good()))
	e = clientErr(t, mustFail(client.AttestDeposit(ctx, d.ChainID, common.HexToHash("0x77"))))
	assert.Equal(t, CodeInvalidResponse, e.Code, "a message about another transaction")

	reply.Store(send(http.StatusOK, DepositAttestation{Domain: domain}))
	e = clientErr(t, mustFail(client.AttestDeposit(ctx, d.ChainID, d.TransactionID)))
	assert.Equal(t, CodeInvalidResponse, e.Code, "no messages")
}

// A base URL the request cannot be built with is the client's configuration, never the
// oracle's INVALID_REQUEST.
func TestClientMisconfigured(t *testing.T) {
	e := clientErr(t, mustFail(NewClient("127.0.0.1:3000", "", nil).AttestDeposit(context.Background(), 1, common.HexToHash("0x01"))))
	assert.Equal(t, CodeClientMisconfigured, e.Code)
	assert.Equal(t, 0, e.Status)
	assert.False(t, e.Retryable())
}

func clientErr(t *testing.T, err error) *Error {
	t.Helper()
	require.Error(t, err)
	e, ok := AsError(err)
	require.True(t, ok, "want *Error, got %T: %v", err, err)
	return e
}

func mustFail(_ *DepositAttestation, err error) error { return err }
