package devnet

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
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/chains/evm/bindings"
)

// startPaused runs one devnet chain without feed heartbeat and pauses its automatic blocks,
// so that the test decides every block; it returns the chain and an HTTP client of it.
func startPaused(t *testing.T, ctx context.Context) (*Chain, *ethclient.Client) {
	t.Helper()
	d, err := Start(ctx, Options{Chains: []ChainOptions{{ID: 31337}}, BlockTime: 100 * time.Millisecond,
		Logger: slog.New(slog.DiscardHandler), FeedHeartbeat: -1})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	c := d.Chain(31337)
	c.Pause()
	cl, err := c.Dial(ctx)
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return c, cl
}

// sendTx signs a transaction from key at its pending nonce and sends it over cl, without
// waiting for a block.
func sendTx(t *testing.T, ctx context.Context, cl *ethclient.Client, key *ecdsa.PrivateKey, to common.Address, value *big.Int, data []byte) *types.Transaction {
	t.Helper()
	from := crypto.PubkeyToAddress(key.PublicKey)
	nonce, err := cl.PendingNonceAt(ctx, from)
	require.NoError(t, err)
	gas, err := cl.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &to, Value: value, Data: data})
	require.NoError(t, err)
	head, err := cl.HeaderByNumber(ctx, nil)
	require.NoError(t, err)
	tip := big.NewInt(params.GWei)
	chainID := big.NewInt(31337)
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{ChainID: chainID, Nonce: nonce,
		GasTipCap: tip, GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip), Gas: gas * 12 / 10,
		To: &to, Value: value, Data: data})
	require.NoError(t, err)
	require.NoError(t, sendToPool(ctx, cl, tx))
	return tx
}

// mineUntil seals blocks on the paused chain until tx has a receipt (the pool may take a
// moment to make a sent transaction pending) and returns the receipt.
func mineUntil(t *testing.T, ctx context.Context, c *Chain, cl *ethclient.Client, tx common.Hash) *types.Receipt {
	t.Helper()
	for range 200 {
		c.Mine()
		if r, err := cl.TransactionReceipt(ctx, tx); err == nil {
			return r
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("transaction %s not mined", tx.Hex())
	return nil
}

func noReceipt(t *testing.T, ctx context.Context, cl *ethclient.Client, tx common.Hash) {
	t.Helper()
	_, err := cl.TransactionReceipt(ctx, tx)
	require.Truef(t, errors.Is(err, ethereum.NotFound), "receipt of %s: err %v, want not found", tx.Hex(), err)
}

// What the simulated backend does on its own, which Reorg builds on: Fork makes the parent the
// head at once (the orphaned transaction loses its receipt), and the pool puts the orphaned
// transaction back, so the next block on the new branch includes it again, in a block with
// another hash. A reorg alone therefore does not make a transaction disappear.
func TestSimulatedForkReincludesOrphanedTransactions(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, cl := startPaused(t, ctx)
	user := TestAccounts()[1]

	tx := sendTx(t, ctx, cl, user.Key, TestAccounts()[2].Address, big.NewInt(params.Ether), nil)
	old := mineUntil(t, ctx, c, cl, tx.Hash())
	n := old.BlockNumber.Uint64()
	parent, err := cl.HeaderByNumber(ctx, new(big.Int).SetUint64(n-1))
	require.NoError(t, err)

	c.mu.Lock()
	require.NoError(t, c.backend.Fork(parent.Hash()))
	c.mu.Unlock()
	// Over HTTP the head is the parent at once and the transaction has no receipt.
	head, err := cl.BlockNumber(ctx)
	require.NoError(t, err)
	require.Equal(t, n-1, head)
	noReceipt(t, ctx, cl, tx.Hash())

	c.Mine()
	c.Mine()
	again, err := cl.TransactionReceipt(ctx, tx.Hash())
	require.NoError(t, err, "the orphaned transaction is included again on the new branch")
	require.Equal(t, n, again.BlockNumber.Uint64())
	require.NotEqual(t, old.BlockHash, again.BlockHash)
	canonical, err := cl.HeaderByNumber(ctx, new(big.Int).SetUint64(n))
	require.NoError(t, err)
	require.Equal(t, again.BlockHash, canonical.Hash())
	head, err = cl.BlockNumber(ctx)
	require.NoError(t, err)
	require.Equal(t, n+1, head)
}

// DropTx reorgs out a deposit's block and the block after it, seen over HTTP: the numbers get
// new hashes, the chain is one block longer, the deposit has no receipt, no transaction lookup
// and no Deposit log any more (its nonce went to a replacement, so it can never come back),
// while the other orphaned transaction and one that waited in the pool are on the new branch.
func TestDropTxMakesATransactionDisappear(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, cl := startPaused(t, ctx)
	depositor, other := TestAccounts()[1], TestAccounts()[2]
	orderID := common.HexToHash("0x0d0d")
	amount := big.NewInt(params.Ether)

	deposit := sendTx(t, ctx, cl, depositor.Key, DepositoryAddress, amount, bindings.NewDepository().PackDepositNative(orderID))
	depReceipt := mineUntil(t, ctx, c, cl, deposit.Hash())
	require.Len(t, depReceipt.Logs, 1)
	transfer := sendTx(t, ctx, cl, other.Key, TestAccounts()[3].Address, big.NewInt(1), nil)
	trReceipt := mineUntil(t, ctx, c, cl, transfer.Hash())
	waiting := sendTx(t, ctx, cl, other.Key, TestAccounts()[3].Address, big.NewInt(2), nil)

	oldHead, err := cl.HeaderByNumber(ctx, nil)
	require.NoError(t, err)
	first := depReceipt.BlockNumber.Uint64()
	oldHashes := map[uint64]common.Hash{}
	for n := first; n <= oldHead.Number.Uint64(); n++ {
		h, err := cl.HeaderByNumber(ctx, new(big.Int).SetUint64(n))
		require.NoError(t, err)
		oldHashes[n] = h.Hash()
	}

	start := time.Now()
	r, err := c.DropTx(ctx, deposit.Hash())
	require.NoError(t, err)
	t.Logf("reorged %d block(s) in %s", len(r.Orphaned), time.Since(start))
	depth := oldHead.Number.Uint64() - first + 1
	require.Len(t, r.Orphaned, int(depth))
	require.Equal(t, first-1, r.Ancestor.Number.Uint64())
	require.Equal(t, oldHead.Number.Uint64()+1, r.Head.Number.Uint64())

	// The canonical chain changed under the HTTP client.
	head, err := cl.HeaderByNumber(ctx, nil)
	require.NoError(t, err)
	require.Equal(t, r.Head.Hash(), head.Hash())
	for n, old := range oldHashes {
		h, err := cl.HeaderByNumber(ctx, new(big.Int).SetUint64(n))
		require.NoError(t, err)
		require.NotEqual(t, old, h.Hash(), "block %d", n)
	}

	// The deposit is gone for good.
	noReceipt(t, ctx, cl, deposit.Hash())
	_, _, err = cl.TransactionByHash(ctx, deposit.Hash())
	require.ErrorIs(t, err, ethereum.NotFound, "the dropped deposit is not in the pool either")
	logs, err := cl.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: big.NewInt(0), Addresses: []common.Address{DepositoryAddress},
		Topics: [][]common.Hash{nil, {orderID}}})
	require.NoError(t, err)
	require.Empty(t, logs)
	rep, err := cl.TransactionReceipt(ctx, r.Replacements[deposit.Hash()])
	require.NoError(t, err)
	require.Equal(t, first, rep.BlockNumber.Uint64(), "the replacement is in the new branch's first block")
	repTx, _, err := cl.TransactionByHash(ctx, rep.TxHash)
	require.NoError(t, err)
	require.Equal(t, deposit.Nonce(), repTx.Nonce())
	nonce, err := cl.NonceAt(ctx, depositor.Address, nil)
	require.NoError(t, err)
	require.Equal(t, deposit.Nonce()+1, nonce)

	// The other orphaned transaction is included again, in another block; the waiting one too.
	tr, err := cl.TransactionReceipt(ctx, transfer.Hash())
	require.NoError(t, err)
	require.NotEqual(t, trReceipt.BlockHash, tr.BlockHash)
	_, err = cl.TransactionReceipt(ctx, waiting.Hash())
	require.NoError(t, err)

	// The chain goes on on the new branch.
	c.Mine()
	next, err := cl.HeaderByNumber(ctx, nil)
	require.NoError(t, err)
	require.Equal(t, r.Head.Hash(), next.ParentHash)
}

func TestReorgRejectsBadOptions(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, cl := startPaused(t, ctx)
	head, err := cl.BlockNumber(ctx)
	require.NoError(t, err)

	_, err = c.Reorg(ctx, ReorgOptions{Depth: 0})
	require.ErrorContains(t, err, "depth 0")
	_, err = c.Reorg(ctx, ReorgOptions{Depth: int(head) + 1})
	require.ErrorContains(t, err, "depth")
	_, err = c.Reorg(ctx, ReorgOptions{Depth: 1, Drop: []common.Hash{{1}}})
	require.ErrorContains(t, err, "not in the 1 orphaned blocks")

	// A transaction from an account the devnet has no key for cannot be replaced.
	stranger, err := crypto.GenerateKey()
	require.NoError(t, err)
	fund := sendTx(t, ctx, cl, TestAccounts()[1].Key, crypto.PubkeyToAddress(stranger.PublicKey), big.NewInt(params.Ether), nil)
	mineUntil(t, ctx, c, cl, fund.Hash())
	tx := sendTx(t, ctx, cl, stranger, TestAccounts()[1].Address, big.NewInt(1), nil)
	mineUntil(t, ctx, c, cl, tx.Hash())
	_, err = c.DropTx(ctx, tx.Hash())
	require.ErrorContains(t, err, "not a devnet account")

	// A plain reorg without drops keeps every transaction.
	before, err := cl.BlockNumber(ctx)
	require.NoError(t, err)
	r, err := c.Reorg(ctx, ReorgOptions{Depth: 2, Length: 4})
	require.NoError(t, err)
	require.Equal(t, before+2, r.Head.Number.Uint64())
	// The pool takes orphaned transactions back asynchronously, so the new branch may be sealed
	// before it has; the transaction must still be mined, on the next block at the latest.
	mineUntil(t, ctx, c, cl, tx.Hash())
}
