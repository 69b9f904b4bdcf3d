package integration

import (
	"context"
	"math/big"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/testkit/e2e"
)

// One real intent per route (bridges of ETH and USDC, an ETH to USDC swap across chains and one
// on a single chain), from quote to fill, over HTTP: the status goes waiting →
// pending → submitted → success, the recipient receives at least the quoted minimum, and the
// solver pays exactly once.
func TestIntentFromQuoteToFillOnDevnet(t *testing.T) {
	s := startStack(t)
	cases := []struct {
		name     string
		currency common.Address // origin currency
		dest     common.Address
		amount   string
		destID   uint64
	}{
		{"native ETH", common.Address{}, common.Address{}, "1000000000000000000", 31338},
		{"USDC", devnet.USDCAddress, devnet.USDCAddress, "25000000", 31338},
		{"ETH to USDC swap from the solver's inventory", common.Address{}, devnet.USDCAddress, "500000000000000000", 31338},
		{"same-chain ETH to USDC swap", common.Address{}, devnet.USDCAddress, "300000000000000000", 31337},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			acct := devnet.TestAccounts()[1+i]
			recipient := devnet.TestAccounts()[8].Address
			wallet := &e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}
			q, err := s.API.Quote(ctx, map[string]any{"user": acct.Address.Hex(), "recipient": recipient.Hex(),
				"originChainId": 31337, "destinationChainId": tc.destID, "originCurrency": tc.currency.Hex(),
				"destinationCurrency": tc.dest.Hex(), "amount": tc.amount, "tradeType": "EXACT_INPUT", "includeProtocolData": true})
			if err != nil {
				t.Fatal(err)
			}
			wantSteps := []string{"deposit"}
			if tc.currency != (common.Address{}) {
				wantSteps = []string{"approve", "deposit"}
			}
			if len(q.Steps) != len(wantSteps) {
				t.Fatalf("steps %d, want %v", len(q.Steps), wantSteps)
			}
			// Only the deposit, whose completion the status endpoint confirms, carries a check:
			// clients poll a check until the request succeeds, so an approve with one would never
			// let them send the deposit.
			for j, st := range q.Steps {
				if st.ID != wantSteps[j] || st.Kind != "transaction" || st.Items[0].Status != "incomplete" {
					t.Fatalf("step %d = %+v", j, st)
				}
				check := st.Items[0].Check
				if st.ID == "deposit" && (check == nil || check.Endpoint != "/intents/status/v3?requestId="+q.RequestID || check.Method != "GET") {
					t.Fatalf("deposit step check = %+v", check)
				}
				if st.ID == "approve" && check != nil {
					t.Fatalf("approve step carries a check %+v: the SDK would poll it until success and never deposit", check)
				}
			}
			minOut, _ := new(big.Int).SetString(q.Details.CurrencyOut.MinimumAmount, 10)
			recipientBefore := s.balance(t, tc.destID, tc.dest, recipient)
			solverBefore := s.balance(t, tc.destID, tc.dest, devnet.SolverAddress())

			st, _, err := s.API.Status(ctx, q.RequestID)
			if err != nil || st.Status != "waiting" || st.FailReason != "N/A" || st.RefundFailReason != "N/A" {
				t.Fatalf("status after quote = %+v, %v", st, err)
			}
			receipt, err := wallet.ExecuteSteps(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			var idx map[string]any
			code, err := s.API.Do(ctx, http.MethodPost, "/transactions/index",
				map[string]any{"chainId": 31337, "txHash": receipt.TxHash.Hex()}, &idx)
			if err != nil || code != http.StatusOK || idx["deposits"] != float64(1) {
				t.Fatalf("transaction hint: %d %v %v", code, idx, err)
			}
			final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				s.recordHistory(t, q.RequestID, "success-eth-bridge")
			}
			if final.Status != "success" || final.FailReason != "N/A" || final.RefundFailReason != "N/A" ||
				len(final.InTxHashes) != 1 || len(final.TxHashes) != 1 || final.OriginChainID != 31337 || final.DestinationChainID != tc.destID {
				t.Fatalf("final status %+v (seen %v)", final, seen)
			}
			got := new(big.Int).Sub(s.balance(t, tc.destID, tc.dest, recipient), recipientBefore)
			if got.Cmp(minOut) < 0 {
				t.Fatalf("recipient received %s, quoted minimum %s", got, minOut)
			}
			if tc.dest != tc.currency {
				// The fees add up to the difference between input and output value.
				in, _ := new(big.Int).SetString(q.Details.CurrencyIn.Amount, 10)
				fee, _ := new(big.Int).SetString(q.Fees.Relayer.Amount, 10)
				app, _ := new(big.Int).SetString(q.Fees.App.Amount, 10)
				sub, _ := new(big.Int).SetString(q.Fees.Subsidized.Amount, 10)
				net := new(big.Int).Sub(in, fee.Add(fee, app).Sub(fee, sub))
				if want := ethToUSDC(net); want.String() != q.Details.CurrencyOut.Amount {
					t.Fatalf("output %s, want (input - fees) at the feed price = %s", q.Details.CurrencyOut.Amount, want)
				}
			}
			if tc.dest != (common.Address{}) {
				paid := new(big.Int).Sub(solverBefore, s.balance(t, tc.destID, tc.dest, devnet.SolverAddress()))
				if paid.String() != q.Details.CurrencyOut.Amount {
					t.Fatalf("solver paid %s, quoted %s", paid, q.Details.CurrencyOut.Amount)
				}
			}
			if n := s.fills(t, tc.destID, common.HexToHash(q.Protocol.V2.OrderID)); n != 1 {
				t.Fatalf("order filled %d times, want exactly 1", n)
			}
		})
	}
}

func TestUnknownRequestIDIs404WithJSONBody(t *testing.T) {
	s := startStack(t)
	for _, id := range []string{"0x" + "ab" + "00000000000000000000000000000000000000000000000000000000000000", "not-an-id"} {
		var body map[string]any
		code, err := s.API.Do(context.Background(), http.MethodGet, "/intents/status/v3?requestId="+id, nil, &body)
		if err != nil || code != http.StatusNotFound || body["message"] == nil {
			t.Fatalf("%s: %d %v %v", id, code, body, err)
		}
	}
}
