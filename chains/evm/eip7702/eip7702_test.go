package eip7702_test

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"log/slog"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/chains/evm/bindings"
	"github.com/intentd/intentd/chains/evm/eip7702"
	"github.com/intentd/intentd/devnet"
)

const chainID = 31337

// startChain runs one devnet chain that seals blocks only when the test says so.
func startChain(t *testing.T) *devnet.Chain {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := devnet.Start(ctx, devnet.Options{Chains: []devnet.ChainOptions{{ID: chainID}}, BlockTime: time.Hour,
		FeedHeartbeat: -1, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	return d.Chain(chainID)
}

// mined seals blocks until tx is included and returns its receipt.
func mined(t *testing.T, ctx context.Context, c *devnet.Chain, tx *types.Transaction) *types.Receipt {
	t.Helper()
	for range 100 {
		c.Mine()
		if r, err := c.Client().TransactionReceipt(ctx, tx.Hash()); err == nil {
			return r
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("tx %s not mined", tx.Hash().Hex())
	return nil
}

// sendPlain sends an ordinary dynamic-fee call from key and returns its receipt.
func sendPlain(t *testing.T, ctx context.Context, c *devnet.Chain, key *ecdsa.PrivateKey, to common.Address, data []byte, gas uint64) *types.Receipt {
	t.Helper()
	return sendValue(t, ctx, c, key, to, nil, data, gas)
}

// sendValue is sendPlain with value wei attached.
func sendValue(t *testing.T, ctx context.Context, c *devnet.Chain, key *ecdsa.PrivateKey, to common.Address, value *big.Int, data []byte, gas uint64) *types.Receipt {
	t.Helper()
	cl := c.Client()
	from := crypto.PubkeyToAddress(key.PublicKey)
	nonce, err := cl.PendingNonceAt(ctx, from)
	require.NoError(t, err)
	head, err := cl.HeaderByNumber(ctx, nil)
	require.NoError(t, err)
	tip := big.NewInt(1e9)
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(big.NewInt(chainID)), &types.DynamicFeeTx{
		ChainID: big.NewInt(chainID), Nonce: nonce, GasTipCap: tip,
		GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip),
		Gas:       gas, To: &to, Value: value, Data: data,
	})
	require.NoError(t, err)
	require.NoError(t, cl.SendTransaction(ctx, tx))
	return mined(t, ctx, c, tx)
}

// revertName decodes the BatchExecutor custom error an estimate or call failed with.
func revertName(t *testing.T, err error) string {
	t.Helper()
	require.Error(t, err)
	var de rpc.DataError
	require.True(t, errors.As(err, &de), "no revert data in %v", err)
	s, ok := de.ErrorData().(string)
	require.True(t, ok, "revert data %v", de.ErrorData())
	raw, err2 := hexutil.Decode(s)
	require.NoError(t, err2)
	e, err2 := bindings.NewBatchExecutor().UnpackError(raw)
	require.NoError(t, err2, "not a BatchExecutor error: %s (%v)", s, err)
	switch e.(type) {
	case *bindings.BatchExecutorInvalidSignature:
		return "InvalidSignature"
	case *bindings.BatchExecutorNonceUsed:
		return "NonceUsed"
	case *bindings.BatchExecutorExpired:
		return "Expired"
	case *bindings.BatchExecutorUnauthorized:
		return "Unauthorized"
	}
	t.Fatalf("unexpected error %T", e)
	return ""
}

func balance(t *testing.T, ctx context.Context, c *devnet.Chain, a common.Address) *big.Int {
	t.Helper()
	b, err := c.Client().BalanceAt(ctx, a, nil)
	require.NoError(t, err)
	return b
}

func usdcBalance(t *testing.T, ctx context.Context, c *devnet.Chain, a common.Address) *big.Int {
	t.Helper()
	u := bindings.NewTestUSDC()
	out, err := c.Client().CallContract(ctx, ethereum.CallMsg{To: &devnet.USDCAddress, Data: u.PackBalanceOf(a)}, nil)
	require.NoError(t, err)
	v, err := u.UnpackBalanceOf(out)
	require.NoError(t, err)
	return v
}

// TestGaslessDeposit is issue 37's flow on a devnet chain: a user with no ETH delegates to
// BatchExecutor and signs [approve, depositErc20]; the relayer sends one type-4 transaction; the
// Depository records the user as depositor. Then the failure cases on the same delegated account.
func TestGaslessDeposit(t *testing.T) {
	ctx := context.Background()
	c := startChain(t)
	cl := c.Client()

	user, err := crypto.GenerateKey()
	require.NoError(t, err)
	userAddr := crypto.PubkeyToAddress(user.PublicKey)
	const funded = 50_000_000 // 50 USDC
	funder := devnet.TestAccounts()[0]
	r := sendPlain(t, ctx, c, funder.Key, devnet.USDCAddress, bindings.NewTestUSDC().PackTransfer(userAddr, big.NewInt(funded)), 200_000)
	require.Equal(t, types.ReceiptStatusSuccessful, r.Status)
	require.Zero(t, balance(t, ctx, c, userAddr).Sign(), "the user holds no ETH")

	head, err := cl.HeaderByNumber(ctx, nil)
	require.NoError(t, err)
	deadline := new(big.Int).SetUint64(head.Time + 3600)
	amount := big.NewInt(20_000_000)
	orderID := crypto.Keccak256Hash([]byte("order 37"))
	batch := []eip7702.Call{
		{To: devnet.USDCAddress, Data: bindings.NewTestUSDC().PackApprove(devnet.DepositoryAddress, amount)},
		{To: devnet.DepositoryAddress, Data: bindings.NewDepository().PackDepositErc20(orderID, devnet.USDCAddress, amount)},
	}

	// The Go digest is the contract's (called on the deployment, whose address stands in for
	// the account).
	be := bindings.NewBatchExecutor()
	bex := devnet.BatchExecutorAddress()
	callsB := []bindings.BatchExecutorCall{{To: batch[0].To, Value: new(big.Int), Data: batch[0].Data}, {To: batch[1].To, Value: new(big.Int), Data: batch[1].Data}}
	out, err := cl.CallContract(ctx, ethereum.CallMsg{To: &bex, Data: be.PackDigest(callsB, big.NewInt(7), deadline)}, nil)
	require.NoError(t, err)
	want, err := be.UnpackDigest(out)
	require.NoError(t, err)
	require.Equal(t, common.Hash(want), eip7702.Digest(chainID, bex, batch, big.NewInt(7), deadline))

	userNonce, err := cl.PendingNonceAt(ctx, userAddr)
	require.NoError(t, err)
	auth, err := eip7702.SignAuthorization(user, chainID, bex, userNonce)
	require.NoError(t, err)
	data, err := eip7702.SignedExecuteCalldata(user, chainID, batch, big.NewInt(1), deadline)
	require.NoError(t, err)

	relayerBefore := balance(t, ctx, c, devnet.RelayerAddress())
	tx, err := eip7702.SendSetCodeTx(ctx, cl, devnet.RelayerKey(), chainID, userAddr, data, nil, []types.SetCodeAuthorization{auth})
	require.NoError(t, err)
	require.Equal(t, uint8(types.SetCodeTxType), tx.Type())
	r = mined(t, ctx, c, tx)
	require.Equal(t, types.ReceiptStatusSuccessful, r.Status)

	var deposits []*bindings.DepositoryDeposit
	for _, l := range r.Logs {
		if l.Address == devnet.DepositoryAddress {
			ev, err := bindings.NewDepository().UnpackDepositEvent(l)
			require.NoError(t, err)
			deposits = append(deposits, ev)
		}
	}
	require.Len(t, deposits, 1)
	require.Equal(t, userAddr, deposits[0].Depositor, "the user, not the relayer, is the depositor")
	require.Equal(t, [32]byte(orderID), deposits[0].OrderId)
	require.Equal(t, devnet.USDCAddress, deposits[0].Currency)
	require.Equal(t, amount, deposits[0].Amount)
	require.Equal(t, big.NewInt(funded-20_000_000), usdcBalance(t, ctx, c, userAddr))
	require.Zero(t, balance(t, ctx, c, userAddr).Sign(), "the user paid no gas")
	require.Equal(t, -1, balance(t, ctx, c, devnet.RelayerAddress()).Cmp(relayerBefore), "the relayer paid the gas")

	code, err := cl.CodeAt(ctx, userAddr, nil)
	require.NoError(t, err)
	require.Equal(t, append([]byte{0xef, 0x01, 0x00}, bex.Bytes()...), code, "the account is delegated to BatchExecutor")
	out, err = cl.CallContract(ctx, ethereum.CallMsg{To: &userAddr, Data: be.PackNonceUsed(big.NewInt(1))}, nil)
	require.NoError(t, err)
	used, err := be.UnpackNonceUsed(out)
	require.NoError(t, err)
	require.True(t, used)

	// Helpers for the failure cases: the account is delegated now, so an authorization is only
	// needed by SendSetCodeTx's type; a fresh one at the account's current nonce is harmless.
	relay := func(data []byte) error {
		n, err := cl.PendingNonceAt(ctx, userAddr)
		require.NoError(t, err)
		auth, err := eip7702.SignAuthorization(user, chainID, bex, n)
		require.NoError(t, err)
		_, err = eip7702.SendSetCodeTx(ctx, cl, devnet.RelayerKey(), chainID, userAddr, data, nil, []types.SetCodeAuthorization{auth})
		return err
	}
	small := []eip7702.Call{{To: devnet.USDCAddress, Data: bindings.NewTestUSDC().PackApprove(devnet.DepositoryAddress, big.NewInt(1))}}

	t.Run("replay", func(t *testing.T) {
		require.Equal(t, "NonceUsed", revertName(t, relay(data)))
	})
	t.Run("other signer", func(t *testing.T) {
		other, err := crypto.GenerateKey()
		require.NoError(t, err)
		sig, err := eip7702.SignBatch(other, chainID, small, big.NewInt(2), deadline)
		require.NoError(t, err)
		require.Equal(t, "InvalidSignature", revertName(t, relay(eip7702.ExecuteCalldata(small, big.NewInt(2), deadline, sig))))
	})
	t.Run("tampered calls", func(t *testing.T) {
		sig, err := eip7702.SignBatch(user, chainID, small, big.NewInt(3), deadline)
		require.NoError(t, err)
		changed := []eip7702.Call{{To: devnet.USDCAddress, Data: bindings.NewTestUSDC().PackApprove(devnet.RelayerAddress(), big.NewInt(1))}}
		require.Equal(t, "InvalidSignature", revertName(t, relay(eip7702.ExecuteCalldata(changed, big.NewInt(3), deadline, sig))))
	})
	t.Run("other chain", func(t *testing.T) {
		d, err := eip7702.SignedExecuteCalldata(user, chainID+1, small, big.NewInt(4), deadline)
		require.NoError(t, err)
		require.Equal(t, "InvalidSignature", revertName(t, relay(d)))
	})
	t.Run("expired", func(t *testing.T) {
		head, err := cl.HeaderByNumber(ctx, nil)
		require.NoError(t, err)
		past := new(big.Int).SetUint64(head.Time - 1)
		d, err := eip7702.SignedExecuteCalldata(user, chainID, small, big.NewInt(5), past)
		require.NoError(t, err)
		require.Equal(t, "Expired", revertName(t, relay(d)))
	})
	t.Run("stranger calls the unsigned execute", func(t *testing.T) {
		stranger := devnet.TestAccounts()[1]
		self := eip7702.SelfExecuteCalldata(small)
		_, err := cl.EstimateGas(ctx, ethereum.CallMsg{From: stranger.Address, To: &userAddr, Data: self})
		require.Equal(t, "Unauthorized", revertName(t, err))
		// Sent anyway, with a fixed gas limit, it reverts on chain.
		r := sendPlain(t, ctx, c, stranger.Key, userAddr, self, 200_000)
		require.Equal(t, types.ReceiptStatusFailed, r.Status)
	})
	t.Run("a failing call reverts the batch with its reason", func(t *testing.T) {
		tooMuch := []eip7702.Call{
			{To: devnet.USDCAddress, Data: bindings.NewTestUSDC().PackApprove(devnet.DepositoryAddress, big.NewInt(1))},
			{To: devnet.DepositoryAddress, Data: bindings.NewDepository().PackDepositErc20(orderID, devnet.USDCAddress, big.NewInt(0))},
		}
		d, err := eip7702.SignedExecuteCalldata(user, chainID, tooMuch, big.NewInt(6), deadline)
		require.NoError(t, err)
		err = relay(d)
		var de rpc.DataError
		require.True(t, errors.As(err, &de), "no revert data in %v", err)
		zeroAmount := crypto.Keccak256([]byte("ZeroAmount()"))[:4]
		require.Equal(t, hexutil.Encode(zeroAmount), de.ErrorData(), "the Depository's own error bubbles up")
	})
	t.Run("the account still receives ETH and runs its own batch", func(t *testing.T) {
		r := sendValue(t, ctx, c, funder.Key, userAddr, big.NewInt(1e18), nil, 100_000)
		require.Equal(t, types.ReceiptStatusSuccessful, r.Status, "receive() accepts plain transfers")
		require.Equal(t, big.NewInt(1e18), balance(t, ctx, c, userAddr))
		before := usdcBalance(t, ctx, c, userAddr)
		own := []eip7702.Call{{To: devnet.USDCAddress, Data: bindings.NewTestUSDC().PackTransfer(funder.Address, big.NewInt(1))}}
		r = sendPlain(t, ctx, c, user, userAddr, eip7702.SelfExecuteCalldata(own), 300_000)
		require.Equal(t, types.ReceiptStatusSuccessful, r.Status, "the account may call its own unsigned execute")
		require.Equal(t, new(big.Int).Sub(before, big.NewInt(1)), usdcBalance(t, ctx, c, userAddr))
	})
}
