package intent

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

// StepPostTo is a call the client makes after signing.
type StepPostTo struct {
	Endpoint string `json:"endpoint"`
	Method   string `json:"method"`
	Body     any    `json:"body"`
}
