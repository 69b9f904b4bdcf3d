package intent

import (
	"maps"
	"math/big"

	"github.com/shopspring/decimal"
)

// SponsorAccount is an integrator's sponsorship account: the wallet its balance is linked to and
// the balance it may still sponsor, reservations for fills in flight already taken off. Only an
// account that CanSponsor may sponsor fees: anyone else's sponsorship would be paid by the solver.
type SponsorAccount struct {
	IntegratorID string
	// Wallet and ChainID are where the balance is funded from; feeSponsorship.actual's
	// sponsorPayment names them.
	Wallet     string
	ChainID    uint64
	BalanceUSD decimal.Decimal
}

// CanSponsor reports whether the account has a sponsorship wallet and a positive balance.
func (a SponsorAccount) CanSponsor() bool { return a.Wallet != "" && a.BalanceUSD.IsPositive() }

// Settlement is what a landed fill settles (store.SettleFill): the sponsor's charge when the
// request was sponsored, and the app fees owed to their recipients.
type Settlement struct {
	RequestID string
	// Sponsor is the execution's sponsor, whose reservation is charged; nil when nothing was
	// reserved.
	Sponsor *Sponsor
}

// AppFeeOwed is one app fee owed to its recipient once the fill has landed, in the smallest unit
// of the fee currency (the input currency), to be paid out off-chain.
type AppFeeOwed struct {
	Index     int // the entry of the request's appFees
	Recipient string
	ChainID   uint64
	Currency  string
	Amount    *big.Int
}

// USDMicros is a USD value in micro-dollars (6 decimals, the unit of sponsorPayment.amount and of
// the SDK's maxSubsidizationAmount), rounded up.
func USDMicros(usd decimal.Decimal) *big.Int { return usd.Shift(6).Ceil().BigInt() }

// Settle writes on the record what its landed fill settled, and returns the app fees now owed.
//
// feeSponsorship.actual is the quoted split (the fill pays the quoted amounts exactly) with
// sponsorPayment when a sponsor was charged (payment non-nil); without a charge it is left as
// it is, since the rest of the record's actual side is not filled yet.
//
// App fees are owed only out of what was paid for them: the user's share of the app component,
// plus the sponsor's share when the sponsor was charged. The entries of appFees.quoted are
// owed in order, each at most its quoted amount, until that is used up; a record without the
// numbers to show what was paid owes nothing. So an app fee listed as sponsored that no sponsor
// paid (an execution from before integrators paid for sponsorship) is never owed by the
// solver. appFees.actual lists what is owed, valued at the quote's price.
func (r *Record) Settle(payment *SponsorPayment) []AppFeeOwed {
	d := &r.Data
	if payment != nil && d.FeeSponsorship != nil && d.FeeSponsorship.Quoted != nil {
		actual := *d.FeeSponsorship.Quoted
		actual.SelectedComponents = append([]string{}, actual.SelectedComponents...)
		actual.Components = maps.Clone(actual.Components)
		p := *payment
		if prev := d.FeeSponsorship.Actual; prev != nil && prev.SponsorPayment != nil {
			// a gasless request's relayed gas, charged before its fill landed (RelayCharged)
			p.Amount = addDecimalStrings(prev.SponsorPayment.Amount, p.Amount)
		}
		actual.SponsorPayment = &p
		d.FeeSponsorship.Actual = &actual
	}
	if d.AppFees == nil {
		return nil
	}
	remaining := r.appFeesPaid(payment != nil)
	cur := d.AppFees.Currency
	var price decimal.Decimal
	if d.QuoteOraclePrice != nil {
		price, _ = decimal.NewFromString(d.QuoteOraclePrice.InputCurrency.AmountUsd)
	}
	owed := make([]AppFeeOwed, 0, len(d.AppFees.Quoted))
	actual := make([]AppFeeAmount, 0, len(d.AppFees.Quoted))
	for i, q := range d.AppFees.Quoted {
		amount, ok := new(big.Int).SetString(q.Amount, 10)
		if !ok || amount.Sign() < 0 {
			amount = new(big.Int)
		}
		if amount.Cmp(remaining) > 0 {
			amount.Set(remaining)
		}
		remaining.Sub(remaining, amount)
		owed = append(owed, AppFeeOwed{Index: i, Recipient: q.Recipient, ChainID: cur.ChainID, Currency: cur.Address, Amount: amount})
		actual = append(actual, AppFeeAmount{Recipient: q.Recipient, Bps: q.Bps, Amount: amount.String(),
			AmountFormatted: FormatUnits(amount, cur.Decimals), AmountUsd: USDValue(amount, cur.Decimals, price).StringFixed(6)})
	}
	d.AppFees.Actual = actual
	return owed
}

// appFeesPaid is what was paid for the app fees: the user's share of the app component, and the
// sponsor's when it was charged; zero when the record does not say.
func (r *Record) appFeesPaid(sponsorCharged bool) *big.Int {
	paid := new(big.Int)
	fs := r.Data.FeeSponsorship
	if fs == nil || fs.Quoted == nil {
		return paid
	}
	app, ok := fs.Quoted.Components["app"]
	if !ok {
		return paid
	}
	if v, ok := new(big.Int).SetString(app.UserPays.Amount, 10); ok && v.Sign() > 0 {
		paid.Add(paid, v)
	}
	if sponsorCharged {
		if v, ok := new(big.Int).SetString(app.Sponsored.Amount, 10); ok && v.Sign() > 0 {
			paid.Add(paid, v)
		}
	}
	return paid
}
