package intent

// FundingRelayed: a gasless request (POST /execute, issue 37; docs/gasless.md). The user signs
// a call (and, for EIP-7702, an authorization delegating its account to a batch executor) that
// approves and deposits into the origin chain's depository, and the engine sends it: the
// relayer, a key that is not the solver's, signs one transaction of kind TxKindRelay per
// request, kept before it is broadcast and replaced like a fill. Once it is mined the request is
// depositing, and its depository deposit, found by the scanner like any other, funds it.
const FundingRelayed FundingStrategy = "relayed"

// TxKindRelay is the relayer's transaction of a gasless request: the user's call, sent and paid
// for (gas) by the engine, at most one per request.
const TxKindRelay TxKind = "relay"

// RelayCall is the raw call a gasless request relays: POST /execute's data, as the client sent
// it and validation wrote it (addresses in lower-case hex, data 0x-prefixed hex, value in wei).
type RelayCall struct {
	ChainID uint64 `json:"chainId"`
	To      string `json:"to"`
	Data    string `json:"data"`
	Value   string `json:"value"`
	// AuthorizationList are the EIP-7702 authorizations the transaction carries (a set-code
	// transaction when there is at least one).
	AuthorizationList []Authorization `json:"authorizationList,omitempty"`
}

// Authorization is one signed EIP-7702 authorization: the authority (recovered from the
// signature) delegates its account's code to Address on ChainID (0: any chain) at its Nonce.
type Authorization struct {
	ChainID uint64 `json:"chainId"`
	Address string `json:"address"`
	Nonce   uint64 `json:"nonce"`
	YParity uint8  `json:"yParity"`
	R       string `json:"r"`
	S       string `json:"s"`
}
