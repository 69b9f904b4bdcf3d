package intent

import "time"

// RefundRequest is a request made for a deposit no order can take: an orphaned deposit (no
// known order) or an extra deposit for an order that already has one (ParentID set).
type RefundRequest struct {
	ID        string
	ParentID  string // "" for an orphaned deposit
	Depositor string
	RefundTo  string
	ChainID   uint64
	At        time.Time
	// Currency and Amount are the deposit's (base units), and CheckHold asks whether its
	// automatic refund waits for an operator instead (RefundHold): set by the runs that take the
	// money-safety steps, so a request stored by an older run is never held.
	Currency  string `json:",omitempty"`
	Amount    string `json:",omitempty"`
	CheckHold bool   `json:",omitempty"`
	// DepositAddress is, for the refund of a later payment at a strict deposit address
	// (DOUBLE_SPEND), the address it was paid to: the record carries it (depositAddress, feature
	// deposit_address) and GET /requests/v3?depositAddress= finds the refund request with the
	// address's other requests.
	DepositAddress *RecordDepositAddress `json:",omitempty"`
}

// AdminRefund is a manual refund support staff ask for (the adminRefund Update's argument).
type AdminRefund struct {
	// Operator names the person who asked for the refund (audit).
	Operator string `json:"operator"`
	// Reason is why (audit); required.
	Reason string `json:"reason"`
	// Recipient, when set, receives the refund instead of the default: the request's refundTo
	// when its automatic refund did not fail on the recipient, else the depositor.
	Recipient string `json:"recipient,omitempty"`
}

// AdminRefundResult is what a manual refund answers once its transaction is mined.
type AdminRefundResult struct {
	RequestID string `json:"requestId"`
	Status    Status `json:"status"`
	ChainID   uint64 `json:"chainId"`
	TxHash    string `json:"txHash"`
	Recipient string `json:"recipient"`
	Currency  string `json:"currency"`
	Amount    string `json:"amount"`
}

// AdminRefundAudit is one manual admin refund (table admin_refunds): who asked, why and, once the
// refund transaction is mined, what was paid where. ID is the Temporal update id.
type AdminRefundAudit struct {
	ID          string
	RequestID   string
	Operator    string
	Reason      string
	Recipient   string // the recipient asked for; "" when the default was used
	RequestedAt time.Time
	TxHash      string
	ChainID     uint64
	Amount      string
	CompletedAt *time.Time // nil until the refund is mined
}

// AdminRefundCompletion records the mined transaction of an accepted admin refund.
type AdminRefundCompletion struct {
	ID      string // the audit row's id (the Temporal update id)
	TxHash  string
	ChainID uint64
	Amount  string
}
