package oracle

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/internal/metrics"
	"github.com/intentd/intentd/oracle/oracleapi"
)

// batchOrder is the order id of deposit i of batchReader's transaction.
func batchOrder(i int) common.Hash { return crypto.Keccak256Hash([]byte(fmt.Sprintf("batch-%d", i))) }

// batchReader is a chain whose transaction peerTx holds n deposits, each for an order of its own
// (batchOrder(i), at log index i), as one transaction of a batching contract does.
func batchReader(n int) *stubReader {
	header := &types.Header{Number: big.NewInt(10), Difficulty: big.NewInt(0)}
	logs := make([]*types.Log, n)
	for i := range logs {
		logs[i] = depositLog(stubDepository, uint(i), batchOrder(i), int64(i+1))
	}
	return &stubReader{head: 10, header: header, receipt: &types.Receipt{Status: types.ReceiptStatusSuccessful,
		BlockNumber: big.NewInt(10), BlockHash: header.Hash(), Logs: logs}}
}

func depositSignatures() float64 {
	return testutil.ToFloat64(metrics.OracleSignatures.WithLabelValues(oracleapi.PathDepositAttestation))
}

// Review M2: "A tx with many deposits makes the oracles do N² signing work … Add logIndex (or
// orderId) to the deposit request and sign only that message. Cap the messages per answer."
// One transaction with 300 deposits: asked for each deposit by its order id (or its log index),
// the oracle signs that one only, so 300 requests cost 300 signatures, not 300²; asked for the
// whole transaction it refuses with TOO_MANY_EVENTS and signs nothing.
func TestDepositRequestNamesItsDepositAndOnlyThatIsSigned(t *testing.T) {
	const n = 300
	srv := stubServer(t, batchReader(n), 1)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	url := hs.URL + oracleapi.PathDepositAttestation
	body := func(extra string) string {
		return `{"chainId":31337,"transactionId":"` + peerTx.Hex() + `"` + extra + `}`
	}

	before := depositSignatures()
	r := do(t, http.MethodPost, url, body(""), nil)
	require.Equal(t, http.StatusUnprocessableEntity, r.status, string(r.body))
	e := r.errorBody(t)
	assert.Equal(t, oracleapi.CodeTooManyEvents, e.Code)
	assert.Contains(t, e.Message, "300 Deposit events")
	assert.Contains(t, e.Message, "logIndex or orderId")
	assert.Equal(t, before, depositSignatures(), "nothing is signed for a refused answer")

	for i := range n {
		r := do(t, http.MethodPost, url, body(`,"orderId":"`+batchOrder(i).Hex()+`"`), nil)
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		var att oracleapi.DepositAttestation
		require.NoError(t, json.Unmarshal(r.body, &att))
		require.Len(t, att.Messages, 1)
		require.Equal(t, batchOrder(i), att.Messages[0].Data.OrderID)
		require.Equal(t, uint64(i), att.Messages[0].Data.LogIndex)
	}
	assert.Equal(t, before+n, depositSignatures(), "one signature per deposit asked for")

	// By log index, and by both (which must both match).
	r = do(t, http.MethodPost, url, body(`,"logIndex":7`), nil)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	var att oracleapi.DepositAttestation
	require.NoError(t, json.Unmarshal(r.body, &att))
	require.Len(t, att.Messages, 1)
	assert.Equal(t, batchOrder(7), att.Messages[0].Data.OrderID)
	r = do(t, http.MethodPost, url, body(`,"logIndex":7,"orderId":"`+batchOrder(7).Hex()+`"`), nil)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	r = do(t, http.MethodPost, url, body(`,"logIndex":7,"orderId":"`+batchOrder(8).Hex()+`"`), nil)
	require.Equal(t, http.StatusNotFound, r.status, string(r.body))
	assert.Equal(t, oracleapi.CodeNoDepositEvents, r.errorBody(t).Code)
	assert.Contains(t, r.errorBody(t).Message, "at log 7 for order "+batchOrder(8).Hex())
	r = do(t, http.MethodPost, url, body(`,"logIndex":-1`), nil)
	require.Equal(t, http.StatusBadRequest, r.status, string(r.body))
	assert.Equal(t, oracleapi.CodeInvalidRequest, r.errorBody(t).Code)

	// A transaction of no more deposits than one answer carries is attested whole, as before.
	small := stubServer(t, batchReader(oracleapi.MaxMessagesPerAnswer), 1)
	msgs, _, oe := attestDeposit(t.Context(), small, oracleapi.DepositAttestationRequest{ChainID: testChainID, TransactionID: peerTx}, false)
	require.Nil(t, oe)
	assert.Len(t, msgs, oracleapi.MaxMessagesPerAnswer)
}

// The deposit a request names is what its peers are asked about too (the peers' request carries
// the caller's fields of the route's schema), so a deposit asked for with peer signatures costs
// one signature per oracle, and the engine's client keeps that deposit only.
func TestPeersSignOnlyTheDepositNamed(t *testing.T) {
	const n = 300
	var mu sync.Mutex
	var peerBodies []string
	backs := cluster(t,
		func([]string, []common.Address) nodeSpec { return nodeSpec{reader: batchReader(n)} },
		func([]string, []common.Address) nodeSpec { return nodeSpec{reader: batchReader(n)} },
	)
	observe := func(body []byte, _ http.Header) {
		mu.Lock()
		peerBodies = append(peerBodies, string(body))
		mu.Unlock()
	}
	front := cluster(t, func(_ []string, addrs []common.Address) nodeSpec {
		return nodeSpec{reader: batchReader(n), env: map[string]string{
			EnvPeers:         peersOf(relayObserved(t, backs[0].url, 0, nil, observe), relayObserved(t, backs[1].url, 0, nil, observe)),
			EnvOracleSigners: signersOf(addrs[0], backs[0].addr, backs[1].addr), EnvOracleSignersThreshold: "3"}}
	})[0]

	before := depositSignatures()
	client := oracleapi.NewClient(front.url, testAPIKey, nil)
	att, err := client.AttestDepositFor(t.Context(), testChainID, peerTx, batchOrder(123))
	require.NoError(t, err)
	require.Len(t, att.Messages, 1)
	assert.Equal(t, uint64(123), att.Messages[0].Data.LogIndex)
	assert.Len(t, att.Messages[0].Signatures, 3)
	assert.Equal(t, before+3, depositSignatures(), "one signature per oracle")
	require.Len(t, peerBodies, 2)
	for _, b := range peerBodies {
		assert.Contains(t, b, `"orderId":"`+batchOrder(123).Hex()+`"`)
	}
}
