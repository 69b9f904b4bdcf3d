package integration

import (
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/e2e"
)

const nativeAddr = "0x0000000000000000000000000000000000000000"

// obj is a decoded JSON object; the tests read responses the way a client in another language
// would, not through the server's Go types.
type obj = map[string]any

func get(t *testing.T, o any, path string) any {
	t.Helper()
	cur := o
	for _, k := range strings.Split(path, ".") {
		m, ok := cur.(obj)
		if !ok {
			t.Fatalf("%s: %q is not an object in %v", path, k, cur)
		}
		if cur, ok = m[k]; !ok {
			t.Fatalf("%s: no field %q in %v", path, k, m)
		}
	}
	return cur
}

func str(t *testing.T, o any, path string) string {
	t.Helper()
	s, ok := get(t, o, path).(string)
	if !ok {
		t.Fatalf("%s is not a string: %v", path, get(t, o, path))
	}
	return s
}

func num(t *testing.T, o any, path string) *big.Int {
	t.Helper()
	n, ok := new(big.Int).SetString(str(t, o, path), 10)
	if !ok {
		t.Fatalf("%s = %q is not an integer", path, str(t, o, path))
	}
	return n
}

func post(t *testing.T, c *e2e.Client, path string, body any) (int, obj) {
	t.Helper()
	var out obj
	code, err := c.Do(context.Background(), http.MethodPost, path, body, &out)
	if err != nil {
		t.Fatal(err)
	}
	return code, out
}

func mustQuote(t *testing.T, c *e2e.Client, path string, body any) obj {
	t.Helper()
	code, out := post(t, c, path, body)
	if code != http.StatusOK {
		t.Fatalf("%s: HTTP %d %v", path, code, out)
	}
	return out
}

// quoteBody is a 1 ETH (31337) to USDC (31338) quote body with overrides applied in order; a nil
// value removes the field.
func quoteBody(overs ...obj) obj {
	b := obj{"user": devnet.TestAccounts()[1].Address.Hex(), "originChainId": 31337, "destinationChainId": 31338,
		"originCurrency": nativeAddr, "destinationCurrency": devnet.USDCAddress.Hex(), "amount": "1000000000000000000",
		"tradeType": "EXACT_INPUT"}
	for _, over := range overs {
		for k, v := range over {
			if v == nil {
				delete(b, k)
			} else {
				b[k] = v
			}
		}
	}
	return b
}

// userFee is what the user pays out of the input, from the deprecated fees object:
// relayer + app - subsidized.
func userFee(t *testing.T, q obj) *big.Int {
	f := new(big.Int).Add(num(t, q, "fees.relayer.amount"), num(t, q, "fees.app.amount"))
	return f.Sub(f, num(t, q, "fees.subsidized.amount"))
}

// ethToUSDC converts wei to USDC base units at the devnet feed's 3000 USD/ETH and 1 USD/USDC,
// rounding down as a quote must.
func ethToUSDC(wei *big.Int) *big.Int {
	n := new(big.Int).Mul(wei, big.NewInt(devnet.ETHUSDPrice))
	return n.Quo(n, big.NewInt(1_000_000_000_000))
}

func countRows(t *testing.T, s *stack) int {
	t.Helper()
	var n int
	if err := s.Sys.Pool.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM requests) + (SELECT count(*) FROM quotes)`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func storedRecord(t *testing.T, s *stack, requestID string) obj {
	t.Helper()
	var raw []byte
	if err := s.Sys.Pool.QueryRow(context.Background(), `SELECT record FROM requests WHERE id = $1`, requestID).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	var rec obj
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

// newKey creates an integrator with profile in and a key of its own, and returns a client of the
// stack's API that sends the key.
func newKey(t *testing.T, s *stack, in auth.Integrator) (*e2e.Client, *auth.Key) {
	t.Helper()
	ctx := context.Background()
	by := store.Actor{Name: "test", Via: store.ViaCLI}
	integrator, err := s.Sys.Store.CreateIntegrator(ctx, in, by)
	if err != nil {
		t.Fatal(err)
	}
	value, key, err := s.Sys.Store.CreateAPIKey(ctx, store.NewKey{IntegratorID: integrator.ID, Label: in.Name}, by)
	if err != nil {
		t.Fatal(err)
	}
	return &e2e.Client{BaseURL: s.API.BaseURL, APIKey: value}, key
}

// The quote engine's rules, each checked through the HTTP API on one shared stack (real
// Postgres, devnet with its price feeds, Temporal).
func TestQuoteEngineRules(t *testing.T) {
	s := startStack(t)
	ctx := context.Background()

	t.Run("fees add up to the difference between input and output (ETH to USDC swap)", func(t *testing.T) {
		q := mustQuote(t, s.API, "/quote/v2", quoteBody(nil))
		in := num(t, q, "details.currencyIn.amount")
		out := num(t, q, "details.currencyOut.amount")
		net := new(big.Int).Sub(in, userFee(t, q))
		if want := ethToUSDC(net); out.Cmp(want) != 0 {
			t.Fatalf("output %s, want (input - fees) at the feed price = %s", out, want)
		}
		if str(t, q, "details.operation") != "swap" {
			t.Fatalf("operation %q", str(t, q, "details.operation"))
		}
		// relayer = relayerGas + relayerService (spec, Quote response)
		rel := new(big.Int).Add(num(t, q, "fees.relayerGas.amount"), num(t, q, "fees.relayerService.amount"))
		if rel.Cmp(num(t, q, "fees.relayer.amount")) != 0 {
			t.Fatalf("relayer %s != relayerGas + relayerService %s", num(t, q, "fees.relayer.amount"), rel)
		}
	})

	t.Run("platform fee: major swap 0.06 pct, token bridge 0 pct", func(t *testing.T) {
		q := mustQuote(t, s.API, "/quote/v2", quoteBody(nil))
		rec := storedRecord(t, s, str(t, q, "requestId"))
		in := num(t, q, "details.currencyIn.amount")
		want := new(big.Int).Mul(in, big.NewInt(6))
		want.Add(want, big.NewInt(9999)).Quo(want, big.NewInt(10000))
		if got := num(t, rec, "data.platformFee.totalPlatformFee.amount"); got.Cmp(want) != 0 {
			t.Fatalf("platform fee %s, want ceil(0.06%% of %s) = %s", got, in, want)
		}
		if b := str(t, rec, "data.platformFee.bucket"); b != "major" {
			t.Fatalf("bucket %q", b)
		}
		if got := num(t, rec, "data.fees.quoted.platform.amount"); got.Cmp(want) != 0 {
			t.Fatalf("fees.quoted.platform %s, want %s", got, want)
		}
		bridge := mustQuote(t, s.API, "/quote/v2", quoteBody(obj{"originCurrency": devnet.USDCAddress.Hex(), "amount": "100000000"}))
		brec := storedRecord(t, s, str(t, bridge, "requestId"))
		if got := num(t, brec, "data.platformFee.totalPlatformFee.amount"); got.Sign() != 0 {
			t.Fatalf("bridge platform fee %s, want 0", got)
		}
		if got := num(t, brec, "data.fees.quoted.swap.amount"); got.Sign() != 0 {
			t.Fatalf("bridge swap cost %s, want 0", got)
		}
		if str(t, bridge, "details.operation") != "bridge" || str(t, brec, "data.quoteOraclePrice.rate") != "1" {
			t.Fatalf("bridge operation %q market rate %q", str(t, bridge, "details.operation"), str(t, brec, "data.quoteOraclePrice.rate"))
		}
	})

	t.Run("swap cost is an explicit component of cross-asset routes", func(t *testing.T) {
		q := mustQuote(t, s.API, "/quote/v2", quoteBody(nil))
		rec := storedRecord(t, s, str(t, q, "requestId"))
		if num(t, rec, "data.fees.quoted.swap.amount").Sign() <= 0 {
			t.Fatal("a swap must carry a swap cost")
		}
		if !strings.HasPrefix(str(t, q, "details.expandedPriceImpact.swap.usd"), "-") {
			t.Fatalf("swap impact %q should be negative", str(t, q, "details.expandedPriceImpact.swap.usd"))
		}
	})

	t.Run("EXPECTED_OUTPUT gives at least the wanted output, and the older EXACT_OUTPUT is its alias", func(t *testing.T) {
		for _, tt := range []string{"EXPECTED_OUTPUT", "EXACT_OUTPUT"} {
			q := mustQuote(t, s.API, "/quote/v2", quoteBody(obj{"tradeType": tt, "amount": "2500000000"}))
			out := num(t, q, "details.currencyOut.amount")
			if out.Cmp(big.NewInt(2_500_000_000)) < 0 {
				t.Fatalf("%s: output %s below the wanted 2500 USDC", tt, out)
			}
			// The input is the smallest that reaches the output, and an output unit is worth
			// hundreds of millions of wei, so the smallest input gives exactly the wanted output.
			if out.Cmp(big.NewInt(2_500_000_000)) != 0 {
				t.Fatalf("%s: output %s, want exactly 2500 USDC from the smallest input", tt, out)
			}
		}
	})

	t.Run("slippageTolerance in basis points sets the output minimumAmount", func(t *testing.T) {
		q := mustQuote(t, s.API, "/quote/v2", quoteBody(obj{"slippageTolerance": "100"}))
		out := num(t, q, "details.currencyOut.amount")
		want := new(big.Int).Mul(out, big.NewInt(9900))
		want.Quo(want, big.NewInt(10000))
		if got := num(t, q, "details.currencyOut.minimumAmount"); got.Cmp(want) != 0 {
			t.Fatalf("minimumAmount %s, want 99%% of %s = %s", got, out, want)
		}
		if p := str(t, q, "details.slippageTolerance.destination.percent"); p != "1" {
			t.Fatalf("slippage percent %q", p)
		}
		rec := storedRecord(t, s, str(t, q, "requestId"))
		if str(t, rec, "data.slippageTolerance") != "100" {
			t.Fatalf("record slippageTolerance %q", str(t, rec, "data.slippageTolerance"))
		}
		for _, bad := range []string{"-1", "10001", "0.5", "abc"} {
			if code, out := post(t, s.API, "/quote/v2", quoteBody(obj{"slippageTolerance": bad})); code != 400 || out["errorCode"] != "INVALID_INPUT" {
				t.Fatalf("slippageTolerance %q: %d %v", bad, code, out)
			}
		}
	})

	t.Run("appFees are added on top and carried in the order's fees", func(t *testing.T) {
		recipient := devnet.TestAccounts()[5].Address.Hex()
		base := mustQuote(t, s.API, "/quote/v2", quoteBody(nil))
		q := mustQuote(t, s.API, "/quote/v2", quoteBody(obj{"appFees": []obj{{"recipient": recipient, "fee": "50"}}, "includeProtocolData": true}))
		in := num(t, q, "details.currencyIn.amount")
		want := new(big.Int).Mul(in, big.NewInt(50))
		want.Quo(want, big.NewInt(10000))
		if got := num(t, q, "fees.app.amount"); got.Cmp(want) != 0 {
			t.Fatalf("app fee %s, want 0.5%% of %s = %s", got, in, want)
		}
		if num(t, q, "details.currencyOut.amount").Cmp(num(t, base, "details.currencyOut.amount")) >= 0 {
			t.Fatal("an app fee must reduce the output")
		}
		fees := get(t, q, "protocol.v2.orderData.fees").([]any)
		if len(fees) != 1 || !strings.EqualFold(str(t, fees[0], "recipient"), recipient) || str(t, fees[0], "amount") != want.String() {
			t.Fatalf("order fees %v", fees)
		}
		rec := storedRecord(t, s, str(t, q, "requestId"))
		if qf := get(t, rec, "data.appFees.quoted").([]any); len(qf) != 1 || str(t, qf[0], "amount") != want.String() {
			t.Fatalf("record appFees.quoted %v", qf)
		}
	})

	// Only an integrator with a sponsorship balance may sponsor (sponsorship_test.go).
	sponsor := s.sponsorKey(t, "quote-rules-sponsor", "100")

	t.Run("subsidizeFees sponsors every component and the user receives more", func(t *testing.T) {
		base := mustQuote(t, s.API, "/quote/v2", quoteBody(nil))
		q := mustQuote(t, sponsor, "/quote/v2", quoteBody(obj{"subsidizeFees": true}))
		if userFee(t, q).Sign() != 0 {
			t.Fatalf("fully sponsored quote still charges the user %s", userFee(t, q))
		}
		if want := ethToUSDC(num(t, q, "details.currencyIn.amount")); num(t, q, "details.currencyOut.amount").Cmp(want) != 0 {
			t.Fatalf("sponsored output %s, want the full conversion %s", num(t, q, "details.currencyOut.amount"), want)
		}
		if num(t, q, "details.currencyOut.amount").Cmp(num(t, base, "details.currencyOut.amount")) <= 0 {
			t.Fatal("sponsorship must increase the output")
		}
		rec := storedRecord(t, s, str(t, q, "requestId"))
		if got := get(t, rec, "data.feeSponsorship.quoted.selectedComponents").([]any); len(got) != 5 {
			t.Fatalf("selected components %v", got)
		}
	})

	t.Run("subsidizationBps applies per component before maxSubsidizationAmount caps the sponsor", func(t *testing.T) {
		q := mustQuote(t, sponsor, "/quote/v2", quoteBody(obj{"subsidizeFees": true, "subsidizationBps": 5000,
			"sponsoredFeeComponents": []string{"execution", "platform"}}))
		rec := storedRecord(t, s, str(t, q, "requestId"))
		for _, c := range []string{"execution", "platform"} {
			total := num(t, rec, "data.feeSponsorship.quoted.components."+c+".total.amount")
			sp := num(t, rec, "data.feeSponsorship.quoted.components."+c+".sponsored.amount")
			if want := new(big.Int).Quo(total, big.NewInt(2)); sp.Cmp(want) != 0 {
				t.Fatalf("%s sponsored %s, want half of %s", c, sp, total)
			}
		}
		if sp := num(t, rec, "data.feeSponsorship.quoted.components.swap.sponsored.amount"); sp.Sign() != 0 {
			t.Fatalf("unselected swap sponsored %s", sp)
		}
		capped := mustQuote(t, sponsor, "/quote/v2", quoteBody(obj{"subsidizeFees": true, "subsidizationBps": 5000, "maxSubsidizationAmount": "1000"}))
		crec := storedRecord(t, s, str(t, capped, "requestId"))
		if got := num(t, capped, "fees.subsidized.amount"); got.Cmp(big.NewInt(1000)) != 0 {
			t.Fatalf("capped sponsorship %s, want the cap 1000", got)
		}
		if get(t, crec, "data.feeSponsorship.quoted.capHit") != true {
			t.Fatal("capHit should be true")
		}
		for _, tc := range []struct {
			name string
			body obj
		}{
			{"subsidizationBps on a bridge", quoteBody(obj{"originCurrency": devnet.USDCAddress.Hex(), "amount": "100000000", "subsidizeFees": true, "subsidizationBps": 100})},
			{"subsidizationBps without subsidizeFees", quoteBody(obj{"subsidizationBps": 100})},
			{"subsidizationBps above 10000", quoteBody(obj{"subsidizeFees": true, "subsidizationBps": 10001})},
			{"unknown sponsored component", quoteBody(obj{"subsidizeFees": true, "sponsoredFeeComponents": []string{"gas"}})},
		} {
			if code, out := post(t, sponsor, "/quote/v2", tc.body); code != 400 || out["errorCode"] != "INVALID_INPUT" {
				t.Fatalf("%s: %d %v", tc.name, code, out)
			}
		}
	})

	t.Run("revenue share goes to an eligible integrator and never discounts the user", func(t *testing.T) {
		payout := devnet.TestAccounts()[6].Address.Hex()
		keyed, key := newKey(t, s, auth.Integrator{Name: "acme", BusinessVerified: true, PayoutAddress: payout})
		if _, err := s.Sys.Pool.Exec(ctx, `INSERT INTO requests (id, status, "user", recipient, origin_chain_id, destination_chain_id,
			order_id, api_key_id, record, volume_usd) VALUES ('volume-seed', 'success', '', '', 1, 2, 'volume-seed', $1, '{}', 20000000)`, key.ID); err != nil {
			t.Fatal(err)
		}
		q := mustQuote(t, keyed, "/quote/v2", quoteBody(obj{"referrer": "acme"}))
		anon := mustQuote(t, s.API, "/quote/v2", quoteBody(nil))
		rec := storedRecord(t, s, str(t, q, "requestId"))
		if got := get(t, rec, "data.platformFee.integratorFeeBps"); got != 1.5 {
			t.Fatalf("integratorFeeBps %v, want 25%% of 6 = 1.5 (major, 10M-100M tier)", got)
		}
		if !strings.EqualFold(str(t, rec, "data.platformFee.integratorFeeRecipient"), payout) {
			t.Fatalf("recipient %q", str(t, rec, "data.platformFee.integratorFeeRecipient"))
		}
		if userFee(t, q).Cmp(userFee(t, anon)) != 0 {
			t.Fatalf("user fee with revenue share %s differs from without %s", userFee(t, q), userFee(t, anon))
		}
	})

	t.Run("protocol data: the order id recomputes offline from orderData and the deposit commits to it", func(t *testing.T) {
		q := mustQuote(t, s.API, "/quote/v2", quoteBody(obj{"includeProtocolData": true}))
		orderData := get(t, q, "protocol.v2.orderData").(obj)
		// The struct hash has no domain; go-ethereum's encoder still wants one declared.
		td := apitypes.TypedData{Types: settlementTypes(), PrimaryType: "Order", Message: orderData,
			Domain: apitypes.TypedDataDomain{Name: "unused"}}
		h, err := td.HashStruct("Order", orderData)
		if err != nil {
			t.Fatalf("hash the returned orderData: %v", err)
		}
		id := common.BytesToHash(h)
		if got := str(t, q, "protocol.v2.orderId"); got != id.Hex() {
			t.Fatalf("orderId %s, recomputed %s", got, id.Hex())
		}
		steps := get(t, q, "steps").([]any)
		dep := steps[len(steps)-1]
		data := hexutil.MustDecode(str(t, get(t, dep, "items").([]any)[0], "data.data"))
		args, err := evm.DepositoryABI.GetABI().Methods["depositNative"].Inputs.Unpack(data[4:])
		if err != nil {
			t.Fatal(err)
		}
		if got := common.Hash(args[0].([32]byte)); got != id {
			t.Fatalf("deposit commits to %s, want %s", got.Hex(), id.Hex())
		}
		if str(t, q, "protocol.v2.paymentDetails.amount") != str(t, q, "details.currencyIn.amount") {
			t.Fatal("paymentDetails.amount differs from the input")
		}
	})

	t.Run("POST /quote answers the same engine without protocol data", func(t *testing.T) {
		q := mustQuote(t, s.API, "/quote", quoteBody(obj{"includeProtocolData": true, "strict": true}))
		if _, ok := q["protocol"]; ok {
			t.Fatal("legacy /quote carries protocol data")
		}
		if len(get(t, q, "steps").([]any)) == 0 || str(t, q, "requestId") == "" {
			t.Fatal("legacy quote without steps or requestId")
		}
	})

	t.Run("POST /price is indicative: details and fees, no steps, stores nothing", func(t *testing.T) {
		before := countRows(t, s)
		q := mustQuote(t, s.API, "/price", quoteBody(nil))
		for _, k := range []string{"steps", "requestId", "protocol"} {
			if _, ok := q[k]; ok {
				t.Fatalf("/price answered %q", k)
			}
		}
		if num(t, q, "details.currencyOut.amount").Sign() <= 0 || num(t, q, "fees.relayer.amount").Sign() <= 0 {
			t.Fatalf("/price without numbers: %v", q)
		}
		if after := countRows(t, s); after != before {
			t.Fatalf("/price stored rows: %d -> %d", before, after)
		}
		if code, out := post(t, s.API, "/price", quoteBody(obj{"amount": "x"})); code != 400 || out["errorCode"] != "INVALID_INPUT" {
			t.Fatalf("/price bad input: %d %v", code, out)
		}
	})

	t.Run("AMOUNT_TOO_HIGH above the per-pair maximum", func(t *testing.T) {
		before := countRows(t, s)
		code, out := post(t, s.API, "/quote/v2", quoteBody(obj{"amount": "1000000000000000000000"})) // 1000 ETH, USD 3M
		if code != 400 || out["errorCode"] != "AMOUNT_TOO_HIGH" || !strings.Contains(out["message"].(string), "1000000") {
			t.Fatalf("got %d %v", code, out)
		}
		if countRows(t, s) != before {
			t.Fatal("a refused quote stored rows")
		}
	})

	t.Run("DESTINATION_TX_FAILED when the token contract blocks the recipient", func(t *testing.T) {
		blocked := devnet.TestAccounts()[7].Address
		owner := &e2e.Wallet{Key: devnet.DeployerKey(), RPCs: s.RPCs}
		if _, err := owner.SendTx(ctx, quote.TxData{ChainID: 31338, To: devnet.USDCAddress.Hex(), Value: "0",
			Data: hexutil.Encode(evm.ERC20ABI.PackSetBlocked(blocked, true))}); err != nil {
			t.Fatal(err)
		}
		before := countRows(t, s)
		code, out := post(t, s.API, "/quote/v2", quoteBody(obj{"recipient": blocked.Hex()}))
		if code != 400 || out["errorCode"] != "DESTINATION_TX_FAILED" || !strings.Contains(out["message"].(string), "blocks the recipient") {
			t.Fatalf("got %d %v", code, out)
		}
		if countRows(t, s) != before {
			t.Fatal("a refused quote stored rows")
		}
		// the same recipient can still receive ETH
		mustQuote(t, s.API, "/quote/v2", quoteBody(obj{"recipient": blocked.Hex(), "destinationCurrency": nativeAddr}))
	})

	t.Run("UNAUTHORIZED_QUOTE for a referrer with an unknown key", func(t *testing.T) {
		bad := &e2e.Client{BaseURL: s.API.BaseURL, APIKey: "ik_" + strings.Repeat("0", 64)}
		if code, out := post(t, bad, "/quote/v2", quoteBody(obj{"referrer": "acme"})); code != 401 || out["errorCode"] != "UNAUTHORIZED_QUOTE" {
			t.Fatalf("got %d %v", code, out)
		}
	})

	t.Run("every error body is exactly {message, errorCode}", func(t *testing.T) {
		// An unknown field is ignored now (docs/api.md); a misspelt money field is still an error.
		for _, body := range []any{quoteBody(obj{"recipient": "0x12"}), []byte("[]"), quoteBody(obj{"recipent": devnet.TestAccounts()[1].Address.Hex()})} {
			code, out := post(t, s.API, "/quote/v2", body)
			if code < 400 || len(out) != 2 || out["message"] == "" || out["errorCode"] == "" {
				t.Fatalf("got %d %v", code, out)
			}
		}
	})
}

// settlementTypes are the public settlement contracts' EIP-712 types, written out here from the
// spec rather than taken from the server's code, as an outside client would.
func settlementTypes() apitypes.Types {
	f := func(pairs ...string) []apitypes.Type {
		var out []apitypes.Type
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, apitypes.Type{Type: pairs[i], Name: pairs[i+1]})
		}
		return out
	}
	return apitypes.Types{
		"EIP712Domain": f("string", "name"),
		"Order": f("string", "version", "string", "solverChainId", "address", "solver", "uint256", "salt",
			"Input[]", "inputs", "Output", "output", "Fee[]", "fees"),
		"Input":         f("InputPayment", "payment", "InputRefund[]", "refunds"),
		"InputPayment":  f("string", "chainId", "bytes", "currency", "uint256", "amount", "uint256", "weight"),
		"InputRefund":   f("string", "chainId", "bytes", "recipient", "bytes", "currency", "uint256", "minimumAmount", "uint32", "deadline", "bytes", "extraData"),
		"Output":        f("string", "chainId", "OutputPayment[]", "payments", "uint32", "deadline", "bytes[]", "calls", "bytes", "extraData"),
		"OutputPayment": f("bytes", "recipient", "bytes", "currency", "uint256", "minimumAmount", "uint256", "expectedAmount"),
		"Fee":           f("string", "recipientChainId", "bytes", "recipient", "string", "currencyChainId", "bytes", "currency", "uint256", "amount"),
	}
}
