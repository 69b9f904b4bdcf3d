package fees

import "testing"

func TestClassify(t *testing.T) {
	eth := func(chain uint64) Leg { return Leg{ChainID: chain, Symbol: "ETH", Native: true} }
	tok := func(chain uint64, sym string) Leg { return Leg{ChainID: chain, Symbol: sym} }
	tests := []struct {
		name    string
		in, out Leg
		want    Class
	}{
		{"a token bridge moves a token across chains without swapping asset/USDC", tok(1, "USDC"), tok(10, "USDC"), ClassBridge},
		{"a token bridge moves a token across chains without swapping asset/native ETH", eth(1), eth(8453), ClassBridge},
		{"a token bridge moves a token across chains without swapping asset/minor token", tok(1, "PEPE"), tok(56, "PEPE"), ClassBridge},
		{"a token bridge/case-insensitive for uppercase spec symbols", tok(1, "usdc"), tok(10, "USDC"), ClassBridge},
		{"a token bridge/same symbol same chain counts as bridge", tok(1, "USDC"), tok(1, "USDC"), ClassBridge},
		{"a token bridge/mixed-case spec symbol is exact: mUSD vs MUSD is no bridge", tok(1, "mUSD"), tok(10, "MUSD"), ClassMinor},

		{"wrap/unwrap is a 1:1 same-chain conversion between a native asset and its wrapped token/ETH->WETH", eth(1), tok(1, "WETH"), ClassWrap},
		{"wrap/unwrap is a 1:1 same-chain conversion between a native asset and its wrapped token/WETH->ETH", tok(1, "WETH"), eth(1), ClassWrap},
		{"wrap/unwrap/SOL<->WSOL", Leg{ChainID: 792703809, Symbol: "SOL", Native: true}, tok(792703809, "WSOL"), ClassWrap},
		{"wrap/unwrap/POL<->WPOL not in major set still wraps", Leg{ChainID: 137, Symbol: "POL", Native: true}, tok(137, "wpol"), ClassWrap},
		{"wrap/unwrap/cross-chain ETH->WETH is a major swap", eth(1), tok(10, "WETH"), ClassMajor},
		{"wrap/unwrap/BTC->WBTC without native BTC is a major swap", tok(1, "BTC"), tok(1, "WBTC"), ClassMajor},
		{"wrap/unwrap/native BNB->WETH is not its wrapped token", Leg{ChainID: 56, Symbol: "BNB", Native: true}, tok(56, "WETH"), ClassMajor},

		{"a stablecoin swap is same-chain or cross-chain between any two of the stablecoins/USDC->USDT", tok(1, "USDC"), tok(1, "USDT"), ClassStablecoin},
		{"a stablecoin swap is same-chain or cross-chain/USDC.e->DAI cross-chain", tok(42161, "USDC.e"), tok(1, "DAI"), ClassStablecoin},
		{"a stablecoin swap/USDe->PlumeUSD", tok(1, "USDe"), tok(98866, "PlumeUSD"), ClassStablecoin},
		{"a stablecoin swap/mUSD->USDm->pUSD exact spelling", tok(1, "mUSD"), tok(1, "USDm"), ClassStablecoin},
		{"a stablecoin swap/pUSD->USDT0", tok(1, "pUSD"), tok(1, "USDT0"), ClassStablecoin},
		{"a stablecoin swap/USDS USD1 PYUSD USDG USDH", tok(1, "usds"), tok(1, "Pyusd"), ClassStablecoin},
		{"a stablecoin swap/USD1->USDH", tok(1, "USD1"), tok(999, "USDH"), ClassStablecoin},
		{"a stablecoin swap/USDG->USDC", tok(1, "USDG"), tok(1, "usdc"), ClassStablecoin},
		{"a stablecoin swap/lowercase musd is not mUSD", tok(1, "musd"), tok(1, "USDC"), ClassMinor},
		{"a stablecoin swap/USDE is not USDe", tok(1, "USDE"), tok(1, "USDC"), ClassMinor},
		{"a stablecoin swap/usdc.e is not USDC.e", tok(1, "usdc.e"), tok(1, "USDC"), ClassMinor},

		{"a major swap is between any two of ETH, WETH, BTC, WBTC, SOL, WSOL, POL, BNB, PLUME/ETH->WBTC", eth(1), tok(1, "WBTC"), ClassMajor},
		{"a major swap is between any two majors/SOL->BNB cross-chain", tok(792703809, "SOL"), tok(56, "BNB"), ClassMajor},
		{"a major swap is between any two majors/PLUME->POL", tok(98866, "plume"), tok(137, "POL"), ClassMajor},
		{"a major swap is between any two majors/WSOL->WETH", tok(792703809, "WSOL"), tok(1, "WETH"), ClassMajor},
		{"a major swap is between any of those and a stablecoin/ETH->USDC", eth(1), tok(1, "USDC"), ClassMajor},
		{"a major swap is between any of those and a stablecoin/mUSD->BTC", tok(1, "mUSD"), tok(1, "BTC"), ClassMajor},

		{"a minor swap is any other pair/ETH->PEPE", eth(1), tok(1, "PEPE"), ClassMinor},
		{"a minor swap is any other pair/USDC->ARB", tok(42161, "USDC"), tok(42161, "ARB"), ClassMinor},
		{"a minor swap is any other pair/empty symbols never match", tok(1, ""), tok(10, ""), ClassMinor},
		{"a minor swap is any other pair/one empty symbol", tok(1, ""), tok(1, "USDC"), ClassMinor},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.in, tt.out); got != tt.want {
				t.Errorf("Classify(%+v, %+v) = %q, want %q", tt.in, tt.out, got, tt.want)
			}
			// Classification does not depend on the direction of the trade.
			if got := Classify(tt.out, tt.in); got != tt.want {
				t.Errorf("Classify(%+v, %+v) reversed = %q, want %q", tt.out, tt.in, got, tt.want)
			}
		})
	}
}

func TestClassify_everySpecSymbolIsRecognised(t *testing.T) {
	for _, s := range stablecoins {
		if got := Classify(Leg{ChainID: 1, Symbol: s}, Leg{ChainID: 1, Symbol: "USDT"}); s != "USDT" && got != ClassStablecoin {
			t.Errorf("stablecoin %s: got %q", s, got)
		}
		if got := Classify(Leg{ChainID: 1, Symbol: s}, Leg{ChainID: 1, Symbol: "ETH"}); got != ClassMajor {
			t.Errorf("stablecoin %s vs ETH: got %q", s, got)
		}
	}
	for _, m := range majors {
		if got := Classify(Leg{ChainID: 1, Symbol: m}, Leg{ChainID: 1, Symbol: "USDC"}); got != ClassMajor {
			t.Errorf("major %s vs USDC: got %q", m, got)
		}
	}
	if len(stablecoins) != 15 || len(majors) != 9 {
		t.Fatalf("spec sets changed: %d stablecoins, %d majors", len(stablecoins), len(majors))
	}
}
