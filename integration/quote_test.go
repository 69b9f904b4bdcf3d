package integration

import (
	"context"
	"net/http"
	"testing"

	"github.com/intentd/intentd/devnet"
)

// Bad input to POST /quote/v2 gets 400 with {message, errorCode} and stores nothing.
func TestQuoteBadInputIs400WithMessageAndErrorCodeAndStoresNothing(t *testing.T) {
	s := startStack(t)
	user := devnet.TestAccounts()[0].Address.Hex()
	body := func(over obj) obj {
		return quoteBody(obj{"user": user, "destinationCurrency": nativeAddr, "tradeType": nil}, over)
	}
	cases := []struct {
		name string
		body any
		code string
	}{
		{"unknown origin chain", body(obj{"originChainId": 999999}), "UNSUPPORTED_CHAIN"},
		{"unknown destination chain", body(obj{"destinationChainId": 1}), "UNSUPPORTED_CHAIN"},
		{"malformed recipient", body(obj{"recipient": "0x1234"}), "INVALID_ADDRESS"},
		{"malformed user", body(obj{"user": "bob"}), "INVALID_ADDRESS"},
		{"zero recipient burns the output", body(obj{"recipient": nativeAddr}), "INVALID_ADDRESS"},
		{"zero refundTo burns a refund", body(obj{"refundTo": nativeAddr}), "INVALID_ADDRESS"},
		{"app fees that eat the whole expected output", body(obj{"tradeType": "EXPECTED_OUTPUT",
			"appFees": []obj{{"recipient": devnet.TestAccounts()[5].Address.Hex(), "fee": "9999"}}}), "AMOUNT_TOO_LOW"},
		{"recipient is the token contract", body(obj{"recipient": devnet.USDCAddress.Hex()}), "INVALID_RECIPIENT"},
		{"currency not on chain", body(obj{"originCurrency": "0x00000000000000000000000000000000000000aa"}), "UNSUPPORTED_CURRENCY"},
		{"zero amount", body(obj{"amount": "0"}), "INVALID_INPUT"},
		{"negative amount", body(obj{"amount": "-1"}), "INVALID_INPUT"},
		{"non-numeric amount", body(obj{"amount": "lots"}), "INVALID_INPUT"},
		{"numeric JSON amount", body(obj{"amount": 5}), "INVALID_INPUT"},
		{"missing amount", body(obj{"amount": nil}), "INVALID_INPUT"},
		{"missing user", body(obj{"user": nil}), "INVALID_INPUT"},
		{"missing origin chain", body(obj{"originChainId": nil}), "INVALID_INPUT"},
		{"amount below fees", body(obj{"amount": "1"}), "AMOUNT_TOO_LOW"},
		{"malformed JSON", []byte(`{"user": `), "INVALID_INPUT"},
		{"referrer without key", body(obj{"referrer": "acme"}), "UNAUTHORIZED_QUOTE"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out map[string]any
			code, err := s.API.Do(context.Background(), http.MethodPost, "/quote/v2", tc.body, &out)
			if err != nil {
				t.Fatal(err)
			}
			want := http.StatusBadRequest
			if tc.code == "UNAUTHORIZED_QUOTE" {
				want = http.StatusUnauthorized
			}
			if code != want || out["errorCode"] != tc.code || out["message"] == "" || out["message"] == nil || len(out) != 2 {
				t.Fatalf("got %d %v, want %d errorCode %s", code, out, want, tc.code)
			}
		})
	}
	var n int
	if err := s.Sys.Pool.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM requests) + (SELECT count(*) FROM quotes)`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("bad quotes stored %d rows", n)
	}
}
