package quote

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/solana"
	"github.com/intentd/intentd/fees"
)

// gasBody is a quote body from 31337 to 31338 with originGasOverhead written as raw JSON
// (empty: absent) and more fields.
func gasBody(overhead string, more ...string) string {
	b := `{"user":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266","originChainId":31337,"destinationChainId":31338,` +
		`"originCurrency":"0x0000000000000000000000000000000000000000","destinationCurrency":"0x0000000000000000000000000000000000000000",` +
		`"amount":"1000000000000000000"`
	if overhead != "" {
		b += `,"originGasOverhead":` + overhead
	}
	for _, m := range more {
		b += "," + m
	}
	return b + "}"
}

func validateBody(t *testing.T, reg *chains.Registry, body string) (*Validated, *Error) {
	t.Helper()
	req, derr := Decode(strings.NewReader(body))
	if derr != nil {
		return nil, derr
	}
	return req.Validate(reg)
}

// Issue 37, point 2: originGasOverhead is a whole number of gas units from 1 to 1,000,000 as a
// JSON number; absent or null is none, anything else 400 INVALID_INPUT naming the field.
func TestOriginGasOverheadIsAWholeNumberWithinItsBounds(t *testing.T) {
	for raw, want := range map[string]uint64{"": 0, "null": 0, "1": 1, "80000": 80_000, "300000": 300_000, "1000000": MaxOriginGasOverhead} {
		v, err := validateBody(t, testChains, gasBody(raw))
		if err != nil || v.OriginGasOverhead != want {
			t.Errorf("originGasOverhead %q: %+v, %v; want %d", raw, v, err, want)
		}
	}
	for _, raw := range []string{"0", "-1", "1000001", "18446744073709551616", "1.5", "80000.0", "8e4", "8E4", `"80000"`, "true",
		"[]", "[80000]", "{}", `""`} {
		_, err := validateBody(t, testChains, gasBody(raw))
		if err == nil || err.Code != CodeInvalidInput || !strings.Contains(err.Message, "originGasOverhead") {
			t.Errorf("originGasOverhead %s: %v; want 400 INVALID_INPUT naming originGasOverhead", raw, err)
		}
	}
	// A misspelling is refused, not ignored: ignoring it would price no origin gas.
	for _, key := range []string{"originGasOverhed", "origin_gas_overhead", "OriginGasOverhead", "orignGasOverhaed"} {
		body := strings.Replace(gasBody("80000"), `"originGasOverhead"`, `"`+key+`"`, 1)
		if _, err := Decode(strings.NewReader(body)); err == nil || err.Code != CodeInvalidInput || !strings.Contains(err.Message, `"originGasOverhead"`) {
			t.Errorf("key %s: %v; want refused as originGasOverhead", key, err)
		}
	}
}

// Issue 37, point 2: only an EVM origin is relayed, and a deposit-address payment is a plain
// transfer, never relayed: originGasOverhead with either is 400 INVALID_INPUT.
func TestOriginGasOverheadIsRefusedOnASolanaOriginAndWithADepositAddress(t *testing.T) {
	_, err := validateBody(t, testChains, gasBody("80000", `"useDepositAddress":true`))
	if err == nil || err.Code != CodeInvalidInput || !strings.Contains(err.Message, "useDepositAddress") {
		t.Errorf("with useDepositAddress: %v", err)
	}
	// Null is absent: a deposit address takes it.
	if _, err := validateBody(t, testChains, gasBody("null", `"useDepositAddress":true`)); err != nil {
		t.Errorf("null with useDepositAddress: %v", err)
	}
	const solWallet = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"
	fromSolana := map[string]any{"user": solWallet, "originChainId": solana.ChainID, "originCurrency": solana.NativeAddress,
		"destinationChainId": 31338, "destinationCurrency": chains.NativeAddress, "recipient": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
		"refundTo": solWallet, "amount": "1000000000", "originGasOverhead": 80000}
	b, _ := json.Marshal(fromSolana)
	_, err = validateBody(t, solanaChains, string(b))
	if err == nil || err.Code != CodeInvalidInput || !strings.Contains(err.Message, "EVM origin") {
		t.Errorf("Solana origin: %v; want 400 INVALID_INPUT, EVM origins only", err)
	}
	delete(fromSolana, "originGasOverhead")
	b, _ = json.Marshal(fromSolana)
	if _, err := validateBody(t, solanaChains, string(b)); err != nil {
		t.Errorf("Solana origin without it: %v", err)
	}
	// An EVM origin to Solana is relayed on the EVM chain: accepted.
	toSolana := map[string]any{"user": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "originChainId": 31337, "originCurrency": chains.NativeAddress,
		"destinationChainId": solana.ChainID, "destinationCurrency": solana.USDCAddress, "recipient": solWallet, "amount": "1000000000",
		"originGasOverhead": 300000}
	b, _ = json.Marshal(toSolana)
	if v, err := validateBody(t, solanaChains, string(b)); err != nil || v.OriginGasOverhead != 300_000 {
		t.Errorf("EVM origin to Solana: %+v, %v", v, err)
	}
}

// Issue 37, point 3: the relayed origin transaction's gas is part of the execution component,
// as a sweep's is: the user pays it with the rest of the execution, and a sponsor of the
// execution pays it instead.
func TestOriginGasIsPartOfTheExecutionComponentAndSponsoredWithIt(t *testing.T) {
	amountIn := big.NewInt(1_000_000_000_000_000_000)
	gas := big.NewInt(80_000 * 1_000_000_007) // 80,000 gas at about 1 gwei, in wei
	for _, sponsored := range []bool{false, true} {
		p := ethUSDC("3000")
		if sponsored {
			p.sponsorship = fees.Sponsorship{Subsidize: true, Selected: []fees.Component{fees.ComponentExecution}}
		}
		without := p.at(amountIn)
		p.originGas = gas
		with := p.at(amountIn)
		exec := func(b *breakdown) fees.ComponentResult { return b.sponsor.Components[fees.ComponentExecution] }
		if d := new(big.Int).Sub(exec(with).Total, exec(without).Total); d.Cmp(gas) != 0 {
			t.Fatalf("sponsored %v: the execution component grew by %s, want the origin gas %s", sponsored, d, gas)
		}
		userDiff := new(big.Int).Sub(with.userFees(), without.userFees())
		sponsorDiff := new(big.Int).Sub(with.sponsor.SponsoredTotal, without.sponsor.SponsoredTotal)
		switch {
		case !sponsored && (userDiff.Cmp(gas) != 0 || sponsorDiff.Sign() != 0):
			t.Fatalf("the user pays %s more and the sponsor %s more; want the user the origin gas %s", userDiff, sponsorDiff, gas)
		case sponsored && (userDiff.Sign() != 0 || sponsorDiff.Cmp(gas) != 0):
			t.Fatalf("sponsored: the user pays %s more and the sponsor %s more; want the sponsor the origin gas %s", userDiff, sponsorDiff, gas)
		}
	}
}
