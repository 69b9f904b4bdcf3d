package intent

// Record is the request record, version 3: the read model keeps it whole (JSONB) so
// GET /requests/v3 serves it without a workflow replay. Fields the engine does not fill yet are
// omitted rather than invented.
type Record struct {
	ID          string     `json:"id"`
	Status      Status     `json:"status"`
	User        string     `json:"user"`
	Recipient   string     `json:"recipient"`
	Sender      string     `json:"sender"`
	RefundTo    string     `json:"refundTo"`
	Data        RecordData `json:"data"`
	Protocol    Protocol   `json:"protocol"`
	RequestType string     `json:"requestType"`
	Features    []string   `json:"features"`
	CreatedAt   string     `json:"createdAt"`
	UpdatedAt   string     `json:"updatedAt"`
}

// RecordData is the `data` block of a v3 record.
type RecordData struct {
	SlippageTolerance string           `json:"slippageTolerance"`
	FailReason        FailReason       `json:"failReason"`
	RefundFailReason  RefundFailReason `json:"refundFailReason"`
	TimeEstimate      int64            `json:"timeEstimate"`
	InTxs             []TxItem         `json:"inTxs"`
	OutTxs            []TxItem         `json:"outTxs"`
	Referrer          string           `json:"referrer,omitempty"`
	CurrencyIn        *AmountObject    `json:"currencyIn,omitempty"`
	CurrencyOut       *AmountObject    `json:"currencyOut,omitempty"`
	Fees              *QuotedFees      `json:"fees,omitempty"`
}

// QuotedFees is the v3 `fees` object: quoted and actual components in the fee currency.
type QuotedFees struct {
	Quoted   FeeComponents  `json:"quoted"`
	Actual   *FeeComponents `json:"actual"`
	Currency Currency       `json:"currency"`
}

// FeeComponents holds the four fee components of the fee model plus the sponsored share.
type FeeComponents struct {
	Swap      FeeAmount `json:"swap"`
	Execution FeeAmount `json:"execution"`
	Platform  FeeAmount `json:"platform"`
	App       FeeAmount `json:"app"`
	Sponsored FeeAmount `json:"sponsored"`
}

// FeeAmount is one fee component: USD value and amount in the fee currency.
type FeeAmount struct {
	USD             string `json:"usd"`
	Amount          string `json:"amount"`
	AmountFormatted string `json:"amountFormatted"`
}

// TxItem is a transaction item of inTxs/outTxs.
type TxItem struct {
	TxHash    string `json:"txHash"`
	Fee       string `json:"fee"`
	FeeUsd    string `json:"feeUsd"`
	Block     uint64 `json:"block"`
	Type      string `json:"type"`
	ChainID   uint64 `json:"chainId"`
	Timestamp int64  `json:"timestamp"`
	Status    string `json:"status"`
	Data      any    `json:"data"`
}

// Protocol is the `protocol` block of a v3 record.
type Protocol struct {
	OrderID string         `json:"orderId"`
	HubType string         `json:"hubType"`
	Solver  ProtocolSolver `json:"solver"`
}

// ProtocolSolver names the solver that owns the order.
type ProtocolSolver struct {
	Address         string `json:"address"`
	ProtocolChainID string `json:"protocolChainId"`
	ChainID         uint64 `json:"chainId"`
}
