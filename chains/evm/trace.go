package evm

// Simulation of a relayed call with its trace (issue 37, POST /execute): TraceCall asks the
// chain for debug_traceCall with the built-in callTracer, an EIP-7702 authorization simulated by
// a state override; DecodeTrace turns the frames into the wire's details of a failed simulation
// (the root frame, the failing branch down to its deepest revert, and that revert decoded by the
// ABIs the ABIRegistry knows).

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
)

// SimCall is a call to simulate: what a relayer would send as a transaction from From, with
// the authorizations of an EIP-7702 (type 4) transaction when AuthorizationList is not empty.
type SimCall struct {
	From  common.Address
	To    common.Address
	Data  []byte
	Value *big.Int // nil: none
	// Gas caps the call; 0 leaves the node's default (its RPC gas cap).
	Gas uint64
	// AuthorizationList are the signed authorizations: each valid one (its signature recovers
	// an authority, its chain id is 0 or the chain's) makes its authority's code the delegation
	// designator of its address for the simulation, the first per authority winning, as the
	// nonce rule makes it on chain. A delegation to the zero address clears the code.
	AuthorizationList []types.SetCodeAuthorization
}

// CallFrame is one frame of go-ethereum's callTracer, as debug_traceCall answers it.
type CallFrame struct {
	Type         string          `json:"type"`
	From         common.Address  `json:"from"`
	To           *common.Address `json:"to,omitempty"`
	Value        *hexutil.Big    `json:"value,omitempty"`
	Gas          hexutil.Uint64  `json:"gas"`
	GasUsed      hexutil.Uint64  `json:"gasUsed"`
	Input        hexutil.Bytes   `json:"input"`
	Output       hexutil.Bytes   `json:"output,omitempty"`
	Error        string          `json:"error,omitempty"`
	RevertReason string          `json:"revertReason,omitempty"`
	Calls        []CallFrame     `json:"calls,omitempty"`
}

// Failed says whether the frame failed (reverted, ran out of gas, hit an invalid opcode...).
func (f *CallFrame) Failed() bool { return f.Error != "" }

// traceArgs is the call object of debug_traceCall (the node's TransactionArgs).
type traceArgs struct {
	From  common.Address  `json:"from"`
	To    common.Address  `json:"to"`
	Data  hexutil.Bytes   `json:"input"`
	Value *hexutil.Big    `json:"value,omitempty"`
	Gas   *hexutil.Uint64 `json:"gas,omitempty"`
}

// overrideAccount is one account of debug_traceCall's stateOverrides: only its code here.
type overrideAccount struct {
	Code hexutil.Bytes `json:"code"`
}

// traceConfig is debug_traceCall's TraceCallConfig, as far as used.
type traceConfig struct {
	Tracer         string                             `json:"tracer"`
	StateOverrides map[common.Address]overrideAccount `json:"stateOverrides,omitempty"`
}

// TraceCall simulates call against the latest block with debug_traceCall and the callTracer,
// and returns its root frame. A call that reverts is not an error here: its frames say so
// (CallFrame.Failed, DecodeTrace). An error is the chain's refusal to trace (a *chains.Error,
// ErrUnavailable when it could not be asked or does not serve the tracers API).
func (c *Client) TraceCall(ctx context.Context, call SimCall) (*CallFrame, error) {
	args := traceArgs{From: call.From, To: call.To, Data: call.Data}
	if call.Value != nil {
		args.Value = (*hexutil.Big)(call.Value)
	}
	if call.Gas != 0 {
		g := hexutil.Uint64(call.Gas)
		args.Gas = &g
	}
	cfg := traceConfig{Tracer: "callTracer", StateOverrides: delegations(c.chain.ID, call.AuthorizationList)}
	var root CallFrame
	if err := c.eth.Client().CallContext(ctx, &root, "debug_traceCall", args, "latest", cfg); err != nil {
		return nil, c.classify("debug_traceCall", err)
	}
	return &root, nil
}

// delegations is the state override that simulates auths on chain chainID: each authority's code
// set to the delegation designator 0xef0100 || address (empty for the zero address), which the
// EVM resolves as a type-4 transaction's authorization would have set it. An authorization whose
// signature recovers no authority, or that names another chain, is skipped, as on chain.
func delegations(chainID uint64, auths []types.SetCodeAuthorization) map[common.Address]overrideAccount {
	if len(auths) == 0 {
		return nil
	}
	out := make(map[common.Address]overrideAccount, len(auths))
	for _, a := range auths {
		if !a.ChainID.IsZero() && a.ChainID.Uint64() != chainID {
			continue
		}
		authority, err := a.Authority()
		if err != nil {
			continue
		}
		if _, seen := out[authority]; seen {
			continue
		}
		code := hexutil.Bytes{}
		if a.Address != (common.Address{}) {
			code = types.AddressToDelegation(a.Address)
		}
		out[authority] = overrideAccount{Code: code}
	}
	return out
}

// SimulateCall traces call (TraceCall) and decodes it with the chain's registry
// (NewABIRegistry(ContractNames(chain))): nil details when the call succeeds, the details of
// its failure when it does not.
func (c *Client) SimulateCall(ctx context.Context, call SimCall) (*RevertDetails, error) {
	root, err := c.TraceCall(ctx, call)
	if err != nil {
		return nil, err
	}
	if !root.Failed() {
		return nil, nil // the registry is built only for a failure to decode
	}
	return DecodeTrace(root, NewABIRegistry(ContractNames(c.chain))), nil
}
