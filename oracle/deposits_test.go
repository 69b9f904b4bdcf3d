package oracle

import (
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/oracle/oracleapi"
)

// TestDepositAttestation drives one native deposit from the mempool to an attestation on a real
// chain: pending and shallow deposits are refused with the retryable 409, a deep enough one is
// signed by the oracle's key, and the Client returns the same attestation.
func TestDepositAttestation(t *testing.T) {
	tc := startChain(t, testChainID)
	logs := &syncBuffer{}
	cfg := mustConfig(t, map[string]string{EnvAPIKeys: testAPIKey + ":engine"})
	srv, hs := newTestServer(t, cfg, registry(t, tc.chainConfig(3)), debugLogger(logs))
	url := hs.URL + oracleapi.PathDepositAttestation
	key := map[string]string{oracleapi.HeaderAPIKey: testAPIKey}

	orderID := crypto.Keccak256Hash([]byte("order-1"))
	amount := new(big.Int).Mul(big.NewInt(15), big.NewInt(1e17)) // 1.5 ETH
	txHash := tc.depositNative(t, orderID, amount)

	// In the mempool: known but not mined.
	r := do(t, http.MethodPost, url, attestBody(testChainID, txHash), key)
	require.Equal(t, http.StatusConflict, r.status, string(r.body))
	assert.Equal(t, oracleapi.CodeNotConfirmed, r.errorBody(t).Code)

	// Mined, one confirmation of three.
	tc.commit(1)
	r = do(t, http.MethodPost, url, attestBody(testChainID, txHash), key)
	require.Equal(t, http.StatusConflict, r.status, string(r.body))
	e := r.errorBody(t)
	assert.Equal(t, oracleapi.CodeNotConfirmed, e.Code)
	assert.Contains(t, e.Message, "1 of 3")

	client := oracleapi.NewClient(hs.URL, testAPIKey, nil)
	_, err := client.AttestDeposit(context.Background(), testChainID, txHash)
	ce, ok := oracleapi.AsError(err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, http.StatusConflict, ce.Status)
	assert.True(t, ce.Retryable(), "not yet confirmed must be retried")

	// Three confirmations: attested.
	tc.commit(2)
	r = do(t, http.MethodPost, url, attestBody(testChainID, txHash), key)
	require.Equal(t, http.StatusOK, r.status, string(r.body))

	var raw map[string]any
	require.NoError(t, json.Unmarshal(r.body, &raw))
	salt := oracleapi.DeploymentSalt("test")
	assert.Equal(t, map[string]any{"name": "ServiceOracle", "version": "2", "chainId": float64(testChainID),
		"verifyingContract": strings.ToLower(tc.depository.Hex()), "salt": salt.Hex()}, raw["domain"])
	wireData := raw["messages"].([]any)[0].(map[string]any)["data"].(map[string]any)
	assert.Equal(t, "1500000000000000000", wireData["amount"], "amount is a decimal string")
	assert.Equal(t, float64(testChainID), wireData["chainId"])

	var att oracleapi.DepositAttestation
	require.NoError(t, json.Unmarshal(r.body, &att))
	require.Len(t, att.Messages, 1)
	m := att.Messages[0]
	receipt, err := tc.client.TransactionReceipt(context.Background(), txHash)
	require.NoError(t, err)
	assert.Equal(t, oracleapi.DepositData{
		ChainID: testChainID, Depository: tc.depository, TransactionID: txHash,
		LogIndex: uint64(receipt.Logs[0].Index), BlockNumber: receipt.BlockNumber.Uint64(), BlockHash: receipt.BlockHash,
		OrderID: orderID, Depositor: crypto.PubkeyToAddress(tc.user.PublicKey), Currency: common.Address{}, Amount: oracleapi.NewAmount(amount),
	}, m.Data)
	require.Len(t, m.Signatures, 1)
	sig := m.Signatures[0]
	assert.Equal(t, srv.SignerAddress(), sig.Signer)
	assert.Equal(t, testOracleAddress(t), sig.Signer)
	require.Len(t, sig.Signature, 65)
	assert.Contains(t, []byte{27, 28}, sig.Signature[64])
	signer, err := oracleapi.RecoverSigner(att.Domain, m.Data, sig.Signature)
	require.NoError(t, err)
	assert.Equal(t, srv.SignerAddress(), signer)

	// A tampered amount no longer recovers to the oracle.
	tampered := m.Data
	tampered.Amount = oracleapi.NewAmount(new(big.Int).Add(amount, big.NewInt(1)))
	other, err := oracleapi.RecoverSigner(att.Domain, tampered, sig.Signature)
	require.NoError(t, err)
	assert.NotEqual(t, srv.SignerAddress(), other)

	// The engine's client gets the same, verified attestation.
	got, err := client.AttestDeposit(context.Background(), testChainID, txHash)
	require.NoError(t, err)
	assert.Equal(t, att, *got)

	// requestPeerSignatures is accepted and still answers with the local signature.
	r = do(t, http.MethodPost, url, `{"chainId":31337,"transactionId":"`+txHash.Hex()+`","requestPeerSignatures":true}`, key)
	require.Equal(t, http.StatusOK, r.status, string(r.body))

	// Nothing secret reached the logs of all of the above.
	out := logs.String()
	assert.Contains(t, out, "deposit attested")
	assertNoSecrets(t, out)
}

// TestDepositAttestationErrors covers the refusals that need a chain: unknown transaction,
// a transaction without deposit, a reverted one, a misconfigured RPC and an unreachable RPC.
func TestDepositAttestationErrors(t *testing.T) {
	tc := startChain(t, testChainID)
	dead := tc.chainConfig(1)
	dead.ID, dead.HTTPRPCURL = 31339, "http://127.0.0.1:"+strconv.Itoa(freePort(t))
	wrongID := tc.chainConfig(1)
	wrongID.ID = 31340 // the endpoint serves 31337
	disabled := tc.chainConfig(1)
	disabled.ID, disabled.Disabled = 31341, true
	// Many unauthenticated calls from one loopback address: the limit is widened for them.
	cfg := mustConfig(t, map[string]string{EnvRateLimitMax: "1000"})
	_, hs := newTestServer(t, cfg, registry(t, tc.chainConfig(1), dead, wrongID, disabled), nil)
	url := hs.URL + oracleapi.PathDepositAttestation

	// Both from the test user, in a row: the deposit takes the nonce after the transfer's, which
	// the node's pending nonce may not count yet (depositNativeAt), and the block is sealed once
	// the node's pool has promoted both (it does so in the background: a block sealed at once
	// sometimes held the transfer alone, and the deposit was never mined).
	user := crypto.PubkeyToAddress(tc.user.PublicKey)
	first, err := tc.client.PendingNonceAt(t.Context(), user)
	require.NoError(t, err)
	transfer := tc.transfer(t, common.HexToAddress("0x000000000000000000000000000000000000dEaD"), big.NewInt(1))
	reverted := tc.depositNativeAt(t, crypto.Keccak256Hash([]byte("order-0")), big.NewInt(0), new(big.Int).SetUint64(first+1))
	require.Eventually(t, func() bool {
		pending, err := tc.client.PendingNonceAt(t.Context(), user)
		return err == nil && pending == first+2
	}, 10*time.Second, 5*time.Millisecond, "both transactions in the node's pool")
	tc.commit(1)
	tc.requireStatus(t, reverted, types.ReceiptStatusFailed)

	cases := []struct {
		name   string
		body   string
		status int
		code   string
	}{
		{"unknown transaction", attestBody(testChainID, crypto.Keccak256Hash([]byte("nope"))), http.StatusNotFound, oracleapi.CodeTransactionNotFound},
		{"no deposit event", attestBody(testChainID, transfer), http.StatusNotFound, oracleapi.CodeNoDepositEvents},
		{"reverted", attestBody(testChainID, reverted), http.StatusUnprocessableEntity, oracleapi.CodeTransactionReverted},
		{"unreachable RPC", attestBody(dead.ID, transfer), http.StatusServiceUnavailable, oracleapi.CodeChainUnavailable},
		{"RPC serves another chain", attestBody(wrongID.ID, transfer), http.StatusServiceUnavailable, oracleapi.CodeChainUnavailable},
		{"unknown chain", attestBody(999, transfer), http.StatusBadRequest, oracleapi.CodeUnknownChain},
		{"disabled chain", attestBody(disabled.ID, transfer), http.StatusBadRequest, oracleapi.CodeUnknownChain},
		{"empty body", "", http.StatusBadRequest, oracleapi.CodeInvalidRequest},
		{"not JSON", "chainId=1", http.StatusBadRequest, oracleapi.CodeInvalidRequest},
		{"missing chainId", `{"transactionId":"` + transfer.Hex() + `"}`, http.StatusBadRequest, oracleapi.CodeInvalidRequest},
		{"chainId as string", `{"chainId":"31337","transactionId":"` + transfer.Hex() + `"}`, http.StatusBadRequest, oracleapi.CodeInvalidRequest},
		{"negative chainId", `{"chainId":-1,"transactionId":"` + transfer.Hex() + `"}`, http.StatusBadRequest, oracleapi.CodeInvalidRequest},
		{"short hash", `{"chainId":31337,"transactionId":"0x1234"}`, http.StatusBadRequest, oracleapi.CodeInvalidRequest},
		{"hash without 0x", `{"chainId":31337,"transactionId":"` + strings.TrimPrefix(transfer.Hex(), "0x") + `"}`, http.StatusBadRequest, oracleapi.CodeInvalidRequest},
		{"two objects", attestBody(testChainID, transfer) + attestBody(testChainID, transfer), http.StatusBadRequest, oracleapi.CodeInvalidRequest},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := do(t, http.MethodPost, url, c.body, nil)
			require.Equal(t, c.status, r.status, string(r.body))
			e := r.errorBody(t)
			assert.Equal(t, c.code, e.Code)
			assert.NotEmpty(t, e.Message)
		})
	}
}
