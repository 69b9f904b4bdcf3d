package intent

import "github.com/shopspring/decimal"

// Execution is what a quote commits the engine to: stored with the quote and handed to the
// Intent workflow when execution starts, so the workflow never reads the quote tables itself.
type Execution struct {
	RequestID          string   `json:"requestId"`
	OrderID            string   `json:"orderId"`
	User               string   `json:"user"`
	Recipient          string   `json:"recipient"`
	RefundTo           string   `json:"refundTo"`
	OriginChainID      uint64   `json:"originChainId"`
	DestinationChainID uint64   `json:"destinationChainId"`
	CurrencyIn         Currency `json:"currencyIn"`
	CurrencyOut        Currency `json:"currencyOut"`
	AmountIn           string   `json:"amountIn"`
	AmountOut          string   `json:"amountOut"`
	MinAmountOut       string   `json:"minAmountOut"`
	Deadline           int64    `json:"deadline"` // Unix seconds; the order cannot be filled after it
	TimeEstimate       int64    `json:"timeEstimate"`
	Solver             string   `json:"solver"`
	// Funding is how the request's money arrives (its origin family and strategy), and
	// PayoutFamily the family of the destination chain, which pays the fill: fixed at quote
	// time and read by the workflow, which names each payment's family to its activity.
	// Empty in executions stored before they were part of it (FundingOf; the chain's own
	// family pays).
	Funding      Funding `json:"funding,omitzero"`
	PayoutFamily string  `json:"payoutFamily,omitempty"`
	// DepositAddress is the deposit address that funds the request when its funding strategy
	// is FundingDepositAddress: its sweep deposits under the address's own order id and
	// depositor (its salt), which a request requoted for a later deposit does not share.
	DepositAddress *ExecutionDepositAddress `json:"depositAddress,omitempty"`
	// Sponsor is what an integrator sponsors of the request's fees: reserved from its
	// sponsorship balance before the fill is signed, charged when the fill lands, released when
	// the request is refunded or fails. Nil when nothing is sponsored, and in every execution
	// stored before integrators paid for sponsorship, which therefore decode as unsponsored.
	Sponsor *Sponsor `json:"sponsor,omitempty"`
	// OriginGasOverhead is the gas of the relayed origin transaction the quote was priced for
	// (the request's originGasOverhead: a gasless execution, POST /execute), which its fee
	// charges at the origin's gas price. 0 (absent) when the quote charged none: the user
	// sends the origin transaction and pays its gas.
	OriginGasOverhead uint64 `json:"originGasOverhead,omitempty"`
}

// Sponsor is the part of one request's fees an integrator pays, fixed at quote time: the fill
// pays the quoted amounts exactly, so the sponsor pays exactly what was quoted.
type Sponsor struct {
	IntegratorID string `json:"integratorId"`
	// AmountUSD is the sponsored total's USD value at the quote's price, rounded up to the
	// micro-dollar: what is reserved and charged, so the sponsor never pays less than it
	// sponsored and the solver never makes up a rounding difference.
	AmountUSD decimal.Decimal `json:"amountUsd"`
	// Amount is the sponsored total in the input currency's smallest unit
	// (feeSponsorship.quoted.sponsoredTotal.amount).
	Amount string `json:"amount"`
}
