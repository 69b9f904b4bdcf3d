package api

import (
	"context"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/chains/solana"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/prices"
	"github.com/intentd/intentd/quote"
)

// Issue 37, point 2: a quote asked with originGasOverhead (a gasless execution's relayed origin
// transaction) charges that gas at the origin's gas price, converted to the input currency and
// rounded up, in fees.gas and the execution component, and its execution remembers the overhead
// for POST /execute; through the real router, on the devnet's two chains and a real Postgres.

// gaslessBody is an ordinary quote from 31337 to 31338 (no deposit address), with overrides (a
// nil value removes the field).
func gaslessBody(over map[string]any) map[string]any {
	return daBody(mergeOver(map[string]any{"useDepositAddress": nil}, over))
}

func mergeOver(a, b map[string]any) map[string]any {
	m := map[string]any{}
	for k, v := range a {
		m[k] = v
	}
	for k, v := range b {
		m[k] = v
	}
	return m
}

func TestOriginGasOverheadAddsTheRelayedTransactionsGasToTheExecutionFeeAndIsStored(t *testing.T) {
	r := newDARig(t, nil)
	ctx := context.Background()
	// The devnet mines no block in the test (BlockTime: an hour), so every quote reads this
	// gas price, and the fill's gas cost is the same with and without the overhead.
	gasPrice, err := r.origin.GasPrice(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The origin gas in the input currency, as the quote converts it: the native cost's USD
	// value at ETH's price, in the input currency at its price, rounded up.
	originGas := func(overhead int64, decimals uint8, price decimal.Decimal) *big.Int {
		cost := new(big.Int).Mul(gasPrice, big.NewInt(overhead))
		return intent.FromUSD(intent.USDValue(cost, 18, decimal.NewFromInt(3000)), decimals, price)
	}
	quoteOf := func(t *testing.T, path string, body map[string]any) map[string]any {
		t.Helper()
		code, out := daCall(t, r.h, "POST", path, "", body)
		if code != http.StatusOK {
			t.Fatalf("%s: %d %v", path, code, out)
		}
		return out
	}
	for _, tc := range []struct {
		name, currency, amount string
		decimals               uint8
		price                  decimal.Decimal
		overhead               int64
	}{
		{"ETH, a 7702 batch executor", zero, "1000000000000000000", 18, decimal.NewFromInt(3000), 80_000},
		{"USDC, an ERC-4337 smart account", devnet.USDCAddress.Hex(), "25000000", 6, decimal.NewFromInt(1), 300_000},
		{"USDC, one gas (rounded up to a unit)", devnet.USDCAddress.Hex(), "25000000", 6, decimal.NewFromInt(1), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := originGas(tc.overhead, tc.decimals, tc.price)
			if want.Sign() <= 0 {
				t.Fatalf("the expected origin gas is %s", want)
			}
			body := gaslessBody(map[string]any{"originCurrency": tc.currency, "destinationCurrency": tc.currency, "amount": tc.amount})
			for _, path := range []string{"/quote/v2", "/quote", "/price"} {
				plain := quoteOf(t, path, body)
				gasless := quoteOf(t, path, mergeOver(body, map[string]any{"originGasOverhead": tc.overhead}))
				if g := amountOf(t, plain, "fees", "gas", "amount"); g.Sign() != 0 {
					t.Fatalf("%s: fees.gas %s without originGasOverhead, want 0", path, g)
				}
				if got := amountOf(t, gasless, "fees", "gas", "amount"); got.Cmp(want) != 0 {
					t.Fatalf("%s: fees.gas %s, want %d gas at %s wei a gas: %s", path, got, tc.overhead, gasPrice, want)
				}
				for _, f := range []string{"relayer", "relayerGas", "relayerService", "app", "subsidized"} {
					if a, b := amountOf(t, plain, "fees", f, "amount"), amountOf(t, gasless, "fees", f, "amount"); a.Cmp(b) != 0 {
						t.Fatalf("%s: fees.%s %s without, %s with originGasOverhead: only fees.gas changes", path, f, a, b)
					}
				}
				// The user pays it: the input is the same and the output less by it (a bridge of
				// one asset is 1:1).
				less := new(big.Int).Sub(amountOf(t, plain, "details", "currencyOut", "amount"), amountOf(t, gasless, "details", "currencyOut", "amount"))
				if less.Cmp(want) != 0 {
					t.Fatalf("%s: the output is %s less, want %s", path, less, want)
				}
				if path == "/price" {
					continue
				}
				// The v3 record's execution component has it, and the execution the overhead.
				plainID, gaslessID := plain["requestId"].(string), gasless["requestId"].(string)
				execOf := func(id string) *big.Int {
					rec, err := r.st.Record(ctx, id)
					if err != nil || rec.Data.Fees == nil {
						t.Fatalf("record %s: %+v, %v", id, rec, err)
					}
					n, _ := new(big.Int).SetString(rec.Data.Fees.Quoted.Execution.Amount, 10)
					return n
				}
				if d := new(big.Int).Sub(execOf(gaslessID), execOf(plainID)); d.Cmp(want) != 0 {
					t.Fatalf("%s: the execution component is %s more, want %s", path, d, want)
				}
				for id, overhead := range map[string]uint64{plainID: 0, gaslessID: uint64(tc.overhead)} {
					sq, err := r.st.QuoteByRequestID(ctx, id)
					if err != nil || sq.Execution.OriginGasOverhead != overhead || sq.Execution.Funding.Strategy != intent.FundingDepository {
						t.Fatalf("%s: execution %+v, %v: want originGasOverhead %d, funded by the depository", path, sq.Execution, err, overhead)
					}
				}
			}
		})
	}
}

// Issue 37, point 2: a bad originGasOverhead, one with useDepositAddress and one on a Solana
// origin are 400 {message, errorCode: INVALID_INPUT}, and nothing is stored.
func TestOriginGasOverheadRefusesBadValuesDepositAddressesAndSolanaOrigins(t *testing.T) {
	r := newDARig(t, nil)
	before := r.rows(t)
	for _, tc := range []struct {
		name string
		body map[string]any
		says string
	}{
		{"zero", gaslessBody(map[string]any{"originGasOverhead": 0}), "from 1 to 1000000"},
		{"negative", gaslessBody(map[string]any{"originGasOverhead": -80000}), "from 1 to 1000000"},
		{"above the bound", gaslessBody(map[string]any{"originGasOverhead": 1_000_001}), "from 1 to 1000000"},
		{"a fraction", gaslessBody(map[string]any{"originGasOverhead": 80000.5}), "whole number"},
		{"a string", gaslessBody(map[string]any{"originGasOverhead": "80000"}), "JSON number"},
		{"a boolean", gaslessBody(map[string]any{"originGasOverhead": true}), "originGasOverhead"},
		{"with useDepositAddress", daBody(map[string]any{"originGasOverhead": 80000}), "useDepositAddress"},
	} {
		for _, path := range []string{"/quote/v2", "/quote", "/price"} {
			code, out := daCall(t, r.h, "POST", path, "", tc.body)
			wantError(t, tc.name+" on "+path, code, out, http.StatusBadRequest, quote.CodeInvalidInput)
			if msg, _ := out["message"].(string); !strings.Contains(msg, tc.says) {
				t.Errorf("%s on %s: message %q does not say %q", tc.name, path, msg, tc.says)
			}
		}
	}
	if n := r.rows(t); n != before {
		t.Fatalf("%d rows stored by refused quotes", n-before)
	}

	// A Solana origin has no relayed transaction (its deposit is a transaction the user's
	// wallet sends); refused before any chain is read.
	h := quoteServer(t, solanaChains(t), prices.Table{"ETH": decimal.NewFromInt(3000), "USDC": decimal.NewFromInt(1),
		"SOL": decimal.NewFromInt(150)}, nil, nil)
	body := map[string]any{"user": solWallet, "originChainId": solana.ChainID, "originCurrency": solana.USDCAddress,
		"destinationChainId": 31338, "destinationCurrency": devnet.USDCAddress.Hex(), "recipient": daUser, "refundTo": solWallet,
		"amount": "10000000", "originGasOverhead": 80000}
	for _, path := range []string{"/quote/v2", "/quote", "/price"} {
		code, out := postQuote(t, h, path, "", body)
		wantError(t, "a Solana origin on "+path, code, out, http.StatusBadRequest, quote.CodeInvalidInput)
		if msg, _ := out["message"].(string); !strings.Contains(msg, "only for EVM origin chains") {
			t.Errorf("a Solana origin on %s: message %q", path, msg)
		}
	}
}
