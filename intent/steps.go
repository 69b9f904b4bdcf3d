package intent

import (
	"bytes"
	"encoding/json"
)

// A quote's steps: what the user signs or sends, in order, to fund a request. The chain family of
// the origin builds them (chains.Steps); the quote engine attaches the status check and answers
// them as they are, so these types are the wire shape of the spec's step (the public SDK's types).

// Step is one action the client performs, in order.
type Step struct {
	ID             string `json:"id"`
	Action         string `json:"action"`
	Description    string `json:"description"`
	Kind           string `json:"kind"`
	RequestID      string `json:"requestId"`
	DepositAddress string `json:"depositAddress"`
	// DepositAddressID names the deposit address of a deposit-address quote's deposit step
	// (GET /deposit-addresses/v2, POST /deposit-addresses/{depositAddressId}/disable/v2); absent
	// on every other step.
	DepositAddressID string     `json:"depositAddressId,omitempty"`
	Items            []StepItem `json:"items"`
}

// The step kinds of the spec: a transaction the client sends, or a message it signs and posts.
const (
	StepKindTransaction = "transaction"
	StepKindSignature   = "signature"
)

// StepItemIncomplete is the status every step item starts with.
const StepItemIncomplete = "incomplete"

// StepItem is one transaction or signature of a step.
type StepItem struct {
	Status string `json:"status"`
	Data   TxData `json:"data"`
	// Check is the status poll that confirms the item; only items whose completion the status
	// endpoint can see carry one (the deposit). Clients poll an item's check until the request
	// succeeds, so a preparatory item (approve) has none: its receipt completes it.
	Check *StepCheck  `json:"check,omitempty"`
	Post  *StepPostTo `json:"post,omitempty"`
}

// TxData is a transaction for the client's wallet to send, in the fields an EVM wallet takes:
// the only family built today. The spec gives a Solana origin "chain-specific transaction data
// instead of EVM calldata": that family adds its fields here (omitempty), so the EVM items keep
// their bytes.
type TxData struct {
	From    string `json:"from"`
	To      string `json:"to"`
	Data    string `json:"data"`
	Value   string `json:"value"`
	ChainID uint64 `json:"chainId"`
	// SVMTx is a Solana-type origin's transaction; nil (absent from the JSON) on EVM items. A
	// pointer, so that TxData stays comparable.
	*SVMTx
	// Other is the data of an item that is no transaction in the shape above: a signature
	// item's SignatureData, the perps exchange's sendAsset action (chains/perps). Set, it is
	// the item's whole data on the wire and the fields above are not written; an item read
	// back without a "to" is kept here as it was written. A pointer, so that TxData stays
	// comparable. OtherData builds it.
	Other *json.RawMessage `json:"-"`
}

// OtherData is the TxData of an item whose data is v (TxData.Other).
func OtherData(v any) (TxData, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return TxData{}, err
	}
	raw := json.RawMessage(b)
	return TxData{Other: &raw}, nil
}

// txData is TxData without its methods, for the default encoding.
type txData TxData

// MarshalJSON writes Other when it is set, else the transaction's fields.
func (d TxData) MarshalJSON() ([]byte, error) {
	if d.Other != nil {
		return *d.Other, nil
	}
	return json.Marshal(txData(d))
}

// UnmarshalJSON reads an item's data: a transaction when it has a "to", else Other.
func (d *TxData) UnmarshalJSON(b []byte) error {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return err
	}
	if _, ok := keys["to"]; !ok && keys != nil {
		raw := json.RawMessage(bytes.Clone(b))
		*d = TxData{Other: &raw}
		return nil
	}
	var t txData
	if err := json.Unmarshal(b, &t); err != nil {
		return err
	}
	*d = TxData(t)
	return nil
}

// SVMTx is a Solana transaction a step item carries, in the public SDK's shape
// (TransactionStepItem.data: instructions and addressLookupTableAddresses beside from, to,
// value): the wallet compiles the instructions into one transaction with itself as fee payer and
// a recent blockhash.
type SVMTx struct {
	// Both are optional in the documented schema (an EVM item has neither); a Solana item
	// always carries its instructions, and its lookup tables as a list, empty when it uses none
	// (a pointer, so that an empty list is written rather than left out).
	Instructions                []SVMInstruction `json:"instructions,omitempty"`
	AddressLookupTableAddresses *[]string        `json:"addressLookupTableAddresses,omitempty"`
}

// SVMInstruction is one instruction of a Solana transaction a step carries: the program, the
// accounts it reads and writes, and its data in hex (no 0x, as the SDK's wallet adapter reads it
// with Buffer.from(data, "hex")).
type SVMInstruction struct {
	Keys      []SVMAccountMeta `json:"keys"`
	ProgramID string           `json:"programId"`
	Data      string           `json:"data"`
}

// SVMAccountMeta is one account of an SVMInstruction, base58.
type SVMAccountMeta struct {
	Pubkey     string `json:"pubkey"`
	IsSigner   bool   `json:"isSigner"`
	IsWritable bool   `json:"isWritable"`
}

// StepCheck is the status poll a client uses after a step.
type StepCheck struct {
	Endpoint string `json:"endpoint"`
	Method   string `json:"method"`
}

// StepPostTo is a call the client makes after signing: the signature goes in the query
// parameter `signature` (the public SDK posts `{endpoint}?signature=0x…` with Body).
type StepPostTo struct {
	Endpoint string `json:"endpoint"`
	Method   string `json:"method"`
	Body     any    `json:"body"`
}

// The signature kinds of a signature item's message (the SDK's SignatureStepItem).
const (
	SignatureKindEIP712 = "eip712"
	SignatureKindEIP191 = "eip191"
)

// SignatureData is a signature item's data, in the public SDK's shape (SignatureStepItem.data):
// the message the wallet signs, and the call it posts the signature with. The SDK reads the call
// here (data.post); the item carries it as post too, where the spec's step table lists it.
type SignatureData struct {
	Sign *SignData   `json:"sign,omitempty"`
	Post *StepPostTo `json:"post,omitempty"`
}

// SignData is the message of a signature item: EIP-712 typed data (domain, the types without
// EIP712Domain, the value, the primary type) for SignatureKindEIP712.
type SignData struct {
	SignatureKind string `json:"signatureKind"`
	Domain        any    `json:"domain"`
	Types         any    `json:"types"`
	Value         any    `json:"value"`
	PrimaryType   string `json:"primaryType"`
}
