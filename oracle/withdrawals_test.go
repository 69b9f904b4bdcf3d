package oracle

import (
	"math/big"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/oracle/oracleapi"
)

// Issue 33, point 3 (review M3): "the oracle refuses to attest a withdrawal for an order
// already filled or refunded; engine refunds and depository withdrawals share one once-only id".
// Over HTTP, with the oracle's error shape {message, code}: a deposit whose order was filled on
// another of the oracle's chains is 409 ORDER_ALREADY_FILLED; a deposit the engine refunded,
// under the deposit's withdrawal id as it now does or, for a deposit no order took, under the
// refund id it used before, is 409 ALREADY_WITHDRAWN; a deposit neither filled nor refunded is
// authorized.
func TestWithdrawalInitiationIsRefusedForAFilledOrRefundedOrder(t *testing.T) {
	origin := startChain(t, testChainID)
	destination := startChain(t, testChainID+1)
	dest := destination.chainConfig(1)
	dest.Depository = "" // the destination only fills
	_, hs := newTestServer(t, mustConfig(t, map[string]string{EnvRateLimitMax: "1000"}), registry(t, origin.chainConfig(1), dest), nil)
	user := crypto.PubkeyToAddress(origin.user.PublicKey)
	// logIndex is the deposit's log in its block: the deposits share one.
	logIndex := func(tx common.Hash) uint64 {
		r, err := origin.client.TransactionReceipt(t.Context(), tx)
		require.NoError(t, err)
		return uint64(r.Logs[0].Index)
	}
	initiation := func(tx common.Hash) string {
		return jsonBody(t, oracleapi.WithdrawalInitiationRequest{ChainID: testChainID, TransactionID: tx, LogIndex: logIndex(tx)})
	}
	order := func(name string) common.Hash { return crypto.Keccak256Hash([]byte(name)) }

	filled, refunded, legacy, open := order("filled"), order("refunded"), order("orphan refunded before"), order("open")
	nonce, err := origin.client.PendingNonceAt(t.Context(), user)
	require.NoError(t, err)
	var txs []common.Hash
	for i, o := range []common.Hash{filled, refunded, legacy, open} {
		txs = append(txs, origin.depositNativeAt(t, o, big.NewInt(1e18), new(big.Int).SetUint64(nonce+uint64(i))))
	}
	// Every deposit in the node's pool before the block is sealed (it promotes them in the background).
	require.Eventually(t, func() bool {
		pending, err := origin.client.PendingNonceAt(t.Context(), user)
		return err == nil && pending == nonce+4
	}, 10*time.Second, 5*time.Millisecond)
	origin.commit(1)
	for _, tx := range txs {
		attested[oracleapi.WithdrawalInitiationData](t, hs.URL, oracleapi.PathWithdrawalInitiation, initiation(tx), nil, origin.depository)
	}

	// The solver fills the first order on the destination chain.
	destination.solverCall(t, devnet.OutputSettlerAddress, outputSettlerABI, outputSettlerABI.PackFillNative(filled, user), big.NewInt(9e17))
	refusedWith(t, hs.URL, oracleapi.PathWithdrawalInitiation, initiation(txs[0]), nil, http.StatusConflict, oracleapi.CodeOrderAlreadyFilled)

	// The engine refunds the second deposit under its withdrawal id (activities.RefundInput names its deposit).
	id := oracleapi.WithdrawalIDOf(testChainID, origin.depository, txs[1], logIndex(txs[1]))
	origin.solverCall(t, origin.depository, depositoryABI, depositoryABI.PackWithdraw(id, common.Address{}, user, big.NewInt(1e18)), nil)
	refusedWith(t, hs.URL, oracleapi.PathWithdrawalInitiation, initiation(txs[1]), nil, http.StatusConflict, oracleapi.CodeAlreadyWithdrawn)

	// The third, a deposit no order took, was refunded as its own request before that, under
	// keccak256("intentd.refund:" ‖ requestId).
	old := intent.RefundID(intent.DepositRefundRequestID(testChainID, txs[2].Hex(), uint(logIndex(txs[2]))))
	origin.solverCall(t, origin.depository, depositoryABI, depositoryABI.PackWithdraw(old, common.Address{}, user, big.NewInt(1e18)), nil)
	refusedWith(t, hs.URL, oracleapi.PathWithdrawalInitiation, initiation(txs[2]), nil, http.StatusConflict, oracleapi.CodeAlreadyWithdrawn)

	// The last can still be paid back: it is authorized, under the id a refund would spend.
	att := attested[oracleapi.WithdrawalInitiationData](t, hs.URL, oracleapi.PathWithdrawalInitiation, initiation(txs[3]), nil, origin.depository)
	require.Equal(t, oracleapi.WithdrawalIDOf(testChainID, origin.depository, txs[3], logIndex(txs[3])), att.Messages[0].Data.WithdrawalID)
}
