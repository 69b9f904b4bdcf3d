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
	native := "0x0000000000000000000000000000000000000000"
	body := func(over map[string]any) map[string]any {
		b := map[string]any{"user": user, "originChainId": 31337, "destinationChainId": 31338,
			"originCurrency": native, "destinationCurrency": native, "amount": "1000000000000000000"}
		for k, v := range over {
			if v == nil {
				delete(b, k)
			} else {
				b[k] = v
			}
		}
		return b
	}
	cases := []struct {
		name string
		body any
		code string
	}{
		{"unknown origin chain", body(map[string]any{"originChainId": 999999}), "UNSUPPORTED_CHAIN"},
		{"unknown destination chain", body(map[string]any{"destinationChainId": 1}), "UNSUPPORTED_CHAIN"},
		{"malformed recipient", body(map[string]any{"recipient": "0x1234"}), "INVALID_ADDRESS"},
		{"malformed user", body(map[string]any{"user": "bob"}), "INVALID_ADDRESS"},
		{"recipient is the token contract", body(map[string]any{"recipient": devnet.USDCAddress.Hex()}), "INVALID_RECIPIENT"},
		{"currency not on chain", body(map[string]any{"originCurrency": "0x00000000000000000000000000000000000000aa"}), "UNSUPPORTED_CURRENCY"},
		{"zero amount", body(map[string]any{"amount": "0"}), "INVALID_INPUT"},
		{"negative amount", body(map[string]any{"amount": "-1"}), "INVALID_INPUT"},
		{"non-numeric amount", body(map[string]any{"amount": "lots"}), "INVALID_INPUT"},
		{"numeric JSON amount", body(map[string]any{"amount": 5}), "INVALID_INPUT"},
		{"missing amount", body(map[string]any{"amount": nil}), "INVALID_INPUT"},
		{"missing user", body(map[string]any{"user": nil}), "INVALID_INPUT"},
		{"missing origin chain", body(map[string]any{"originChainId": nil}), "INVALID_INPUT"},
		{"amount below fees", body(map[string]any{"amount": "1"}), "AMOUNT_TOO_LOW"},
		{"malformed JSON", []byte(`{"user": `), "INVALID_INPUT"},
		{"referrer without key", body(map[string]any{"referrer": "acme"}), "UNAUTHORIZED_QUOTE"},
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
