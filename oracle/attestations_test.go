package oracle

import (
	"encoding/json"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/oracle/oracleapi"
)

// attested posts body to path and decodes the 200 answer as an attestation of T whose
// signatures verify under its domain, which must be the test deployment's for contract.
func attested[T oracleapi.Message](t *testing.T, url, path, body string, header map[string]string, contract common.Address) *oracleapi.Attestation[T] {
	t.Helper()
	r := do(t, http.MethodPost, url+path, body, header)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	var att oracleapi.Attestation[T]
	require.NoError(t, json.Unmarshal(r.body, &att))
	require.NoError(t, oracleapi.VerifyAttestation(&att))
	require.True(t, att.Domain.Equal(oracleapi.NewDomain("test", testChainID, contract)), "%+v", att.Domain)
	return &att
}

func refusedWith(t *testing.T, url, path, body string, header map[string]string, status int, code string) {
	t.Helper()
	r := do(t, http.MethodPost, url+path, body, header)
	require.Equal(t, status, r.status, string(r.body))
	assert.Equal(t, code, r.errorBody(t).Code)
}

func jsonBody(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// TestEveryAttestationOnTheDevnet drives a deposit, a fill, a refund and a withdrawal through
// the project's contracts on a devnet chain and has each endpoint attest them: what the chain
// shows is what is signed, and what does not match the request is refused (force aside).
func TestEveryAttestationOnTheDevnet(t *testing.T) {
	tc := startChain(t, testChainID)
	srv, hs := newTestServer(t, mustConfig(t, map[string]string{EnvAPIKeys: testAPIKey + ":ops", EnvRateLimitMax: "1000"}),
		registry(t, tc.chainConfig(1)), nil)
	key := map[string]string{oracleapi.HeaderAPIKey: testAPIKey}
	user := crypto.PubkeyToAddress(tc.user.PublicKey)
	recipient := common.HexToAddress("0x00000000000000000000000000000000000000f1")
	settler := devnet.OutputSettlerAddress

	// A deposit of 2 ETH for order-1.
	orderID := crypto.Keccak256Hash([]byte("order-1"))
	depositTx := tc.depositNative(t, orderID, big.NewInt(2e18))
	tc.commit(1)

	t.Run("withdrawal initiation of the unspent deposit", func(t *testing.T) {
		att := attested[oracleapi.WithdrawalInitiationData](t, hs.URL, oracleapi.PathWithdrawalInitiation,
			jsonBody(t, oracleapi.WithdrawalInitiationRequest{ChainID: testChainID, TransactionID: depositTx, LogIndex: 0}), nil, tc.depository)
		d := att.Messages[0].Data
		assert.Equal(t, oracleapi.WithdrawalIDOf(testChainID, tc.depository, depositTx, 0), d.WithdrawalID)
		assert.Equal(t, user, d.Recipient, "back to the depositor")
		assert.Equal(t, "2000000000000000000", d.Amount.String())
		assert.Equal(t, orderID, d.OrderID)
		assert.Equal(t, srv.SignerAddress(), att.Messages[0].Signatures[0].Signer)
		refusedWith(t, hs.URL, oracleapi.PathWithdrawalInitiation,
			jsonBody(t, oracleapi.WithdrawalInitiationRequest{ChainID: testChainID, TransactionID: depositTx, LogIndex: 7}), nil,
			http.StatusNotFound, oracleapi.CodeNoDepositEvents)
	})

	// The solver fills order-1 with 1.5 ETH to recipient.
	fillTx := tc.solverCall(t, settler, outputSettlerABI, outputSettlerABI.PackFillNative(orderID, recipient), big.NewInt(15e17))
	fillReq := oracleapi.SolverFillAttestationRequest{ChainID: testChainID, TransactionID: fillTx, OrderID: orderID,
		Recipient: recipient, Currency: common.Address{}, MinimumAmount: oracleapi.NewAmount(big.NewInt(15e17))}

	t.Run("solver fill", func(t *testing.T) {
		att := attested[oracleapi.SolverFillData](t, hs.URL, oracleapi.PathSolverFillAttestation, jsonBody(t, fillReq), nil, settler)
		d := att.Messages[0].Data
		assert.Equal(t, oracleapi.SolverFillData{ChainID: testChainID, OutputSettler: settler, TransactionID: fillTx, LogIndex: d.LogIndex,
			BlockNumber: d.BlockNumber, BlockHash: d.BlockHash, OrderID: orderID, Solver: devnet.SolverAddress(), Recipient: recipient,
			Amount: oracleapi.NewAmount(big.NewInt(15e17))}, d)

		more := fillReq
		more.MinimumAmount = oracleapi.NewAmount(big.NewInt(2e18))
		refusedWith(t, hs.URL, oracleapi.PathSolverFillAttestation, jsonBody(t, more), nil, http.StatusUnprocessableEntity, oracleapi.CodeExpectationMismatch)
		other := fillReq
		other.Recipient = user
		refusedWith(t, hs.URL, oracleapi.PathSolverFillAttestation, jsonBody(t, other), nil, http.StatusUnprocessableEntity, oracleapi.CodeExpectationMismatch)
		wrongOrder := fillReq
		wrongOrder.OrderID = crypto.Keccak256Hash([]byte("order-2"))
		refusedWith(t, hs.URL, oracleapi.PathSolverFillAttestation, jsonBody(t, wrongOrder), nil, http.StatusNotFound, oracleapi.CodeNoMatchingEvent)

		// Authentication rule 3: "The force option on solver fill and refund attestations
		// requires a valid key."
		more.Force = true
		refusedWith(t, hs.URL, oracleapi.PathSolverFillAttestation, jsonBody(t, more), nil, http.StatusUnauthorized, oracleapi.CodeUnauthorized)
		refusedWith(t, hs.URL, oracleapi.PathSolverFillAttestation, jsonBody(t, more), map[string]string{oracleapi.HeaderAPIKey: "wrong"},
			http.StatusUnauthorized, oracleapi.CodeUnauthorized)
		forced := attested[oracleapi.SolverFillData](t, hs.URL, oracleapi.PathSolverFillAttestation, jsonBody(t, more), key, settler)
		assert.Equal(t, "1500000000000000000", forced.Messages[0].Data.Amount.String(), "forced: the fill as it is")
		// force never skips the chain's own checks: the order id stays bound.
		wrongOrder.Force = true
		refusedWith(t, hs.URL, oracleapi.PathSolverFillAttestation, jsonBody(t, wrongOrder), key, http.StatusNotFound, oracleapi.CodeNoMatchingEvent)
	})

	// The solver refunds 1 ETH of the deposit to the user under a refund id.
	refundID := crypto.Keccak256Hash([]byte("refund-1"))
	refundTx := tc.solverCall(t, tc.depository, depositoryABI, depositoryABI.PackWithdraw(refundID, common.Address{}, user, big.NewInt(1e18)), nil)

	t.Run("solver refund and depository withdrawal", func(t *testing.T) {
		req := oracleapi.SolverRefundAttestationRequest{ChainID: testChainID, TransactionID: refundTx, RefundID: refundID,
			Recipient: user, Currency: common.Address{}, MinimumAmount: oracleapi.NewAmount(big.NewInt(1e18))}
		att := attested[oracleapi.SolverRefundData](t, hs.URL, oracleapi.PathSolverRefund, jsonBody(t, req), nil, tc.depository)
		assert.Equal(t, refundID, att.Messages[0].Data.RefundID)
		assert.Equal(t, user, att.Messages[0].Data.Recipient)
		req.MinimumAmount = oracleapi.NewAmount(big.NewInt(2e18))
		refusedWith(t, hs.URL, oracleapi.PathSolverRefund, jsonBody(t, req), nil, http.StatusUnprocessableEntity, oracleapi.CodeExpectationMismatch)
		req.Force = true
		refusedWith(t, hs.URL, oracleapi.PathSolverRefund, jsonBody(t, req), nil, http.StatusUnauthorized, oracleapi.CodeUnauthorized)
		attested[oracleapi.SolverRefundData](t, hs.URL, oracleapi.PathSolverRefund, jsonBody(t, req), key, tc.depository)

		w := attested[oracleapi.WithdrawalData](t, hs.URL, oracleapi.PathWithdrawalAttestation,
			jsonBody(t, oracleapi.WithdrawalAttestationRequest{ChainID: testChainID, TransactionID: refundTx}), nil, tc.depository)
		assert.Equal(t, refundID, w.Messages[0].Data.WithdrawalID)
		assert.Equal(t, "1000000000000000000", w.Messages[0].Data.Amount.String())
		refusedWith(t, hs.URL, oracleapi.PathWithdrawalAttestation,
			jsonBody(t, oracleapi.WithdrawalAttestationRequest{ChainID: testChainID, TransactionID: depositTx}), nil,
			http.StatusNotFound, oracleapi.CodeNoMatchingEvent)
	})

	t.Run("withdrawal initiated", func(t *testing.T) {
		body := jsonBody(t, oracleapi.WithdrawalInitiatedRequest{ChainID: testChainID, WithdrawalID: refundID})
		att := attested[oracleapi.WithdrawalInitiatedData](t, hs.URL, oracleapi.PathWithdrawalInitiated, body, nil, tc.depository)
		assert.Equal(t, oracleapi.WithdrawalInitiatedData{ChainID: testChainID, Depository: tc.depository, WithdrawalID: refundID},
			att.Messages[0].Data)
		refusedWith(t, hs.URL, oracleapi.PathWithdrawalInitiated,
			jsonBody(t, oracleapi.WithdrawalInitiatedRequest{ChainID: testChainID, WithdrawalID: crypto.Keccak256Hash([]byte("never"))}), nil,
			http.StatusNotFound, oracleapi.CodeWithdrawalNotInitiated)

		// Once the deposit's own withdrawal id is spent, its initiation is refused.
		id := oracleapi.WithdrawalIDOf(testChainID, tc.depository, depositTx, 0)
		tc.solverCall(t, tc.depository, depositoryABI, depositoryABI.PackWithdraw(id, common.Address{}, user, big.NewInt(5e17)), nil)
		refusedWith(t, hs.URL, oracleapi.PathWithdrawalInitiation,
			jsonBody(t, oracleapi.WithdrawalInitiationRequest{ChainID: testChainID, TransactionID: depositTx}), nil,
			http.StatusConflict, oracleapi.CodeAlreadyWithdrawn)
	})
}

// TestMalformedBodiesAre400: every attestation route validates its body against the schema it
// publishes and answers 400 INVALID_REQUEST with a JSON error naming the field, never echoing
// the value.
func TestMalformedBodiesAre400(t *testing.T) {
	_, hs := newTestServer(t, mustConfig(t, map[string]string{EnvRateLimitMax: "1000"}), offlineRegistry(t), nil)
	tx := "0x" + strings.Repeat("ab", 32)
	cases := map[string]struct{ path, body, field string }{
		"empty":                   {oracleapi.PathWithdrawalAttestation, "", ""},
		"not JSON":                {oracleapi.PathSolverRefund, "{", ""},
		"array":                   {oracleapi.PathDepositAttestation, `[]`, ""},
		"missing chainId":         {oracleapi.PathWithdrawalAttestation, `{"transactionId":"` + tx + `"}`, "chainId"},
		"chainId zero":            {oracleapi.PathDepositAttestation, `{"chainId":0,"transactionId":"` + tx + `"}`, "chainId"},
		"chainId not an integer":  {oracleapi.PathDepositAttestation, `{"chainId":1.5,"transactionId":"` + tx + `"}`, "chainId"},
		"short hash":              {oracleapi.PathWithdrawalInitiated, `{"chainId":1,"withdrawalId":"0x12"}`, "withdrawalId"},
		"address without 0x":      {oracleapi.PathSolverFillAttestation, `{"chainId":1,"transactionId":"` + tx + `","orderId":"` + tx + `","recipient":"` + strings.Repeat("1", 40) + `","currency":"0x` + strings.Repeat("0", 40) + `","minimumAmount":"1"}`, "recipient"},
		"amount as a number":      {oracleapi.PathSolverRefund, `{"chainId":1,"transactionId":"` + tx + `","refundId":"` + tx + `","recipient":"0x` + strings.Repeat("1", 40) + `","currency":"0x` + strings.Repeat("0", 40) + `","minimumAmount":5}`, "minimumAmount"},
		"negative amount":         {oracleapi.PathSolverFillAttestation, `{"chainId":1,"transactionId":"` + tx + `","orderId":"` + tx + `","recipient":"0x` + strings.Repeat("1", 40) + `","currency":"0x` + strings.Repeat("0", 40) + `","minimumAmount":"-5"}`, "minimumAmount"},
		"force not a boolean":     {oracleapi.PathSolverFillAttestation, `{"chainId":1,"transactionId":"` + tx + `","orderId":"` + tx + `","recipient":"0x` + strings.Repeat("1", 40) + `","currency":"0x` + strings.Repeat("0", 40) + `","minimumAmount":"5","force":"yes"}`, "force"},
		"missing logIndex":        {oracleapi.PathWithdrawalInitiation, `{"chainId":1,"transactionId":"` + tx + `"}`, "logIndex"},
		"requestPeerSignatures 1": {oracleapi.PathDepositAttestation, `{"chainId":1,"transactionId":"` + tx + `","requestPeerSignatures":1}`, "requestPeerSignatures"},
		"two objects":             {oracleapi.PathDepositAttestation, `{"chainId":1,"transactionId":"` + tx + `"}{}`, ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r := do(t, http.MethodPost, hs.URL+c.path, c.body, nil)
			require.Equal(t, http.StatusBadRequest, r.status, string(r.body))
			e := r.errorBody(t)
			assert.Equal(t, oracleapi.CodeInvalidRequest, e.Code)
			assert.Contains(t, e.Message, c.field)
			assert.NotContains(t, e.Message, strings.Repeat("1", 40), "the value is not echoed")
		})
	}
}
