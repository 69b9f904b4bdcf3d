package devnet

import (
	"context"
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/chains/evm/bindings"
)

// Counterfactual deposit addresses (issue 35, point 1) on both devnet chains: the address
// computed offline is the factory's on either chain; a user pays it with a plain ETH transfer
// and a USDC transfer before anything is deployed there; the solver's sweep of each payment
// deploys the clone and deposits exactly that payment into the Depository for the order in the
// depositor's name; a sweep moves its amount and no more, and reverts when the address holds
// less; the deployed address still takes plain transfers; only the solver sweeps, and nobody
// but the factory can make the clone deposit.
func TestDepositAddresses(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	o := testOptions()
	o.FeedHeartbeat = -1
	d, err := Start(ctx, o)
	require.NoError(t, err)
	defer d.Close()
	clients := map[uint64]*ethclient.Client{}
	for _, c := range d.Chains() {
		cl, err := c.Dial(ctx)
		require.NoError(t, err)
		defer cl.Close()
		clients[c.ID] = cl
	}
	factory, clone, usdc := bindings.NewDepositAddressFactory(), bindings.NewDepositAddress(), bindings.NewTestUSDC()
	// sweeper is another account (and another depositor); only the solver sweeps.
	user, sweeper, solver := TestAccounts()[5], TestAccounts()[6], SolverKey()
	orderID := crypto.Keccak256Hash([]byte("deposit address order"))
	da := evm.DepositAddress(DepositAddressFactoryAddress, DepositAddressImplementationAddress, orderID, user.Address)

	t.Run("the offline address is the factory's on every chain", func(t *testing.T) {
		require.Equal(t, DepositAddressImplementationAddress, evm.DepositAddressImplementation(DepositAddressFactoryAddress))
		for _, c := range d.Chains() {
			cl := clients[c.ID]
			got, err := factory.UnpackComputeDepositAddress(call(t, ctx, cl, DepositAddressFactoryAddress, factory.PackComputeDepositAddress(orderID, user.Address)))
			require.NoError(t, err)
			require.Equal(t, da, got, "chain %d", c.ID)
			// Another depositor of the same order has another address.
			other, err := factory.UnpackComputeDepositAddress(call(t, ctx, cl, DepositAddressFactoryAddress, factory.PackComputeDepositAddress(orderID, sweeper.Address)))
			require.NoError(t, err)
			require.Equal(t, evm.DepositAddress(DepositAddressFactoryAddress, DepositAddressImplementationAddress, orderID, sweeper.Address), other)
			require.NotEqual(t, da, other)

			impl, err := factory.UnpackImplementation(call(t, ctx, cl, DepositAddressFactoryAddress, factory.PackImplementation()))
			require.NoError(t, err)
			require.Equal(t, DepositAddressImplementationAddress, impl)
			dep, err := factory.UnpackDepository(call(t, ctx, cl, DepositAddressFactoryAddress, factory.PackDepository()))
			require.NoError(t, err)
			require.Equal(t, DepositoryAddress, dep)
			implFactory, err := clone.UnpackFactory(call(t, ctx, cl, DepositAddressImplementationAddress, clone.PackFactory()))
			require.NoError(t, err)
			require.Equal(t, DepositAddressFactoryAddress, implFactory)
			require.Empty(t, codeAt(t, ctx, cl, da), "chain %d", c.ID)
		}
	})

	// The rest runs on chain A.
	a := d.Chain(31337)
	cl := clients[a.ID]
	native := new(big.Int).Mul(big.NewInt(3), big.NewInt(params.Ether/10)) // 0.3 ETH
	usdcAmount := big.NewInt(123_456_789)                                  // 123.456789 USDC

	t.Run("a sweep deploys the address and deposits the payment it names", func(t *testing.T) {
		r := transact(t, ctx, cl, a, user.Key, da, native, nil)
		require.Equal(t, types.ReceiptStatusSuccessful, r.Status)
		require.Equal(t, uint64(params.TxGas), r.GasUsed, "a transfer to the undeployed address is a plain transfer")
		r = transact(t, ctx, cl, a, user.Key, USDCAddress, nil, usdc.PackTransfer(da, usdcAmount))
		require.Equal(t, types.ReceiptStatusSuccessful, r.Status)
		require.Empty(t, codeAt(t, ctx, cl, da))
		require.Equal(t, native, ethBalance(t, ctx, cl, da))
		require.Equal(t, usdcAmount, usdcBalance(t, ctx, cl, da))
		depETH, depUSDC := ethBalance(t, ctx, cl, DepositoryAddress), usdcBalance(t, ctx, cl, DepositoryAddress)

		for i, want := range []struct {
			currency common.Address
			amount   *big.Int
		}{{common.Address{}, native}, {USDCAddress, usdcAmount}} {
			r = transact(t, ctx, cl, a, solver, DepositAddressFactoryAddress, nil, evm.PackSweep(orderID, user.Address, want.currency, want.amount))
			require.Equal(t, types.ReceiptStatusSuccessful, r.Status)
			t.Logf("sweep %d: %d gas", i, r.GasUsed)
			deposits := depositEvents(t, r)
			require.Len(t, deposits, 1)
			require.Equal(t, [32]byte(orderID), deposits[0].OrderId)
			require.Equal(t, user.Address, deposits[0].Depositor, "the depositor named, not the clone or the sweeper")
			require.Equal(t, want.currency, deposits[0].Currency)
			require.Equal(t, want.amount, deposits[0].Amount)
			swept := sweptEvents(t, r)
			require.Len(t, swept, 1)
			require.Equal(t, [32]byte(orderID), swept[0].OrderId)
			require.Equal(t, user.Address, swept[0].Depositor)
			require.Equal(t, da, swept[0].DepositAddress)
			require.Equal(t, want.currency, swept[0].Currency)
			require.Equal(t, want.amount, swept[0].Amount)
		}
		require.Equal(t, evm.CloneCode(DepositAddressImplementationAddress)[10:], codeAt(t, ctx, cl, da), "EIP-1167 runtime code")
		require.Zero(t, ethBalance(t, ctx, cl, da).Sign())
		require.Zero(t, usdcBalance(t, ctx, cl, da).Sign())
		require.Equal(t, new(big.Int).Add(depETH, native), ethBalance(t, ctx, cl, DepositoryAddress))
		require.Equal(t, new(big.Int).Add(depUSDC, usdcAmount), usdcBalance(t, ctx, cl, DepositoryAddress))
		allowance, err := usdc.UnpackAllowance(call(t, ctx, cl, USDCAddress, usdc.PackAllowance(da, DepositoryAddress)))
		require.NoError(t, err)
		require.Zero(t, allowance.Sign(), "no allowance left behind")
	})

	t.Run("a sweep moves its payment's amount and leaves the rest for its own sweep", func(t *testing.T) {
		first, second := big.NewInt(params.Ether/100), big.NewInt(params.Ether/50)
		for _, v := range []*big.Int{first, second} {
			r := transact(t, ctx, cl, a, user.Key, da, v, nil)
			require.Equal(t, types.ReceiptStatusSuccessful, r.Status, "the deployed address takes plain transfers")
			require.Empty(t, r.Logs)
		}
		r := transact(t, ctx, cl, a, solver, DepositAddressFactoryAddress, nil, evm.PackSweep(orderID, user.Address, common.Address{}, first))
		require.Equal(t, types.ReceiptStatusSuccessful, r.Status)
		t.Logf("sweep, deployed, native: %d gas", r.GasUsed)
		require.Equal(t, first, depositEvents(t, r)[0].Amount)
		require.Equal(t, second, ethBalance(t, ctx, cl, da), "the second payment waits for its sweep")
		r = transact(t, ctx, cl, a, solver, DepositAddressFactoryAddress, nil, evm.PackSweep(orderID, user.Address, common.Address{}, second))
		require.Equal(t, types.ReceiptStatusSuccessful, r.Status)
		require.Equal(t, second, depositEvents(t, r)[0].Amount)
		require.Zero(t, ethBalance(t, ctx, cl, da).Sign())
	})

	t.Run("a sweep of more than the address holds, or of nothing, reverts and moves nothing", func(t *testing.T) {
		held := big.NewInt(1_000)
		r := transact(t, ctx, cl, a, user.Key, da, held, nil)
		require.Equal(t, types.ReceiptStatusSuccessful, r.Status)
		solverAddr := crypto.PubkeyToAddress(solver.PublicKey)
		for _, c := range []struct {
			currency common.Address
			amount   *big.Int
			want     any
		}{
			{common.Address{}, big.NewInt(1_001), &bindings.DepositAddressInsufficientBalance{Currency: common.Address{}, Balance: held, Amount: big.NewInt(1_001)}},
			{USDCAddress, big.NewInt(1), &bindings.DepositAddressInsufficientBalance{Currency: USDCAddress, Balance: new(big.Int), Amount: big.NewInt(1)}},
			{common.Address{}, new(big.Int), &bindings.DepositAddressZeroAmount{}},
		} {
			_, err := cl.EstimateGas(ctx, ethereum.CallMsg{From: solverAddr, To: &DepositAddressFactoryAddress,
				Data: evm.PackSweep(orderID, user.Address, c.currency, c.amount)})
			require.Equal(t, fmt.Sprintf("%+v", c.want), fmt.Sprintf("%+v", revertOf(t, err, clone.UnpackError)))
		}
		require.Equal(t, held, ethBalance(t, ctx, cl, da))
	})

	t.Run("only the solver sweeps", func(t *testing.T) {
		// Anyone else's sweep reverts with NotSweeper, even one the address could pay: a
		// payment is moved by its own request's sweep, never by a stranger's ahead of it.
		require.Equal(t, crypto.PubkeyToAddress(solver.PublicKey), func() common.Address {
			got, err := factory.UnpackSweeper(call(t, ctx, cl, DepositAddressFactoryAddress, factory.PackSweeper()))
			require.NoError(t, err)
			return got
		}())
		for _, from := range []common.Address{user.Address, sweeper.Address} {
			_, err := cl.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &DepositAddressFactoryAddress,
				Data: evm.PackSweep(orderID, user.Address, common.Address{}, big.NewInt(1))})
			require.Equal(t, &bindings.DepositAddressFactoryNotSweeper{}, revertOf(t, err, factory.UnpackError))
		}
	})

	t.Run("only the factory makes the clone deposit", func(t *testing.T) {
		// Funds waiting at the address stay there: a direct call of the clone's sweep from an
		// account, the solver's included, for the clone's own order or another, reverts with
		// NotFactory, and so does a call of the implementation's.
		wait := ethBalance(t, ctx, cl, da)
		require.Positive(t, wait.Sign())
		solverAddr := crypto.PubkeyToAddress(solver.PublicKey)
		for _, c := range []struct {
			to      common.Address
			orderID common.Hash
			from    common.Address
		}{
			{da, orderID, user.Address},
			{da, orderID, solverAddr},
			{da, crypto.Keccak256Hash([]byte("another order")), sweeper.Address},
			{DepositAddressImplementationAddress, orderID, user.Address},
		} {
			_, err := cl.EstimateGas(ctx, ethereum.CallMsg{From: c.from, To: &c.to, Data: clone.PackSweep(c.orderID, c.from, common.Address{}, big.NewInt(1))})
			require.Equal(t, &bindings.DepositAddressNotFactory{}, revertOf(t, err, clone.UnpackError))
		}
		// Another depositor's address of the same order is another address: sweeping it cannot
		// reach this one's funds.
		_, err := cl.EstimateGas(ctx, ethereum.CallMsg{From: solverAddr, To: &DepositAddressFactoryAddress,
			Data: evm.PackSweep(orderID, sweeper.Address, common.Address{}, wait)})
		require.Error(t, err)
		require.Equal(t, wait, ethBalance(t, ctx, cl, da))
	})

	t.Run("only a deposit address deposits on behalf of a depositor", func(t *testing.T) {
		// Issue 35, point 6: "an address's funds are never swept into another order": the
		// Depository takes a deposit on behalf of a depositor only from the deposit address of
		// that order id and depositor, so no caller can name someone else as the depositor (which
		// screening reads) nor deposit under a deposit address's order id in its name.
		dep := bindings.NewDepository()
		for _, c := range []struct {
			value *big.Int
			data  []byte
		}{
			{big.NewInt(1), dep.PackDepositNativeFor(user.Address, orderID)},
			{nil, dep.PackDepositErc20For(user.Address, orderID, USDCAddress, big.NewInt(1))},
		} {
			_, err := cl.EstimateGas(ctx, ethereum.CallMsg{From: user.Address, To: &DepositoryAddress, Value: c.value, Data: c.data})
			require.Equal(t, &bindings.DepositoryNotDepositAddress{}, revertOf(t, err, dep.UnpackError))
		}
	})

	t.Run("gas", func(t *testing.T) {
		// One address per case, so each sweep's gas is its own: first sweep (deploy) and a later
		// one, of the native asset alone and of USDC alone, beside the user's own deposit of the
		// same (the Depository already holds both, as in every case here: its first USDC would
		// cost a new storage slot).
		dep, directOrder := bindings.NewDepository(), crypto.Keccak256Hash([]byte("gas direct"))
		direct := transact(t, ctx, cl, a, user.Key, DepositoryAddress, big.NewInt(params.Ether/10), dep.PackDepositNative(directOrder))
		require.Equal(t, types.ReceiptStatusSuccessful, direct.Status)
		t.Logf("direct depositNative: %d gas", direct.GasUsed)
		r := transact(t, ctx, cl, a, user.Key, USDCAddress, nil, usdc.PackApprove(DepositoryAddress, big.NewInt(50_000_000)))
		require.Equal(t, types.ReceiptStatusSuccessful, r.Status)
		direct = transact(t, ctx, cl, a, user.Key, DepositoryAddress, nil, dep.PackDepositErc20(directOrder, USDCAddress, big.NewInt(50_000_000)))
		require.Equal(t, types.ReceiptStatusSuccessful, direct.Status)
		t.Logf("direct depositErc20 (after an approve of %d gas): %d gas", r.GasUsed, direct.GasUsed)
		for _, c := range []struct {
			name     string
			currency common.Address
			amount   *big.Int
		}{{"native", common.Address{}, big.NewInt(params.Ether / 10)}, {"USDC", USDCAddress, big.NewInt(50_000_000)}} {
			order := crypto.Keccak256Hash([]byte("gas " + c.name))
			addr := evm.DepositAddress(DepositAddressFactoryAddress, DepositAddressImplementationAddress, order, user.Address)
			fund := func() {
				var r *types.Receipt
				if c.currency == (common.Address{}) {
					r = transact(t, ctx, cl, a, user.Key, addr, c.amount, nil)
				} else {
					r = transact(t, ctx, cl, a, user.Key, USDCAddress, nil, usdc.PackTransfer(addr, c.amount))
				}
				require.Equal(t, types.ReceiptStatusSuccessful, r.Status)
			}
			var used []uint64
			for range 2 {
				fund()
				r := transact(t, ctx, cl, a, solver, DepositAddressFactoryAddress, nil, evm.PackSweep(order, user.Address, c.currency, c.amount))
				require.Equal(t, types.ReceiptStatusSuccessful, r.Status)
				deposits := depositEvents(t, r)
				require.Len(t, deposits, 1)
				require.Equal(t, c.amount, deposits[0].Amount)
				used = append(used, r.GasUsed)
			}
			t.Logf("sweep of %s alone: %d gas with the deploy, %d once deployed", c.name, used[0], used[1])
			// The quote charges evm.SweepGasEstimate for every sweep: never less than one costs.
			require.LessOrEqual(t, used[0], evm.SweepGasEstimate(c.currency), "the first sweep of %s", c.name)
			require.LessOrEqual(t, used[1], used[0])
		}
	})
}

// The offline computation, pinned: the devnet test above checks it against the factory on
// chain, this keeps it from changing unnoticed.
func TestDepositAddressIsPinned(t *testing.T) {
	orderID := crypto.Keccak256Hash([]byte("deposit address order"))
	require.Equal(t, "0x6Dd9508De22Df68b2B0ed95c72771996b0D2F450",
		evm.DepositAddress(DepositAddressFactoryAddress, DepositAddressImplementationAddress, orderID, TestAccounts()[5].Address).Hex())
	require.Len(t, evm.CloneCode(DepositAddressImplementationAddress), 55)
}

func codeAt(t *testing.T, ctx context.Context, cl *ethclient.Client, a common.Address) []byte {
	t.Helper()
	code, err := cl.CodeAt(ctx, a, nil)
	require.NoError(t, err)
	return code
}

func ethBalance(t *testing.T, ctx context.Context, cl *ethclient.Client, a common.Address) *big.Int {
	t.Helper()
	bal, err := cl.BalanceAt(ctx, a, nil)
	require.NoError(t, err)
	return bal
}

// depositEvents are the Depository's Deposit events in r, in log order.
func depositEvents(t *testing.T, r *types.Receipt) []*bindings.DepositoryDeposit {
	t.Helper()
	var out []*bindings.DepositoryDeposit
	for _, l := range r.Logs {
		if l.Address == DepositoryAddress {
			ev, err := bindings.NewDepository().UnpackDepositEvent(l)
			require.NoError(t, err)
			out = append(out, ev)
		}
	}
	return out
}

// sweptEvents are the factory's Swept events in r, in log order.
func sweptEvents(t *testing.T, r *types.Receipt) []*bindings.DepositAddressFactorySwept {
	t.Helper()
	var out []*bindings.DepositAddressFactorySwept
	for _, l := range r.Logs {
		if l.Address == DepositAddressFactoryAddress {
			ev, err := bindings.NewDepositAddressFactory().UnpackSweptEvent(l)
			require.NoError(t, err)
			out = append(out, ev)
		}
	}
	return out
}

// revertOf decodes the custom error of a reverted call's err with unpack.
func revertOf(t *testing.T, err error, unpack func([]byte) (any, error)) any {
	t.Helper()
	require.Error(t, err)
	var de rpc.DataError
	require.ErrorAs(t, err, &de)
	data, ok := de.ErrorData().(string)
	require.True(t, ok, "revert data %v", de.ErrorData())
	raw, err := hex.DecodeString(strings.TrimPrefix(data, "0x"))
	require.NoError(t, err)
	decoded, err := unpack(raw)
	require.NoError(t, err)
	return decoded
}
