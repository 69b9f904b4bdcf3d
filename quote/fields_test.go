package quote

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

const (
	testUser  = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
	testOther = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
	testUSDC  = "0x3F88d0F5403139753a203e6F36BFaE0CeAE3bF42"
)

// validBody is a complete quote body with extra raw JSON members appended.
func validBody(extra ...string) string {
	members := append([]string{`"user":"` + testUser + `"`, `"originChainId":31337`, `"destinationChainId":31338`,
		`"originCurrency":"0x0000000000000000000000000000000000000000"`, `"destinationCurrency":"` + testUSDC + `"`,
		`"amount":"1000000000000000000"`}, extra...)
	return "{" + strings.Join(members, ",") + "}"
}

func mustDecode(t *testing.T, body string) *Validated {
	t.Helper()
	req, err := Decode(strings.NewReader(body))
	if err != nil {
		t.Fatalf("Decode(%s) = %v", body, err)
	}
	v, err := req.Validate(testChains)
	if err != nil {
		t.Fatalf("Validate(%s) = %v", body, err)
	}
	return v
}

// refused checks that body is refused with INVALID_INPUT (400 in the API's table) and a message
// naming every one of names.
func refused(t *testing.T, body string, names ...string) {
	t.Helper()
	_, err := Decode(strings.NewReader(body))
	if err == nil || err.Code != CodeInvalidInput {
		t.Fatalf("Decode(%s) = %v, want %s", body, err, CodeInvalidInput)
	}
	for _, n := range names {
		if !strings.Contains(err.Message, n) {
			t.Errorf("Decode(%s): message %q does not name %s", body, err.Message, n)
		}
	}
}

func TestQuoteBodyKeyThatIsNotAKnownFieldIsIgnored(t *testing.T) {
	plain := mustDecode(t, validBody())
	for _, extra := range []string{
		`"futureOption":true`,
		`"nested":{"recipient":"` + testOther + `","amount":"1","appFees":[{"Recipient":"x"}]}`,
		`"list":[1,"two",{"three":[3]},null,"with \"quotes\" and ] brackets }"]`,
		`"escaped\u0041key":"\ud83d\ude00"`,
		`"include_protocol_data":true`, // resembles a field that moves no money
		`"maxRouteLenght":3`,
		`"users":"` + testOther + `"`, // "user" is too short for the distance check
		`"amountss":"5"`,              // two edits from a 6-letter name
		`"refundAddress":"` + testOther + `"`,
		`"fees":[{"recipient":"` + testOther + `","fee":"25"}]`, // three edits from appFees
	} {
		v := mustDecode(t, validBody(extra))
		if v.Recipient != plain.Recipient || v.Amount.Cmp(plain.Amount) != 0 || v.RefundTo != plain.RefundTo || len(v.AppFees) != 0 ||
			v.IncludeProtocolData {
			t.Errorf("%s changed the request: %+v", extra, v)
		}
	}
	// An unknown key in an appFees entry is ignored too.
	v := mustDecode(t, validBody(`"appFees":[{"recipient":"`+testOther+`","fee":"25","memo":"x"}]`))
	if len(v.AppFees) != 1 || v.AppFees[0].Bps != 25 {
		t.Fatalf("app fees %+v", v.AppFees)
	}
}

func TestQuoteBodyKeyThatDiffersFromAFieldOnlyInCaseIsRefusedNotFoldedOntoIt(t *testing.T) {
	for key, field := range map[string]string{
		`Recipient`:                 "recipient",
		`RECIPIENT`:                 "recipient",
		`\u0052ecipient`:            "recipient",         // the decoder unescapes keys before matching
		`\u017flippageTolerance`:    "slippageTolerance", // ſ (long s) folds onto s in encoding/json
		`IncludeProtocolData`:       "includeProtocolData",
		`destinationChainID`:        "destinationChainId",
		`MaxSubsidizationAmount`:    "maxSubsidizationAmount",
		`INCLUDEDORIGINSWAPSOURCES`: "includedOriginSwapSources",
	} {
		value := `"` + testOther + `"`
		if field != "recipient" {
			value = `"50"`
		}
		if field == "includeProtocolData" {
			value = `true`
		}
		if field == "destinationChainId" {
			value = `31338`
		}
		if field == "includedOriginSwapSources" {
			value = `[]`
		}
		refused(t, validBody(`"`+key+`":`+value), field)
	}
	// The same in an appFees entry, named with its place.
	refused(t, validBody(`"appFees":[{"recipient":"`+testOther+`","fee":"25"},{"Recipient":"`+testOther+`","fee":"25"}]`),
		`"Recipient"`, `appFees[1]`, `"recipient"`)
	refused(t, validBody(`"appFees":[{"recipient":"`+testOther+`","FEE":"25"}]`), `"FEE"`, `"fee"`)
	// A case variant of the wrong type still names the misspelling, not a type error.
	refused(t, validBody(`"Amount":5`), `"Amount"`, `"amount"`)
}

func TestQuoteBodyKeyThatLooksLikeAMisspeltMoneyFieldIsRefused(t *testing.T) {
	for key, field := range map[string]string{
		"recipent":               "recipient",         // deletion
		"recipeint":              "recipient",         // adjacent swap
		"reciepient":             "recipient",         // insertion
		"refund_to":              "refundTo",          // separators
		"Refund-To":              "refundTo",          // separators and case
		"refundTo_":              "refundTo",          //
		"slippage_tolerance":     "slippageTolerance", // separators
		"SLIPPAGE_TOLERANCE":     "slippageTolerance", //
		"slipageTolerence":       "slippageTolerance", // two edits on a long name
		"amuont":                 "amount",            // swap on a 6-letter name
		"trade_type":             "tradeType",         //
		"tradeTyp":               "tradeType",         //
		"appFee":                 "appFees",           //
		"referer":                "referrer",          //
		"subsidize_fees":         "subsidizeFees",     //
		"subsidisationBps":       "subsidizationBps",  //
		"maxSubsidisationAmount": "maxSubsidizationAmount",
		"sponsoredFeeComponent":  "sponsoredFeeComponents",
		"destinationCurency":     "destinationCurrency",
		"origin_chain_id":        "originChainId",
		"us_er":                  "user", // a short name: separators only
		"use_deposit_address":    "useDepositAddress",
		"useDepositAdress":       "useDepositAddress",
		"Strict_":                "strict",
		"strikt":                 "strict",
		"recovery_address":       "recoveryAddress",
		"recoveryAdress":         "recoveryAddress",
	} {
		refused(t, validBody(`"`+key+`":"x"`), `"`+key+`"`, `"`+field+`"`)
	}
	refused(t, validBody(`"appFees":[{"recipent":"`+testOther+`","fee":"25"}]`), `"recipent"`, "appFees[0]", `"recipient"`)
}

// sdkQuoteV2Properties is every request body property of POST /quote/v2 in the public SDK's
// generated API types (@relayprotocol/relay-sdk 7.0.3, _types/src/types/api.d.ts, "/quote/v2"
// requestBody), in its order, copied by hand.
var sdkQuoteV2Properties = []string{
	"user", "recipient", "originChainId", "destinationChainId", "originCurrency", "destinationCurrency", "amount", "tradeType",
	"txs", "txsGasLimit", "authorizationList", "additionalData", "referrer", "referrerAddress", "refundTo", "recoveryAddress",
	"refundOnOrigin", "topupGas", "topupGasAmount", "enableTrueExactOutput", "explicitDeposit", "useExternalLiquidity",
	"useFallbacks", "usePermit", "permitExpiry", "includeProtocolData", "useDepositAddress", "strict", "slippageTolerance",
	"latePaymentSlippageTolerance", "appFees", "gasLimitForDepositSpecifiedTxs", "forceSolverExecution", "subsidizeFees",
	"sponsoredFeeComponents", "maxSubsidizationAmount", "subsidizeRent", "includedSwapSources", "excludedSwapSources",
	"includedOriginSwapSources", "includedDestinationSwapSources", "originGasOverhead", "depositFeePayer", "maxRouteLength",
	"useSharedAccounts", "includeComputeUnitLimit", "overridePriceImpact", "disableSwapProviderPreference",
	"disableOriginSwaps", "fixedRate", "ttl",
}

func TestQuoteBodyWithEveryPropertyTheSDKDeclaresForQuoteV2IsNotRefusedAsUnknown(t *testing.T) {
	if len(sdkQuoteV2Properties) != 51 {
		t.Fatalf("the SDK declares 51 properties, the list has %d", len(sdkQuoteV2Properties))
	}
	// Values of the types the SDK declares; the ones this engine acts on are valid for it
	// (sponsoredFeeComponents leaves out the SDK's "relay", which is this engine's "platform").
	values := map[string]any{
		"user": testUser, "recipient": testOther, "originChainId": 31337, "destinationChainId": 31338,
		"originCurrency": "0x0000000000000000000000000000000000000000", "destinationCurrency": testUSDC,
		"amount": "1000000000000000000", "tradeType": "EXACT_INPUT",
		"txs":               []any{map[string]any{"to": testOther, "value": "0", "data": "0x", "originalTxValue": "0"}},
		"txsGasLimit":       100000,
		"authorizationList": []any{map[string]any{"chainId": 31338, "address": testOther, "nonce": 0, "yParity": 1, "r": "0x01", "s": "0x02"}},
		"additionalData":    map[string]any{"userPublicKey": "02abcdef"},
		"referrer":          "acme", "referrerAddress": testOther, "refundTo": testUser, "recoveryAddress": testUser,
		"refundOnOrigin": true, "topupGas": false, "topupGasAmount": "2000000", "enableTrueExactOutput": false,
		"explicitDeposit": true, "useExternalLiquidity": false, "useFallbacks": false, "usePermit": false, "permitExpiry": 600,
		"includeProtocolData": true, "useDepositAddress": false, "strict": false, "slippageTolerance": "75",
		"latePaymentSlippageTolerance":   "100",
		"appFees":                        []any{map[string]any{"recipient": testOther, "fee": "25"}},
		"gasLimitForDepositSpecifiedTxs": 200000, "forceSolverExecution": false, "subsidizeFees": true,
		"sponsoredFeeComponents": []any{"execution", "swap", "app"}, "maxSubsidizationAmount": "1000000", "subsidizeRent": false,
		"includedSwapSources": []any{"uniswap"}, "excludedSwapSources": []any{"curve"}, "includedOriginSwapSources": []any{"uniswap"},
		"includedDestinationSwapSources": []any{"uniswap"}, "originGasOverhead": 21000, "depositFeePayer": "payer",
		"maxRouteLength": 4, "useSharedAccounts": false, "includeComputeUnitLimit": false, "overridePriceImpact": false,
		"disableSwapProviderPreference": false, "disableOriginSwaps": false, "fixedRate": "0", "ttl": 600,
	}
	body := map[string]any{}
	for _, p := range sdkQuoteV2Properties {
		v, ok := values[p]
		if !ok {
			t.Fatalf("no value for %s", p)
		}
		body[p] = v
	}
	if len(body) != len(values) {
		t.Fatalf("values for %d properties, the SDK declares %d", len(values), len(body))
	}
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, qerr := Decode(strings.NewReader(string(raw)))
	if qerr != nil {
		t.Fatalf("refused: %v", qerr)
	}
	// recoveryAddress is read (it is a field), and refused without useDepositAddress (issue 35,
	// point 2: "recoveryAddress only with deposit addresses"), so the rest is validated without it.
	if req.RecoveryAddress != testUser {
		t.Fatalf("recoveryAddress not read: %q", req.RecoveryAddress)
	}
	req.RecoveryAddress = ""
	v, qerr := req.Validate(testChains)
	if qerr != nil {
		t.Fatalf("invalid: %v", qerr)
	}
	if v.Recipient != testOther || *v.SlippageBps != 75 || len(v.AppFees) != 1 || !v.Sponsorship.Subsidize ||
		v.Referrer != "acme" || !v.IncludeProtocolData {
		t.Fatalf("known fields not read: %+v", v)
	}
	// Each property alone, too: none of them is refused as a misspelling of another field.
	for _, p := range sdkQuoteV2Properties {
		one, _ := json.Marshal(map[string]any{p: values[p]})
		if _, err := Decode(strings.NewReader(string(one))); err != nil {
			t.Errorf("%s refused: %v", p, err)
		}
	}
}

// The rule's definition matches encoding/json: every key the decoder would fold onto a field is
// refused unless it is the field's exact name.
func TestQuoteBodyEveryKeyTheDecoderFoldsOntoAFieldIsExactOrRefused(t *testing.T) {
	for f := range reflect.TypeFor[Request]().Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		for _, key := range []string{strings.ToUpper(name), strings.ToLower(name), strings.ToUpper(name[:1]) + name[1:]} {
			if key == name {
				continue
			}
			value := `null`
			if _, err := Decode(strings.NewReader(`{"` + key + `":` + value + `}`)); err == nil {
				t.Errorf("%s (a case variant of %s) accepted", key, name)
			}
		}
	}
}

// Review L2 (issue 33, point 7): "duplicate JSON keys refused (400, clear message), at any depth
// of the quote body". encoding/json keeps the last of `{"recipient":GOOD,"recipient":EVIL}`, so
// a proxy or WAF that checks the first value would be bypassed; the body is refused instead,
// whether the key is a field, an ignored key, inside an appFees entry or in an object the engine
// does not read, and also when one of the two is written with \u escapes.
func TestQuoteBodyWithAKeyGivenTwiceInAnyObjectIsRefused(t *testing.T) {
	for _, tc := range []struct {
		body  string
		names []string
	}{
		{validBody(`"recipient":"`+testOther+`"`, `"recipient":"`+testUser+`"`), []string{`"recipient"`, "twice"}},
		{validBody(`"recipient":"`+testOther+`"`, `"r\u0065cipient":"`+testUser+`"`), []string{`"recipient"`, "twice"}},
		{validBody(`"amount":"1"`), []string{`"amount"`, "twice"}},
		{validBody(`"futureOption":1`, `"futureOption":2`), []string{`"futureOption"`, "twice"}},
		{validBody(`"appFees":[{"recipient":"` + testOther + `","fee":"10"},{"recipient":"` + testOther + `","fee":"10","fee":"9000"}]`),
			[]string{`"fee"`, "appFees[1]", "twice"}},
		{validBody(`"txs":[{"to":"` + testOther + `","data":"0x","to":"` + testUser + `"}]`), []string{`"to"`, `"txs"`, "twice"}},
		{validBody(`"deep":{"a":[{"b":{"c":1,"c":2}}]}`), []string{`"c"`, `"deep"`, "twice"}},
	} {
		refused(t, tc.body, tc.names...)
	}
	// Objects with many keys are still linear: past smallObject keys they go in a map.
	var many []string
	for i := range 48 { // three times smallObject
		many = append(many, `"k`+strings.Repeat("x", i)+`":1`)
	}
	mustDecode(t, validBody(`"wide":{`+strings.Join(many, ",")+`}`))
	refused(t, validBody(`"wide":{`+strings.Join(many, ",")+`,"kxx":2}`), `"kxx"`, `"wide"`, "twice")
	// The same key in different objects is no duplicate.
	mustDecode(t, validBody(`"appFees":[{"recipient":"`+testOther+`","fee":"10"},{"recipient":"`+testUser+`","fee":"10"}]`,
		`"nested":{"recipient":"x","inner":{"recipient":"y"}}`))
}
