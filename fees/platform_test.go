package fees

import (
	"math/big"
	"testing"

	"github.com/shopspring/decimal"
)

const payout = "0x1111111111111111111111111111111111111111"

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func bi(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return v
}

func eligible(volume string) Integrator {
	return Integrator{HasAPIKey: true, BusinessVerified: true, Volume30dUSD: d(volume), PayoutAddress: payout}
}

func TestPlatformBps(t *testing.T) {
	tests := []struct {
		name string
		c    Class
		want string
	}{
		{"Token bridge and same-chain wrap/unwrap 0.00%/bridge", ClassBridge, "0"},
		{"Token bridge and same-chain wrap/unwrap 0.00%/wrap", ClassWrap, "0"},
		{"Stablecoin swap 0.01%", ClassStablecoin, "1"},
		{"Major swap 0.06%", ClassMajor, "6"},
		{"Minor swap 0.15%", ClassMinor, "15"},
		{"unknown class priced as minor (never undercharge)", Class("weird"), "15"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PlatformBps(tt.c); !got.Equal(d(tt.want)) {
				t.Errorf("PlatformBps(%q) = %s bps, want %s", tt.c, got, tt.want)
			}
		})
	}
}

func TestPlatformFee_stablecoinSwap_0_01pct(t *testing.T) {
	// 1,000 USDC (6 decimals) at 0.01% = 0.1 USDC.
	s := Platform(ClassStablecoin, bi("1000000000"), Integrator{})
	if s.Total.String() != "100000" || s.Service.String() != "100000" || s.Integrator.Sign() != 0 {
		t.Fatalf("got total %s service %s integrator %s", s.Total, s.Service, s.Integrator)
	}
	if s.Bucket != ClassStablecoin || s.RuleID != "stablecoin:standard" || !s.TotalBps.Equal(d("1")) || s.IntegratorRecipient != "" {
		t.Fatalf("got %+v", s)
	}
}

func TestPlatformFee_table(t *testing.T) {
	tests := []struct {
		name                       string
		c                          Class
		base                       *big.Int
		in                         Integrator
		total, service, integrator string
		totalBps, svcBps, intBps   string
		rule, recipient            string
	}{
		{"Token bridge 0.00%", ClassBridge, bi("1000000000000000000"), eligible("50000000"), "0", "0", "0", "0", "0", "0", "bridge:rs-10m-100m", ""},
		{"same-chain wrap/unwrap 0.00%", ClassWrap, bi("1000000000000000000"), Integrator{}, "0", "0", "0", "0", "0", "0", "wrap:standard", ""},
		{"Major swap 0.06%", ClassMajor, bi("1000000000000000000"), Integrator{}, "600000000000000", "600000000000000", "0", "6", "6", "0", "major:standard", ""},
		{"Minor swap 0.15%", ClassMinor, bi("1000000"), Integrator{}, "1500", "1500", "0", "15", "15", "0", "minor:standard", ""},
		{"fee rounds up: the service never undercharges (1 unit at 0.15%)", ClassMinor, bi("1"), Integrator{}, "1", "1", "0", "15", "15", "0", "minor:standard", ""},
		{"fee rounds up: 667 units at 0.15% = 1.0005 -> 2", ClassMinor, bi("667"), Integrator{}, "2", "2", "0", "15", "15", "0", "minor:standard", ""},
		{"revenue share 10M to 100M stablecoin 34%", ClassStablecoin, bi("1000000000"), eligible("20000000"), "100000", "66000", "34000", "1", "0.66", "0.34", "stablecoin:rs-10m-100m", payout},
		{"revenue share 10M to 100M major 25%", ClassMajor, bi("1000000"), eligible("20000000"), "600", "450", "150", "6", "4.5", "1.5", "major:rs-10m-100m", payout},
		{"revenue share 10M to 100M minor 33.33%, integrator rounds down", ClassMinor, bi("1000000"), eligible("20000000"), "1500", "1001", "499", "15", "10.0005", "4.9995", "minor:rs-10m-100m", payout},
		{"revenue share 100M to 1B stablecoin 67%", ClassStablecoin, bi("1000000000"), eligible("100000000"), "100000", "33000", "67000", "1", "0.33", "0.67", "stablecoin:rs-100m-1b", payout},
		{"revenue share 100M to 1B major 50%", ClassMajor, bi("1000000"), eligible("500000000"), "600", "300", "300", "6", "3", "3", "major:rs-100m-1b", payout},
		{"revenue share 100M to 1B minor 66.67%", ClassMinor, bi("1000000"), eligible("999999999.99"), "1500", "500", "1000", "15", "4.9995", "10.0005", "minor:rs-100m-1b", payout},
		{"revenue share volume >= 1B keeps the top tier", ClassMinor, bi("1000000"), eligible("5000000000"), "1500", "500", "1000", "15", "4.9995", "10.0005", "minor:rs-100m-1b", payout},
		{"revenue share Bridge/wrap 0%", ClassWrap, bi("1000000"), eligible("500000000"), "0", "0", "0", "0", "0", "0", "wrap:rs-100m-1b", ""},
		{"nil base prices zero", ClassMinor, nil, eligible("20000000"), "0", "0", "0", "15", "10.0005", "4.9995", "minor:rs-10m-100m", payout},
		{"negative base prices zero", ClassMinor, big.NewInt(-5), Integrator{}, "0", "0", "0", "15", "15", "0", "minor:standard", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Platform(tt.c, tt.base, tt.in)
			if s.Total.String() != tt.total || s.Service.String() != tt.service || s.Integrator.String() != tt.integrator {
				t.Errorf("amounts: total %s service %s integrator %s, want %s %s %s", s.Total, s.Service, s.Integrator, tt.total, tt.service, tt.integrator)
			}
			if !s.TotalBps.Equal(d(tt.totalBps)) || !s.ServiceBps.Equal(d(tt.svcBps)) || !s.IntegratorBps.Equal(d(tt.intBps)) {
				t.Errorf("bps: total %s service %s integrator %s, want %s %s %s", s.TotalBps, s.ServiceBps, s.IntegratorBps, tt.totalBps, tt.svcBps, tt.intBps)
			}
			if s.RuleID != tt.rule || s.IntegratorRecipient != tt.recipient || s.Bucket != tt.c {
				t.Errorf("rule %q recipient %q bucket %q", s.RuleID, s.IntegratorRecipient, s.Bucket)
			}
			if new(big.Int).Add(s.Service, s.Integrator).Cmp(s.Total) != 0 || !s.ServiceBps.Add(s.IntegratorBps).Equal(s.TotalBps) {
				t.Errorf("split does not add up: %+v", s)
			}
		})
	}
}

// "Revenue share cannot be used to discount the product to end users."
func TestPlatformFee_revenueShareCannotDiscountTheUser(t *testing.T) {
	for _, c := range []Class{ClassBridge, ClassWrap, ClassStablecoin, ClassMajor, ClassMinor} {
		for _, base := range []string{"0", "1", "7", "6667", "123456789", "1000000000000000000000"} {
			plain := Platform(c, bi(base), Integrator{})
			for _, vol := range []string{"10000000.01", "99999999", "100000000", "2000000000"} {
				s := Platform(c, bi(base), eligible(vol))
				if s.Total.Cmp(plain.Total) != 0 || !s.TotalBps.Equal(plain.TotalBps) {
					t.Errorf("%s base %s vol %s: user pays %s, without share %s", c, base, vol, s.Total, plain.Total)
				}
				if s.Integrator.Sign() < 0 || s.Integrator.Cmp(s.Total) > 0 {
					t.Errorf("%s base %s: integrator %s outside [0, %s]", c, base, s.Integrator, s.Total)
				}
			}
		}
	}
}

func TestPlatformFee_doesNotMutateBase(t *testing.T) {
	base := bi("123456789")
	s := Platform(ClassMinor, base, eligible("20000000"))
	if base.String() != "123456789" {
		t.Fatalf("base mutated: %s", base)
	}
	s.Total.SetInt64(0)
	s.Service.SetInt64(0)
	s.Integrator.SetInt64(0)
	if base.String() != "123456789" {
		t.Fatalf("result aliases base")
	}
}

func TestRevenueShare_eligibility(t *testing.T) {
	ok := eligible("20000000")
	tests := []struct {
		name string
		in   Integrator
		want string
	}{
		{"eligible: all four conditions", ok, "0.25"},
		{"an API key is passed in the quote", Integrator{BusinessVerified: true, Volume30dUSD: d("20000000"), PayoutAddress: payout}, "0"},
		{"business verification is completed", Integrator{HasAPIKey: true, Volume30dUSD: d("20000000"), PayoutAddress: payout}, "0"},
		{"trailing 30-day volume exceeds USD 10,000,000: exactly 10M is not enough", eligible("10000000"), "0"},
		{"trailing 30-day volume exceeds USD 10,000,000: 10M + 1 cent", eligible("10000000.01"), "0.25"},
		{"trailing 30-day volume exceeds USD 10,000,000: below", eligible("9999999.99"), "0"},
		{"an EVM payout address is supplied: missing", Integrator{HasAPIKey: true, BusinessVerified: true, Volume30dUSD: d("20000000")}, "0"},
		{"an EVM payout address is supplied: not hex", func() Integrator { i := ok; i.PayoutAddress = "0x111111111111111111111111111111111111111g"; return i }(), "0"},
		{"an EVM payout address is supplied: Solana address", func() Integrator { i := ok; i.PayoutAddress = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"; return i }(), "0"},
		{"an EVM payout address is supplied: zero address", func() Integrator { i := ok; i.PayoutAddress = "0x0000000000000000000000000000000000000000"; return i }(), "0"},
		{"an EVM payout address is supplied: mixed case accepted", func() Integrator { i := ok; i.PayoutAddress = "0xAbCdEf0123456789abcdef0123456789ABCDEF01"; return i }(), "0.25"},
		{"an EVM payout address is supplied: no 0x prefix", func() Integrator { i := ok; i.PayoutAddress = "001111111111111111111111111111111111111111"; return i }(), "0"},
		{"tier 100M to 1B starts at exactly 100M", eligible("100000000"), "0.5"},
		{"tier 10M to 100M just below 100M", eligible("99999999.99"), "0.25"},
		{"volume at 1B keeps the top tier", eligible("1000000000"), "0.5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RevenueShare(ClassMajor, tt.in); !got.Equal(d(tt.want)) {
				t.Errorf("RevenueShare(major) = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestRevenueShare_tierTable(t *testing.T) {
	low, high := eligible("50000000"), eligible("500000000")
	tests := []struct {
		c         Class
		low, high string
	}{
		{ClassBridge, "0", "0"},
		{ClassWrap, "0", "0"},
		{ClassStablecoin, "0.34", "0.67"},
		{ClassMajor, "0.25", "0.50"},
		{ClassMinor, "0.3333", "0.6667"},
		{Class("weird"), "0", "0"},
	}
	for _, tt := range tests {
		t.Run(string(tt.c), func(t *testing.T) {
			if got := RevenueShare(tt.c, low); !got.Equal(d(tt.low)) {
				t.Errorf("10M to 100M: %s, want %s", got, tt.low)
			}
			if got := RevenueShare(tt.c, high); !got.Equal(d(tt.high)) {
				t.Errorf("100M to 1B: %s, want %s", got, tt.high)
			}
			if got := RevenueShare(tt.c, Integrator{}); !got.IsZero() {
				t.Errorf("ineligible: %s", got)
			}
		})
	}
}

func TestAppFees_addedOnTopByTheIntegrator_roundDown(t *testing.T) {
	fees := []AppFee{{"0xa", 50}, {"0xb", 1}, {"0xc", 0}, {"0xd", -3}, {"0xe", 10000}}
	base := bi("19999")
	amounts, total := AppFees(base, fees)
	want := []string{"99", "1", "0", "0", "19999"}
	if len(amounts) != len(want) {
		t.Fatalf("got %d amounts", len(amounts))
	}
	for i, w := range want {
		if amounts[i].String() != w {
			t.Errorf("amounts[%d] = %s, want %s", i, amounts[i], w)
		}
	}
	if total.String() != "20099" {
		t.Errorf("total = %s", total)
	}
	if base.String() != "19999" || fees[3].Bps != -3 {
		t.Errorf("inputs mutated")
	}
	amounts, total = AppFees(nil, nil)
	if amounts == nil || len(amounts) != 0 || total.Sign() != 0 {
		t.Errorf("empty: %v %s", amounts, total)
	}
	amounts, total = AppFees(big.NewInt(-100), []AppFee{{"0xa", 100}})
	if amounts[0].Sign() != 0 || total.Sign() != 0 {
		t.Errorf("negative base: %v %s", amounts, total)
	}
}

func TestParseAppFee(t *testing.T) {
	tests := []struct {
		recipient, fee string
		want           int64
		wantErr        bool
	}{
		{"0xa", "25", 25, false},
		{"0xa", "0", 0, false},
		{"0xa", "10000", 10000, false},
		{"0xa", "10001", 0, true},
		{"0xa", "-1", 0, true},
		{"0xa", "1.5", 0, true},
		{"0xa", "", 0, true},
		{"", "25", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseAppFee(tt.recipient, tt.fee)
		if (err != nil) != tt.wantErr || (err == nil && (got.Bps != tt.want || got.Recipient != tt.recipient)) {
			t.Errorf("ParseAppFee(%q, %q) = %+v, %v", tt.recipient, tt.fee, got, err)
		}
	}
}
