package intent

import "encoding/json"

// Record is the request record, version 3: the read model keeps it whole (JSONB) so
// GET /requests/v3 serves it without a workflow replay. Fields the engine does not fill yet are
// omitted rather than invented.
type Record struct {
	ID        string `json:"id"`
	Status    Status `json:"status"`
	User      string `json:"user"`
	Recipient string `json:"recipient"`
	Sender    string `json:"sender"`
	RefundTo  string `json:"refundTo"`
	// SupersededByRequestID names the request that took this one's deposit: an open deposit
	// address's quote-time request whose first payment was quoted again (a different amount)
	// runs under a new request, and this one stays waiting (docs/deposit-addresses.md,
	// "Requotes and superseded requests"). Absent otherwise.
	SupersededByRequestID *string `json:"supersededByRequestId,omitempty"`
	// DuplicateDeposits links a request paid more than once with the refund requests made for
	// its extra deposits; both the parent and each refund request carry it.
	DuplicateDeposits *DuplicateDeposits `json:"duplicateDeposits,omitempty"`
	// DepositAddress is the deposit address a request is paid through (issue 35); absent for a
	// request paid into the depository directly.
	DepositAddress *RecordDepositAddress `json:"depositAddress,omitempty"`
	Data           RecordData            `json:"data"`
	Protocol       Protocol              `json:"protocol"`
	RequestType    string                `json:"requestType"`
	Features       []string              `json:"features"`
	CreatedAt      string                `json:"createdAt"`
	UpdatedAt      string                `json:"updatedAt"`
}

// FeatureDepositAddress is the feature of a request paid through a deposit address (the
// record's `features`, the public SDK's feature filter value).
const FeatureDepositAddress = "deposit_address"

// RecordDepositAddress is the v3 record's `depositAddress` (the spec's record table; nullable
// members as the public SDK types them): the address, strict or open, the depositor in whose name
// its sweeps deposit, the transfer that paid it once one was seen, and the integrator's recovery
// address when the quote named one.
type RecordDepositAddress struct {
	Address         string             `json:"address"`
	Type            DepositAddressType `json:"type"`
	Depositor       *string            `json:"depositor"`
	DepositTxHash   *string            `json:"depositTxHash"`
	RecoveryAddress *string            `json:"recoveryAddress"`
}

// Event is the deposit address as a status event carries it; nil for none.
func (d *RecordDepositAddress) Event() *EventDepositAddr {
	if d == nil {
		return nil
	}
	return &EventDepositAddr{Address: d.Address, DepositAddressType: string(d.Type), Depositor: d.Depositor, DepositTxHash: d.DepositTxHash}
}

// DuplicateDeposits is the record's `duplicateDeposits`.
type DuplicateDeposits struct {
	ParentRequestID  string   `json:"parentRequestId"`
	RefundRequestIDs []string `json:"refundRequestIds"`
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
	FeeSponsorship    *FeeSponsorship  `json:"feeSponsorship,omitempty"`
	PlatformFee       *PlatformFee     `json:"platformFee,omitempty"`
	AppFees           *AppFees         `json:"appFees,omitempty"`
	Route             *Route           `json:"route,omitempty"`
	QuoteOraclePrice  *OraclePrice     `json:"quoteOraclePrice,omitempty"`
	RefundCurrency    *AmountObject    `json:"refundCurrencyData,omitempty"`
	// FailedTxHash, FailedTxBlockNumber and FailedCallData name a fill that was mined and
	// reverted: the transaction, its block and what it called.
	FailedTxHash        string    `json:"failedTxHash,omitempty"`
	FailedTxBlockNumber uint64    `json:"failedTxBlockNumber,omitempty"`
	FailedCallData      *CallData `json:"failedCallData,omitempty"`
	// APIKeyName is the label of the API key the quote was made with, as it was then
	// (owner-only); nil for a quote made without a key or with an unnamed key.
	APIKeyName *string `json:"apiKeyName,omitempty"`
	// BlockedAddresses are the addresses whose screening failed the request, while its failReason
	// is BLOCKED_WALLET (owner-only; the spec: never scores or reasons).
	BlockedAddresses []string `json:"blockedAddresses,omitempty"`
}

// CallData is a transaction's call: who sent it, to what, with which data and value (wei).
type CallData struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Data  string `json:"data"`
	Value string `json:"value"`
}

// FeeSponsorship is the record's `feeSponsorship`: what a sponsor covers, quoted at quote time
// and actual at fill time, in the fee currency. A phase not written is left out, never null:
// the public SDK types both as optional objects (`quoted?`, `actual?`), not as nullable, so
// actual is absent until a sponsor is charged, and stays absent when none ever is.
type FeeSponsorship struct {
	Quoted   *SponsorshipPhase `json:"quoted,omitempty"`
	Actual   *SponsorshipPhase `json:"actual,omitempty"`
	Currency Currency          `json:"currency"`
}

// SponsorshipPhase is one phase of feeSponsorship.
type SponsorshipPhase struct {
	SelectedComponents     []string                      `json:"selectedComponents"`
	CapHit                 bool                          `json:"capHit"`
	Components             map[string]SponsoredComponent `json:"components"`
	SponsoredTotal         Amount                        `json:"sponsoredTotal"`
	UserPaysTotal          Amount                        `json:"userPaysTotal"`
	MaxSubsidizationAmount string                        `json:"maxSubsidizationAmount"`
	SubsidizationBps       *int64                        `json:"subsidizationBps,omitempty"`
	SponsorPayment         *SponsorPayment               `json:"sponsorPayment,omitempty"`
}

// SponsoredComponent is one fee component's split between sponsor and user.
type SponsoredComponent struct {
	Selected  bool   `json:"selected"`
	Total     Amount `json:"total"`
	Sponsored Amount `json:"sponsored"`
	UserPays  Amount `json:"userPays"`
}

// SponsorPayment is what the sponsor actually paid, where (actual phase only).
type SponsorPayment struct {
	Amount  string `json:"amount"`
	Address string `json:"address"`
	ChainID uint64 `json:"chainId"`
}

// Amount is an amount object without its currency (the enclosing object names it).
type Amount struct {
	Amount          string `json:"amount"`
	AmountFormatted string `json:"amountFormatted"`
	AmountUsd       string `json:"amountUsd"`
	MinimumAmount   string `json:"minimumAmount"`
}

// PlatformFee is the record's `platformFee` (owner-only): the platform fee's bucket and its
// split between the service and the integrator's revenue share.
type PlatformFee struct {
	Bucket                 string       `json:"bucket"`
	RuleID                 string       `json:"ruleId"`
	ServiceFeeBps          json.Number  `json:"serviceFeeBps"`
	IntegratorFeeBps       json.Number  `json:"integratorFeeBps"`
	TotalFeeBps            json.Number  `json:"totalFeeBps"`
	ServiceFee             AmountObject `json:"serviceFee"`
	IntegratorFee          AmountObject `json:"integratorFee"`
	TotalPlatformFee       AmountObject `json:"totalPlatformFee"`
	IntegratorFeeRecipient string       `json:"integratorFeeRecipient"`
}

// AppFees is the record's `appFees`.
type AppFees struct {
	Quoted   []AppFeeAmount `json:"quoted"`
	Actual   []AppFeeAmount `json:"actual"`
	Currency Currency       `json:"currency"`
}

// AppFeeAmount is one app fee: who receives it and how much.
type AppFeeAmount struct {
	Recipient       string `json:"recipient"`
	Bps             string `json:"bps"`
	Amount          string `json:"amount"`
	AmountFormatted string `json:"amountFormatted"`
	AmountUsd       string `json:"amountUsd,omitempty"`
}

// Route is the record's `route` and the quote's `details.route`.
type Route struct {
	IncludedSwapSources            []string     `json:"includedSwapSources,omitempty"`
	IncludedOriginSwapSources      []string     `json:"includedOriginSwapSources,omitempty"`
	IncludedDestinationSwapSources []string     `json:"includedDestinationSwapSources,omitempty"`
	Quoted                         *RouteLegs   `json:"quoted,omitempty"`
	Actual                         *RouteActual `json:"actual,omitempty"`
}

// RouteActual is route.actual: what the request really did. Before a fill its origin input is
// the deposit and its origin output null, its destination the quoted one (the spec's rule for
// a deposit seen with no fill).
type RouteActual struct {
	Origin      ActualLeg `json:"origin"`
	Destination ActualLeg `json:"destination"`
	Rate        string    `json:"rate,omitempty"`
}

// ActualLeg is one side of route.actual; a currency not known (yet) is null.
type ActualLeg struct {
	InputCurrency  *AmountObject `json:"inputCurrency"`
	OutputCurrency *AmountObject `json:"outputCurrency"`
	Router         string        `json:"router"`
}

// RouteLegs is one phase of a route: what happens on the origin and on the destination.
type RouteLegs struct {
	Origin      RouteLeg `json:"origin"`
	Destination RouteLeg `json:"destination"`
}

// RouteLeg is the currency in and out of one side of a route and who converts it.
type RouteLeg struct {
	InputCurrency  AmountObject `json:"inputCurrency"`
	OutputCurrency AmountObject `json:"outputCurrency"`
	Router         string       `json:"router"`
}

// OraclePrice is the price the quote was made at.
type OraclePrice struct {
	Rate           string       `json:"rate"`
	ObservedAt     string       `json:"observedAt"`
	InputCurrency  AmountObject `json:"inputCurrency"`
	OutputCurrency AmountObject `json:"outputCurrency"`
}

// QuotedFees is the v3 `fees` object: quoted and actual components in the fee currency. actual
// is left out until a fill lands (and for a request never filled), never null: the public SDK
// types it as an optional object (`actual?`), not as nullable.
type QuotedFees struct {
	Quoted   FeeComponents  `json:"quoted"`
	Actual   *FeeComponents `json:"actual,omitempty"`
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

// Protocol is the `protocol` block of a v3 record. deposit.service and settlement.service (the
// SDK's `relay` legs) describe a hub chain this engine does not have: they are omitted.
type Protocol struct {
	OrderID string `json:"orderId"`
	HubType string `json:"hubType"`
	// IsWithdrawable is set when the deposit sits in the depository with nothing left to take
	// it: the request failed after its deposit was attested, and no fill and no refund landed.
	IsWithdrawable bool                `json:"isWithdrawable"`
	Solver         ProtocolSolver      `json:"solver"`
	Deposit        *ProtocolDeposit    `json:"deposit,omitempty"`
	Settlement     *ProtocolSettlement `json:"settlement,omitempty"`
}

// ProtocolDeposit is protocol.deposit: the origin leg as observed, and the oracle's attestation
// of it once given.
type ProtocolDeposit struct {
	Origin      *DepositOrigin       `json:"origin,omitempty"`
	Attestation *ProtocolAttestation `json:"attestation,omitempty"`
}

// DepositOrigin is protocol.deposit.origin: the Deposit event the request was paid with.
type DepositOrigin struct {
	Amount        string `json:"amount"`
	ChainID       uint64 `json:"chainId"`
	Currency      string `json:"currency"`
	Depositor     string `json:"depositor"`
	Depository    string `json:"depository"`
	OnchainID     string `json:"onchainId"`
	TransactionID string `json:"transactionId"`
}

// ProtocolAttestation is an attestation block: what was attested and who signed it.
type ProtocolAttestation struct {
	Execution    AttestationExecution `json:"execution"`
	Attestations []OracleAttestation  `json:"attestations"`
}

// AttestationExecution names the attested action and the key that makes it happen once.
type AttestationExecution struct {
	Actions        []string `json:"actions"`
	IdempotencyKey string   `json:"idempotencyKey"`
}

// OracleAttestation is one oracle signature: the chain and contract whose event it attests,
// the recovered signer and the signature (0x hex).
type OracleAttestation struct {
	OracleChainID  string `json:"oracleChainId"`
	OracleContract string `json:"oracleContract"`
	SignerAddress  string `json:"signerAddress"`
	Signature      string `json:"signature"`
}

// ProtocolSettlement is protocol.settlement: the transactions that settled the request on
// chain.
type ProtocolSettlement struct {
	Destination SettlementDestination `json:"destination"`
}

// SettlementDestination lists the landed fills and refunds.
type SettlementDestination struct {
	Fills   []SettlementTx `json:"fills"`
	Refunds []SettlementTx `json:"refunds"`
}

// SettlementTx is one settling transaction.
type SettlementTx struct {
	ChainID       uint64 `json:"chainId"`
	TransactionID string `json:"transactionId"`
}

// ProtocolSolver names the solver that owns the order.
type ProtocolSolver struct {
	Address         string `json:"address"`
	ProtocolChainID string `json:"protocolChainId"`
	ChainID         uint64 `json:"chainId"`
}
