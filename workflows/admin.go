package workflows

import "github.com/intentd/intentd/intent"

// UpdateAdminRefund is the Temporal Update support staff send to refund an intent by hand
// (`intentd admin refund`, POST /admin/requests/{requestId}/refund). Its validator accepts it
// only where a refund is possible: the deposit is attested, nothing has been paid out (no fill
// broadcast that could still land, no refund made), and no refund is running. The update
// completes when the refund transaction is mined; the request ends in status refund with
// failReason MANUAL_ADMIN_REFUND.
const UpdateAdminRefund = "adminRefund"

// ErrTypeAdminRefundFailed is the error type the update answers with when it was accepted but
// the refund could not be made (the chain refused it before anything was signed, or the
// transaction reverted); the request keeps waiting for another attempt.
const ErrTypeAdminRefundFailed = "REFUND_FAILED"

// AdminRefund is the update's argument.
type AdminRefund struct {
	// Operator names the person who asked for the refund (audit).
	Operator string `json:"operator"`
	// Reason is why (audit); required.
	Reason string `json:"reason"`
	// Recipient, when set, receives the refund instead of the default: the request's refundTo
	// when its automatic refund did not fail on the recipient, else the depositor.
	Recipient string `json:"recipient,omitempty"`
}

// AdminRefundResult is what the update returns once the refund is mined.
type AdminRefundResult struct {
	RequestID string        `json:"requestId"`
	Status    intent.Status `json:"status"`
	ChainID   uint64        `json:"chainId"`
	TxHash    string        `json:"txHash"`
	Recipient string        `json:"recipient"`
	Currency  string        `json:"currency"`
	Amount    string        `json:"amount"`
}
