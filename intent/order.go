package intent

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
	"github.com/mr-tron/base58"
)

// OrderData is the protocol order a quote commits to (`protocol.v2.orderData`). Its EIP-712
// struct hash (no domain) is the 32-byte orderId passed to the depository, so a client can
// recompute the id offline from this data and check the deposit commits to it.
type OrderData struct {
	Version       string       `json:"version"`
	SolverChainID string       `json:"solverChainId"`
	Solver        string       `json:"solver"`
	Salt          string       `json:"salt"`
	Inputs        []OrderInput `json:"inputs"`
	Output        OrderOutput  `json:"output"`
	Fees          []OrderFee   `json:"fees"`
}

// OrderInput is one payment the user makes and how it is refunded.
type OrderInput struct {
	Payment InputPayment  `json:"payment"`
	Refunds []InputRefund `json:"refunds"`
}

// InputPayment is what the user deposits on the origin chain.
type InputPayment struct {
	ChainID  string `json:"chainId"`
	Currency string `json:"currency"`
	Amount   string `json:"amount"`
	Weight   string `json:"weight"`
}

// InputRefund is where the input goes back to when the order cannot be filled.
type InputRefund struct {
	ChainID       string `json:"chainId"`
	Recipient     string `json:"recipient"`
	Currency      string `json:"currency"`
	MinimumAmount string `json:"minimumAmount"`
	Deadline      uint32 `json:"deadline"`
	ExtraData     string `json:"extraData"`
}

// OrderOutput is what the solver pays on the destination chain.
type OrderOutput struct {
	ChainID   string          `json:"chainId"`
	Payments  []OutputPayment `json:"payments"`
	Deadline  uint32          `json:"deadline"`
	Calls     []string        `json:"calls"`
	ExtraData string          `json:"extraData"`
}

// OutputPayment is one payment to a recipient on the destination chain.
type OutputPayment struct {
	Recipient      string `json:"recipient"`
	Currency       string `json:"currency"`
	MinimumAmount  string `json:"minimumAmount"`
	ExpectedAmount string `json:"expectedAmount"`
}

// OrderFee is a fee the order pays to a recipient.
type OrderFee struct {
	RecipientChainID string `json:"recipientChainId"`
	Recipient        string `json:"recipient"`
	CurrencyChainID  string `json:"currencyChainId"`
	Currency         string `json:"currency"`
	Amount           string `json:"amount"`
}

// orderTypes are exactly the types of the public settlement contracts; changing any of them
// changes every order id, so they are a wire contract.
var orderTypes = apitypes.Types{
	"Order": {
		{Name: "version", Type: "string"}, {Name: "solverChainId", Type: "string"},
		{Name: "solver", Type: "address"}, {Name: "salt", Type: "uint256"},
		{Name: "inputs", Type: "Input[]"}, {Name: "output", Type: "Output"}, {Name: "fees", Type: "Fee[]"},
	},
	"Input": {{Name: "payment", Type: "InputPayment"}, {Name: "refunds", Type: "InputRefund[]"}},
	"InputPayment": {
		{Name: "chainId", Type: "string"}, {Name: "currency", Type: "bytes"},
		{Name: "amount", Type: "uint256"}, {Name: "weight", Type: "uint256"},
	},
	"InputRefund": {
		{Name: "chainId", Type: "string"}, {Name: "recipient", Type: "bytes"}, {Name: "currency", Type: "bytes"},
		{Name: "minimumAmount", Type: "uint256"}, {Name: "deadline", Type: "uint32"}, {Name: "extraData", Type: "bytes"},
	},
	"Output": {
		{Name: "chainId", Type: "string"}, {Name: "payments", Type: "OutputPayment[]"},
		{Name: "deadline", Type: "uint32"}, {Name: "calls", Type: "bytes[]"}, {Name: "extraData", Type: "bytes"},
	},
	"OutputPayment": {
		{Name: "recipient", Type: "bytes"}, {Name: "currency", Type: "bytes"},
		{Name: "minimumAmount", Type: "uint256"}, {Name: "expectedAmount", Type: "uint256"},
	},
	"Fee": {
		{Name: "recipientChainId", Type: "string"}, {Name: "recipient", Type: "bytes"},
		{Name: "currencyChainId", Type: "string"}, {Name: "currency", Type: "bytes"}, {Name: "amount", Type: "uint256"},
	},
}

// typeHashes are the EIP-712 type hashes of the order's structs, computed once by go-ethereum
// from orderTypes (which also orders the referenced types as EIP-712 requires).
var typeHashes = func() map[string][]byte {
	td := apitypes.TypedData{Types: orderTypes}
	m := map[string][]byte{}
	for name := range orderTypes {
		m[name] = td.TypeHash(name)
	}
	return m
}()

// ID computes the order id: the EIP-712 struct hash of the order, without a domain.
//
// The data is encoded directly (EIP-712 encodeData for these fixed types) rather than through
// apitypes' map-based encoder, which costs a tenth of a millisecond per quote; tests check the
// two agree on every field (order_test.go, and integration/quote_fees_test.go recomputes ids
// from the API's JSON with apitypes).
func (o OrderData) ID() (common.Hash, error) {
	e := &orderEncoder{}
	h := e.order(o)
	if e.err != nil {
		return common.Hash{}, fmt.Errorf("hash order: %w", e.err)
	}
	return common.BytesToHash(h), nil
}

// orderEncoder hashes order structs, keeping the first error.
type orderEncoder struct{ err error }

func (e *orderEncoder) fail(format string, args ...any) {
	if e.err == nil {
		e.err = fmt.Errorf(format, args...)
	}
}

func (e *orderEncoder) str(s string) []byte { return crypto.Keccak256([]byte(s)) }

// bytes encodes a bytes field: 0x-hex as written, or, for a Solana-type chain's address (a
// base58 public key or mint, case-sensitive: never lower-cased), the 32 bytes it names. The
// order's JSON keeps the base58 string; only the hash reads its bytes.
func (e *orderEncoder) bytes(field, s string) []byte {
	if b, ok := base58Key(s); ok {
		return crypto.Keccak256(b)
	}
	b, err := hexutil.Decode(hexOrEmpty(s))
	if err != nil {
		e.fail("%s %q is neither 0x-prefixed hex nor a base58 address", field, s)
	}
	return crypto.Keccak256(b)
}

// address encodes the solver: an EVM address left-padded to 32 bytes, or a Solana-type
// chain's solver (base58, the order's solver when it fills on such a chain) as the 32 bytes of
// its public key, which fill the word as an address does.
func (e *orderEncoder) address(field, s string) []byte {
	if b, ok := base58Key(s); ok {
		return b
	}
	if !common.IsHexAddress(s) {
		e.fail("%s %q is not an address", field, s)
	}
	return common.LeftPadBytes(common.HexToAddress(s).Bytes(), 32)
}

// base58Key returns the 32 bytes of s when s is a base58 public key as a Solana-type chain
// writes one (32 to 44 characters of the base58 alphabet); a 0x-prefixed string never is one.
func base58Key(s string) ([]byte, bool) {
	if len(s) < 32 || len(s) > 44 || strings.HasPrefix(s, "0x") {
		return nil, false
	}
	b, err := base58.Decode(s)
	if err != nil || len(b) != 32 {
		return nil, false
	}
	return b, true
}

func (e *orderEncoder) uint(field, s string, bits int) []byte {
	v, ok := math.ParseBig256(s)
	if !ok || v.Sign() < 0 || v.BitLen() > bits {
		e.fail("%s %q is not a uint%d", field, s, bits)
		return make([]byte, 32)
	}
	return math.U256Bytes(new(big.Int).Set(v))
}

func (e *orderEncoder) uint32(v uint32) []byte {
	return common.LeftPadBytes(new(big.Int).SetUint64(uint64(v)).Bytes(), 32)
}

func hashStruct(typ string, fields ...[]byte) []byte {
	return crypto.Keccak256(append([][]byte{typeHashes[typ]}, fields...)...)
}

func (e *orderEncoder) order(o OrderData) []byte {
	inputs := make([][]byte, 0, len(o.Inputs))
	for _, in := range o.Inputs {
		refunds := make([][]byte, 0, len(in.Refunds))
		for _, r := range in.Refunds {
			refunds = append(refunds, hashStruct("InputRefund", e.str(r.ChainID), e.bytes("refund recipient", r.Recipient),
				e.bytes("refund currency", r.Currency), e.uint("refund minimumAmount", r.MinimumAmount, 256),
				e.uint32(r.Deadline), e.bytes("refund extraData", r.ExtraData)))
		}
		payment := hashStruct("InputPayment", e.str(in.Payment.ChainID), e.bytes("payment currency", in.Payment.Currency),
			e.uint("payment amount", in.Payment.Amount, 256), e.uint("payment weight", in.Payment.Weight, 256))
		inputs = append(inputs, hashStruct("Input", payment, crypto.Keccak256(refunds...)))
	}
	payments := make([][]byte, 0, len(o.Output.Payments))
	for _, p := range o.Output.Payments {
		payments = append(payments, hashStruct("OutputPayment", e.bytes("payment recipient", p.Recipient),
			e.bytes("payment currency", p.Currency), e.uint("payment minimumAmount", p.MinimumAmount, 256),
			e.uint("payment expectedAmount", p.ExpectedAmount, 256)))
	}
	calls := make([][]byte, 0, len(o.Output.Calls))
	for _, c := range o.Output.Calls {
		calls = append(calls, e.bytes("call", c))
	}
	output := hashStruct("Output", e.str(o.Output.ChainID), crypto.Keccak256(payments...), e.uint32(o.Output.Deadline),
		crypto.Keccak256(calls...), e.bytes("output extraData", o.Output.ExtraData))
	fees := make([][]byte, 0, len(o.Fees))
	for _, f := range o.Fees {
		fees = append(fees, hashStruct("Fee", e.str(f.RecipientChainID), e.bytes("fee recipient", f.Recipient),
			e.str(f.CurrencyChainID), e.bytes("fee currency", f.Currency), e.uint("fee amount", f.Amount, 256)))
	}
	return hashStruct("Order", e.str(o.Version), e.str(o.SolverChainID), e.address("solver", o.Solver),
		e.uint("salt", o.Salt, 256), crypto.Keccak256(inputs...), output, crypto.Keccak256(fees...))
}

func hexOrEmpty(s string) string {
	if s == "" {
		return "0x"
	}
	return s
}

// Big parses a decimal amount field; a malformed value reads as zero, which every caller treats
// as not enough (amounts were validated when the quote was made).
func Big(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return new(big.Int)
	}
	return v
}
