package intent

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
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

var structHashDomain = apitypes.TypedDataDomain{Name: "order"}

// OrderTypes returns a copy of the EIP-712 types the order id is computed with.
func OrderTypes() apitypes.Types {
	out := make(apitypes.Types, len(orderTypes))
	for k, v := range orderTypes {
		out[k] = append([]apitypes.Type(nil), v...)
	}
	return out
}

// ID computes the order id: the EIP-712 struct hash of the order, without a domain.
func (o OrderData) ID() (common.Hash, error) {
	msg, err := o.typedMessage()
	if err != nil {
		return common.Hash{}, err
	}
	// The domain is not part of a struct hash; apitypes only insists that one is set.
	td := apitypes.TypedData{Types: orderTypes, PrimaryType: "Order", Domain: structHashDomain, Message: msg}
	h, err := td.HashStruct("Order", msg)
	if err != nil {
		return common.Hash{}, fmt.Errorf("hash order: %w", err)
	}
	return common.BytesToHash(h), nil
}

func (o OrderData) typedMessage() (apitypes.TypedDataMessage, error) {
	salt, ok := math.ParseBig256(o.Salt)
	if !ok {
		return nil, fmt.Errorf("order salt %q is not a uint256", o.Salt)
	}
	inputs := make([]interface{}, 0, len(o.Inputs))
	for _, in := range o.Inputs {
		refunds := make([]interface{}, 0, len(in.Refunds))
		for _, r := range in.Refunds {
			refunds = append(refunds, map[string]interface{}{
				"chainId": r.ChainID, "recipient": r.Recipient, "currency": r.Currency,
				"minimumAmount": r.MinimumAmount, "deadline": fmt.Sprint(r.Deadline), "extraData": hexOrEmpty(r.ExtraData),
			})
		}
		inputs = append(inputs, map[string]interface{}{
			"payment": map[string]interface{}{
				"chainId": in.Payment.ChainID, "currency": in.Payment.Currency,
				"amount": in.Payment.Amount, "weight": in.Payment.Weight,
			},
			"refunds": refunds,
		})
	}
	payments := make([]interface{}, 0, len(o.Output.Payments))
	for _, p := range o.Output.Payments {
		payments = append(payments, map[string]interface{}{
			"recipient": p.Recipient, "currency": p.Currency,
			"minimumAmount": p.MinimumAmount, "expectedAmount": p.ExpectedAmount,
		})
	}
	calls := make([]interface{}, 0, len(o.Output.Calls))
	for _, c := range o.Output.Calls {
		calls = append(calls, hexOrEmpty(c))
	}
	fees := make([]interface{}, 0, len(o.Fees))
	for _, f := range o.Fees {
		fees = append(fees, map[string]interface{}{
			"recipientChainId": f.RecipientChainID, "recipient": f.Recipient,
			"currencyChainId": f.CurrencyChainID, "currency": f.Currency, "amount": f.Amount,
		})
	}
	return apitypes.TypedDataMessage{
		"version": o.Version, "solverChainId": o.SolverChainID, "solver": o.Solver,
		"salt": (*hexutil.Big)(salt).String(), "inputs": inputs,
		"output": map[string]interface{}{
			"chainId": o.Output.ChainID, "payments": payments, "deadline": fmt.Sprint(o.Output.Deadline),
			"calls": calls, "extraData": hexOrEmpty(o.Output.ExtraData),
		},
		"fees": fees,
	}, nil
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
