package quote

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/intentd/intentd/chains"
	_ "github.com/intentd/intentd/chains/evm" // the EVM family's notation, which reads the addresses
)

// testChains is a registry of EVM chains for validation: the devnet's two and those of the fuzz
// corpus. Validation reads no chain, so the URLs answer nothing.
var testChains = func() *chains.Registry {
	var list []string
	for _, id := range []int{1, 2, 31337, 31338} {
		list = append(list, fmt.Sprintf(`{"id": %d, "httpRpcUrl": "http://127.0.0.1:1", "currency": {"symbol": "ETH", "decimals": 18}}`, id))
	}
	r, err := chains.ParseRegistry([]byte(`{"chains": [`+strings.Join(list, ",")+`]}`), func(string) (string, bool) { return "", false })
	if err != nil {
		panic(err)
	}
	return r
}()

func TestDecodeRejectsMalformedBodiesWithInvalidInput(t *testing.T) {
	for _, body := range []string{"", "{", "[]", `{"amount": 1}`, `{"user": "x"} {}`, `{"recipent": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"}`, `{"originChainId": "x"}`} {
		if _, err := Decode(strings.NewReader(body)); err == nil || err.Code != CodeInvalidInput {
			t.Errorf("Decode(%q) = %v", body, err)
		}
	}
}

func TestValidateNamesTheBadField(t *testing.T) {
	base := `"user":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266","originChainId":31337,"destinationChainId":31338,` +
		`"originCurrency":"0x0000000000000000000000000000000000000000","destinationCurrency":"0x0000000000000000000000000000000000000000"`
	cases := map[string]string{
		`{` + base + `,"amount":"0"}`:                        CodeInvalidInput,
		`{` + base + `,"amount":"-5"}`:                       CodeInvalidInput,
		`{` + base + `,"amount":"1.5"}`:                      CodeInvalidInput,
		`{` + base + `}`:                                     CodeInvalidInput,
		`{` + base + `,"amount":"1","recipient":"0x12"}`:     CodeInvalidAddress,
		`{` + base + `,"amount":"1","tradeType":"SIDEWAYS"}`: CodeInvalidInput,
	}
	for body, code := range cases {
		req, derr := Decode(strings.NewReader(body))
		if derr != nil {
			t.Fatalf("Decode(%s): %v", body, derr)
		}
		if _, err := req.Validate(testChains); err == nil || err.Code != code {
			t.Errorf("Validate(%s) = %v, want %s", body, err, code)
		}
	}
}

// isBadRequest reports whether err has one of the codes of a malformed request, which the
// API's table answers with 400: reading a body never fails as the server's fault.
func isBadRequest(err *Error) bool {
	return err.Code == CodeInvalidInput || err.Code == CodeInvalidAddress
}

func FuzzDecodeQuote(f *testing.F) {
	f.Add(`{"user":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266","originChainId":1,"destinationChainId":2,"originCurrency":"0x0000000000000000000000000000000000000000","destinationCurrency":"0x0000000000000000000000000000000000000000","amount":"10"}`)
	f.Add(`{"amount":"1e3"}`)
	f.Add(`{"user":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266","originChainId":1,"destinationChainId":2,"originCurrency":"0x0000000000000000000000000000000000000000","destinationCurrency":"0x0000000000000000000000000000000000000000","amount":"10","tradeType":"EXACT_OUTPUT","slippageTolerance":"50","appFees":[{"recipient":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266","fee":"25"}],"subsidizeFees":true,"subsidizationBps":5000,"sponsoredFeeComponents":["execution"],"maxSubsidizationAmount":"100","referrer":"x"}`)
	f.Add(`{`)
	f.Add(`null`)
	f.Add(`{"Recipient":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266","amount":"1","x":{"y":["z",{"\"":1}]}}`)
	f.Add(`{"appFees":[{"recipent":"0x1","fee":"1"},{"FEE":"2"}],"refund_to":"0x2","\u0055ser":"0x3"}`)
	f.Fuzz(func(t *testing.T, body string) {
		req, err := Decode(strings.NewReader(body))
		if err != nil {
			if !isBadRequest(err) || err.Message == "" {
				t.Fatalf("error without the spec's shape: %+v", err)
			}
			return
		}
		// No accepted body has a key that encoding/json folds onto a field without being it.
		var keys map[string]json.RawMessage
		if json.Unmarshal([]byte(body), &keys) == nil {
			for k := range keys {
				for _, name := range requestFields.names {
					if k != name && strings.EqualFold(k, name) {
						t.Fatalf("accepted %q, a case variant of %q", k, name)
					}
				}
			}
		}
		v, verr := req.Validate(testChains)
		if verr != nil {
			if !isBadRequest(verr) {
				t.Fatalf("validation error without the spec's shape: %+v", verr)
			}
			return
		}
		if v.Amount.Sign() <= 0 || v.OriginChainID == 0 || v.DestChainID == 0 {
			t.Fatalf("accepted an invalid request: %+v", v)
		}
	})
}

// Decoding is on every quote's path: the field rule adds one pass over the body and no
// allocation for a body of known fields.
func BenchmarkDecode(b *testing.B) {
	body := `{"user":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266","originChainId":31337,"destinationChainId":31338,"originCurrency":"0x0000000000000000000000000000000000000000","destinationCurrency":"0x3F88d0F5403139753a203e6F36BFaE0CeAE3bF42","amount":"1000000000000000000","tradeType":"EXACT_INPUT","slippageTolerance":"50","appFees":[{"recipient":"0x70997970C51812dc3A010C7d01b50e0d17dc79C8","fee":"25"}],"referrer":"acme","includeProtocolData":true}`
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(strings.NewReader(body)); err != nil {
			b.Fatal(err)
		}
	}
}

// Review L1 (issue 33, point 7): "a mixed-case address that fails EIP-55 is refused (400
// INVALID_ADDRESS in the spec's shape); all-lower and all-upper still accepted", for every
// address of the body: who pays, who is paid, who is refunded, the currencies, the app fees'
// recipients.
func TestEveryAddressOfAQuoteWithMixedCaseThatFailsEIP55IsRefusedInvalidAddress(t *testing.T) {
	const (
		account = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" // the devnet's account 1, checksummed
		usdc    = "0x3F88d0F5403139753a203e6F36BFaE0CeAE3bF42"
	)
	body := func(field, addr string) string {
		m := map[string]any{"user": account, "originChainId": 31337, "destinationChainId": 31338,
			"originCurrency": usdc, "destinationCurrency": usdc, "amount": "1"}
		if field == "appFees" {
			m["appFees"] = []map[string]any{{"recipient": addr, "fee": "10"}}
		} else {
			m[field] = addr
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	validate := func(field, addr string) *Error {
		req, derr := Decode(strings.NewReader(body(field, addr)))
		if derr != nil {
			t.Fatalf("%s: Decode: %v", field, derr)
		}
		_, err := req.Validate(testChains)
		return err
	}
	for _, field := range []string{"user", "recipient", "refundTo", "originCurrency", "destinationCurrency", "appFees"} {
		good := account
		if strings.HasSuffix(field, "Currency") {
			good = usdc
		}
		// The checksum with the case of its last letter turned: one typo.
		last := strings.LastIndexAny(good, "abcdefABCDEF")
		typo := good[:last] + string(good[last]^0x20) + good[last+1:]
		if err := validate(field, typo); err == nil || err.Code != CodeInvalidAddress || !strings.Contains(err.Message, "EIP-55") {
			t.Errorf("%s %s (bad checksum): %v, want INVALID_ADDRESS naming EIP-55", field, typo, err)
		}
		for _, ok := range []string{good, strings.ToLower(good), "0x" + strings.ToUpper(good[2:])} {
			if err := validate(field, ok); err != nil {
				t.Errorf("%s %s: %v, want accepted", field, ok, err)
			}
		}
	}
}
