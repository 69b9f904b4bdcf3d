package activities

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/jackc/pgx/v5/pgxpool"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/metrics"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// runSubmitFill runs SubmitFill as the worker would, in an activity environment of its own.
func runSubmitFill(a *ChainActivities, in FillInput) (*FillSubmitted, error) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(a)
	val, err := env.ExecuteActivity(a.SubmitFill, in)
	if err != nil {
		return nil, err
	}
	var out FillSubmitted
	return &out, val.Get(&out)
}

// solverOnDevnet runs a devnet chain 31338 sealing a block every blockTime and the solver's
// activities on it, with a test database.
func solverOnDevnet(t *testing.T, blockTime time.Duration) (*ChainActivities, *devnet.Chain, *pgxpool.Pool) {
	t.Helper()
	d, err := devnet.Start(context.Background(), devnet.Options{Chains: []devnet.ChainOptions{{ID: 31338}}, BlockTime: blockTime,
		Logger: slog.New(slog.DiscardHandler), FeedHeartbeat: -1})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	reg, err := d.Registry()
	require.NoError(t, err)
	pool := testenv.Pool(t)
	// The EVM family pays, as app composes it: signing with the solver's key, its nonces
	// allocated in the store.
	cs := chains.NewClients(reg, evm.VM())
	families := chains.NewFamilies(cs, map[chains.VMType]chains.Payout{chains.VMTypeEVM: evm.NewPayout(cs, store.New(pool), devnet.SolverKey())})
	return &ChainActivities{Families: families}, d.Chain(31338), pool
}

// testChain is what the tests read of the devnet chain through the engine's client.
type testChain interface {
	chains.BalanceReader
	evm.TxSender
	evm.TxReader
}

// nonceOf is the nonce the request's fill was signed at (the EVM family's record, kept in the
// store).
func nonceOf(t *testing.T, pool *pgxpool.Pool, requestID string) uint64 {
	t.Helper()
	tx, err := store.New(pool).SolverTx(context.Background(), requestID, intent.TxKindFill)
	require.NoError(t, err)
	return tx.Nonce
}

// fillsOf stores n requests and returns a fill of amount of currency for each, to a test address
// of its own.
func fillsOf(t *testing.T, pool *pgxpool.Pool, n int, currency common.Address, amount string) []FillInput {
	t.Helper()
	fills := make([]FillInput, n)
	for i := range fills {
		id := fmt.Sprintf("0x%064x", i+1)
		_, err := pool.Exec(context.Background(), `INSERT INTO requests (id, status, "user", recipient, origin_chain_id, destination_chain_id,
			order_id, record) VALUES ($1, 'pending', '0xu', '0xr', 31337, 31338, $1, '{}')`, id)
		require.NoError(t, err)
		recipient := common.BigToAddress(big.NewInt(int64(0xfee0000 + i)))
		if i < len(devnet.TestAddresses()) {
			recipient = devnet.TestAddresses()[i]
		}
		fills[i] = FillInput{RequestID: id, ChainID: 31338, OrderID: id, Currency: currency.Hex(),
			Recipient: recipient.Hex(), Amount: amount}
	}
	return fills
}

// submitAll submits the fills at once and returns each one's answer.
func submitAll(a *ChainActivities, fills []FillInput) ([]*FillSubmitted, []error) {
	subs, errs := make([]*FillSubmitted, len(fills)), make([]error, len(fills))
	var wg sync.WaitGroup
	for i := range fills {
		wg.Add(1)
		go func() {
			defer wg.Done()
			subs[i], errs[i] = runSubmitFill(a, fills[i])
		}()
	}
	wg.Wait()
	return subs, errs
}

// Issue 18, solver inventory under load: "a burst larger than the solver's inventory on a chain
// ends the excess intents with a refund (SOLVER_BALANCE_TOO_LOW) rather than stalling them, and
// capacity committed to fills in flight is accounted for". The solver holds X USDC on a devnet
// chain whose blocks are held back; five fills of X/2 are submitted at once, before any block.
// Exactly two are signed and broadcast, at the two nonces after the chain's; the other three
// fail with SOLVER_BALANCE_TOO_LOW before signing (the workflow refunds them), storing nothing
// and taking no nonce, so nothing waits behind a gap. Once mined, both signed fills pay. After
// that nothing is in flight and the balance alone refuses the next fill.
func TestFillsInFlightCommitInventoryInABurst(t *testing.T) {
	ctx := context.Background()
	a, chain, pool := solverOnDevnet(t, 100*time.Millisecond)
	chain.Pause()
	c, err := chains.Capability[testChain](a.Families.Clients(), 31338)
	require.NoError(t, err)
	solver := devnet.SolverAddress()
	held, err := c.BalanceNow(ctx, devnet.USDCAddress.Hex(), solver.Hex())
	require.NoError(t, err)
	mined, err := c.NonceAt(ctx, solver)
	require.NoError(t, err)
	half := new(big.Int).Div(held, big.NewInt(2))

	const n = 5
	fills := fillsOf(t, pool, n+1, devnet.USDCAddress, half.String())
	subs, errs := submitAll(a, fills[:n])

	nonces := map[uint64]string{}
	for i, err := range errs {
		if err == nil {
			nonces[nonceOf(t, pool, fills[i].RequestID)] = subs[i].TxHash
			continue
		}
		require.Equalf(t, string(intent.FailReasonSolverBalanceTooLow), failReasonOf(err), "fill %d: %v", i, err)
		_, err := store.New(pool).SolverTx(ctx, fills[i].RequestID, intent.TxKindFill)
		require.Truef(t, errors.Is(err, intent.ErrNotFound), "refused fill %d has a stored transaction (%v)", i, err)
	}
	require.Len(t, nonces, 2, "fills signed: exactly the two that X pays")
	require.Contains(t, nonces, mined)
	require.Contains(t, nonces, mined+1)
	var next int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT next_nonce FROM solver_nonces WHERE chain_id = 31338`).Scan(&next))
	require.Equal(t, int64(mined+2), next, "a refused fill must not take a nonce")

	cl, err := chain.Dial(ctx)
	require.NoError(t, err)
	defer cl.Close()
	require.Eventually(t, func() bool {
		p, err := cl.PendingNonceAt(ctx, solver)
		return err == nil && p == mined+2
	}, 10*time.Second, 20*time.Millisecond, "both signed fills wait in the node's pool, without a gap")
	for nonce, hash := range nonces {
		var r *types.Receipt
		require.Eventuallyf(t, func() bool {
			chain.Mine()
			got, err := c.Receipt(ctx, common.HexToHash(hash))
			r = got
			return err == nil
		}, 10*time.Second, 20*time.Millisecond, "fill at nonce %d not mined", nonce)
		require.Equalf(t, types.ReceiptStatusSuccessful, r.Status, "fill at nonce %d reverted", nonce)
	}
	left, err := c.BalanceNow(ctx, devnet.USDCAddress.Hex(), solver.Hex())
	require.NoError(t, err)
	require.Zero(t, new(big.Int).Sub(held, new(big.Int).Mul(half, big.NewInt(2))).Cmp(left), "the solver holds %s", left)

	_, err = runSubmitFill(a, fills[n])
	require.Equal(t, string(intent.FailReasonSolverBalanceTooLow), failReasonOf(err), "a fill beyond the balance: %v", err)
}

// rpcCalls is how many calls of method the engine's clients have sent to chain 31338.
func rpcCalls(t *testing.T, method string) float64 {
	var m dto.Metric
	require.NoError(t, metrics.ChainRPCRequests.WithLabelValues("31338", method).Write(&m))
	return m.GetCounter().GetValue()
}

// Issue 18, batching chain reads: the fills of a burst share the reads that are the same for
// all of them (the fees, the solver's holdings and the nonce they were read at) instead of each
// making them: ten native fills submitted at once read the balance, the tip and the nonce a
// handful of times, not ten, ten and twenty; each still has its own gas estimate, and each is
// signed once, at consecutive nonces, and broadcast in the rounds of broadcasts.go (fewer
// requests than fills: the first alone, the rest in a batch).
func TestABurstOfFillsSharesItsFeeAndHoldingsReads(t *testing.T) {
	a, _, pool := solverOnDevnet(t, time.Hour)
	const n = 10
	fills := fillsOf(t, pool, n, common.Address{}, "1000000000000000")
	before := map[string]float64{}
	methods := []string{"eth_getBalance", "eth_maxPriorityFeePerGas", "eth_getTransactionCount", "eth_estimateGas", "eth_sendRawTransaction", "batch"}
	for _, m := range methods {
		before[m] = rpcCalls(t, m)
	}
	subs, errs := submitAll(a, fills)
	nonces := map[uint64]bool{}
	for i, err := range errs {
		require.NoError(t, err, "fill %d", i)
		nonce := nonceOf(t, pool, fills[i].RequestID)
		require.False(t, nonces[nonce], "nonce %d signed twice", nonce)
		nonces[nonce] = true
		_ = subs[i]
	}
	calls := map[string]float64{}
	for _, m := range methods {
		calls[m] = rpcCalls(t, m) - before[m]
	}
	t.Logf("%d fills at once: %v", n, calls)
	require.Equal(t, float64(n), calls["eth_estimateGas"], "a gas estimate per fill")
	require.Less(t, calls["eth_sendRawTransaction"]+calls["batch"], float64(n/2), "broadcast requests")
	require.Less(t, calls["eth_getBalance"], float64(n/2), "balance reads")
	require.Less(t, calls["eth_maxPriorityFeePerGas"], float64(n/2), "tip reads")
	require.Less(t, calls["eth_getTransactionCount"], float64(n), "nonce reads")
}

// A first signing asks Postgres once, in its group's transaction, which finds a transaction
// already stored by itself: no lookup waits for a pooled connection before the reads are done.
// A retry of a fill that went through still finds and broadcasts the stored transaction, even
// when its reads now refuse it (the order is filled, by that very transaction: the gas estimate
// reverts AlreadyFilled), and signs nothing new.
func TestAFirstSigningAsksPostgresOnceAndARetryFindsItsTransaction(t *testing.T) {
	ctx := context.Background()
	a, chain, pool := solverOnDevnet(t, 100*time.Millisecond)
	chain.Pause()
	fill := fillsOf(t, pool, 1, common.HexToAddress(chains.NativeAddress), "1000")[0]

	before := pool.Stat().AcquireCount()
	first, err := runSubmitFill(a, fill)
	require.NoError(t, err)
	require.Equal(t, int64(1), pool.Stat().AcquireCount()-before, "pooled connections taken by a first signing")

	c, err := chains.Capability[testChain](a.Families.Clients(), 31338)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		chain.Mine()
		r, err := c.Receipt(ctx, common.HexToHash(first.TxHash))
		return err == nil && r.Status == types.ReceiptStatusSuccessful
	}, 10*time.Second, 20*time.Millisecond, "the fill is mined")

	again, err := runSubmitFill(a, fill)
	require.NoError(t, err, "a retry of a fill on chain")
	require.Equal(t, first.TxHash, again.TxHash)
	var rows int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM solver_transactions WHERE request_id = $1`, fill.RequestID).Scan(&rows))
	require.Equal(t, 1, rows, "stored transactions of the fill")
}

// A burst's broadcasts reach the node in nonce order, in few requests: two hundred fills signed
// at once (consecutive nonces, in groups) all land in the node's pool as executable. Sent each
// on its own, they arrived in any order, and a node keeps at most 64 transactions of a sender
// ahead of a gap (go-ethereum's pool): the highest were dropped (here, two runs in three: four
// or five of the two hundred) and every later nonce waited for them to be sent again
// (broadcasts.go).
func TestABurstsBroadcastsReachTheNodeInNonceOrder(t *testing.T) {
	ctx := context.Background()
	a, chain, pool := solverOnDevnet(t, time.Hour)
	const n = 200
	first, err := chain.Client().NonceAt(ctx, devnet.SolverAddress(), nil)
	require.NoError(t, err)
	fills := fillsOf(t, pool, n, common.Address{}, "1000000000000000")
	requests := func() float64 { return rpcCalls(t, "eth_sendRawTransaction") + rpcCalls(t, "batch") }
	before := requests()
	_, errs := submitAll(a, fills)
	for i, err := range errs {
		require.NoError(t, err, "fill %d", i)
	}
	// The node's pool promotes what it accepted in the background, so its pending nonce catches
	// up a moment after the broadcasts return (a fresh clone's CI once read it at 113 of 201); a
	// fill dropped behind a gap is never sent again here, and keeps it below for good.
	var pending uint64
	require.Eventually(t, func() bool {
		pending, err = chain.Client().PendingNonceAt(ctx, devnet.SolverAddress())
		return err == nil && pending == first+n
	}, 10*time.Second, 10*time.Millisecond, "the pool's next nonce of the solver: every fill in the pool, none behind a gap (%d, want %d; %v)",
		pending, first+n, err)
	require.Less(t, requests()-before, float64(n/4), "broadcast requests for %d fills: rounds, not one each", n)
}
