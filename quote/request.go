package quote

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/intentd/intentd/intent"
)

// MaxBodyBytes bounds a quote body; real bodies are a few hundred bytes.
const MaxBodyBytes = 64 << 10

// Request is the body of POST /quote/v2 (the spec's request table). Fields the engine does not
// act on yet are accepted so clients written against the spec are not refused.
type Request struct {
	User                           string          `json:"user"`
	OriginChainID                  json.Number     `json:"originChainId"`
	DestinationChainID             json.Number     `json:"destinationChainId"`
	OriginCurrency                 string          `json:"originCurrency"`
	DestinationCurrency            string          `json:"destinationCurrency"`
	Recipient                      string          `json:"recipient"`
	TradeType                      string          `json:"tradeType"`
	Amount                         string          `json:"amount"`
	RefundTo                       string          `json:"refundTo"`
	ProtocolVersion                string          `json:"protocolVersion"`
	Referrer                       string          `json:"referrer"`
	IncludedOriginSwapSources      []string        `json:"includedOriginSwapSources"`
	MaxRouteLength                 *int            `json:"maxRouteLength"`
	ForBundle                      *bool           `json:"forBundle"`
	SubsidizeFees                  *bool           `json:"subsidizeFees"`
	SponsoredFeeComponents         []string        `json:"sponsoredFeeComponents"`
	SubsidizationBps               *int            `json:"subsidizationBps"`
	MaxSubsidizationAmount         string          `json:"maxSubsidizationAmount"`
	IncludeProtocolData            bool            `json:"includeProtocolData"`
	UseDepositAddress              bool            `json:"useDepositAddress"`
	IndicativeQuote                *bool           `json:"indicativeQuote"`
	ReferencePrice                 json.RawMessage `json:"referencePrice"`
	UseRouteRacing                 *bool           `json:"useRouteRacing"`
	RouteRacingMinUsdSize          json.RawMessage `json:"routeRacingMinUsdSize"`
	Strict                         json.RawMessage `json:"strict"` // ignored by /quote/v2
	SlippageTolerance              string          `json:"slippageTolerance"`
	AppFees                        json.RawMessage `json:"appFees"`
	UserOperationGasOverhead       json.RawMessage `json:"userOperationGasOverhead"`
	ExplicitDeposit                *bool           `json:"explicitDeposit"`
	IncludedDestinationSwapSources []string        `json:"includedDestinationSwapSources"`
}

// Trade types; the older exact-output value is accepted as an alias of EXPECTED_OUTPUT.
const (
	TradeExactInput     = "EXACT_INPUT"
	TradeExpectedOutput = "EXPECTED_OUTPUT"
	tradeExactOutput    = "EXACT_OUTPUT"
)

// Validated is a request after validation: typed, normalised, ready to price.
type Validated struct {
	User, Recipient, RefundTo    common.Address
	OriginChainID, DestChainID   uint64
	OriginCurrency, DestCurrency common.Address
	Amount                       *big.Int
	TradeType                    string
	IncludeProtocolData          bool
}

// Decode reads and validates a quote body. Unknown fields are rejected so a typo in a field
// name is an error rather than a silently different quote.
func Decode(r io.Reader) (*Request, *Error) {
	body, err := io.ReadAll(io.LimitReader(r, MaxBodyBytes+1))
	if err != nil {
		return nil, invalid(CodeInvalidInput, "could not read body")
	}
	if len(body) > MaxBodyBytes {
		return nil, invalid(CodeInvalidInput, "body larger than %d bytes", MaxBodyBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	var req Request
	if err := dec.Decode(&req); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
			return nil, invalid(CodeInvalidInput, "body is not valid JSON")
		case errors.As(err, &typ):
			return nil, invalid(CodeInvalidInput, "field %s has the wrong type", typ.Field)
		default:
			return nil, invalid(CodeInvalidInput, "%s", trimJSONErr(err))
		}
	}
	if dec.More() {
		return nil, invalid(CodeInvalidInput, "body has trailing data after the JSON object")
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

// Validate checks the fields every quote needs, independent of chain state.
func (r *Request) Validate() (*Validated, *Error) {
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
		return nil, invalid(CodeInvalidInput, "tradeType %s is not supported yet; use EXACT_INPUT", r.TradeType)
	default:
		return nil, invalid(CodeInvalidInput, "tradeType must be EXACT_INPUT or EXPECTED_OUTPUT")
	}
	if v.User, err = evmAddress("user", r.User); err != nil {
		return nil, err
	}
	v.Recipient = v.User
	if r.Recipient != "" {
		if v.Recipient, err = evmAddress("recipient", r.Recipient); err != nil {
			return nil, err
		}
	}
	v.RefundTo = v.User
	if r.RefundTo != "" {
		if v.RefundTo, err = evmAddress("refundTo", r.RefundTo); err != nil {
			return nil, err
		}
	}
	if v.OriginCurrency, err = evmAddress("originCurrency", r.OriginCurrency); err != nil {
		return nil, err
	}
	if v.DestCurrency, err = evmAddress("destinationCurrency", r.DestinationCurrency); err != nil {
		return nil, err
	}
	v.IncludeProtocolData = r.IncludeProtocolData
	return &v, nil
}

func chainID(field string, n json.Number) (uint64, *Error) {
	var id uint64
	if _, err := fmt.Sscan(string(n), &id); err != nil || id == 0 || fmt.Sprint(id) != string(n) {
		return 0, invalid(CodeInvalidInput, "%s must be a positive integer chain id", field)
	}
	return id, nil
}

func evmAddress(field, s string) (common.Address, *Error) {
	if !common.IsHexAddress(s) || len(s) != 42 {
		return common.Address{}, invalid(CodeInvalidAddress, "%s %q is not a valid EVM address", field, truncate(s))
	}
	return common.HexToAddress(s), nil
}

func truncate(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
