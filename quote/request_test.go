package quote

import (
	"strings"
	"testing"
)

func TestDecodeRejectsMalformedBodiesWithInvalidInput(t *testing.T) {
	for _, body := range []string{"", "{", "[]", `{"amount": 1}`, `{"user": "x"} {}`, `{"nope": 1}`, `{"originChainId": "x"}`} {
		if _, err := Decode(strings.NewReader(body)); err == nil || err.Status != 400 || err.Code != CodeInvalidInput {
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
		if _, err := req.Validate(); err == nil || err.Code != code {
			t.Errorf("Validate(%s) = %v, want %s", body, err, code)
		}
	}
}

func FuzzDecodeQuote(f *testing.F) {
	f.Add(`{"user":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266","originChainId":1,"destinationChainId":2,"originCurrency":"0x0000000000000000000000000000000000000000","destinationCurrency":"0x0000000000000000000000000000000000000000","amount":"10"}`)
	f.Add(`{"amount":"1e3"}`)
	f.Add(`{"user":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266","originChainId":1,"destinationChainId":2,"originCurrency":"0x0000000000000000000000000000000000000000","destinationCurrency":"0x0000000000000000000000000000000000000000","amount":"10","tradeType":"EXACT_OUTPUT","slippageTolerance":"50","appFees":[{"recipient":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266","fee":"25"}],"subsidizeFees":true,"subsidizationBps":5000,"sponsoredFeeComponents":["execution"],"maxSubsidizationAmount":"100","referrer":"x"}`)
	f.Add(`{`)
	f.Add(`null`)
	f.Fuzz(func(t *testing.T, body string) {
		req, err := Decode(strings.NewReader(body))
		if err != nil {
			if err.Status != 400 || err.Code == "" || err.Message == "" {
				t.Fatalf("error without the spec's shape: %+v", err)
			}
			return
		}
		v, verr := req.Validate()
		if verr != nil {
			if verr.Status != 400 || verr.Code == "" {
				t.Fatalf("validation error without the spec's shape: %+v", verr)
			}
			return
		}
		if v.Amount.Sign() <= 0 || v.OriginChainID == 0 || v.DestChainID == 0 {
			t.Fatalf("accepted an invalid request: %+v", v)
		}
	})
}
