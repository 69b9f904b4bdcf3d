package evm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
)

// Each kind from the answers nodes give: the messages are go-ethereum's (v1.17, its simulated
// backend over HTTP, see TestClientClassifiesTheNodesAnswers), answered with code -32000; the
// -380xx codes are the execution-api codes other clients answer with.
func TestClassifyKinds(t *testing.T) {
	c := &Client{chain: &chains.Chain{ID: 31337}}
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"estimate from an account that cannot pay", rpcErr{-32000, "failed with 16777216 gas: insufficient funds for gas * price + value: address 0x8708B75Eb8cf6aCc42D9431Ad41DAfA03f081785 have 0 want 1000000000000000000", nil}, chains.ErrInsufficientFunds},
		{"send from an account that cannot pay", rpcErr{-32000, "insufficient funds for gas * price + value: balance 0, tx cost 1000049960134168000, overshot 1000049960134168000", nil}, chains.ErrInsufficientFunds},
		{"estimate of a transfer the sender cannot pay", rpcErr{-32000, "insufficient funds for transfer", nil}, chains.ErrInsufficientFunds},
		{"insufficient funds by code", rpcErr{-38014, "sender balance too low", nil}, chains.ErrInsufficientFunds},
		{"nonce too low", rpcErr{-32000, "nonce too low: next nonce 16, tx nonce 0", nil}, chains.ErrNonceTooLow},
		{"nonce too low by code", rpcErr{-38010, "Nonce too low", nil}, chains.ErrNonceTooLow},
		{"already known", rpcErr{-32000, "already known", nil}, chains.ErrAlreadyKnown},
		{"known transaction (older geth)", rpcErr{-32000, "known transaction: 3c2b0e2c07c8fd8f7dcd9fc1c4a1e1a2e1f4b8a1", nil}, chains.ErrAlreadyKnown},
		{"replacement underpriced", rpcErr{-32000, "replacement transaction underpriced", nil}, chains.ErrReplacementUnderpriced},
		{"not found", ethereum.NotFound, chains.ErrNotFound},
		{"a provider's internal error", rpcErr{-32603, "internal error", nil}, chains.ErrUnavailable},
		{"a rate limit", rpcErr{-32005, "limit exceeded", nil}, chains.ErrUnavailable},
		{"a transport failure", errors.New(`Post "http://127.0.0.1:1": dial tcp 127.0.0.1:1: connect: connection refused`), chains.ErrUnavailable},
		{"a timeout", fmt.Errorf("post: %w", context.DeadlineExceeded), chains.ErrUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := c.classify("op", tc.err)
			var ce *chains.Error
			if !errors.As(got, &ce) || ce.Kind != tc.want || ce.ChainID != 31337 || ce.Op != "op" {
				t.Fatalf("classify(%v) = %#v, want kind %v", tc.err, got, tc.want)
			}
			if !errors.Is(got, tc.err) {
				t.Fatalf("classify(%v) = %v does not carry the node's answer", tc.err, got)
			}
			if unavailable := errors.Is(got, intent.ErrUnavailable); unavailable != (tc.want == chains.ErrUnavailable) {
				t.Fatalf("classify(%v) is intent.ErrUnavailable: %v", tc.err, unavailable)
			}
		})
	}
	if c.classify("op", nil) != nil {
		t.Fatal("classify(nil) is not nil")
	}
	if err := c.classify("op", rpcErr{3, "execution reverted", nil}); !errors.As(err, new(*chains.RevertError)) {
		t.Fatalf("classify(revert) = %v, want a *chains.RevertError", err)
	}
}

// A revert carries the custom error's name and selector when they can be decoded, whether the
// node sends the revert data or only names the error in its message.
func TestAsRevertNamesTheError(t *testing.T) {
	str, _ := abi.NewType("string", "", nil)
	u256, _ := abi.NewType("uint256", "", nil)
	errorString, _ := abi.Arguments{{Type: str}}.Pack("Blacklistable: account is blacklisted")
	panic01, _ := abi.Arguments{{Type: u256}}.Pack(common.Big1)
	alreadyFilled := OutputSettlerABI.GetABI().Errors["AlreadyFilled"]
	filledArgs, _ := alreadyFilled.Inputs.Pack([32]byte{7})
	blocked := ERC20ABI.GetABI().Errors["Blocked"]
	blockedArgs, _ := blocked.Inputs.Pack(common.HexToAddress("0x01"))
	data := func(sel []byte, args []byte) string { return hexutil.Encode(append(append([]byte{}, sel...), args...)) }
	for _, tc := range []struct {
		name    string
		err     error
		want    chains.RevertError
		wantSel bool
	}{
		{"Error(string)", rpcErr{3, "execution reverted: Blacklistable: account is blacklisted", data(errorSelector[:], errorString)},
			chains.RevertError{Name: "Error", Reason: "Blacklistable: account is blacklisted", Blocked: true}, true},
		{"Panic(uint256)", rpcErr{3, "execution reverted: assert(false)", data(panicSelector[:], panic01)},
			chains.RevertError{Name: "Panic", Reason: "assert(false)"}, true},
		{"a custom error of the output settler", rpcErr{3, "execution reverted", data(alreadyFilled.ID[:4], filledArgs)},
			chains.RevertError{Name: "AlreadyFilled", Reason: fmt.Sprintf("AlreadyFilled[%v]", [32]byte{7})}, true},
		{"a token's Blocked", rpcErr{3, "execution reverted", data(blocked.ID[:4], blockedArgs)},
			chains.RevertError{Name: "Blocked", Reason: "Blocked[0x0000000000000000000000000000000000000001]", Blocked: true}, true},
		{"an unknown custom error", rpcErr{3, "execution reverted", "0xdeadbeef"},
			chains.RevertError{Reason: "custom error 0xdeadbeef"}, true},
		{"a custom error in the message only", errors.New("execution reverted: AlreadyFilled(0x07)"),
			chains.RevertError{Name: "AlreadyFilled", Reason: "AlreadyFilled(0x07)"}, false},
		{"a revert string in the message only", errors.New("execution reverted: not allowed"),
			chains.RevertError{Reason: "not allowed"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := asRevert(tc.err)
			if got == nil {
				t.Fatalf("asRevert(%v) = nil", tc.err)
			}
			want := tc.want
			if tc.wantSel {
				raw, _ := tc.err.(rpcErr).data.(string)
				want.Selector = [4]byte(hexutil.MustDecode(raw)[:4])
			}
			if *got != want {
				t.Fatalf("asRevert(%v) = %+v, want %+v", tc.err, *got, want)
			}
		})
	}
}

// Review L4: "RPC URLs (which carry provider keys in their path/query) never reach logs". A
// call to a node that does not answer, at a URL with a secret-looking path and query, fails with
// an error that names the host and not the rest, and is still ErrUnavailable.
func TestFailedCallsDoNotQuoteTheRPCURL(t *testing.T) {
	const secret = "SECRETPROVIDERKEY0123"
	c, err := Dial(&chains.Chain{ID: 31337, HTTPRPCURL: "http://127.0.0.1:1/v2/" + secret + "?apikey=" + secret})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Head(context.Background())
	if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("a failed call: %v", err)
	}
	if !errors.Is(err, chains.ErrUnavailable) {
		t.Fatalf("a failed call is not ErrUnavailable: %v", err)
	}
}
