package quote

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strconv"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/fees"
	"github.com/intentd/intentd/intent"
)

// MaxBodyBytes bounds a quote body; real bodies are a few hundred bytes.
const MaxBodyBytes = 64 << 10

// Request is the body of POST /quote/v2 (the spec's request table). Fields the engine does not
// act on yet are accepted so clients written against the spec are not refused. The json names
// are the known fields of the field rule (fields.go): add a field here and it is known.
// A field tagged required is refused missing by Validate; the tag publishes that in the API's
// OpenAPI document (internal/openapidoc).
type Request struct {
	User                      string          `json:"user" required:"true"`
	OriginChainID             json.Number     `json:"originChainId" required:"true"`
	DestinationChainID        json.Number     `json:"destinationChainId" required:"true"`
	OriginCurrency            string          `json:"originCurrency" required:"true"`
	DestinationCurrency       string          `json:"destinationCurrency" required:"true"`
	Recipient                 string          `json:"recipient"`
	TradeType                 string          `json:"tradeType"`
	Amount                    string          `json:"amount" required:"true"`
	RefundTo                  string          `json:"refundTo"`
	RecoveryAddress           string          `json:"recoveryAddress"`
	ProtocolVersion           string          `json:"protocolVersion"`
	Referrer                  string          `json:"referrer"`
	IncludedOriginSwapSources []string        `json:"includedOriginSwapSources"`
	MaxRouteLength            *int            `json:"maxRouteLength"`
	ForBundle                 *bool           `json:"forBundle"`
	SubsidizeFees             *bool           `json:"subsidizeFees"`
	SponsoredFeeComponents    []string        `json:"sponsoredFeeComponents"`
	SubsidizationBps          *int64          `json:"subsidizationBps"`
	MaxSubsidizationAmount    string          `json:"maxSubsidizationAmount"`
	IncludeProtocolData       bool            `json:"includeProtocolData"`
	UseDepositAddress         bool            `json:"useDepositAddress"`
	IndicativeQuote           *bool           `json:"indicativeQuote"`
	ReferencePrice            json.RawMessage `json:"referencePrice"`
	UseRouteRacing            *bool           `json:"useRouteRacing"`
	RouteRacingMinUsdSize     json.RawMessage `json:"routeRacingMinUsdSize"`
	// Strict is read only with useDepositAddress (a strict or an open address); the spec has
	// /quote/v2 ignore it otherwise, and so it is, whatever its type.
	Strict                         json.RawMessage `json:"strict"`
	SlippageTolerance              string          `json:"slippageTolerance"`
	AppFees                        []AppFeeRequest `json:"appFees"`
	UserOperationGasOverhead       json.RawMessage `json:"userOperationGasOverhead"`
	ExplicitDeposit                *bool           `json:"explicitDeposit"`
	IncludedDestinationSwapSources []string        `json:"includedDestinationSwapSources"`
	// Txs are calls to make on the destination; no route of this engine makes them, so they are
	// ignored, except with a deposit address, which refuses them (docs/deposit-addresses.md).
	Txs json.RawMessage `json:"txs"`
	// OriginGasOverhead is the gas the relayed origin transaction of a gasless execution uses
	// (issue 37; docs/api.md): with it the quote charges that gas at the origin's gas price.
	// A JSON number, an integer from 1 to MaxOriginGasOverhead; absent or null: none. The
	// document types it an integer (api/openapi.go); kept raw to refuse anything else by name.
	OriginGasOverhead json.RawMessage `json:"originGasOverhead" minimum:"1" maximum:"1000000" doc:"Gas units the relayed origin transaction of a gasless execution (POST /execute) uses: the quote adds them, at the origin chain's gas price, to the execution fee (fees.gas). Clients send 80000 for a 7702 batch executor (approve and deposit), 300000 for an ERC-4337 smart account; absent or null: no origin gas. EVM origins only; not with useDepositAddress."`
}

// AppFeeRequest is one integrator fee of the request's appFees: recipient and fee in basis
// points of the input amount, as a decimal string.
type AppFeeRequest struct {
	Recipient string `json:"recipient"`
	Fee       string `json:"fee"`
}

// Bounds of request fields the spec leaves open (documented in docs/api.md).
const (
	maxAppFees       = 10
	maxReferrerLen   = 64
	defaultSwapSlipp = 50 // bps; a fixed-rate bridge defaults to 0
)

// MaxOriginGasOverhead bounds originGasOverhead: more gas than any relayed deposit uses.
const MaxOriginGasOverhead = 1_000_000

// Trade types; the older exact-output value is accepted as an alias of EXPECTED_OUTPUT.
const (
	TradeExactInput     = "EXACT_INPUT"
	TradeExpectedOutput = "EXPECTED_OUTPUT"
	tradeExactOutput    = "EXACT_OUTPUT"
)

// Validated is a request after validation: typed, normalised, ready to price. Addresses are in
// their chain family's canonical form (EVM: checksummed): the user, refundTo, recoveryAddress, the
// origin currency and the app fees' recipients on the origin chain, the recipient and the
// destination currency on the destination. On a chain the registry does not have they are as the client wrote them, and
// the quote stops at the chain (UNSUPPORTED_CHAIN) before it reads them.
type Validated struct {
	User, Recipient, RefundTo    string
	OriginChainID, DestChainID   uint64
	OriginCurrency, DestCurrency string
	// Amount is the input amount (EXACT_INPUT) or the wanted output amount (EXPECTED_OUTPUT).
	Amount              *big.Int
	TradeType           string
	SlippageBps         *int64 // nil: the default for the route
	AppFees             []fees.AppFee
	Sponsorship         fees.Sponsorship
	Referrer            string
	IncludeProtocolData bool
	UseDepositAddress   bool
	// DepositAddress is what useDepositAddress asks of the address; nil without it.
	DepositAddress *DepositAddressOptions
	// OriginGasOverhead is the gas of the relayed origin transaction the quote charges for
	// (originGasOverhead: a gasless execution); 0 without it.
	OriginGasOverhead uint64
}

// Decode reads and validates a quote body. A key that is not a field is ignored, so clients
// that send newer options are served; a case-variant of a field or a misspelt money field is
// refused, so a typo is an error rather than a silently different quote (fields.go).
func Decode(r io.Reader) (*Request, *Error) {
	body, err := io.ReadAll(io.LimitReader(r, MaxBodyBytes+1))
	if err != nil {
		// A body the server cut at its size limit ends here too.
		return nil, invalid(CodeInvalidInput, "could not read body, or it is larger than %d bytes", MaxBodyBytes)
	}
	if len(body) > MaxBodyBytes {
		return nil, invalid(CodeInvalidInput, "body larger than %d bytes", MaxBodyBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var req Request
	if err := dec.Decode(&req); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
			return nil, invalid(CodeInvalidInput, "body is not valid JSON")
		case errors.As(err, &typ):
			// The decoder checks the syntax of the whole body before it assigns anything, so
			// the keys can be read; a misspelt key explains the error better than the field
			// encoding/json folded it onto.
			if ferr := checkFields(body); ferr != nil {
				return nil, ferr
			}
			return nil, invalid(CodeInvalidInput, "field %s has the wrong type", typ.Field)
		default:
			return nil, invalid(CodeInvalidInput, "%s", trimJSONErr(err))
		}
	}
	if dec.More() {
		return nil, invalid(CodeInvalidInput, "body has trailing data after the JSON object")
	}
	if ferr := checkFields(body); ferr != nil {
		return nil, ferr
	}
	return &req, nil
}

func trimJSONErr(err error) string {
	msg := err.Error()
	const p = "json: "
	if len(msg) > len(p) && msg[:len(p)] == p {
		return msg[len(p):]
	}
	return msg
}

// Validate checks the fields every quote needs, independent of chain state. Each address is
// read by the rules of its chain's family in the registry (chains.Notation: EVM hex, EIP-55).
func (r *Request) Validate(reg *chains.Registry) (*Validated, *Error) {
	var v Validated
	if r.User == "" {
		return nil, invalid(CodeInvalidInput, "user is required")
	}
	if r.OriginChainID == "" || r.DestinationChainID == "" {
		return nil, invalid(CodeInvalidInput, "originChainId and destinationChainId are required")
	}
	var err *Error
	if v.OriginChainID, err = chainID("originChainId", r.OriginChainID); err != nil {
		return nil, err
	}
	if v.DestChainID, err = chainID("destinationChainId", r.DestinationChainID); err != nil {
		return nil, err
	}
	if r.OriginCurrency == "" || r.DestinationCurrency == "" {
		return nil, invalid(CodeInvalidInput, "originCurrency and destinationCurrency are required")
	}
	if r.Amount == "" {
		return nil, invalid(CodeInvalidInput, "amount is required")
	}
	amt, perr := intent.ParseAmount(r.Amount)
	if perr != nil {
		return nil, invalid(CodeInvalidInput, "amount %q: %v", truncate(r.Amount), perr)
	}
	v.Amount = amt
	switch r.TradeType {
	case "", TradeExactInput:
		v.TradeType = TradeExactInput
	case TradeExpectedOutput, tradeExactOutput:
		v.TradeType = TradeExpectedOutput
	default:
		return nil, invalid(CodeInvalidInput, "tradeType must be EXACT_INPUT or EXPECTED_OUTPUT")
	}
	origin, dest := notationOf(reg, v.OriginChainID), notationOf(reg, v.DestChainID)
	if v.User, err = origin.address("user", r.User); err != nil {
		return nil, err
	}
	// The recipient is the user unless named, so the user must be an address of the destination too.
	if v.Recipient, err = dest.address("recipient", r.Recipient, r.User); err != nil {
		return nil, err
	}
	v.RefundTo = v.User
	if r.UseDepositAddress {
		// No default: an open address without refundTo refunds nothing automatically.
		v.RefundTo = ""
	}
	if r.RefundTo != "" {
		if v.RefundTo, err = origin.address("refundTo", r.RefundTo); err != nil {
			return nil, err
		}
	}
	// Paying or refunding the zero address burns the money. A deposit address's user is the
	// wallet the quote is for and may be the zero address (then the recipient must be named),
	// and its refundTo may be the zero address, which refunds whoever paid the address.
	for _, a := range []struct {
		field, addr string
		n           notation
		da          bool // allowed zero with a deposit address
	}{{"user", v.User, origin, true}, {"recipient", v.Recipient, dest, false}, {"refundTo", v.RefundTo, origin, true}} {
		if a.n.zero(a.addr) && !(a.da && r.UseDepositAddress) {
			return nil, invalid(CodeInvalidAddress, "%s must not be the zero address", a.field)
		}
	}
	if v.OriginCurrency, err = origin.address("originCurrency", r.OriginCurrency); err != nil {
		return nil, err
	}
	if v.DestCurrency, err = dest.address("destinationCurrency", r.DestinationCurrency); err != nil {
		return nil, err
	}
	if v.SlippageBps, err = slippage(r.SlippageTolerance); err != nil {
		return nil, err
	}
	if v.AppFees, err = appFees(origin, r.AppFees); err != nil {
		return nil, err
	}
	if v.Sponsorship, err = sponsorship(r); err != nil {
		return nil, err
	}
	if len(r.Referrer) > maxReferrerLen {
		return nil, invalid(CodeInvalidInput, "referrer is longer than %d characters", maxReferrerLen)
	}
	v.Referrer = r.Referrer
	switch r.ProtocolVersion {
	case "", "v1", "v2":
	default:
		return nil, invalid(CodeInvalidInput, "protocolVersion must be v1 or v2")
	}
	if ch, err := reg.Get(v.OriginChainID); err == nil && ch.VMType == chains.VMTypePerps && r.ProtocolVersion != "v2" {
		// Spec, "Perps-exchange chain": "Withdrawal: protocolVersion: v2 is mandatory".
		return nil, invalid(CodeInvalidInput, "protocolVersion v2 is required for a withdrawal from the perps exchange (chain %d)", ch.ID)
	}
	if r.MaxRouteLength != nil && (*r.MaxRouteLength < 1 || *r.MaxRouteLength > 8) {
		return nil, invalid(CodeInvalidInput, "maxRouteLength must be between 1 and 8")
	}
	v.IncludeProtocolData = r.IncludeProtocolData
	v.UseDepositAddress = r.UseDepositAddress
	if r.UseDepositAddress {
		if v.DepositAddress, err = r.depositAddress(origin); err != nil {
			return nil, err
		}
		v.Sponsorship.AllOrNothing = true
	} else if r.RecoveryAddress != "" {
		return nil, invalid(CodeInvalidInput, "recoveryAddress is only for deposit addresses: it requires useDepositAddress: true")
	}
	if v.OriginGasOverhead, err = originGasOverhead(r.OriginGasOverhead); err != nil {
		return nil, err
	}
	if v.OriginGasOverhead > 0 {
		if r.UseDepositAddress {
			return nil, invalid(CodeInvalidInput, "originGasOverhead is for a quote executed gaslessly; a deposit-address payment is a plain transfer, not relayed, so it takes no originGasOverhead (drop one of originGasOverhead and useDepositAddress)")
		}
		if reg != nil {
			if ch, gerr := reg.Get(v.OriginChainID); gerr == nil && ch.VMType != chains.VMTypeEVM {
				return nil, invalid(CodeInvalidInput, "originGasOverhead is only for EVM origin chains: chain %d (vmType %s) has no gasless execution", ch.ID, ch.VMType)
			}
		}
	}
	return &v, nil
}

// originGasOverhead reads originGasOverhead: absent or null is none (0); else a JSON number
// that is a whole number from 1 to MaxOriginGasOverhead, written without fraction or exponent.
func originGasOverhead(raw json.RawMessage) (uint64, *Error) {
	if isNull(raw) {
		return 0, nil
	}
	t := bytes.TrimSpace(raw)
	ok := len(t) > 0 && len(t) <= 7
	for _, c := range t {
		ok = ok && '0' <= c && c <= '9'
	}
	var n uint64
	if ok {
		var err error
		n, err = strconv.ParseUint(string(t), 10, 64)
		ok = err == nil && n > 0 && n <= MaxOriginGasOverhead
	}
	if !ok {
		return 0, invalid(CodeInvalidInput, "originGasOverhead %s: it must be a whole number of gas units from 1 to %d, as a JSON number "+
			"(80000 for a 7702 batch executor, 300000 for an ERC-4337 smart account)", truncate(string(t)), MaxOriginGasOverhead)
	}
	return n, nil
}

// slippage parses slippageTolerance: basis points as a decimal string, 0 to 10000.
func slippage(s string) (*int64, *Error) {
	if s == "" {
		return nil, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > fees.MaxBps || strconv.FormatInt(n, 10) != s {
		return nil, invalid(CodeInvalidInput, "slippageTolerance must be basis points from 0 to 10000, as a string (50 means 0.5%%)")
	}
	return &n, nil
}

// appFees reads the app fees, each paid to its recipient on the origin chain (the order's fees).
func appFees(origin notation, in []AppFeeRequest) ([]fees.AppFee, *Error) {
	if len(in) > maxAppFees {
		return nil, invalid(CodeInvalidInput, "appFees has more than %d entries", maxAppFees)
	}
	out := make([]fees.AppFee, 0, len(in))
	var total int64
	for i, f := range in {
		recipient, qerr := origin.address(fmt.Sprintf("appFees[%d].recipient", i), f.Recipient)
		if qerr != nil {
			return nil, qerr
		}
		af, err := fees.ParseAppFee(recipient, f.Fee)
		if err != nil {
			return nil, invalid(CodeInvalidInput, "appFees[%d]: %v", i, err)
		}
		total += af.Bps
		out = append(out, af)
	}
	if total >= fees.MaxBps {
		return nil, invalid(CodeInvalidInput, "appFees add up to %d bps; they must stay below 10000", total)
	}
	return out, nil
}

// sponsorship reads the sponsorship fields; the rules that depend on the route (bridge or
// swap) are checked once the route is known.
func sponsorship(r *Request) (fees.Sponsorship, *Error) {
	s := fees.Sponsorship{Subsidize: r.SubsidizeFees != nil && *r.SubsidizeFees, Bps: r.SubsidizationBps}
	for _, c := range r.SponsoredFeeComponents {
		s.Selected = append(s.Selected, fees.Component(c))
	}
	if r.MaxSubsidizationAmount != "" {
		m, err := intent.ParseAmount(r.MaxSubsidizationAmount)
		if err != nil {
			return s, invalid(CodeInvalidInput, "maxSubsidizationAmount %q: %v", truncate(r.MaxSubsidizationAmount), err)
		}
		s.Max = m
	}
	return s, nil
}

// sponsorshipFields names the sponsorship fields the request sends (subsidizeFees only when
// true: false asks for nothing), in the spec's order.
func sponsorshipFields(s fees.Sponsorship) []string {
	var out []string
	for _, f := range []struct {
		name string
		sent bool
	}{{"subsidizeFees", s.Subsidize}, {"sponsoredFeeComponents", s.Selected != nil}, {"subsidizationBps", s.Bps != nil},
		{"maxSubsidizationAmount", s.Max != nil}} {
		if f.sent {
			out = append(out, f.name)
		}
	}
	return out
}

func chainID(field string, n json.Number) (uint64, *Error) {
	var id uint64
	if _, err := fmt.Sscan(string(n), &id); err != nil || id == 0 || fmt.Sprint(id) != string(n) {
		return 0, invalid(CodeInvalidInput, "%s must be a positive integer chain id", field)
	}
	return id, nil
}

// notation reads the addresses of the body that belong to one chain: by its family's rules
// (chains.Notation; on EVM chains 0x and 40 hex digits, in one case or exactly checksummed, so a
// mixed-case typo is refused, not paid). Nil for a chain the registry does not have: its
// addresses are kept as written, and the quote is refused at the chain before they are used.
type notation struct{ chains.Notation }

func notationOf(reg *chains.Registry, chainID uint64) notation {
	if reg != nil {
		if ch, err := reg.Get(chainID); err == nil {
			return notation{ch.Notation()}
		}
	}
	return notation{}
}

// address reads the field's address, or the first of fallbacks when the field is empty (a
// default taken from another field, named in the error as the field it fills).
func (n notation) address(field, s string, fallbacks ...string) (string, *Error) {
	if s == "" && len(fallbacks) > 0 {
		s = fallbacks[0]
	}
	if n.Notation == nil {
		return s, nil
	}
	a, err := n.ParseAddress(s)
	if err != nil {
		return "", invalid(CodeInvalidAddress, "%s %q %v", field, truncate(s), err)
	}
	return a, nil
}

// zero reports whether a is the family's zero address.
func (n notation) zero(a string) bool { return n.Notation != nil && n.IsZeroAddress(a) }

func truncate(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
