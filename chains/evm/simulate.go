package evm

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// A fill simulation's outcome is reused for fillSimFresh, then re-run in the background while
// the old outcome is served, up to fillSimMaxAge. Whether a token lets the solver pay a
// recipient changes rarely (a blocklist update), and a quote that slips past such a change is
// still caught at fill time, so the reuse keeps simulations off the hot path without weakening
// what is checked.
const (
	fillSimFresh  = 20 * time.Second
	fillSimMaxAge = time.Minute
)

// fillSimKey names one simulated fill: who pays, in what, to whom.
type fillSimKey struct{ solver, currency, recipient common.Address }

// RevertError is a call the chain would revert, with the reason decoded where the contract
// says one.
type RevertError struct {
	// Reason is the decoded revert: a custom error's name and arguments, an Error(string)
	// message, or "no reason" when the contract gave none.
	Reason string
	// Blocked is set when the token contract refuses the recipient (a blocklist).
	Blocked bool
}

func (e *RevertError) Error() string { return "execution reverted: " + e.Reason }

// SimulateFill runs the fill of one base unit of currency from solver to recipient with
// eth_call against the latest block, and returns a *RevertError when the chain would revert it
// (a blocked recipient, a recipient contract refusing the native asset) or an error wrapping
// ErrUnavailable when the chain could not be asked. Outcomes are reused for fillSimFresh.
// The amount is nominal on purpose: this checks that the recipient can be paid at all; whether
// the solver holds enough is an inventory question answered at fill time.
func (c *Client) SimulateFill(ctx context.Context, solver, currency, recipient common.Address) error {
	revert, err := c.fillSims.Get(ctx, fillSimKey{solver, currency, recipient})
	if err != nil {
		return err
	}
	return revert
}

// simulateFill returns the simulated outcome first (nil or a *RevertError) and a failure to
// simulate second.
func (c *Client) simulateFill(ctx context.Context, k fillSimKey) (error, error) { //nolint:staticcheck // two errors on purpose, see above
	settler := common.HexToAddress(c.Chain.OutputSettler)
	data, value := FillCalldata(common.Hash{}, k.currency, k.recipient, big.NewInt(1))
	_, err := c.eth.CallContract(ctx, ethereum.CallMsg{From: k.solver, To: &settler, Data: data, Value: value}, nil)
	if err == nil {
		return nil, nil
	}
	if r := AsRevert(err); r != nil {
		return r, nil
	}
	return nil, unavailable("simulate fill", err)
}

// knownErrors are the custom errors of the project's contracts (and the token errors they pass
// through), by selector.
var knownErrors = func() map[[4]byte]abi.Error {
	m := map[[4]byte]abi.Error{}
	for _, a := range []abi.ABI{OutputSettlerABI.GetABI(), ERC20ABI.GetABI(), DepositoryABI.GetABI()} {
		for _, e := range a.Errors {
			m[[4]byte(e.ID[:4])] = e
		}
	}
	return m
}()

// blocklistWords mark a revert string that means "this address is blocked" on tokens outside
// the devnet (USDC says "Blacklistable: account is blacklisted").
var blocklistWords = []string{"blacklist", "blocklist", "blocked", "frozen", "sanction"}

// revertCode is the JSON-RPC error code nodes answer a revert with (geth, erigon, anvil).
const revertCode = 3

// AsRevert returns the decoded revert of a failed eth_call or gas estimate, or nil when err is
// not a revert (a transport failure, a timeout, or any other JSON-RPC error: "internal error",
// "limit exceeded", "insufficient funds"). A revert is what a node says one is: error code 3,
// or "execution reverted" in the message. Every JSON-RPC error answer carries the DataError
// interface, so that alone proves nothing.
func AsRevert(err error) *RevertError {
	if err == nil {
		return nil
	}
	var coded rpc.Error
	isCode3 := errors.As(err, &coded) && coded.ErrorCode() == revertCode
	if !isCode3 && !strings.Contains(strings.ToLower(err.Error()), "execution reverted") {
		return nil
	}
	var de rpc.DataError
	if !errors.As(err, &de) || de.ErrorData() == nil {
		return classify(&RevertError{Reason: strings.TrimPrefix(err.Error(), "execution reverted: ")})
	}
	s, _ := de.ErrorData().(string)
	data, derr := hexutil.Decode(s)
	if derr != nil || len(data) < 4 {
		return &RevertError{Reason: "no reason"}
	}
	if msg, uerr := abi.UnpackRevert(data); uerr == nil {
		return classify(&RevertError{Reason: msg})
	}
	if e, ok := knownErrors[[4]byte(data[:4])]; ok {
		r := &RevertError{Reason: e.Name, Blocked: e.Name == "Blocked"}
		if args, uerr := e.Unpack(data); uerr == nil {
			r.Reason = fmt.Sprintf("%s%v", e.Name, args)
		}
		return r
	}
	return &RevertError{Reason: "custom error 0x" + common.Bytes2Hex(data[:4])}
}

func classify(r *RevertError) *RevertError {
	low := strings.ToLower(r.Reason)
	for _, w := range blocklistWords {
		if strings.Contains(low, w) {
			r.Blocked = true
		}
	}
	return r
}
