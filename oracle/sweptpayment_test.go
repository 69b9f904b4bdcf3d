package oracle

import (
	"math/big"
	"net/http"
	"strconv"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/chains/evm/bindings"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/oracle/oracleapi"
)

// sweptBody is a deposit attestation request for order's deposit in tx naming payment as the
// plain transfer its sweep moved (sweptPaymentTransactionId).
func sweptBody(chainID uint64, tx, order, payment common.Hash) string {
	return `{"chainId":` + strconv.FormatUint(chainID, 10) + `,"transactionId":"` + tx.Hex() + `","orderId":"` + order.Hex() +
		`","sweptPaymentTransactionId":"` + payment.Hex() + `"}`
}

// Issue 35, point 7 (deposit addresses within 2 blocks): a sweep's deposit is attested once the
// sweep is mined in a canonical block and the payment it moved (sweptPaymentTransactionId) has
// the chain's confirmations, counted from the payment's block (docs/oracle.md, "A sweep's
// deposit"). The same deposit without the field, and with a payment that is not deep enough,
// pays another address, pays less, or pays another currency, or a deposit that is no sweep,
// waits for its own confirmations as before (TRANSACTION_NOT_CONFIRMED).
func TestASweepsDepositIsAttestedAtItsPaymentsDepth(t *testing.T) {
	tc := startChain(t, testChainID)
	ch := tc.chainConfig(3)
	ch.DepositAddressFactory = devnet.DepositAddressFactoryAddress.Hex()
	srv, hs := newTestServer(t, mustConfig(t, map[string]string{EnvAPIKeys: testAPIKey + ":engine"}), registry(t, ch), debugLogger(&syncBuffer{}))
	url := hs.URL + oracleapi.PathDepositAttestation
	key := map[string]string{oracleapi.HeaderAPIKey: testAPIKey}
	factory := bindings.NewDepositAddressFactory()
	user := crypto.PubkeyToAddress(tc.user.PublicKey)
	eth := new(big.Int).Mul(big.NewInt(12), big.NewInt(1e17)) // 1.2 ETH
	address := func(order common.Hash) common.Address {
		return evm.DepositAddress(devnet.DepositAddressFactoryAddress, devnet.DepositAddressImplementationAddress, order, user)
	}
	refused := func(t *testing.T, body, why string) {
		t.Helper()
		r := do(t, http.MethodPost, url, body, key)
		require.Equal(t, http.StatusConflict, r.status, string(r.body))
		e := r.errorBody(t)
		assert.Equal(t, oracleapi.CodeNotConfirmed, e.Code)
		assert.Contains(t, e.Message, why)
	}

	// Peers are asked with the field (the aggregation forwards the route's fields).
	for _, e := range srv.endpoints {
		if e.path == oracleapi.PathDepositAttestation {
			body := sweptBody(testChainID, common.HexToHash("0x01"), common.HexToHash("0x02"), common.HexToHash("0x03"))
			assert.Contains(t, string(e.peerRequest([]byte(body))), `"sweptPaymentTransactionId":"`+common.HexToHash("0x03").Hex()+`"`)
		}
	}

	t.Run("native", func(t *testing.T) {
		order := crypto.Keccak256Hash([]byte("swept-native"))
		da := address(order)
		payment := tc.transfer(t, da, eth)
		tc.commit(1) // the payment in block P
		less := tc.transfer(t, da, big.NewInt(1))
		other := tc.transfer(t, common.HexToAddress("0x00000000000000000000000000000000000000aa"), eth)
		// P+1: a payment of less to the address, one of as much elsewhere.
		tc.commit(1)
		// The sweep, mined in P+2.
		sweep := tc.solverCall(t, devnet.DepositAddressFactoryAddress, factory, evm.PackSweep(order, user, common.Address{}, eth), nil)

		// The head is P+2: the payment has 3 of 3 confirmations, the sweep 1.
		r := do(t, http.MethodPost, url, sweptBody(testChainID, sweep, order, payment), key)
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		att := decodeAttestation(t, r.body)
		require.Len(t, att.Messages, 1)
		m := att.Messages[0].Data
		receipt, err := tc.client.TransactionReceipt(t.Context(), sweep)
		require.NoError(t, err)
		assert.Equal(t, oracleapi.DepositData{ChainID: testChainID, Depository: tc.depository, TransactionID: sweep,
			LogIndex: m.LogIndex, BlockNumber: receipt.BlockNumber.Uint64(), BlockHash: receipt.BlockHash, OrderID: order,
			Depositor: user, Currency: common.Address{}, Amount: oracleapi.NewAmount(eth)}, m, "the same message as at the sweep's own depth")
		assert.Equal(t, srv.SignerAddress(), att.Messages[0].Signatures[0].Signer)

		// Without the field, the sweep waits for its own 3 confirmations.
		refused(t, `{"chainId":31337,"transactionId":"`+sweep.Hex()+`","orderId":"`+order.Hex()+`"}`, "1 of 3")
		// A payment of less, or to another address, does not count for it.
		refused(t, sweptBody(testChainID, sweep, order, less), "did not pay the swept address")
		refused(t, sweptBody(testChainID, sweep, order, other), "did not pay the swept address")
		// Nor does a transaction that does not exist.
		refused(t, sweptBody(testChainID, sweep, order, crypto.Keccak256Hash([]byte("none"))), "has no receipt")

		// Once the sweep has its own 3 confirmations, any answer is as without the field.
		tc.commit(2)
		r = do(t, http.MethodPost, url, sweptBody(testChainID, sweep, order, other), key)
		require.Equal(t, http.StatusOK, r.status, string(r.body))
	})

	t.Run("payment not deep enough", func(t *testing.T) {
		order := crypto.Keccak256Hash([]byte("swept-shallow"))
		payment := tc.transfer(t, address(order), eth)
		tc.commit(1)                                                                                                                    // P
		sweep := tc.solverCall(t, devnet.DepositAddressFactoryAddress, factory, evm.PackSweep(order, user, common.Address{}, eth), nil) // P+1
		refused(t, sweptBody(testChainID, sweep, order, payment), "does not have 3 confirmations")
		tc.commit(1) // P+2: the payment has its 3 confirmations, the sweep 2
		r := do(t, http.MethodPost, url, sweptBody(testChainID, sweep, order, payment), key)
		require.Equal(t, http.StatusOK, r.status, string(r.body))
	})

	t.Run("ERC-20", func(t *testing.T) {
		order := crypto.Keccak256Hash([]byte("swept-usdc"))
		da := address(order)
		usdc := bindings.NewTestUSDC()
		amount := big.NewInt(2_500_000) // 2.5 USDC
		o := tc.opts(nil)
		tx, err := bind.Transact(usdc.Instance(tc.client, devnet.USDCAddress), o, usdc.PackTransfer(da, amount))
		require.NoError(t, err)
		payment := tx.Hash()
		// A native payment of the same number to the address pays another currency.
		native := tc.transfer(t, da, amount)
		tc.commit(3) // the payments in P, then P+1 and P+2
		sweep := tc.solverCall(t, devnet.DepositAddressFactoryAddress, factory, evm.PackSweep(order, user, devnet.USDCAddress, amount), nil)
		refused(t, sweptBody(testChainID, sweep, order, native), "did not pay the swept address")
		r := do(t, http.MethodPost, url, sweptBody(testChainID, sweep, order, payment), key)
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		att := decodeAttestation(t, r.body)
		assert.Equal(t, devnet.USDCAddress, att.Messages[0].Data.Currency)
	})

	t.Run("not a sweep", func(t *testing.T) {
		order := crypto.Keccak256Hash([]byte("not-swept"))
		payment := tc.transfer(t, address(order), eth)
		tc.commit(3)
		deposit := tc.depositNative(t, order, eth)
		tc.commit(1)
		refused(t, sweptBody(testChainID, deposit, order, payment), "is not a sweep")
	})
}
