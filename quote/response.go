package quote

import (
	"crypto/rand"
	"encoding/hex"

	"github.com/intentd/intentd/intent"
)

// Response is the quote response of POST /quote/v2 and POST /quote. POST /price answers the
// same object without steps, protocol data or a requestId (see docs/api.md).
type Response struct {
	Steps     []Step    `json:"steps,omitempty"`
	Fees      Fees      `json:"fees"`
	Details   Details   `json:"details"`
	Protocol  *Protocol `json:"protocol,omitempty"`
	RequestID string    `json:"requestId,omitempty"`
}

// The steps of a quote are the domain's (intent.Step), built by the origin chain's family
// (chains.Steps); the names stay for the clients of this package.
type (
	Step       = intent.Step
	StepItem   = intent.StepItem
	TxData     = intent.TxData
	StepCheck  = intent.StepCheck
	StepPostTo = intent.StepPostTo
)

// Fees is the deprecated fee breakdown of quote responses, in amount objects of the input
// currency. relayerGas is the destination fill's gas, relayerService the rest of what the
// service charges (the flat execution fee, swap cost and platform fee), relayer their sum, app
// the integrator's fees and subsidized the part a sponsor covers. gas is origin gas the engine
// pays for the user: a deposit address's sweep, or the relayed origin transaction of a gasless
// execution (the request's originGasOverhead at the origin's gas price); zero otherwise. The
// user pays gas + relayer + app - subsidized.
type Fees struct {
	Gas            intent.AmountObject `json:"gas"`
	Relayer        intent.AmountObject `json:"relayer"`
	RelayerGas     intent.AmountObject `json:"relayerGas"`
	RelayerService intent.AmountObject `json:"relayerService"`
	App            intent.AmountObject `json:"app"`
	Subsidized     intent.AmountObject `json:"subsidized"`
}

// Details describes the quoted operation.
type Details struct {
	Operation           string              `json:"operation"`
	Sender              string              `json:"sender"`
	Recipient           string              `json:"recipient"`
	CurrencyIn          intent.AmountObject `json:"currencyIn"`
	CurrencyOut         intent.AmountObject `json:"currencyOut"`
	RefundCurrency      intent.AmountObject `json:"refundCurrency"`
	TotalImpact         Impact              `json:"totalImpact"`
	SwapImpact          Impact              `json:"swapImpact"`
	ExpandedPriceImpact ExpandedPriceImpact `json:"expandedPriceImpact"`
	Rate                string              `json:"rate"`
	SlippageTolerance   SlippageTolerance   `json:"slippageTolerance"`
	TimeEstimate        int64               `json:"timeEstimate"`
	UserBalance         string              `json:"userBalance"`
	IsFixedRate         bool                `json:"isFixedRate"`
	Route               intent.RouteLegs    `json:"route"`
}

// Impact is a change in value: USD (negative when the user receives less) and percent of the
// input's value.
type Impact struct {
	USD     string `json:"usd"`
	Percent string `json:"percent"`
}

// ExpandedPriceImpact splits the total impact by fee component; service is the platform fee.
type ExpandedPriceImpact struct {
	Swap      USD `json:"swap"`
	Execution USD `json:"execution"`
	Service   USD `json:"service"`
	App       USD `json:"app"`
}

// USD is a USD value as a decimal string.
type USD struct {
	USD string `json:"usd"`
}

// SlippageTolerance is how far each side may move from the quote.
type SlippageTolerance struct {
	Origin      Slippage `json:"origin"`
	Destination Slippage `json:"destination"`
}

// Slippage is a tolerance in USD, in the currency's smallest unit (value) and in percent.
type Slippage struct {
	USD     string `json:"usd"`
	Value   string `json:"value"`
	Percent string `json:"percent"`
}

// Protocol carries protocol.v2 when includeProtocolData is set.
type Protocol struct {
	V2 ProtocolV2 `json:"v2"`
}

// ProtocolV2 is the order, its id and what to pay to open it.
type ProtocolV2 struct {
	OrderID        string           `json:"orderId"`
	OrderData      intent.OrderData `json:"orderData"`
	PaymentDetails PaymentDetails   `json:"paymentDetails"`
}

// PaymentDetails says where the deposit goes.
type PaymentDetails struct {
	ChainID    string `json:"chainId"`
	Depository string `json:"depository"`
	Currency   string `json:"currency"`
	Amount     string `json:"amount"`
}

// StatusEndpoint builds the step check endpoint for a request.
func StatusEndpoint(requestID string) string { return "/intents/status/v3?requestId=" + requestID }

// NewRequestID returns a fresh requestId: 32 random bytes, hex with 0x. Never reused.
func NewRequestID() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "0x" + hex.EncodeToString(b[:]), nil
}
