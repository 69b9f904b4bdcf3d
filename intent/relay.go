package intent

import (
	"math/big"

	"github.com/shopspring/decimal"
)

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

// RelayCharged writes on the record what the integrator paid for a gasless request's relayed
// transaction (feeSponsorship.actual.sponsorPayment, in USD micro-dollars as every
// sponsorPayment): added to a payment already there, else an actual phase of its own holding
// only the payment (the quote sponsored nothing; its fee currency is the input's).
func (r *Record) RelayCharged(p SponsorPayment) {
	d := &r.Data
	if d.FeeSponsorship == nil {
		fs := &FeeSponsorship{}
		if d.CurrencyIn != nil {
			fs.Currency = d.CurrencyIn.Currency
		}
		d.FeeSponsorship = fs
	}
	fs := d.FeeSponsorship
	if fs.Actual == nil {
		fs.Actual = &SponsorshipPhase{SelectedComponents: []string{}, Components: map[string]SponsoredComponent{},
			SponsoredTotal: Amount{Amount: "0", AmountFormatted: "0", AmountUsd: "0"}, UserPaysTotal: Amount{Amount: "0", AmountFormatted: "0", AmountUsd: "0"},
			MaxSubsidizationAmount: "0"}
	}
	if prev := fs.Actual.SponsorPayment; prev != nil {
		sum := addDecimalStrings(prev.Amount, p.Amount)
		p.Amount = sum
	}
	fs.Actual.SponsorPayment = &p
}

// addDecimalStrings adds two non-negative integers written in decimal; one that does not parse
// counts as zero.
func addDecimalStrings(a, b string) string {
	x, ok := new(big.Int).SetString(a, 10)
	if !ok {
		x = new(big.Int)
	}
	y, ok := new(big.Int).SetString(b, 10)
	if !ok {
		y = new(big.Int)
	}
	return x.Add(x, y).String()
}

// FeatureGaslessExecution is the feature of a request executed through POST /execute.
const FeatureGaslessExecution = "gasless_execution"

// RelaySettlement is what settling a gasless request's relayed gas did.
type RelaySettlement struct {
	// ChargedUSD is what the integrator paid (zero when released).
	ChargedUSD decimal.Decimal
	// Wallet and ChainID are the integrator's sponsorship wallet (the sponsorPayment's).
	Wallet  string
	ChainID uint64
	// Held is false when the request held no reservation (never reserved, declined).
	Held bool
}
