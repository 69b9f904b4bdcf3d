package evm_test

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
)

// revertData is selector(signature) || the ABI encoding of args of types.
func revertData(t *testing.T, signature string, types []string, args ...any) []byte {
	t.Helper()
	var as abi.Arguments
	for _, ty := range types {
		typ, err := abi.NewType(ty, "", nil)
		require.NoError(t, err)
		as = append(as, abi.Argument{Type: typ})
	}
	packed, err := as.Pack(args...)
	require.NoError(t, err)
	return append(crypto.Keccak256([]byte(signature))[:4], packed...)
}

func TestDecodeRevert(t *testing.T) {
	reg := evm.NewABIRegistry(nil)
	holder := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	for _, tc := range []struct {
		name     string
		data     []byte
		frameErr string
		want     evm.Revert
	}{
		{"Error(string)", revertData(t, "Error(string)", []string{"string"}, "nope"), "execution reverted",
			evm.Revert{Type: "errorString", Label: "REVERTED", Message: "nope", Selector: "0x08c379a0", Name: "Error"}},
		{"Panic(0x01) assert", revertData(t, "Panic(uint256)", []string{"uint256"}, big.NewInt(1)), "execution reverted",
			evm.Revert{Type: "panic", Label: "PANIC_ASSERTION_FAILED", Message: "Panic: assertion failed (0x01)", Selector: "0x4e487b71", Name: "Panic", Args: map[string]string{"code": "0x01"}}},
		{"Panic(0x11) overflow", revertData(t, "Panic(uint256)", []string{"uint256"}, big.NewInt(0x11)), "",
			evm.Revert{Type: "panic", Label: "PANIC_ARITHMETIC_OVERFLOW", Message: "Panic: arithmetic overflow or underflow (0x11)", Selector: "0x4e487b71", Name: "Panic", Args: map[string]string{"code": "0x11"}}},
		{"Panic(0x32) out of bounds", revertData(t, "Panic(uint256)", []string{"uint256"}, big.NewInt(0x32)), "",
			evm.Revert{Type: "panic", Label: "PANIC_ARRAY_OUT_OF_BOUNDS", Message: "Panic: array index out of bounds (0x32)", Selector: "0x4e487b71", Name: "Panic", Args: map[string]string{"code": "0x32"}}},
		{"Panic with a code Solidity does not use", revertData(t, "Panic(uint256)", []string{"uint256"}, big.NewInt(0x99)), "",
			evm.Revert{Type: "panic", Label: "PANIC_UNKNOWN", Message: "Panic: unknown panic code (0x99)", Selector: "0x4e487b71", Name: "Panic", Args: map[string]string{"code": "0x99"}}},
		{"Permit2's InvalidSignature()", hexutil.MustDecode("0x8baa579f"), "execution reverted",
			evm.Revert{Type: "customError", Label: "INVALID_SIGNATURE", Message: "Invalid signature", Selector: "0x8baa579f", Name: "InvalidSignature"}},
		{"OpenZeppelin's ERC20InsufficientBalance", revertData(t, "ERC20InsufficientBalance(address,uint256,uint256)", []string{"address", "uint256", "uint256"}, holder, big.NewInt(10), big.NewInt(11)), "",
			evm.Revert{Type: "customError", Label: "ERC20_INSUFFICIENT_BALANCE", Message: "ERC20 insufficient balance", Selector: "0xe450d38c", Name: "ERC20InsufficientBalance",
				Args: map[string]string{"sender": holder.Hex(), "balance": "10", "needed": "11"}}},
		{"a known custom error whose arguments do not decode", hexutil.MustDecode("0xe450d38c0102"), "",
			evm.Revert{Type: "customError", Label: "ERC20_INSUFFICIENT_BALANCE", Message: "ERC20 insufficient balance", Selector: "0xe450d38c", Name: "ERC20InsufficientBalance", RawArgsHex: "0x0102"}},
		{"an unknown custom error", hexutil.MustDecode("0xcafebabe00000000000000000000000000000000000000000000000000000000000000ff"), "",
			evm.Revert{Type: "unknownCustomError", Label: "UNKNOWN_CUSTOM_ERROR_0xcafebabe", Message: "Unknown custom error 0xcafebabe", Selector: "0xcafebabe",
				RawArgsHex: "0x00000000000000000000000000000000000000000000000000000000000000ff"}},
		{"an unknown custom error without arguments", hexutil.MustDecode("0xcafebabe"), "",
			evm.Revert{Type: "unknownCustomError", Label: "UNKNOWN_CUSTOM_ERROR_0xcafebabe", Message: "Unknown custom error 0xcafebabe", Selector: "0xcafebabe", RawArgsHex: "0x"}},
		{"fewer than four bytes", hexutil.MustDecode("0x0102"), "",
			evm.Revert{Type: "unknownCustomError", Label: "UNKNOWN_CUSTOM_ERROR", Message: "Unknown custom error", RawArgsHex: "0x0102"}},
		{"an empty revert", nil, "execution reverted",
			evm.Revert{Type: "empty", Label: "EMPTY_REVERT", Message: "Reverted without a reason"}},
		{"out of gas: no data, the tracer's error", nil, "out of gas",
			evm.Revert{Type: "empty", Label: "EMPTY_REVERT", Message: "out of gas"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, reg.DecodeRevert(tc.data, tc.frameErr))
		})
	}
}

// The failing branch is the last failed call of each frame: an earlier failure the caller
// caught, or a call that succeeded, is not on it.
func TestDecodeTraceFollowsTheLastFailedCall(t *testing.T) {
	usdc, settler, other := common.HexToAddress("0x01"), common.HexToAddress("0x02"), common.HexToAddress("0x03")
	reg := evm.NewABIRegistry(map[common.Address]string{usdc: "USDC", settler: "OutputSettler"})
	transfer := hexutil.MustDecode("0xa9059cbb" + "00000000000000000000000000000000000000000000000000000000000000aa" + "0000000000000000000000000000000000000000000000000000000000000001")
	bad := revertData(t, "ERC20InsufficientBalance(address,uint256,uint256)", []string{"address", "uint256", "uint256"}, settler, big.NewInt(0), big.NewInt(1))
	root := &evm.CallFrame{Type: "CALL", To: &settler, Input: hexutil.MustDecode("0xdeadbeef"), GasUsed: 90_000, Error: "execution reverted", Output: bad,
		Calls: []evm.CallFrame{
			{Type: "CALL", To: &other, Input: hexutil.MustDecode("0x12345678"), GasUsed: 100, Error: "execution reverted"}, // caught
			{Type: "STATICCALL", To: &usdc, Input: hexutil.MustDecode("0x70a08231"), GasUsed: 2_600},                       // balanceOf: fine
			{Type: "CALL", To: &usdc, Input: transfer, GasUsed: 5_000, Error: "execution reverted", Output: bad},
			{Type: "CALL", To: &other, Input: hexutil.MustDecode("0x12"), GasUsed: 1},
		}}
	got := evm.DecodeTrace(root, reg)
	top := evm.TraceFrame{Type: "CALL", Address: settler.Hex(), Contract: "OutputSettler", Selector: "0xdeadbeef", Error: "execution reverted", GasUsed: "90000"}
	inner := evm.TraceFrame{Type: "CALL", Address: usdc.Hex(), Contract: "USDC", Function: "transfer", Selector: "0xa9059cbb", Error: "execution reverted", GasUsed: "5000"}
	require.Equal(t, &evm.RevertDetails{TopLevel: top, Innermost: inner, Path: []evm.TraceFrame{top, inner},
		Revert: evm.Revert{Type: "customError", Label: "ERC20_INSUFFICIENT_BALANCE", Message: "ERC20 insufficient balance", Selector: "0xe450d38c",
			Name: "ERC20InsufficientBalance", Args: map[string]string{"sender": settler.Hex(), "balance": "0", "needed": "1"}}}, got)

	// a call that did not fail has nothing to decode
	require.Nil(t, evm.DecodeTrace(&evm.CallFrame{Type: "CALL", To: &usdc, Calls: []evm.CallFrame{{Type: "CALL", Error: "execution reverted"}}}, reg))
	require.Nil(t, evm.DecodeTrace(nil, reg))
}

// A chain's contracts are named by its registry entry.
func TestContractNamesComeFromTheChainsEntry(t *testing.T) {
	ch := &chains.Chain{Depository: "0x0000000000000000000000000000000000000001", OutputSettler: "0x0000000000000000000000000000000000000002",
		ERC20: []chains.Currency{{Symbol: "USDC", Address: "0x0000000000000000000000000000000000000003"}}}
	require.Equal(t, map[common.Address]string{common.HexToAddress("0x01"): "Depository", common.HexToAddress("0x02"): "OutputSettler",
		common.HexToAddress("0x03"): "USDC"}, evm.ContractNames(ch))
}
