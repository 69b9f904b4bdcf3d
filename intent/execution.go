package intent

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
}
