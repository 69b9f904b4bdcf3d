package intent

import "strings"

// Deposit is one Deposit event of the depository as the engine observed it: the scanner or a
// client's hint finds it, the router signals it to the request's workflow, the workflow has the
// oracle attest it. It is the only shape of a deposit on the data path (the chain client builds
// it from the log; the oracle's attestation is checked against it).
//
// The field names are the wire shape of the workflow's "deposit" signal and of recorded
// histories: they stay as they are (no JSON tags).
type Deposit struct {
	ChainID     uint64
	TxHash      string
	LogIndex    uint
	BlockNumber uint64
	BlockHash   string
	OrderID     string
	Depositor   string
	Currency    string
	Amount      string
	// RequestID is the request the deposit funds when its funding strategy knows it (a
	// per-request deposit address, a funding the engine relays: chains.Funding); empty for the
	// depository's events, whose request is the one of their order (OrderID). A deposit with a
	// RequestID is a payment that arrived at a deposit address (ArrivalDeposit): it is not in
	// the depository yet, so it is swept before it is attested and never refunded as it is.
	RequestID string `json:",omitempty"`
	// SweptFrom is, for a depository event that a sweep of a deposit address made, the deposit
	// address it was swept from (the factory's Swept event beside it). Such a deposit reaches its
	// request through the sweep the request's workflow sent, never through the scanner or a
	// client's hint, which skip it: delivered, it would be a second deposit of the order.
	SweptFrom string `json:",omitempty"`
	// Family is the family whose funding port found the deposit (its chain's VM type), and
	// so the family a refund of it pays with; empty in deposits recorded before it was set,
	// which are refunded by their chain's own family.
	Family string `json:",omitempty"`
}

// SameEvent reports whether d and o are the same log (chain, transaction, log index): the same
// deposit seen twice, by a rescan or a client's hint.
func (d Deposit) SameEvent(o Deposit) bool {
	return d.ChainID == o.ChainID && SameTxID(d.TxHash, o.TxHash) && d.LogIndex == o.LogIndex
}

// SameTxID reports whether two transaction ids name the same transaction: 0x-hex ids (EVM
// hashes) in any case, any other (a Solana signature, base58, case-sensitive) exactly.
func SameTxID(a, b string) bool {
	if isHexID(a) && isHexID(b) {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// txIDKey is a transaction id as ids derived from it read it: 0x-hex lower-cased, any other as
// written.
func txIDKey(id string) string {
	if isHexID(id) {
		return strings.ToLower(id)
	}
	return id
}

func isHexID(id string) bool { return len(id) > 2 && (id[:2] == "0x" || id[:2] == "0X") }

// RefundRequestID is the requestId of the DepositRefund request made for this deposit when no
// order can take it (DepositRefundRequestID).
func (d Deposit) RefundRequestID() string {
	return DepositRefundRequestID(d.ChainID, d.TxHash, d.LogIndex)
}

// IsZeroOrderID reports whether id is the zero order id (0x and 64 zeros): the order of a
// deposit that names none, an orphan (a perps exchange transfer whose nonce was bound to no
// order).
func IsZeroOrderID(id string) bool {
	return len(id) == 66 && strings.HasPrefix(id, "0x") && strings.Trim(id[2:], "0") == ""
}
