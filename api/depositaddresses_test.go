package api

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/prices"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// Issue 35, points 2 and 5: deposit-address quotes, their records and the deposit-address
// endpoints, through the real router, on the devnet's two chains and a real Postgres.

// daRig is an API over the devnet (31337 and 31338, the DepositAddressFactory on both) and a
// fresh database, with its admin listener.
type daRig struct {
	h, admin http.Handler
	st       *store.Store
	db       *pgxpool.Pool
	origin   *evm.Client // chain 31337, as the engine reads it
	srv      *Server     // the server behind h, for a test that gives it a dependency
}

func newDARig(t *testing.T, edit func(*chains.Chain)) *daRig {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := devnet.Start(ctx, devnet.Options{Chains: []devnet.ChainOptions{{ID: 31337}, {ID: 31338}}, BlockTime: time.Hour,
		FeedHeartbeat: -1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	cfgs := devnet.ChainConfigs(map[uint64]string{31337: d.Chain(31337).RPCURL, 31338: d.Chain(31338).RPCURL})
	if edit != nil {
		edit(&cfgs[0])
	}
	reg, err := chains.NewRegistry(cfgs)
	if err != nil {
		t.Fatal(err)
	}
	pool := chains.NewClients(reg, evm.VM())
	db := testenv.Pool(t)
	st := store.New(db)
	engine := &quote.Engine{Chains: pool, Prices: prices.Table{"ETH": decimal.NewFromInt(3000), "USDC": decimal.NewFromInt(1)}, Store: st,
		Solver: devnet.SolverAddress().Hex()}
	s := &Server{Store: st, Chains: reg, Quotes: engine, AdminTokenSHA256: tokenHash(adminToken), Logger: slog.New(slog.DiscardHandler),
		Now: func() time.Time { return DefaultV2Deprecation().SunsetAt.Add(-time.Hour) }} // /requests/v2 still served
	origin, err := chains.Capability[*evm.Client](pool, 31337)
	if err != nil {
		t.Fatal(err)
	}
	return &daRig{h: s.Handler(), admin: s.AdminHandler(), st: st, db: db, origin: origin, srv: s}
}

// daCall sends method path with an optional key and JSON body (nil: none) to h, and decodes the
// answer.
func daCall(t *testing.T, h http.Handler, method, path, key string, body any) (int, map[string]any) {
	t.Helper()
	var r *http.Request
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = httptest.NewRequest(method, path, bytes.NewReader(raw))
		r.Header.Set("Content-Type", "application/json")
	} else {
		r = httptest.NewRequest(method, path, nil)
	}
	if key != "" {
		r.Header.Set("x-api-key", key)
	}
	if strings.HasPrefix(key, "Bearer ") {
		r.Header.Del("x-api-key")
		r.Header.Set("Authorization", key)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var out map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
		t.Fatalf("%s %s: %d %s is not a JSON object", method, path, w.Code, w.Body)
	}
	return w.Code, out
}

// rows counts what a quote stores: requests, quotes and deposit addresses.
func (r *daRig) rows(t *testing.T) int {
	t.Helper()
	var n int
	if err := r.db.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM requests) + (SELECT count(*) FROM quotes) +
		(SELECT count(*) FROM deposit_addresses)`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

var (
	daUser  = devnet.TestAccounts()[0].Address.Hex()
	daOther = devnet.TestAccounts()[1].Address.Hex()
	zero    = chains.NativeAddress
)

// daBody is a deposit-address quote of 1 ETH from 31337 to ETH on 31338, with overrides (a nil
// value removes the field).
func daBody(over map[string]any) map[string]any {
	b := map[string]any{"user": daUser, "originChainId": 31337, "destinationChainId": 31338, "originCurrency": zero,
		"destinationCurrency": zero, "amount": "1000000000000000000", "tradeType": "EXACT_INPUT", "useDepositAddress": true,
		"includeProtocolData": true}
	for k, v := range over {
		if v == nil {
			delete(b, k)
			continue
		}
		b[k] = v
	}
	return b
}

// quoted is what a test reads of a deposit-address quote's answer.
type quoted struct {
	requestID, orderID, address, id string
	step                            map[string]any
	item                            map[string]any
	out                             map[string]any
}

func (r *daRig) quote(t *testing.T, path, key string, body map[string]any) quoted {
	t.Helper()
	code, out := daCall(t, r.h, "POST", path, key, body)
	if code != http.StatusOK {
		t.Fatalf("quote: %d %v", code, out)
	}
	steps, _ := out["steps"].([]any)
	if len(steps) != 1 {
		t.Fatalf("steps %v: want one deposit step and no approve", out["steps"])
	}
	step := steps[0].(map[string]any)
	items := step["items"].([]any)
	if len(items) != 1 {
		t.Fatalf("items %v", items)
	}
	q := quoted{requestID: out["requestId"].(string), address: step["depositAddress"].(string), step: step, item: items[0].(map[string]any), out: out}
	q.id, _ = step["depositAddressId"].(string)
	if p, ok := out["protocol"].(map[string]any); ok {
		q.orderID = p["v2"].(map[string]any)["orderId"].(string)
	}
	return q
}

func amountOf(t *testing.T, o any, path ...string) *big.Int {
	t.Helper()
	for _, k := range path {
		o = o.(map[string]any)[k]
	}
	n, ok := new(big.Int).SetString(o.(string), 10)
	if !ok {
		t.Fatalf("%v at %v is no amount", o, path)
	}
	return n
}

// Issue 35, point 2: "Quotes with `useDepositAddress: true`: the `deposit` step's item sends to
// the address (native: `data.to` = the address, `data.data` = `0x`; ERC-20: a `transfer` to it),
// `depositAddress` on the step, `depositAddressId` in the response; `strict` true or false;
// `refundTo` required for strict, optional for open (absent: no automatic refund; the zero
// address: refund the depositor)". The address is the factory's of (orderId, user); the fee
// covers the sweep's gas; the request, its execution (funding strategy depositAddress) and the
// issued address are stored; the records and GET /deposit-addresses/v1 show them.
func TestDepositAddressQuoteSendsAPlainTransferToTheOrdersAddressAndStoresIt(t *testing.T) {
	r := newDARig(t, nil)
	ctx := context.Background()
	key, _ := createKey(t, r.st, "acme", store.NewKey{Label: "exchange"})
	gasPrice, err := r.origin.GasPrice(ctx)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("strict, native: the step pays the address with data 0x, the fee has the sweep's gas", func(t *testing.T) {
		q := r.quote(t, "/quote/v2", key, daBody(map[string]any{"strict": true, "refundTo": daOther,
			"recoveryAddress": devnet.TestAccounts()[2].Address.Hex()}))
		want := evm.DepositAddress(devnet.DepositAddressFactoryAddress, devnet.DepositAddressImplementationAddress,
			common.HexToHash(q.orderID), common.HexToAddress(daUser)).Hex()
		if q.address != want || !intent.IsHash32(q.id) || q.step["id"] != "deposit" || q.step["kind"] != "transaction" ||
			q.step["requestId"] != q.requestID {
			t.Fatalf("step %v: want the deposit step carrying the factory's address %s and a depositAddressId", q.step, want)
		}
		data := q.item["data"].(map[string]any)
		if data["to"] != want || data["data"] != "0x" || data["value"] != "1000000000000000000" || q.item["status"] != "incomplete" ||
			q.item["check"].(map[string]any)["endpoint"] != "/intents/status/v3?requestId="+q.requestID {
			t.Fatalf("item %v: want to the address, data 0x, the amount as value, the status check", q.item)
		}
		// fees.gas is the sweep, origin gas the solver pays: 72,000 gas at the origin's gas
		// price (a 1:1 bridge, so in wei as it is); the execution component adds it.
		sweep := new(big.Int).Mul(gasPrice, big.NewInt(evm.SweepGasNative))
		if got := amountOf(t, q.out, "fees", "gas", "amount"); new(big.Int).Sub(got, sweep).CmpAbs(big.NewInt(1)) > 0 {
			t.Fatalf("fees.gas %s, want the sweep's %s", got, sweep)
		}
		t.Logf("1 ETH by a deposit address: fees.gas (sweep) %s wei, relayerGas (fill) %s wei, relayer %s wei, at %s wei a gas",
			amountOf(t, q.out, "fees", "gas", "amount"), amountOf(t, q.out, "fees", "relayerGas", "amount"),
			amountOf(t, q.out, "fees", "relayer", "amount"), gasPrice)
		paid := new(big.Int).Sub(amountOf(t, q.out, "details", "currencyIn", "amount"), amountOf(t, q.out, "details", "currencyOut", "amount"))
		fees := new(big.Int).Add(amountOf(t, q.out, "fees", "gas", "amount"), amountOf(t, q.out, "fees", "relayer", "amount"))
		if paid.Cmp(fees) != 0 {
			t.Fatalf("the user pays %s, the fees (gas + relayer) are %s", paid, fees)
		}

		stored, err := r.st.DepositAddressByID(ctx, q.id)
		if err != nil {
			t.Fatal(err)
		}
		var route map[string]any
		if err := json.Unmarshal(stored.Route, &route); err != nil || route["useDepositAddress"] != true || route["amount"] != "1000000000000000000" {
			t.Fatalf("route %s (%v): want the quote request", stored.Route, err)
		}
		if !strings.EqualFold(stored.Address, want) || stored.Type != intent.DepositAddressStrict || stored.OrderID != q.orderID ||
			!strings.EqualFold(stored.Depositor, daUser) || stored.RequestID != q.requestID || stored.ChainID != 31337 ||
			stored.Currency != zero || !strings.EqualFold(stored.RefundTo, daOther) ||
			!strings.EqualFold(stored.RecoveryAddress, devnet.TestAccounts()[2].Address.Hex()) || stored.DisabledAt != nil {
			t.Fatalf("stored address %+v", stored)
		}
		sq, err := r.st.QuoteByRequestID(ctx, q.requestID)
		if err != nil {
			t.Fatal(err)
		}
		ex := sq.Execution
		if ex.Funding != (intent.Funding{Family: "evm", Strategy: intent.FundingDepositAddress}) || ex.DepositAddress == nil ||
			*ex.DepositAddress != (intent.ExecutionDepositAddress{ID: q.id, Address: want, Type: intent.DepositAddressStrict, OrderID: q.orderID,
				Depositor: daUser}) || ex.RefundTo != daOther {
			t.Fatalf("execution %+v / %+v", ex, ex.DepositAddress)
		}

		// The records: v3's depositAddress and feature, v2's depositAddressType, both found by
		// the depositAddress filter (the request row's deposit_address column).
		code, out := daCall(t, r.h, "GET", "/requests/v3?depositAddress="+want, key, nil)
		reqs, _ := out["requests"].([]any)
		if code != http.StatusOK || len(reqs) != 1 {
			t.Fatalf("/requests/v3?depositAddress=: %d %v", code, out)
		}
		rec := reqs[0].(map[string]any)
		checkShape(t, "v3 depositAddress", rec["depositAddress"].(map[string]any), map[string]any{"address": want, "type": "strict",
			"depositor": daUser, "depositTxHash": nil, "recoveryAddress": devnet.TestAccounts()[2].Address.Hex()})
		if rec["depositAddress"].(map[string]any)["depositTxHash"] != nil || rec["refundTo"] != daOther ||
			!slices.Equal(rec["features"].([]any), []any{"deposit_address"}) || rec["id"] != q.requestID {
			t.Fatalf("v3 record %v", rec)
		}
		if code, out := daCall(t, r.h, "GET", "/requests/v3?features=deposit_address", key, nil); code != http.StatusOK || len(out["requests"].([]any)) != 1 {
			t.Fatalf("/requests/v3?features=deposit_address: %d %v", code, out)
		}
		code, out = daCall(t, r.h, "GET", "/requests/v2?depositAddress="+strings.ToLower(want), "", nil)
		reqs, _ = out["requests"].([]any)
		if code != http.StatusOK || len(reqs) != 1 {
			t.Fatalf("/requests/v2?depositAddress=: %d %v", code, out)
		}
		checkShape(t, "v2 depositAddress", reqs[0].(map[string]any)["depositAddress"].(map[string]any), map[string]any{"address": want,
			"depositAddressType": "strict", "depositor": daUser, "depositTxHash": nil})

		// GET /deposit-addresses/v1, by address (any case) or by the request, the SDK's shape.
		v1 := map[string]any{"depositAddress": want, "type": "strict", "requestId": q.requestID, "chainId": 31337, "createdAt": nil,
			"currency": zero, "refundTo": daOther}
		for _, path := range []string{"/deposit-addresses/v1?address=" + want, "/deposit-addresses/v1?address=" + strings.ToLower(want),
			"/deposit-addresses/v1?requestId=" + q.requestID} {
			code, out := daCall(t, r.h, "GET", path, "", nil)
			if code != http.StatusOK {
				t.Fatalf("%s: %d %v", path, code, out)
			}
			checkShape(t, path, out, v1)
			if at, err := time.Parse(time.RFC3339Nano, out["createdAt"].(string)); err != nil || time.Since(at) > time.Minute {
				t.Fatalf("createdAt %v (%v)", out["createdAt"], err)
			}
		}
	})

	t.Run("open, ERC-20, no refundTo: a transfer to the address, value 0, no automatic refund", func(t *testing.T) {
		q := r.quote(t, "/quote/v2", "", daBody(map[string]any{"originCurrency": devnet.USDCAddress.Hex(),
			"destinationCurrency": devnet.USDCAddress.Hex(), "amount": "25000000"}))
		want := evm.DepositAddress(devnet.DepositAddressFactoryAddress, devnet.DepositAddressImplementationAddress,
			common.HexToHash(q.orderID), common.HexToAddress(daUser))
		data := q.item["data"].(map[string]any)
		if q.address != want.Hex() || data["to"] != devnet.USDCAddress.Hex() || data["value"] != "0" ||
			data["data"] != hexutil.Encode(evm.ERC20ABI.PackTransfer(want, big.NewInt(25_000_000))) {
			t.Fatalf("ERC-20 item %v (address %s): want transfer(address, amount) on the token", data, q.address)
		}
		// USDC's sweep: 95,000 gas at the gas price, in USDC at the two prices.
		sweepUSD := intent.USDValue(new(big.Int).Mul(gasPrice, big.NewInt(evm.SweepGasERC20)), 18, decimal.NewFromInt(3000))
		if got, want := amountOf(t, q.out, "fees", "gas", "amount"), intent.FromUSD(sweepUSD, 6, decimal.NewFromInt(1)); got.Cmp(want) != 0 {
			t.Fatalf("fees.gas %s, want %s", got, want)
		}
		stored, err := r.st.DepositAddressByID(ctx, q.id)
		if err != nil || stored.Type != intent.DepositAddressOpen || stored.RefundTo != "" || stored.RecoveryAddress != "" {
			t.Fatalf("stored %+v, %v: want open, no refundTo", stored, err)
		}
		sq, err := r.st.QuoteByRequestID(ctx, q.requestID)
		if err != nil || sq.Execution.RefundTo != "" || sq.Execution.DepositAddress.Type != intent.DepositAddressOpen {
			t.Fatalf("execution %+v, %v: want no refundTo (no automatic refund)", sq.Execution, err)
		}
		code, out := daCall(t, r.h, "GET", "/deposit-addresses/v1?requestId="+q.requestID, "", nil)
		if code != http.StatusOK || out["refundTo"] != nil || out["type"] != "open" || out["currency"] != devnet.USDCAddress.Hex() {
			t.Fatalf("v1 %d %v: want open, refundTo null", code, out)
		}
		rec, err := r.st.Record(ctx, q.requestID)
		if err != nil || rec.RefundTo != "" || rec.DepositAddress == nil || rec.DepositAddress.RecoveryAddress != nil {
			t.Fatalf("record %+v, %v", rec, err)
		}
	})

	t.Run("the zero address as refundTo refunds the depositor; a zero user names the recipient", func(t *testing.T) {
		q := r.quote(t, "/quote/v2", "", daBody(map[string]any{"refundTo": zero, "user": zero, "recipient": daOther}))
		stored, err := r.st.DepositAddressByID(ctx, q.id)
		if err != nil || stored.RefundTo != zero || stored.Depositor != zero {
			t.Fatalf("stored %+v, %v: want refundTo and depositor the zero address", stored, err)
		}
		if q.address != evm.DepositAddress(devnet.DepositAddressFactoryAddress, devnet.DepositAddressImplementationAddress,
			common.HexToHash(q.orderID), common.Address{}).Hex() {
			t.Fatalf("address %s", q.address)
		}
		sq, err := r.st.QuoteByRequestID(ctx, q.requestID)
		if err != nil || sq.Execution.RefundTo != zero || sq.Execution.Recipient != daOther {
			t.Fatalf("execution %+v, %v", sq.Execution, err)
		}
	})

	t.Run("trade types: open takes EXPECTED_OUTPUT, strict EXACT_OUTPUT", func(t *testing.T) {
		r.quote(t, "/quote/v2", "", daBody(map[string]any{"tradeType": "EXPECTED_OUTPUT"}))
		r.quote(t, "/quote/v2", "", daBody(map[string]any{"tradeType": "EXACT_OUTPUT", "strict": true, "refundTo": daUser}))
	})

	t.Run("POST /quote gives the same step; POST /price the same fees and nothing stored", func(t *testing.T) {
		q := r.quote(t, "/quote", "", daBody(map[string]any{"includeProtocolData": nil}))
		if _, err := r.st.DepositAddressByID(ctx, q.id); err != nil || q.item["data"].(map[string]any)["to"] != q.address {
			t.Fatalf("/quote: %v %v", q.step, err)
		}
		before := r.rows(t)
		code, out := daCall(t, r.h, "POST", "/price", "", daBody(nil))
		if code != http.StatusOK || out["steps"] != nil || amountOf(t, out, "fees", "gas", "amount").Sign() <= 0 || r.rows(t) != before {
			t.Fatalf("/price: %d %v", code, out)
		}
	})
}

// Issue 35, point 2: every rule of a deposit-address quote refuses what breaks it with 400
// {message, errorCode} and stores nothing: "`refundTo` required for strict", "`recoveryAddress`
// only with deposit addresses", a valid origin address and never the native currency's (zero)
// address (public-api-notes §5.1), "`EXACT_OUTPUT` only strict", "`sponsoredFeeComponents`
// refused, `subsidizationBps` 400", "only solver currencies depositable", and "calldata
// execution on destination not allowed" (§5.1's limits).
func TestDepositAddressQuoteRefusesWhatItsRulesForbidAndStoresNothing(t *testing.T) {
	r := newDARig(t, nil)
	key, _ := createKey(t, r.st, "acme", store.NewKey{Label: "exchange"})
	for _, tc := range []struct {
		name  string
		key   string
		body  map[string]any
		code  string
		words string
	}{
		{"strict without refundTo", "", daBody(map[string]any{"strict": true}), quote.CodeInvalidInput, "refundTo is required"},
		{"strict that is not a boolean", "", daBody(map[string]any{"strict": "yes", "refundTo": daUser}), quote.CodeInvalidInput, "strict"},
		{"recoveryAddress without useDepositAddress", "", daBody(map[string]any{"useDepositAddress": nil, "recoveryAddress": daOther}),
			quote.CodeInvalidInput, "useDepositAddress"},
		{"recoveryAddress the zero address", "", daBody(map[string]any{"recoveryAddress": zero}), quote.CodeInvalidAddress, "recoveryAddress"},
		{"recoveryAddress no address", "", daBody(map[string]any{"recoveryAddress": "0x12"}), quote.CodeInvalidAddress, "recoveryAddress"},
		{"recoveryAddress a mistyped checksum", "", daBody(map[string]any{"recoveryAddress": "0x70997970c51812dc3A010C7d01b50e0d17dc79C8"}),
			quote.CodeInvalidAddress, "EIP-55"},
		{"open with EXACT_OUTPUT", "", daBody(map[string]any{"tradeType": "EXACT_OUTPUT"}), quote.CodeInvalidInput, "strict"},
		{"sponsoredFeeComponents", key, daBody(map[string]any{"subsidizeFees": true, "sponsoredFeeComponents": []string{"execution"}}),
			quote.CodeInvalidInput, "sponsoredFeeComponents"},
		{"subsidizationBps", key, daBody(map[string]any{"subsidizeFees": true, "subsidizationBps": 5000}), quote.CodeInvalidInput, "subsidizationBps"},
		{"calls on the destination (txs)", "", daBody(map[string]any{"txs": []any{map[string]any{"to": daOther, "data": "0x", "value": "0"}}}),
			quote.CodeInvalidInput, "txs"},
		{"a currency the solver does not take", "", daBody(map[string]any{"originCurrency": "0x00000000000000000000000000000000000000aa"}),
			quote.CodeUnsupportedCurr, "not supported"},
		{"a zero user and no recipient", "", daBody(map[string]any{"user": zero}), quote.CodeInvalidAddress, "recipient"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := r.rows(t)
			for _, path := range []string{"/quote/v2", "/quote", "/price"} {
				code, out := postQuote(t, r.h, path, tc.key, tc.body)
				wantError(t, tc.name+" on "+path, code, out, http.StatusBadRequest, tc.code)
				if !strings.Contains(out["message"].(string), tc.words) {
					t.Errorf("%s: message %q does not say %q", path, out["message"], tc.words)
				}
			}
			if r.rows(t) != before {
				t.Fatal("a refused quote stored rows")
			}
		})
	}

	t.Run("without deposit addresses, refundTo and user stay non-zero and txs and strict are ignored", func(t *testing.T) {
		for field, over := range map[string]map[string]any{"refundTo": {"refundTo": zero}, "user": {"user": zero, "recipient": daOther}} {
			over["useDepositAddress"] = nil
			code, out := postQuote(t, r.h, "/price", "", daBody(over))
			wantError(t, field, code, out, http.StatusBadRequest, quote.CodeInvalidAddress)
		}
		code, out := postQuote(t, r.h, "/price", "", daBody(map[string]any{"useDepositAddress": nil, "strict": "yes", "txs": []any{1}}))
		if code != http.StatusOK {
			t.Fatalf("strict and txs without a deposit address: %d %v", code, out)
		}
	})
}

// A chain whose file names no DepositAddressFactory offers no deposit addresses: 400
// UNSUPPORTED_CHAIN, as a chain without deposits is, and nothing stored.
func TestDepositAddressQuoteOnAChainWithoutAFactoryIsUnsupported(t *testing.T) {
	r := newDARig(t, func(c *chains.Chain) { c.DepositAddressFactory = "" })
	before := r.rows(t)
	for _, path := range []string{"/quote/v2", "/price"} {
		code, out := postQuote(t, r.h, path, "", daBody(nil))
		wantError(t, path, code, out, http.StatusBadRequest, quote.CodeUnsupportedChain)
	}
	if r.rows(t) != before {
		t.Fatal("stored rows")
	}
}

// Issue 35, point 2: "`maxSubsidizationAmount` all-or-nothing" (public-api-notes §5.1: "if fees
// exceed cap, user pays all"). A cap one unit below the fees sponsors none of a deposit-address
// quote's fees, where the same cap on a bridge sponsors all it can; a cap that covers them
// sponsors them all.
func TestDepositAddressSponsorshipCapIsAllOrNothing(t *testing.T) {
	r := newDARig(t, nil)
	ctx := context.Background()
	key, k := createKey(t, r.st, "acme", store.NewKey{Label: "sponsor"})
	by := store.Actor{Name: "test", Via: store.ViaCLI}
	wallet, chain := daOther, uint64(31337)
	if _, err := r.st.UpdateIntegrator(ctx, k.Integrator.ID, store.IntegratorUpdate{SponsorWallet: &wallet, SponsorChainID: &chain}, by); err != nil {
		t.Fatal(err)
	}
	if _, err := r.st.TopUpSponsorBalance(ctx, k.Integrator.ID, decimal.NewFromInt(1000), by); err != nil {
		t.Fatal(err)
	}
	subsidized := func(body map[string]any) *big.Int {
		t.Helper()
		code, out := daCall(t, r.h, "POST", "/price", key, body)
		if code != http.StatusOK {
			t.Fatalf("%d %v", code, out)
		}
		return amountOf(t, out, "fees", "subsidized", "amount")
	}
	all := subsidized(daBody(map[string]any{"subsidizeFees": true}))
	if all.Sign() <= 0 {
		t.Fatal("nothing sponsored without a cap")
	}
	below := new(big.Int).Sub(all, big.NewInt(1)).String()
	if got := subsidized(daBody(map[string]any{"subsidizeFees": true, "maxSubsidizationAmount": below})); got.Sign() != 0 {
		t.Fatalf("a cap below the fees sponsored %s of a deposit-address quote, want nothing", got)
	}
	if got := subsidized(daBody(map[string]any{"subsidizeFees": true, "maxSubsidizationAmount": all.String()})); got.Cmp(all) != 0 {
		t.Fatalf("a cap equal to the fees sponsored %s, want all %s", got, all)
	}
	// The bridge's fees are lower (no sweep): a cap one unit below them sponsors up to the cap.
	bridgeAll := subsidized(daBody(map[string]any{"useDepositAddress": nil, "subsidizeFees": true}))
	bridgeBelow := new(big.Int).Sub(bridgeAll, big.NewInt(1)).String()
	bridge := daBody(map[string]any{"useDepositAddress": nil, "subsidizeFees": true, "maxSubsidizationAmount": bridgeBelow})
	if got := subsidized(bridge); got.String() != bridgeBelow {
		t.Fatalf("a cap below a bridge's fees sponsored %s, want the cap %s (a cap is all or nothing only on deposit addresses)", got, bridgeBelow)
	}
}

// Issue 35, point 5: "`GET /deposit-addresses/v2` (the address with its deposit and sweep
// history), `POST /deposit-addresses/{depositAddressId}/disable/v2`": v2 answers the address and
// every payment seen at it with the request it funds and its sweep; only the key that quoted the
// address may disable it (another key 403, none 401, an address quoted without a key only by an
// operator, audited); a disabled address is no longer watched, and disabling twice keeps the
// first time. Unknown lookups are 404 {message, errorCode}.
func TestDepositAddressEndpointsShowTheHistoryAndOnlyTheQuotingKeyDisables(t *testing.T) {
	r := newDARig(t, nil)
	ctx := context.Background()
	creator, _ := createKey(t, r.st, "acme", store.NewKey{Label: "exchange"})
	other, _ := createKey(t, r.st, "globex", store.NewKey{Label: "other"})
	q := r.quote(t, "/quote/v2", creator, daBody(map[string]any{"strict": true, "refundTo": daUser}))
	anon := r.quote(t, "/quote/v2", "", daBody(nil))

	// A payment seen at the address, routed to the request and swept (what the watcher and the
	// sweep write), and a second one not routed yet.
	paid, swept := "0x"+strings.Repeat("ab", 32), "0x"+strings.Repeat("cd", 32)
	seen := time.Now().UTC().Truncate(time.Microsecond)
	for i, tr := range []intent.DepositAddressTransfer{
		{ChainID: 31337, TxHash: paid, LogIndex: -1, AddressID: q.id, BlockNumber: 7, Sender: daOther, Currency: zero, Amount: "1000000000000000000", SeenAt: seen},
		{ChainID: 31337, TxHash: "0x" + strings.Repeat("ef", 32), LogIndex: 3, AddressID: q.id, BlockNumber: 9, Sender: daOther,
			Currency: devnet.USDCAddress.Hex(), Amount: "5", SeenAt: seen.Add(time.Second)},
	} {
		if created, err := r.st.RecordDepositAddressTransfer(ctx, tr); err != nil || !created {
			t.Fatalf("transfer %d: %v %v", i, created, err)
		}
	}
	if _, err := r.st.RouteDepositAddressTransfer(ctx, 31337, paid, -1, q.requestID); err != nil {
		t.Fatal(err)
	}
	if n, err := r.st.RecordDepositAddressSweep(ctx, 31337, q.address, zero, "1000000000000000000", swept, 7); err != nil || n != 1 {
		t.Fatalf("sweep recorded on %d payments: %v", n, err)
	}

	code, out := daCall(t, r.h, "GET", "/deposit-addresses/v2?address="+q.address, "", nil)
	if code != http.StatusOK {
		t.Fatalf("v2: %d %v", code, out)
	}
	checkShape(t, "v2 depositAddress", out["depositAddress"].(map[string]any), map[string]any{"depositAddress": q.address, "type": "strict",
		"requestId": q.requestID, "chainId": 31337, "createdAt": nil, "currency": zero, "refundTo": daUser, "id": q.id, "depositor": daUser,
		"orderId": q.orderID, "recoveryAddress": nil, "disabledAt": nil})
	transfers := out["transfers"].([]any)
	if len(transfers) != 2 {
		t.Fatalf("transfers %v", transfers)
	}
	checkShape(t, "the swept payment", transfers[0].(map[string]any), map[string]any{"chainId": 31337, "txHash": paid, "logIndex": nil,
		"blockNumber": 7, "from": daOther, "currency": zero, "amount": "1000000000000000000", "requestId": q.requestID,
		"sweepTxHash": swept, "seenAt": nil})
	if tr := transfers[0].(map[string]any); tr["logIndex"] != nil {
		t.Fatalf("a native payment's logIndex %v, want null", tr["logIndex"])
	}
	if tr := transfers[1].(map[string]any); tr["logIndex"] != float64(3) || tr["requestId"] != nil || tr["sweepTxHash"] != nil ||
		tr["currency"] != devnet.USDCAddress.Hex() {
		t.Fatalf("the payment not routed yet %v", tr)
	}
	if code, out := daCall(t, r.h, "GET", "/deposit-addresses/v2?requestId="+q.requestID, "", nil); code != http.StatusOK ||
		len(out["transfers"].([]any)) != 2 {
		t.Fatalf("v2 by requestId: %d %v", code, out)
	}

	for _, path := range []string{"/deposit-addresses/v1?address=" + daOther, "/deposit-addresses/v2?requestId=0x" + strings.Repeat("00", 32)} {
		code, out := daCall(t, r.h, "GET", path, "", nil)
		wantError(t, path, code, out, http.StatusNotFound, CodeDepositAddressNotFound)
	}

	disable := "/deposit-addresses/" + q.id + "/disable/v2"
	code, out = daCall(t, r.h, "POST", disable, "", nil)
	wantError(t, "no key", code, out, http.StatusUnauthorized, CodeUnauthorized)
	code, out = daCall(t, r.h, "POST", disable, other, nil)
	wantError(t, "another integrator's key", code, out, http.StatusForbidden, CodeForbidden)
	code, out = daCall(t, r.h, "POST", "/deposit-addresses/0x"+strings.Repeat("11", 32)+"/disable/v2", creator, nil)
	wantError(t, "unknown id", code, out, http.StatusNotFound, CodeDepositAddressNotFound)
	if watched := watchedIDs(t, r.st); !slices.Contains(watched, q.id) {
		t.Fatalf("watched %v before disabling", watched)
	}

	code, out = daCall(t, r.h, "POST", disable, creator, nil)
	if code != http.StatusOK || out["id"] != q.id || out["depositAddress"] != q.address || out["disabledAt"] == nil {
		t.Fatalf("disable: %d %v", code, out)
	}
	first := out["disabledAt"]
	if code, out = daCall(t, r.h, "POST", disable, creator, nil); code != http.StatusOK || out["disabledAt"] != first {
		t.Fatalf("disabling again: %d %v, want the first time %v", code, out, first)
	}
	if watched := watchedIDs(t, r.st); slices.Contains(watched, q.id) || !slices.Contains(watched, anon.id) {
		t.Fatalf("watched %v: want the disabled address gone, the other kept", watched)
	}

	// An address quoted without a key: no key may disable it; an operator may, audited.
	code, out = daCall(t, r.h, "POST", "/deposit-addresses/"+anon.id+"/disable/v2", creator, nil)
	wantError(t, "an address quoted without a key", code, out, http.StatusForbidden, CodeForbidden)
	code, out = daCall(t, r.admin, "POST", "/admin/deposit-addresses/"+anon.id+"/disable", "Bearer "+adminToken,
		map[string]any{"operator": "alice", "reason": "exchange asked"})
	if code != http.StatusOK || out["id"] != anon.id || out["disabledAt"] == nil {
		t.Fatalf("admin disable: %d %v", code, out)
	}
	var action, actor, reason string
	if err := r.db.QueryRow(ctx, `SELECT action, actor, reason FROM admin_audit WHERE target_type = 'deposit_address'`).Scan(&action, &actor,
		&reason); err != nil || action != "deposit_address.disable" || actor != "alice" || reason != "exchange asked" {
		t.Fatalf("audit %s %s %s, %v", action, actor, reason, err)
	}
	code, out = daCall(t, r.admin, "POST", "/admin/deposit-addresses/0x"+strings.Repeat("11", 32)+"/disable", "Bearer "+adminToken,
		map[string]any{"operator": "alice"})
	wantError(t, "admin, unknown id", code, out, http.StatusNotFound, CodeDepositAddressNotFound)
}

// watchedIDs are the deposit addresses the watcher would load.
func watchedIDs(t *testing.T, st *store.Store) []string {
	t.Helper()
	list, err := st.WatchedDepositAddresses(context.Background(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, a := range list {
		ids = append(ids, a.ID)
	}
	return ids
}

// Issue 35, point 2: "only solver currencies depositable". POST /currencies/v2 with
// depositAddressOnly lists what a deposit address can be quoted in: the currencies of the chains
// whose file names a DepositAddressFactory (and that take deposits); here 31338 has none.
func TestCurrenciesDepositAddressOnlyListsTheChainsWithAFactory(t *testing.T) {
	cfgs := devnet.ChainConfigs(map[uint64]string{31337: deadRPC, 31338: deadRPC})
	cfgs[1].DepositAddressFactory = ""
	reg, err := chains.NewRegistry(cfgs)
	if err != nil {
		t.Fatal(err)
	}
	h := (&Server{Chains: reg, Logger: slog.New(slog.DiscardHandler)}).Handler()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/currencies/v2?depositAddressOnly=true", nil))
	var list []map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &list); err != nil || w.Code != http.StatusOK {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	var got []string
	for _, c := range list {
		got = append(got, c["symbol"].(string)+"@"+fmtNumber(c["chainId"]))
	}
	if strings.Join(got, " ") != "ETH@31337 USDC@31337" {
		t.Fatalf("depositAddressOnly lists %v, want the currencies of 31337 only", got)
	}
}

func fmtNumber(v any) string { return strconv.FormatFloat(v.(float64), 'f', -1, 64) }
