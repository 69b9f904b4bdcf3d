package activities

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/oracle/oracleapi"
)

// paymentHash is the plain transfer to a deposit address that the sweep of these tests (the
// deposit 0x7a of block 100, attestIn) moved; it was seen in block 99.
var paymentHash = common.HexToHash("0x9a").Hex()

func sweptIn() AttestInput {
	in := attestIn(seenBlock.Hash)
	in.SweptPayment = &SweptPayment{TxHash: paymentHash, BlockNumber: 99, BlockHash: common.HexToHash("0xb099").Hex()}
	return in
}

// Issue 35, point 7 (docs/deposit-addresses.md, "Confirmations of a sweep's deposit"): a sweep's
// deposit is relied on once the payment it moved has the chain's confirmations, counted from the
// payment's block, and the sweep itself is mined; the oracle is asked to count so too
// (sweptPaymentTransactionId). The sweep of block 100 moved a payment of block 99; with 2
// confirmations the oracle is asked once, at head 100 (the sweep's block), where a deposit of
// its own needs head 101 (TestAttestDepositAsksTheOracleOnceTheEnginesHeadGivesTheConfirmations).
func TestASweepsDepositIsReliedOnAtItsPaymentsDepth(t *testing.T) {
	msg := depositMsg(seenHash, 3, orderID, 1000)
	att, signer := signedAttestation(t, msg)
	c := &risingChain{fakeChain: fakeChain{head: 99, hashes: map[uint64]string{100: seenBlock.Hash},
		mined: &chains.Block{Number: 100, Hash: seenBlock.Hash}, confirms: 2}}
	c.seen.Store(98)
	var heads []uint64
	var bodies []oracleapi.DepositAttestationRequest
	var mu sync.Mutex
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req oracleapi.DepositAttestationRequest
		require.NoError(t, json.NewDecoder(r.Body).Decode(&req))
		mu.Lock()
		heads, bodies = append(heads, c.SeenHead()), append(bodies, req)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(att)
	}))
	t.Cleanup(hs.Close)
	a := &OracleActivities{Client: oracleapi.NewClient(hs.URL, "", nil), Signers: []string{signer.Hex()},
		chain: func(uint64) (depositChain, error) { return c, nil }}
	res, _, err := runAttest(t, a, sweptIn(), nil)
	require.NoError(t, err)
	require.Equal(t, signer.Hex(), res.Signer)
	require.Equal(t, []uint64{100}, heads, "the engine's head at each request to the oracle")
	require.NotNil(t, bodies[0].SweptPaymentTransactionID)
	require.Equal(t, paymentHash, bodies[0].SweptPaymentTransactionID.Hex())

	// The payment's depth never relies on a sweep not yet mined: a payment of block 90, deep
	// enough at head 99, still waits for the sweep's block 100.
	w := a.newDepositWait(context.Background(), sweptIn())
	w.in.SweptPayment.BlockNumber = 90
	c.seen.Store(99)
	_, deep, err := w.deepEnough(context.Background(), 100)
	require.NoError(t, err)
	require.False(t, deep, "the sweep of block 100 is not mined at head 99")
	require.True(t, w.early())
	c.seen.Store(100)
	_, deep, err = w.deepEnough(context.Background(), 100)
	require.NoError(t, err)
	require.True(t, deep, "mined, and its payment of block 90 deep enough")
	require.False(t, w.early())
}

// txChain is a fakeChain that answers TxBlock and TxKnown per transaction.
type txChain struct {
	fakeChain
	txs map[string]*chains.Block
}

func (c *txChain) TxBlock(_ context.Context, tx string) (chains.Block, error) {
	if b := c.txs[strings.ToLower(tx)]; b != nil {
		return *b, nil
	}
	return chains.Block{}, chains.ErrNotFound
}
func (c *txChain) TxKnown(_ context.Context, tx string) (bool, error) {
	return c.txs[strings.ToLower(tx)] != nil, nil
}

// Issue 35, point 7: with a sweep's deposit counted from its payment's block, a payment a reorg
// removed is the deposit's reorg (DEPOSIT_REORGED) while the oracle refuses, even when the
// sweep is still mined; a payment still in its block, or moved to another, is waited for.
func TestASweepsPaymentReorgedAwayIsTheDepositsReorg(t *testing.T) {
	sweep := &chains.Block{Number: 100, Hash: seenBlock.Hash}
	chainOf := func(c depositChain) func(uint64) (depositChain, error) {
		return func(uint64) (depositChain, error) { return c, nil }
	}
	t.Run("the payment gone: DEPOSIT_REORGED", func(t *testing.T) {
		c := &txChain{fakeChain: fakeChain{head: 102, hashes: map[uint64]string{99: otherBlock, 100: seenBlock.Hash}, confirms: 2},
			txs: map[string]*chains.Block{strings.ToLower(common.HexToHash("0x7a").Hex()): sweep}}
		a := &OracleActivities{Client: oracleStub(t, http.StatusConflict, oracleapi.CodeNotConfirmed, nil), chain: chainOf(c)}
		_, _, err := runAttest(t, a, sweptIn(), nil)
		require.True(t, isReorged(err), "err %v", err)
	})
	t.Run("the payment and the sweep gone: DEPOSIT_REORGED", func(t *testing.T) {
		c := &txChain{fakeChain: fakeChain{head: 102, hashes: map[uint64]string{99: otherBlock, 100: otherBlock}, confirms: 2}}
		a := &OracleActivities{Client: oracleStub(t, http.StatusNotFound, oracleapi.CodeTransactionNotFound, nil), chain: chainOf(c)}
		_, _, err := runAttest(t, a, sweptIn(), nil)
		require.True(t, isReorged(err), "err %v", err)
	})
	t.Run("the payment in another block: waits", func(t *testing.T) {
		c := &txChain{fakeChain: fakeChain{head: 102, hashes: map[uint64]string{99: otherBlock, 100: seenBlock.Hash}, confirms: 2},
			txs: map[string]*chains.Block{strings.ToLower(common.HexToHash("0x7a").Hex()): sweep,
				strings.ToLower(paymentHash): {Number: 100, Hash: seenBlock.Hash}}}
		a := &OracleActivities{Client: oracleStub(t, http.StatusConflict, oracleapi.CodeNotConfirmed, nil), chain: chainOf(c)}
		res, why, _, err := checkOnce(t, a, sweptIn(), Sighting{})
		require.NoError(t, err)
		require.Nil(t, res)
		require.NotEmpty(t, why)
	})
}
