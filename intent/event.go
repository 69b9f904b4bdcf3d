package intent

// EventStatusUpdated is the one event kind the service emits (spec, Events): a request's status
// changed. Webhooks and the websocket stream carry it; quotes do not emit it.
const EventStatusUpdated = "request.status.updated"

// StatusEvent is the data of a request.status.updated event as a webhook receives it
// (docs/events.md): the status endpoint's fields and rules (failReason N/A outside failure and
// refund, UNKNOWN when none was recorded there; refundFailReason N/A when none), with the
// request's id, deposit address, referrer and details. It is built in the transaction of the
// transition it reports, so every event is the state of that moment, never a later read.
// Field order is the wire order.
type StatusEvent struct {
	Status             Status            `json:"status"`
	InTxHashes         []string          `json:"inTxHashes"`
	TxHashes           []string          `json:"txHashes"`
	UpdatedAt          int64             `json:"updatedAt"` // Unix milliseconds
	OriginChainID      uint64            `json:"originChainId"`
	DestinationChainID uint64            `json:"destinationChainId"`
	DepositAddress     *EventDepositAddr `json:"depositAddress"`
	RequestID          string            `json:"requestId"`
	Referrer           *string           `json:"referrer"`
	Details            *string           `json:"details"`
	FailReason         FailReason        `json:"failReason"`
	RefundFailReason   RefundFailReason  `json:"refundFailReason"`
}

// EventDepositAddr is an event's depositAddress: the deposit address a request was paid
// through, or null for a request paid into the depository directly. It is the v2 record's
// (the type named depositAddressType; depositor and depositTxHash null until known).
type EventDepositAddr struct {
	Address            string  `json:"address"`
	DepositAddressType string  `json:"depositAddressType"`
	Depositor          *string `json:"depositor"`
	DepositTxHash      *string `json:"depositTxHash"`
}

// NewStatusEvent builds the event of a request in status s with the given failure reasons,
// applying the status endpoint's N/A and UNKNOWN rules; nil hash lists become [].
func NewStatusEvent(requestID string, s Status, fail FailReason, refundFail RefundFailReason, in, out []string,
	updatedAtMs int64, origin, dest uint64) StatusEvent {
	if in == nil {
		in = []string{}
	}
	if out == nil {
		out = []string{}
	}
	return StatusEvent{Status: s, InTxHashes: in, TxHashes: out, UpdatedAt: updatedAtMs, OriginChainID: origin,
		DestinationChainID: dest, RequestID: requestID, FailReason: fail.ForStatus(s), RefundFailReason: refundFail.OrNA()}
}

// StreamEvent is the data of a request.status.updated message on the websocket stream: the
// fields the public service's stream carries, and the two reasons the spec gives every
// request.status.updated event (failReason, refundFailReason, as the webhook has them), without
// the owner's referrer (anyone who knows a requestId may subscribe to it; the reasons are public
// through the status endpoint already).
type StreamEvent struct {
	Status             Status            `json:"status"`
	InTxHashes         []string          `json:"inTxHashes"`
	TxHashes           []string          `json:"txHashes"`
	UpdatedAt          int64             `json:"updatedAt"`
	OriginChainID      uint64            `json:"originChainId"`
	DestinationChainID uint64            `json:"destinationChainId"`
	RequestID          string            `json:"requestId"`
	DepositAddress     *EventDepositAddr `json:"depositAddress"`
	FailReason         FailReason        `json:"failReason"`
	RefundFailReason   RefundFailReason  `json:"refundFailReason"`
}

// Stream is the event as the websocket stream sends it.
func (e StatusEvent) Stream() StreamEvent {
	return StreamEvent{Status: e.Status, InTxHashes: e.InTxHashes, TxHashes: e.TxHashes, UpdatedAt: e.UpdatedAt,
		OriginChainID: e.OriginChainID, DestinationChainID: e.DestinationChainID, RequestID: e.RequestID,
		DepositAddress: e.DepositAddress, FailReason: e.FailReason, RefundFailReason: e.RefundFailReason}
}
