package quote

import (
	"math/big"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/fees"
	"github.com/intentd/intentd/intent"
)

func ethUSDC(ethPrice string) *pricing {
	in := side{currency: intent.Currency{Symbol: "ETH", Decimals: 18, Metadata: intent.CurrencyMetadata{IsNative: true}}, price: decimal.RequireFromString(ethPrice)}
	out := side{currency: intent.Currency{Symbol: "USDC", Decimals: 6}, price: decimal.NewFromInt(1)}
	return &pricing{in: in, out: out, class: fees.ClassMajor, execGas: big.NewInt(30_000_000_000_000),
		execFlat: intent.FromUSD(FlatExecutionFeeUSD, 18, in.price), swapCostBps: DefaultSwapCostBps,
		appFees: []fees.AppFee{{Recipient: "0x1", Bps: 25}}}
}

// The fee model's arithmetic: the user pays exactly the sum of what each component leaves to
// them, the output is the rest at the market rate, and EXPECTED_OUTPUT finds the smallest input
// that reaches the wanted output.
func FuzzPricing(f *testing.F) {
	f.Add(uint64(1_000_000_000_000_000_000), uint64(2_500_000_000), "3000", int64(0))
	f.Add(uint64(50_000_000_000_000), uint64(1), "1234.56789", int64(5000))
	f.Add(uint64(7), uint64(999_999_999_999), "0.5", int64(10000))
	f.Fuzz(func(t *testing.T, amountIn, wantOut uint64, price string, sponsorBps int64) {
		pd, err := decimal.NewFromString(price)
		if err != nil || pd.Sign() <= 0 || pd.GreaterThan(decimal.NewFromInt(1_000_000)) || pd.LessThan(decimal.RequireFromString("0.0001")) {
			t.Skip()
		}
		if sponsorBps < 0 || sponsorBps > fees.MaxBps {
			t.Skip()
		}
		p := ethUSDC(pd.String())
		p.sponsorship = fees.Sponsorship{Subsidize: sponsorBps > 0, Bps: &sponsorBps}
		b := p.at(new(big.Int).SetUint64(amountIn))
		paid := new(big.Int).Add(b.net, b.userFees())
		if paid.Cmp(b.amountIn) != 0 {
			t.Fatalf("net %s + user fees %s != input %s", b.net, b.userFees(), b.amountIn)
		}
		if b.net.Sign() > 0 && b.amountOut.Cmp(p.convert(b.net)) != 0 {
			t.Fatalf("output %s != convert(net %s)", b.amountOut, b.net)
		}
		if wantOut == 0 {
			return
		}
		want := new(big.Int).SetUint64(wantOut)
		e := p.forOutput(want)
		if e.amountOut.Cmp(want) < 0 {
			t.Fatalf("EXPECTED_OUTPUT %s: output %s is short (input %s)", want, e.amountOut, e.amountIn)
		}
		if less := p.at(new(big.Int).Sub(e.amountIn, big.NewInt(1))); less.amountOut.Cmp(want) >= 0 && less.net.Sign() > 0 {
			t.Fatalf("EXPECTED_OUTPUT %s: input %s is not the smallest (one less gives %s)", want, e.amountIn, less.amountOut)
		}
	})
}

func TestBridgeOfOneAssetIsOneToOneLessFees(t *testing.T) {
	usdc := side{currency: intent.Currency{Symbol: "USDC", Decimals: 6}, price: decimal.NewFromInt(1)}
	p := &pricing{in: usdc, out: usdc, class: fees.ClassBridge, execGas: big.NewInt(100), execFlat: big.NewInt(20_000), swapCostBps: DefaultSwapCostBps}
	b := p.at(big.NewInt(10_000_000))
	if b.swap.Sign() != 0 || b.platform.Total.Sign() != 0 {
		t.Fatalf("bridge charged swap %s platform %s", b.swap, b.platform.Total)
	}
	if b.amountOut.Int64() != 10_000_000-20_100 {
		t.Fatalf("output %s, want input less execution", b.amountOut)
	}
}

func TestMinimumOutAppliesSlippageRoundingDown(t *testing.T) {
	for _, tc := range []struct{ expected, bps, want int64 }{{1000, 50, 995}, {999, 50, 994}, {1000, 0, 1000}, {1000, 10000, 0}} {
		if got := minimumOut(big.NewInt(tc.expected), tc.bps); got.Int64() != tc.want {
			t.Errorf("minimumOut(%d, %d) = %s, want %d", tc.expected, tc.bps, got, tc.want)
		}
	}
}

func TestPairLimits(t *testing.T) {
	l, err := ParsePairLimits("ETH/USDC=250000, */*=1000000")
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := l.Max("eth", "USDC"); !m.Equal(decimal.NewFromInt(250000)) {
		t.Fatalf("ETH/USDC max %s", m)
	}
	if m, _ := l.Max("USDC", "USDC"); !m.Equal(decimal.NewFromInt(1000000)) {
		t.Fatalf("fallback max %s", m)
	}
	for _, bad := range []string{"ETH=5", "ETH/USDC=-1", "/USDC=5", "ETH/USDC=lots"} {
		if _, err := ParsePairLimits(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func BenchmarkPricingExactInput(b *testing.B) {
	p := ethUSDC("3000")
	amount := big.NewInt(1_000_000_000_000_000_000)
	b.ReportAllocs()
	for b.Loop() {
		p.at(amount)
	}
}

func BenchmarkPricingExpectedOutput(b *testing.B) {
	p := ethUSDC("3000")
	want := big.NewInt(2_500_000_000)
	b.ReportAllocs()
	for b.Loop() {
		p.forOutput(want)
	}
}
