package evm

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/internal/redact"
)

// JSON-RPC error codes nodes answer with. geth answers most refusals with -32000 and the
// reason in the message only, so the messages are matched too (those of core and core/txpool,
// which erigon, anvil and hardhat answer alike).
const (
	// codeRevert is a reverted call (geth, erigon, anvil).
	codeRevert = 3
	// codeNonceTooLow and codeInsufficientFunds are the execution-api codes (geth's
	// eth_simulateV1, besu, nethermind).
	codeNonceTooLow       = -38010
	codeInsufficientFunds = -38014
)

// messageKinds map what a node's error message says to its kind, first match wins.
var messageKinds = []struct {
	substr string
	kind   error
}{
	// core.ErrInsufficientFunds, core.ErrInsufficientFundsForTransfer
	{"insufficient funds", chains.ErrInsufficientFunds},
	// core.ErrNonceTooLow
	{"nonce too low", chains.ErrNonceTooLow},
	// txpool.ErrAlreadyKnown; "known transaction" from older geth and parity
	{"already known", chains.ErrAlreadyKnown},
	{"known transaction", chains.ErrAlreadyKnown},
	// txpool.ErrReplaceUnderpriced
	{"replacement transaction underpriced", chains.ErrReplacementUnderpriced},
}

// classify turns the error of an RPC call (op names it) into the chains vocabulary: a
// *chains.RevertError for a revert, else a *chains.Error whose kind is ErrNotFound,
// ErrInsufficientFunds, one of the ErrNonce kinds, or ErrUnavailable for everything else (a
// transport failure, a timeout, "internal error", "limit exceeded"). nil stays nil. The RPC URL
// a transport failure quotes is redacted (internal/redact): it usually holds the provider's key,
// and every caller logs these errors.
func (c *Client) classify(op string, err error) error {
	if err == nil {
		return nil
	}
	if r := asRevert(err); r != nil {
		return r
	}
	return &chains.Error{Kind: kindOf(err), ChainID: c.chain.ID, Op: op, Err: redact.Error(err)}
}

func kindOf(err error) error {
	if errors.Is(err, ethereum.NotFound) {
		return chains.ErrNotFound
	}
	var coded rpc.Error
	if errors.As(err, &coded) {
		switch coded.ErrorCode() {
		case codeNonceTooLow:
			return chains.ErrNonceTooLow
		case codeInsufficientFunds:
			return chains.ErrInsufficientFunds
		}
	}
	msg := strings.ToLower(err.Error())
	for _, m := range messageKinds {
		if strings.Contains(msg, m.substr) {
			return m.kind
		}
	}
	return chains.ErrUnavailable
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

// Selectors of the revert data Solidity itself encodes: Error(string) and Panic(uint256).
var (
	errorSelector = [4]byte{0x08, 0xc3, 0x79, 0xa0}
	panicSelector = [4]byte{0x4e, 0x48, 0x7b, 0x71}
)

// blocklistWords mark a revert string that means "this address is blocked" on tokens outside
// the devnet (USDC says "Blacklistable: account is blacklisted").
var blocklistWords = []string{"blacklist", "blocklist", "blocked", "frozen", "sanction"}

// customErrorText is a revert the node reports in its message only, as a custom error with
// arguments ("Blocked(0x01)"): its name is the leading identifier.
var customErrorText = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\(`)

// asRevert returns the decoded revert of a failed eth_call or gas estimate, or nil when err is
// not a revert (a transport failure, a timeout, or any other JSON-RPC error: "internal error",
// "limit exceeded", "insufficient funds"). A revert is what a node says one is: error code 3,
// or "execution reverted" in the message. Every JSON-RPC error answer carries the DataError
// interface, so that alone proves nothing.
func asRevert(err error) *chains.RevertError {
	var coded rpc.Error
	isCode3 := errors.As(err, &coded) && coded.ErrorCode() == codeRevert
	if !isCode3 && !strings.Contains(strings.ToLower(err.Error()), "execution reverted") {
		return nil
	}
	var de rpc.DataError
	if !errors.As(err, &de) || de.ErrorData() == nil {
		r := &chains.RevertError{Reason: strings.TrimPrefix(err.Error(), "execution reverted: ")}
		if m := customErrorText.FindStringSubmatch(r.Reason); m != nil {
			r.Name = m[1]
		}
		return markBlocked(r)
	}
	s, _ := de.ErrorData().(string)
	data, derr := hexutil.Decode(s)
	if derr != nil || len(data) < 4 {
		return &chains.RevertError{Reason: "no reason"}
	}
	r := &chains.RevertError{Selector: [4]byte(data[:4])}
	if msg, uerr := abi.UnpackRevert(data); uerr == nil {
		r.Reason, r.Name = msg, "Error"
		if r.Selector == panicSelector {
			r.Name = "Panic"
		}
		return markBlocked(r)
	}
	if e, ok := knownErrors[r.Selector]; ok {
		r.Name, r.Reason, r.Blocked = e.Name, e.Name, e.Name == "Blocked"
		if args, uerr := e.Unpack(data); uerr == nil {
			r.Reason = fmt.Sprintf("%s%v", e.Name, args)
		}
		return r
	}
	r.Reason = "custom error 0x" + common.Bytes2Hex(data[:4])
	return r
}

// markBlocked sets Blocked when a revert's text names a blocklist.
func markBlocked(r *chains.RevertError) *chains.RevertError {
	low := strings.ToLower(r.Reason)
	for _, w := range blocklistWords {
		if strings.Contains(low, w) {
			r.Blocked = true
		}
	}
	return r
}
