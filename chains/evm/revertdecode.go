package evm

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm/bindings"
)

// TraceFrame is a frame of a failed simulation on the wire (POST /execute's details): every
// field a string, left out when unknown.
type TraceFrame struct {
	// Type is the call's kind: CALL, STATICCALL, DELEGATECALL, CALLCODE, CREATE, CREATE2.
	Type string `json:"type,omitempty"`
	// Address is the called account, checksummed.
	Address string `json:"address,omitempty"`
	// Contract is the called contract's name, when its address is known or its selector is
	// one contract's only.
	Contract string `json:"contract,omitempty"`
	// Function is the called function's name, from the known ABIs.
	Function string `json:"function,omitempty"`
	// Selector is the first four bytes of the input, 0x-prefixed.
	Selector string `json:"selector,omitempty"`
	// Error is the tracer's error ("execution reverted", "out of gas", ...).
	Error string `json:"error,omitempty"`
	// RevertReason is the tracer's decoding of an Error(string) or Panic revert.
	RevertReason string `json:"revertReason,omitempty"`
	// GasUsed is the gas the frame used, in decimal.
	GasUsed string `json:"gasUsed,omitempty"`
}

// The kinds of a decoded revert (Revert.Type).
const (
	RevertErrorString        = "errorString"
	RevertPanic              = "panic"
	RevertCustomError        = "customError"
	RevertUnknownCustomError = "unknownCustomError"
	RevertEmpty              = "empty"
)

// Labels of the reverts whose label is not derived from a custom error's name (docs/api.md,
// "POST /execute simulation errors"). A panic's label is PanicLabelPrefix and its code's name
// (PANIC_DIVISION_BY_ZERO); an unknown custom error's is UnknownCustomErrorLabelPrefix and its
// selector (UNKNOWN_CUSTOM_ERROR_0xdeadbeef).
const (
	ErrorStringLabel              = "REVERTED"
	EmptyRevertLabel              = "EMPTY_REVERT"
	PanicLabelPrefix              = "PANIC_"
	UnknownCustomErrorLabelPrefix = "UNKNOWN_CUSTOM_ERROR_"
)

// Revert is a decoded revert on the wire.
type Revert struct {
	// Type is one of errorString, panic, customError, unknownCustomError, empty.
	Type string `json:"type"`
	// Label is a stable UPPER_SNAKE name of the revert (see the label constants).
	Label string `json:"label"`
	// Message is for people: the reason string, the panic's meaning, the error's name in words.
	Message string `json:"message"`
	// Selector is the revert data's first four bytes, 0x-prefixed.
	Selector string `json:"selector,omitempty"`
	// Name is the error's name: Error, Panic, or the custom error's.
	Name string `json:"name,omitempty"`
	// Args are the decoded arguments by name (argN when unnamed): addresses checksummed,
	// integers in decimal, bytes in 0x hex.
	Args map[string]string `json:"args,omitempty"`
	// RawArgsHex is the data after the selector, 0x hex, when it could not be decoded.
	RawArgsHex string `json:"rawArgsHex,omitempty"`
}

// RevertDetails are the details of a failed simulation (POST /execute): the root frame, the
// failing branch from the root to its deepest failed frame, that frame, and its revert decoded.
type RevertDetails struct {
	TopLevel  TraceFrame   `json:"topLevel"`
	Innermost TraceFrame   `json:"innermost"`
	Path      []TraceFrame `json:"path"`
	Revert    Revert       `json:"revert"`
}

// NamedABI is an ABI with the contract's name, for ABIRegistry.
type NamedABI struct {
	Name string
	ABI  abi.ABI
}

// ABIRegistry knows functions and custom errors by selector, and contract names by address.
// It is read-only once made, safe for concurrent use.
type ABIRegistry struct {
	functions map[[4]byte][]namedMethod
	errors    map[[4]byte]abi.Error
	names     map[common.Address]string
}

type namedMethod struct {
	contract string
	method   abi.Method
}

// standardABIs are ABIs of contracts the engine meets beside its own: an ERC-20 token, the
// errors of OpenZeppelin's ERC-20 (IERC20Errors) and of Permit2's signature checks.
const standardABIs = `[
{"type":"function","name":"transfer","inputs":[{"name":"to","type":"address"},{"name":"value","type":"uint256"}],"outputs":[{"name":"","type":"bool"}],"stateMutability":"nonpayable"},
{"type":"function","name":"transferFrom","inputs":[{"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"value","type":"uint256"}],"outputs":[{"name":"","type":"bool"}],"stateMutability":"nonpayable"},
{"type":"function","name":"approve","inputs":[{"name":"spender","type":"address"},{"name":"value","type":"uint256"}],"outputs":[{"name":"","type":"bool"}],"stateMutability":"nonpayable"},
{"type":"function","name":"balanceOf","inputs":[{"name":"account","type":"address"}],"outputs":[{"name":"","type":"uint256"}],"stateMutability":"view"},
{"type":"function","name":"allowance","inputs":[{"name":"owner","type":"address"},{"name":"spender","type":"address"}],"outputs":[{"name":"","type":"uint256"}],"stateMutability":"view"},
{"type":"function","name":"totalSupply","inputs":[],"outputs":[{"name":"","type":"uint256"}],"stateMutability":"view"},
{"type":"function","name":"decimals","inputs":[],"outputs":[{"name":"","type":"uint8"}],"stateMutability":"view"},
{"type":"function","name":"symbol","inputs":[],"outputs":[{"name":"","type":"string"}],"stateMutability":"view"},
{"type":"function","name":"name","inputs":[],"outputs":[{"name":"","type":"string"}],"stateMutability":"view"},
{"type":"error","name":"ERC20InsufficientBalance","inputs":[{"name":"sender","type":"address"},{"name":"balance","type":"uint256"},{"name":"needed","type":"uint256"}]},
{"type":"error","name":"ERC20InvalidSender","inputs":[{"name":"sender","type":"address"}]},
{"type":"error","name":"ERC20InvalidReceiver","inputs":[{"name":"receiver","type":"address"}]},
{"type":"error","name":"ERC20InsufficientAllowance","inputs":[{"name":"spender","type":"address"},{"name":"allowance","type":"uint256"},{"name":"needed","type":"uint256"}]},
{"type":"error","name":"ERC20InvalidApprover","inputs":[{"name":"approver","type":"address"}]},
{"type":"error","name":"ERC20InvalidSpender","inputs":[{"name":"spender","type":"address"}]},
{"type":"error","name":"InvalidSignature","inputs":[]},
{"type":"error","name":"InvalidSigner","inputs":[]},
{"type":"error","name":"SignatureExpired","inputs":[{"name":"signatureDeadline","type":"uint256"}]},
{"type":"error","name":"InvalidNonce","inputs":[]}
]`

// KnownABIs are the ABIs every registry knows: each contract of chains/evm/bindings, and
// standardABIs (named ERC20).
func KnownABIs() []NamedABI { return slices.Clone(knownABIs()) }

// knownABIs parses the ABIs once: a registry is built per failed simulation.
var knownABIs = sync.OnceValue(func() []NamedABI {
	std, err := abi.JSON(strings.NewReader(standardABIs))
	if err != nil {
		panic(err) // a constant
	}
	return []NamedABI{
		{"Depository", bindings.NewDepository().GetABI()},
		{"OutputSettler", bindings.NewOutputSettler().GetABI()},
		{"DepositAddress", bindings.NewDepositAddress().GetABI()},
		{"DepositAddressFactory", bindings.NewDepositAddressFactory().GetABI()},
		{"DepositBatcher", bindings.NewDepositBatcher().GetABI()},
		{"GasBurnerToken", bindings.NewGasBurnerToken().GetABI()},
		{"PriceFeed", bindings.NewPriceFeed().GetABI()},
		{"TestUSDC", bindings.NewTestUSDC().GetABI()},
		{"Reverter", bindings.NewReverter().GetABI()},
		{"BatchExecutor", bindings.NewBatchExecutor().GetABI()},
		{"ERC20", std},
	}
})

// NewABIRegistry makes a registry of KnownABIs and extra, with names the contract names by
// address (nil for none).
func NewABIRegistry(names map[common.Address]string, extra ...NamedABI) *ABIRegistry {
	r := &ABIRegistry{functions: map[[4]byte][]namedMethod{}, errors: map[[4]byte]abi.Error{}, names: names}
	for _, n := range append(KnownABIs(), extra...) {
		for _, m := range n.ABI.Methods {
			sel := [4]byte(m.ID[:4])
			r.functions[sel] = append(r.functions[sel], namedMethod{n.Name, m})
		}
		for _, e := range n.ABI.Errors {
			sel := [4]byte(e.ID[:4])
			if _, ok := r.errors[sel]; !ok {
				r.errors[sel] = e
			}
		}
	}
	return r
}

// ContractNames are the names of a chain's contracts by address, from its registry entry: the
// Depository, the OutputSettler, the DepositAddressFactory and each ERC-20 by its symbol.
func ContractNames(ch *chains.Chain) map[common.Address]string {
	names := map[common.Address]string{}
	add := func(addr, name string) {
		if common.IsHexAddress(addr) && common.HexToAddress(addr) != (common.Address{}) {
			names[common.HexToAddress(addr)] = name
		}
	}
	add(ch.Depository, "Depository")
	add(ch.OutputSettler, "OutputSettler")
	add(ch.DepositAddressFactory, "DepositAddressFactory")
	for _, cur := range ch.ERC20 {
		add(cur.Address, cur.Symbol)
	}
	return names
}

// DecodeTrace returns the details of root's failure, or nil when root did not fail. The path
// runs from root down the failing branch: at each frame, the last of its calls that failed, to
// the deepest; the revert is the innermost frame's output decoded.
func DecodeTrace(root *CallFrame, reg *ABIRegistry) *RevertDetails {
	if root == nil || !root.Failed() {
		return nil
	}
	var path []TraceFrame
	cur := root
	for {
		path = append(path, reg.frame(cur))
		var next *CallFrame
		for i := len(cur.Calls) - 1; i >= 0; i-- {
			if cur.Calls[i].Failed() {
				next = &cur.Calls[i]
				break
			}
		}
		if next == nil {
			break
		}
		cur = next
	}
	return &RevertDetails{
		TopLevel:  path[0],
		Innermost: path[len(path)-1],
		Path:      path,
		Revert:    reg.DecodeRevert(cur.Output, cur.Error),
	}
}

// frame is f on the wire.
func (r *ABIRegistry) frame(f *CallFrame) TraceFrame {
	out := TraceFrame{
		Type:         f.Type,
		Error:        f.Error,
		RevertReason: f.RevertReason,
		GasUsed:      strconv.FormatUint(uint64(f.GasUsed), 10),
	}
	if f.To != nil {
		out.Address = f.To.Hex()
		out.Contract = r.names[*f.To]
	}
	if len(f.Input) >= 4 && !strings.HasPrefix(f.Type, "CREATE") {
		sel := [4]byte(f.Input[:4])
		out.Selector = hexSelector(sel)
		if ms := r.functions[sel]; len(ms) > 0 {
			out.Function = ms[0].method.Name
			if out.Contract == "" && len(ms) == 1 {
				out.Contract = ms[0].contract
			}
		}
	}
	return out
}

// DecodeRevert decodes revert data: Error(string), Panic(uint256), a known custom error, an
// unknown one, or none. frameErr is the tracer's error of the frame ("execution reverted",
// "out of gas"), which an empty revert's message gives when it says more than that it reverted.
func (r *ABIRegistry) DecodeRevert(data []byte, frameErr string) Revert {
	if len(data) == 0 {
		msg := "Reverted without a reason"
		if frameErr != "" && frameErr != "execution reverted" {
			msg = frameErr
		}
		return Revert{Type: RevertEmpty, Label: EmptyRevertLabel, Message: msg}
	}
	if len(data) < 4 {
		return Revert{Type: RevertUnknownCustomError, Label: strings.TrimSuffix(UnknownCustomErrorLabelPrefix, "_"),
			Message: "Unknown custom error", RawArgsHex: "0x" + hex.EncodeToString(data)}
	}
	sel := [4]byte(data[:4])
	selHex := hexSelector(sel)
	switch sel {
	case errorSelector:
		if reason, err := abi.UnpackRevert(data); err == nil {
			return Revert{Type: RevertErrorString, Label: ErrorStringLabel, Message: reason, Selector: selHex, Name: "Error"}
		}
	case panicSelector:
		if len(data) == 36 {
			code := new(big.Int).SetBytes(data[4:])
			name, meaning := panicMeaning(code)
			return Revert{Type: RevertPanic, Label: PanicLabelPrefix + name, Message: "Panic: " + meaning,
				Selector: selHex, Name: "Panic", Args: map[string]string{"code": "0x" + fmt.Sprintf("%02x", code)}}
		}
	}
	if e, ok := r.errors[sel]; ok {
		out := Revert{Type: RevertCustomError, Label: upperSnake(e.Name), Message: inWords(e.Name), Selector: selHex, Name: e.Name}
		vals, err := e.Inputs.Unpack(data[4:])
		if err != nil {
			out.RawArgsHex = "0x" + hex.EncodeToString(data[4:])
			return out
		}
		if len(vals) > 0 {
			out.Args = make(map[string]string, len(vals))
			for i, v := range vals {
				name := e.Inputs[i].Name
				if name == "" {
					name = "arg" + strconv.Itoa(i)
				}
				out.Args[name] = argString(v)
			}
		}
		return out
	}
	return Revert{Type: RevertUnknownCustomError, Label: UnknownCustomErrorLabelPrefix + selHex,
		Message: "Unknown custom error " + selHex, Selector: selHex, RawArgsHex: "0x" + hex.EncodeToString(data[4:])}
}

// panicCodes name Solidity's panic codes: label suffix and meaning.
var panicCodes = map[uint64][2]string{
	0x00: {"GENERIC", "generic compiler panic (0x00)"},
	0x01: {"ASSERTION_FAILED", "assertion failed (0x01)"},
	0x11: {"ARITHMETIC_OVERFLOW", "arithmetic overflow or underflow (0x11)"},
	0x12: {"DIVISION_BY_ZERO", "division or modulo by zero (0x12)"},
	0x21: {"INVALID_ENUM_VALUE", "conversion to an invalid enum value (0x21)"},
	0x22: {"INVALID_STORAGE_BYTE_ARRAY", "access to an incorrectly encoded storage byte array (0x22)"},
	0x31: {"POP_EMPTY_ARRAY", "pop on an empty array (0x31)"},
	0x32: {"ARRAY_OUT_OF_BOUNDS", "array index out of bounds (0x32)"},
	0x41: {"OUT_OF_MEMORY", "too much memory allocated (0x41)"},
	0x51: {"ZERO_FUNCTION_POINTER", "call to a zero-initialized function pointer (0x51)"},
}

func panicMeaning(code *big.Int) (name, meaning string) {
	if code.IsUint64() {
		if p, ok := panicCodes[code.Uint64()]; ok {
			return p[0], p[1]
		}
	}
	return "UNKNOWN", fmt.Sprintf("unknown panic code (0x%02x)", code)
}

// argString writes a decoded argument: addresses checksummed, integers in decimal, bytes in 0x
// hex, anything else (arrays, tuples) as Go prints it.
func argString(v any) string {
	switch x := v.(type) {
	case common.Address:
		return x.Hex()
	case *big.Int:
		return x.String()
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case []byte:
		return "0x" + hex.EncodeToString(x)
	case uint8, uint16, uint32, uint64, int8, int16, int32, int64:
		return fmt.Sprint(x)
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Array && rv.Type().Elem().Kind() == reflect.Uint8 {
		b := make([]byte, rv.Len())
		reflect.Copy(reflect.ValueOf(b), rv)
		return "0x" + hex.EncodeToString(b)
	}
	return fmt.Sprint(v)
}

// words splits an identifier into its words: at a lower case letter or digit followed by an
// upper case one, and before the last upper case letter of a run followed by a lower case one
// ("ERC20InsufficientBalance": ERC20, Insufficient, Balance; "HTTPError": HTTP, Error).
func words(name string) []string {
	rs := []rune(strings.ReplaceAll(name, "_", " "))
	var out []string
	start := 0
	for i := 1; i < len(rs); i++ {
		prev, cur := rs[i-1], rs[i]
		split := unicode.IsUpper(cur) && (unicode.IsLower(prev) || unicode.IsDigit(prev)) ||
			unicode.IsUpper(cur) && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]) ||
			cur == ' '
		if split {
			if w := strings.TrimSpace(string(rs[start:i])); w != "" {
				out = append(out, w)
			}
			start = i
		}
	}
	if w := strings.TrimSpace(string(rs[start:])); w != "" {
		out = append(out, w)
	}
	return out
}

// upperSnake is name's label: "InvalidSignature" → "INVALID_SIGNATURE".
func upperSnake(name string) string {
	return strings.ToUpper(strings.Join(words(name), "_"))
}

// inWords is name as a sentence: "InvalidSignature" → "Invalid signature"; an acronym keeps
// its case ("ERC20InvalidSender" → "ERC20 invalid sender").
func inWords(name string) string {
	ws := words(name)
	for i, w := range ws {
		if isAcronym(w) {
			continue
		}
		w = strings.ToLower(w)
		if i == 0 {
			rs := []rune(w)
			rs[0] = unicode.ToUpper(rs[0])
			w = string(rs)
		}
		ws[i] = w
	}
	return strings.Join(ws, " ")
}

// isAcronym: two or more letters, all upper case (digits allowed).
func isAcronym(w string) bool {
	letters := 0
	for _, r := range w {
		if unicode.IsLower(r) {
			return false
		}
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters >= 2
}

func hexSelector(sel [4]byte) string { return "0x" + hex.EncodeToString(sel[:]) }
