package evm

import (
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// rpcErr is a JSON-RPC error answer as go-ethereum's client returns it: every one carries a
// code and the DataError interface, with nil data when the answer had none.
type rpcErr struct {
	code int
	msg  string
	data any
}

func (e rpcErr) Error() string  { return e.msg }
func (e rpcErr) ErrorCode() int { return e.code }
func (e rpcErr) ErrorData() any { return e.data }

func TestAsRevertTakesOnlyRevertsForReverts(t *testing.T) {
	errorString, err := abi.NewType("string", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	packed, err := abi.Arguments{{Type: errorString}}.Pack("nope")
	if err != nil {
		t.Fatal(err)
	}
	reason := hexutil.Encode(append([]byte{0x08, 0xc3, 0x79, 0xa0}, packed...))
	for _, tc := range []struct {
		name string
		err  error
		want string // "" = not a revert
	}{
		{"a provider's internal error is not a revert", rpcErr{-32603, "internal error", nil}, ""},
		{"a rate limit is not a revert", rpcErr{-32005, "limit exceeded", nil}, ""},
		{"insufficient funds is not a revert", rpcErr{-32000, "insufficient funds for gas * price + value", nil}, ""},
		{"a transport failure is not a revert", errors.New("dial tcp 127.0.0.1:8546: connection refused"), ""},
		{"code 3 with Error(string) data", rpcErr{3, "execution reverted: nope", reason}, "nope"},
		{"a revert without data", rpcErr{-32000, "execution reverted", nil}, "execution reverted"},
		{"a revert in the message only", errors.New("execution reverted: Blocked(0x01)"), "Blocked(0x01)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := asRevert(tc.err)
			switch {
			case tc.want == "" && got != nil:
				t.Fatalf("asRevert(%v) = %+v, want no revert", tc.err, got)
			case tc.want != "" && (got == nil || got.Reason != tc.want):
				t.Fatalf("asRevert(%v) = %+v, want reason %q", tc.err, got, tc.want)
			}
		})
	}
}
