package evm_test

import (
	"context"
	"encoding/json"
	"math/big"
	"strconv"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/chains/evm/bindings"
	"github.com/intentd/intentd/devnet"
)

var reverter = bindings.NewReverter()

// deployReverter deploys the test-only Reverter (contracts/src/Reverter.sol) from test account
// 7 and returns its address.
func deployReverter(t *testing.T, chain *devnet.Chain, c *evm.Client) common.Address {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	deployer := devnet.TestAccounts()[7]
	nonce, err := c.NonceAt(ctx, deployer.Address)
	require.NoError(t, err)
	fees, err := c.SuggestFees(ctx)
	require.NoError(t, err)
	tip := big.NewInt(params.GWei)
	id := new(big.Int).SetUint64(chain.ID)
	tx, err := types.SignNewTx(deployer.Key, types.LatestSignerForChainID(id), &types.DynamicFeeTx{ChainID: id, Nonce: nonce,
		GasTipCap: tip, GasFeeCap: fees.FeeCap(tip), Gas: 2_000_000, Data: hexutil.MustDecode(bindings.ReverterMetaData.Bin)})
	require.NoError(t, err)
	require.NoError(t, c.SendTransaction(ctx, tx))
	chain.Mine()
	r, err := c.Receipt(ctx, tx.Hash())
	require.NoError(t, err)
	require.Equal(t, types.ReceiptStatusSuccessful, r.Status)
	return r.ContractAddress
}

// simulate traces data sent to `to` from the solver (the relayer) and decodes it with the chain's
// registry plus the Reverter's name at its address.
func simulate(t *testing.T, c *evm.Client, call evm.SimCall, names map[common.Address]string) (*evm.CallFrame, *evm.RevertDetails) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if call.From == (common.Address{}) {
		call.From = devnet.SolverAddress()
	}
	root, err := c.TraceCall(ctx, call)
	require.NoError(t, err)
	return root, evm.DecodeTrace(root, evm.NewABIRegistry(names))
}

// frameOf is what a frame of the Reverter at addr calling function with selector sel says,
// with the gas the tracer reported.
func frameOf(typ string, addr common.Address, function, sel string, revertReason string, gasUsed hexutil.Uint64) evm.TraceFrame {
	return evm.TraceFrame{Type: typ, Address: addr.Hex(), Contract: "Reverter", Function: function, Selector: sel,
		Error: "execution reverted", RevertReason: revertReason, GasUsed: strconv.FormatUint(uint64(gasUsed), 10)}
}

func sel(data []byte) string { return hexutil.Encode(data[:4]) }

// Issue 37 point 3: each way a relayed call reverts, simulated with debug_traceCall on a real
// chain and decoded into the frames and revert POST /execute answers with.
func TestASimulatedRevertIsDecodedWithItsFrames(t *testing.T) {
	chain, c := startChain(t)
	addr := deployReverter(t, chain, c)
	names := map[common.Address]string{addr: "Reverter"}
	account := devnet.TestAccounts()[3].Address
	// the one-frame cases
	for _, tc := range []struct {
		name         string
		data         []byte
		function     string
		revertReason string
		want         evm.Revert
	}{{
		name: "Error(string)", data: reverter.PackFailWithString(), function: "failWithString", revertReason: "Reverter: refused",
		want: evm.Revert{Type: "errorString", Label: "REVERTED", Message: "Reverter: refused", Selector: "0x08c379a0", Name: "Error"},
	}, {
		name: "Panic(0x12)", data: reverter.PackDivide(big.NewInt(1), big.NewInt(0)), function: "divide",
		revertReason: "division or modulo by zero",
		want: evm.Revert{Type: "panic", Label: "PANIC_DIVISION_BY_ZERO", Message: "Panic: division or modulo by zero (0x12)",
			Selector: "0x4e487b71", Name: "Panic", Args: map[string]string{"code": "0x12"}},
	}, {
		name: "a known custom error with arguments", data: reverter.PackFailWithCustomError(account, big.NewInt(5_000_000), big.NewInt(1_000)),
		function: "failWithCustomError",
		want: evm.Revert{Type: "customError", Label: "AMOUNT_TOO_LARGE", Message: "Amount too large",
			Selector: hexutil.Encode(bindings.ReverterAmountTooLargeErrorID().Bytes()[:4]), Name: "AmountTooLarge",
			Args: map[string]string{"account": account.Hex(), "amount": "5000000", "limit": "1000"}},
	}, {
		name: "an unknown custom error", data: reverter.PackFailWithUnknownError(), function: "failWithUnknownError",
		want: evm.Revert{Type: "unknownCustomError", Label: "UNKNOWN_CUSTOM_ERROR_0xdeadbeef", Message: "Unknown custom error 0xdeadbeef",
			Selector: "0xdeadbeef", RawArgsHex: "0x000000000000000000000000000000000000000000000000000000000000002a"},
	}, {
		name: "an empty revert", data: reverter.PackFailEmpty(), function: "failEmpty",
		want: evm.Revert{Type: "empty", Label: "EMPTY_REVERT", Message: "Reverted without a reason"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			root, got := simulate(t, c, evm.SimCall{To: addr, Data: tc.data}, names)
			require.NotNil(t, got)
			want := frameOf("CALL", addr, tc.function, sel(tc.data), tc.revertReason, root.GasUsed)
			require.NotEqual(t, "0", want.GasUsed)
			require.Equal(t, &evm.RevertDetails{TopLevel: want, Innermost: want, Path: []evm.TraceFrame{want}, Revert: tc.want}, got)
		})
	}
}

// The nested case: the Reverter calls a second Reverter, whose custom error bubbles up. The path
// is both frames, the innermost the second's, and the revert the second's error.
func TestANestedRevertFollowsTheFailingBranch(t *testing.T) {
	chain, c := startChain(t)
	outer, inner := deployReverter(t, chain, c), deployReverter(t, chain, c)
	account := devnet.TestAccounts()[3].Address
	data := reverter.PackCallOther(inner, account, big.NewInt(7), big.NewInt(6))
	root, got := simulate(t, c, evm.SimCall{To: outer, Data: data}, map[common.Address]string{outer: "Reverter", inner: "Reverter"})
	require.NotNil(t, got)
	require.Len(t, root.Calls, 1)
	innerData := reverter.PackFailWithCustomError(account, big.NewInt(7), big.NewInt(6))
	top := frameOf("CALL", outer, "callOther", sel(data), "", root.GasUsed)
	deepest := frameOf("STATICCALL", inner, "failWithCustomError", sel(innerData), "", root.Calls[0].GasUsed)
	require.Equal(t, &evm.RevertDetails{TopLevel: top, Innermost: deepest, Path: []evm.TraceFrame{top, deepest},
		Revert: evm.Revert{Type: "customError", Label: "AMOUNT_TOO_LARGE", Message: "Amount too large",
			Selector: hexutil.Encode(bindings.ReverterAmountTooLargeErrorID().Bytes()[:4]), Name: "AmountTooLarge",
			Args: map[string]string{"account": account.Hex(), "amount": "7", "limit": "6"}}}, got)

	// the wire: camelCase, every frame field a string
	b, err := json.Marshal(got)
	require.NoError(t, err)
	var wire map[string]any
	require.NoError(t, json.Unmarshal(b, &wire))
	require.ElementsMatch(t, []string{"topLevel", "innermost", "path", "revert"}, keys(wire))
	require.ElementsMatch(t, []string{"type", "address", "contract", "function", "selector", "error", "gasUsed"},
		keys(wire["innermost"].(map[string]any)))
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// A relayed EIP-7702 call: the user's account, which has no code, delegates to the Reverter by
// a signed authorization; the simulation gives the account the delegation designator, so the
// call to the account runs the Reverter's code there and reverts as it would.
func TestAnAuthorizationIsSimulatedByTheDelegationDesignator(t *testing.T) {
	chain, c := startChain(t)
	addr := deployReverter(t, chain, c)
	user := devnet.TestAccounts()[8]
	ctx := context.Background()
	nonce, err := c.NonceAt(ctx, user.Address)
	require.NoError(t, err)
	auth, err := types.SignSetCode(user.Key, types.SetCodeAuthorization{
		ChainID: *uint256.NewInt(chain.ID), Address: addr, Nonce: nonce})
	require.NoError(t, err)
	data := reverter.PackFailWithString()

	// without the authorization the account has no code: the call succeeds, nothing to decode
	root, got := simulate(t, c, evm.SimCall{To: user.Address, Data: data}, nil)
	require.False(t, root.Failed())
	require.Nil(t, got)

	root, got = simulate(t, c, evm.SimCall{To: user.Address, Data: data, AuthorizationList: []types.SetCodeAuthorization{auth}}, nil)
	require.NotNil(t, got)
	// the account is no known contract, but the function is the Reverter's only
	want := evm.TraceFrame{Type: "CALL", Address: user.Address.Hex(), Contract: "Reverter", Function: "failWithString", Selector: sel(data),
		Error: "execution reverted", RevertReason: "Reverter: refused", GasUsed: strconv.FormatUint(uint64(root.GasUsed), 10)}
	require.Equal(t, want, got.TopLevel)
	require.Equal(t, evm.Revert{Type: "errorString", Label: "REVERTED", Message: "Reverter: refused", Selector: "0x08c379a0", Name: "Error"}, got.Revert)

	// an authorization signed by no one (a broken signature) delegates nothing, as on chain
	broken := auth
	broken.R = *uint256.NewInt(1)
	root, got = simulate(t, c, evm.SimCall{To: user.Address, Data: data, AuthorizationList: []types.SetCodeAuthorization{broken}}, nil)
	require.False(t, root.Failed())
	require.Nil(t, got)
}
