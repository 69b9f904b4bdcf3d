package intent

import (
	"math/big"
	"testing"

	"github.com/shopspring/decimal"
)

// settledRecord is a record whose app component totals 150 (two app fees, 100 and 50) of which
// the sponsor covers sponsored and the user the rest.
func settledRecord(sponsored int64) *Record {
	usdc := Currency{ChainID: 31337, Address: "0xUSDC", Symbol: "USDC", Decimals: 6}
	amount := func(v int64) Amount { return Amount{Amount: big.NewInt(v).String()} }
	return &Record{Data: RecordData{
		FeeSponsorship: &FeeSponsorship{Currency: usdc, Quoted: &SponsorshipPhase{
			SelectedComponents: []string{"app"},
			Components: map[string]SponsoredComponent{
				"app": {Selected: sponsored > 0, Total: amount(150), Sponsored: amount(sponsored), UserPays: amount(150 - sponsored)},
			},
			SponsoredTotal: amount(sponsored), UserPaysTotal: amount(150 - sponsored)}},
		AppFees: &AppFees{Currency: usdc, Quoted: []AppFeeAmount{
			{Recipient: "0xA", Bps: "100", Amount: "100"}, {Recipient: "0xB", Bps: "50", Amount: "50"}}},
		QuoteOraclePrice: &OraclePrice{InputCurrency: AmountObject{AmountUsd: "1.000000"}},
	}}
}

func owedAmounts(owed []AppFeeOwed) []string {
	out := make([]string, len(owed))
	for i, o := range owed {
		out[i] = o.Amount.String()
	}
	return out
}

func sum(owed []AppFeeOwed) *big.Int {
	s := new(big.Int)
	for _, o := range owed {
		s.Add(s, o.Amount)
	}
	return s
}

// App fees are owed out of what was paid for them and never more: the user's share of the app
// component, and the sponsor's share only when a sponsor was charged. An app fee listed as
// sponsored that nobody paid is not owed by anyone.
func TestSettleOwesAppFeesNeverMoreThanWasPaid(t *testing.T) {
	cases := []struct {
		name      string
		sponsored int64
		charged   bool
		want      []string
	}{
		{"user pays all", 0, false, []string{"100", "50"}},
		{"sponsor pays 60 and is charged", 60, true, []string{"100", "50"}},
		{"sponsor share 60 not charged: only the user's 90 is owed, in order", 60, false, []string{"90", "0"}},
		{"all sponsored, no sponsor charged: nothing owed", 150, false, []string{"0", "0"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := settledRecord(tc.sponsored)
			var payment *SponsorPayment
			if tc.charged {
				payment = &SponsorPayment{Amount: "60", Address: "0xSponsor", ChainID: 31337}
			}
			owed := rec.Settle(payment)
			if got := owedAmounts(owed); len(got) != 2 || got[0] != tc.want[0] || got[1] != tc.want[1] {
				t.Fatalf("owed %v, want %v", got, tc.want)
			}
			paid := big.NewInt(150 - tc.sponsored)
			if tc.charged {
				paid.Add(paid, big.NewInt(tc.sponsored))
			}
			if sum(owed).Cmp(paid) > 0 {
				t.Fatalf("owed %s, more than the %s paid", sum(owed), paid)
			}
			if len(rec.Data.AppFees.Actual) != 2 || rec.Data.AppFees.Actual[0].Amount != tc.want[0] ||
				rec.Data.AppFees.Actual[0].AmountUsd != decimal.RequireFromString(tc.want[0]).Shift(-6).StringFixed(6) {
				t.Fatalf("appFees.actual %+v", rec.Data.AppFees.Actual)
			}
			if o := owed[0]; o.Recipient != "0xA" || o.ChainID != 31337 || o.Currency != "0xUSDC" || o.Index != 0 {
				t.Fatalf("owed[0] %+v", o)
			}
		})
	}
}

// A record without the numbers that show what was paid owes nothing.
func TestSettleWithoutSponsorshipNumbersOwesNothing(t *testing.T) {
	rec := settledRecord(0)
	rec.Data.FeeSponsorship = nil
	if got := sum(rec.Settle(nil)); got.Sign() != 0 {
		t.Fatalf("owed %s", got)
	}
}

// The actual phase is the quoted split with the sponsor's payment, written only when a sponsor
// was charged; the quoted phase is left as it was.
func TestSettleWritesSponsorPaymentOnTheActualPhase(t *testing.T) {
	rec := settledRecord(60)
	rec.Settle(nil)
	if rec.Data.FeeSponsorship.Actual != nil {
		t.Fatal("actual phase written without a charge")
	}
	p := SponsorPayment{Amount: "60000", Address: "0xSponsor", ChainID: 31337}
	rec.Settle(&p)
	a := rec.Data.FeeSponsorship.Actual
	if a == nil || a.SponsorPayment == nil || *a.SponsorPayment != p || a.SponsoredTotal.Amount != "60" ||
		a.Components["app"].Sponsored.Amount != "60" {
		t.Fatalf("actual %+v", a)
	}
	if rec.Data.FeeSponsorship.Quoted.SponsorPayment != nil {
		t.Fatal("the quoted phase got a sponsorPayment")
	}
	a.Components["app"] = SponsoredComponent{}
	if rec.Data.FeeSponsorship.Quoted.Components["app"].Total.Amount != "150" {
		t.Fatal("the actual phase shares its components with the quoted one")
	}
}

func TestUSDMicrosRoundsUp(t *testing.T) {
	for in, want := range map[string]string{"0.02": "20000", "1.0000001": "1000001", "0": "0", "3.5": "3500000"} {
		if got := USDMicros(decimal.RequireFromString(in)).String(); got != want {
			t.Errorf("USDMicros(%s) = %s, want %s", in, got, want)
		}
	}
}
