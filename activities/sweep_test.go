package activities

import (
	"bytes"
	"context"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
)

// noBroadcasts is a JSON-RPC proxy that passes every call but a broadcast, which it answers
// with a 503: a worker whose process dies right after it kept a transaction, before the
// transaction left it.
func noBroadcasts(t *testing.T, target string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil || bytes.Contains(body, []byte("eth_sendRawTransaction")) {
			http.Error(w, "the worker died", http.StatusServiceUnavailable)
			return
		}
		resp, err := http.Post(target, "application/json", bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// Issue 35, point 6: "a sweep happens once whatever crashes (kill the worker between sweep and
// fill)". A user pays a deposit address on the devnet with a plain ETH transfer. A first worker
// signs the request's sweep and keeps it, and dies before the sweep leaves it (its node refuses
// the broadcast): the chain has not seen it. The restarted worker's SweepDepositAddress finds
// the kept sweep and broadcasts the same transaction, at the same nonce; a retry after that
// does too. One sweep is mined, one solver transaction of kind sweep is kept, the factory's
// Swept event is emitted once, and AwaitSweep returns the depository's deposit it made: the
// address's order, in its depositor's name, the whole payment.
func TestASweepKeptBeforeAWorkerDiedIsSentOnceByTheNext(t *testing.T) {
	ctx := context.Background()
	restarted, chain, pool := solverOnDevnet(t, 250*time.Millisecond)
	reg, err := restarted.Families.Registry().Get(31338)
	require.NoError(t, err)
	// The first worker reaches the chain through a node that never takes its broadcasts.
	crashedChain := *reg
	crashedChain.HTTPRPCURL = noBroadcasts(t, reg.HTTPRPCURL)
	crashedReg, err := chains.NewRegistry([]chains.Chain{crashedChain})
	require.NoError(t, err)
	cs := chains.NewClients(crashedReg, evm.VM())
	crashed := &ChainActivities{Families: chains.NewFamilies(cs, map[chains.VMType]chains.Payout{
		chains.VMTypeEVM: evm.NewPayout(cs, store.New(pool), devnet.SolverKey())})}

	c, err := chain.Dial(ctx)
	require.NoError(t, err)
	defer c.Close()
	user := devnet.TestAccounts()[3]
	order, depositor := crypto.Keccak256Hash([]byte("swept once")), user.Address
	addr := evm.DepositAddress(devnet.DepositAddressFactoryAddress, devnet.DepositAddressImplementationAddress, order, depositor)
	paid := big.NewInt(params.Ether / 4)
	nonce, err := c.PendingNonceAt(ctx, user.Address)
	require.NoError(t, err)
	head, err := c.HeaderByNumber(ctx, nil)
	require.NoError(t, err)
	tip := big.NewInt(params.GWei)
	payment, err := types.SignNewTx(user.Key, types.LatestSignerForChainID(big.NewInt(31338)), &types.DynamicFeeTx{ChainID: big.NewInt(31338),
		Nonce: nonce, GasTipCap: tip, GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip), Gas: 21_000,
		To: &addr, Value: paid})
	require.NoError(t, err)
	require.NoError(t, c.SendTransaction(ctx, payment))
	require.Eventually(t, func() bool { _, err = c.TransactionReceipt(ctx, payment.Hash()); return err == nil }, 10*time.Second, 50*time.Millisecond)

	requestID := crypto.Keccak256Hash([]byte("swept once request")).Hex()
	_, err = pool.Exec(ctx, `INSERT INTO requests (id, status, "user", recipient, origin_chain_id, destination_chain_id, order_id, record)
		VALUES ($1, 'waiting', $2, $2, 31338, 31337, $3, '{}')`, requestID, strings.ToLower(user.Address.Hex()), order.Hex())
	require.NoError(t, err)
	in := SweepInput{RequestID: requestID, ChainID: 31338, Family: chains.VMTypeEVM, Address: addr.Hex(), OrderID: order.Hex(),
		Depositor: depositor.Hex(), Currency: chains.NativeAddress, Amount: paid.String()}

	solverNonce, err := c.NonceAt(ctx, crypto.PubkeyToAddress(devnet.SolverKey().PublicKey), nil)
	require.NoError(t, err)
	_, err = crashed.SweepDepositAddress(ctx, in)
	require.Error(t, err, "the first worker's broadcast")
	require.Empty(t, failReasonOf(err), "a broadcast that failed is retried, not a failure of the request")
	kept, err := store.New(pool).SolverTx(ctx, requestID, intent.TxKindSweep)
	require.NoError(t, err, "the sweep is kept before its broadcast")
	require.Equal(t, solverNonce, kept.Nonce)
	_, _, err = c.TransactionByHash(ctx, common.HexToHash(kept.Hash))
	require.Error(t, err, "the chain saw the sweep the first worker kept")

	sent, err := restarted.SweepDepositAddress(ctx, in)
	require.NoError(t, err)
	require.Equal(t, kept.Hash, sent.TxHash, "the restarted worker signed another sweep")
	again, err := restarted.SweepDepositAddress(ctx, in)
	require.NoError(t, err)
	require.Equal(t, kept.Hash, again.TxHash)

	swept, err := restarted.AwaitSweep(ctx, AwaitSweepInput{Sweep: in, TxHash: sent.TxHash})
	require.NoError(t, err)
	require.True(t, swept.Included.Success)
	require.NotNil(t, swept.Deposit, "the deposit the sweep made")
	dep := *swept.Deposit
	require.Equal(t, kept.Hash, strings.ToLower(dep.TxHash))
	require.Equal(t, addr.Hex(), dep.SweptFrom)
	require.True(t, strings.EqualFold(order.Hex(), dep.OrderID))
	require.Equal(t, depositor.Hex(), dep.Depositor)
	require.Equal(t, paid.String(), dep.Amount)
	require.Equal(t, uint64(31338), dep.ChainID)

	var rows int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM solver_transactions WHERE request_id = $1`, requestID).Scan(&rows))
	require.Equal(t, 1, rows, "solver transactions of the request")
	after, err := c.NonceAt(ctx, crypto.PubkeyToAddress(devnet.SolverKey().PublicKey), nil)
	require.NoError(t, err)
	require.Equal(t, solverNonce+1, after, "the solver's transactions on the chain")
	sweptEvent := evm.DepositAddressFactoryABI.GetABI().Events["Swept"].ID
	logs, err := c.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: big.NewInt(0), Addresses: []common.Address{devnet.DepositAddressFactoryAddress},
		Topics: [][]common.Hash{{sweptEvent}, {order}}})
	require.NoError(t, err)
	require.Len(t, logs, 1, "Swept events of the order")
	balance, err := c.BalanceAt(ctx, addr, nil)
	require.NoError(t, err)
	require.Zero(t, balance.Sign(), "left at the address")
}
