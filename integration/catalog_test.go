package integration

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/testkit/e2e"
)

// getJSON sends GET path and decodes the answer.
func getJSON(t *testing.T, c *e2e.Client, path string, out any) int {
	t.Helper()
	code, err := c.Do(context.Background(), http.MethodGet, path, nil, out)
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// The catalog endpoints answer in the public SDK's shapes from the real parts: the chain
// registry, the solver's inventory on the devnet chains, SOLVER_MAX_FILL, the price feeds and
// the read model.
func TestCatalogEndpointsAnswerInTheSDKsShapesFromTheRealParts(t *testing.T) {
	s := startStack(t, map[string]string{"SOLVER_MAX_FILL": "ETH=5,USDC=1000"})
	user := devnet.TestAccounts()[0].Address
	solver := devnet.SolverAddress()

	t.Run("GET /chains carries what the SDK's configureDynamicChains and its steps read", func(t *testing.T) {
		var out obj
		if code := getJSON(t, s.API, "/chains?referrer=sdk", &out); code != http.StatusOK {
			t.Fatalf("%d %v", code, out)
		}
		list := get(t, out, "chains").([]any)
		if len(list) != 2 {
			t.Fatalf("chains: %v", list)
		}
		for _, c := range list {
			for _, f := range []string{"id", "name", "displayName", "httpRpcUrl", "wsRpcUrl", "explorerUrl", "explorerName", "currency.name",
				"currency.symbol", "currency.decimals", "vmType", "depositEnabled", "erc20Currencies", "solverCurrencies", "protocol.v2.depository"} {
				get(t, c, f)
			}
			if v, ok := c.(obj)["iconUrl"]; !ok || v != nil {
				t.Errorf("iconUrl must be present and null (the SDK falls back to its own icon): %v", v)
			}
			if got := str(t, c, "protocol.v2.depository"); got != devnet.DepositoryAddress.Hex() {
				t.Errorf("depository %s", got)
			}
			if got := get(t, c, "solverAddresses").([]any); len(got) != 1 || got[0] != solver.Hex() {
				t.Errorf("solverAddresses %v, want the solver", got)
			}
			if got := get(t, c, "solverCurrencies").([]any); len(got) != 2 || str(t, got[1], "address") != devnet.USDCAddress.Hex() {
				t.Errorf("solverCurrencies %v, want ETH and USDC", got)
			}
		}
	})

	t.Run("GET /config/v2: the solver's real balance, capacity capped by SOLVER_MAX_FILL, the user's balance and limit", func(t *testing.T) {
		var out obj
		if code := getJSON(t, s.API, "/config/v2?originChainId=31337&destinationChainId=31338&currency=usdc&user="+user.Hex(), &out); code != http.StatusOK {
			t.Fatalf("%d %v", code, out)
		}
		if out["enabled"] != true || out["supportsExternalLiquidity"] != false || str(t, out, "solver.address") != solver.Hex() {
			t.Fatalf("config: %v", out)
		}
		solverUSDC := s.balance(t, 31338, devnet.USDCAddress, solver)
		if got := num(t, out, "solver.balance"); got.Cmp(solverUSDC) != 0 {
			t.Errorf("solver.balance %s, the chain says %s", got, solverUSDC)
		}
		capacity := big.NewInt(1000_000_000) // USDC=1000 in SOLVER_MAX_FILL, below the solver's balance
		if got := num(t, out, "solver.capacityPerRequest"); got.Cmp(capacity) != 0 {
			t.Errorf("capacityPerRequest %s, want %s", got, capacity)
		}
		if got, want := num(t, out, "user.balance"), s.balance(t, 31337, devnet.USDCAddress, user); got.Cmp(want) != 0 {
			t.Errorf("user.balance %s, the chain says %s", got, want)
		}
		// The user holds far more than the solver may pay: the limit is the capacity.
		if got := num(t, out, "user.maxBridgeAmount"); got.Cmp(capacity) != 0 {
			t.Errorf("maxBridgeAmount %s, want the capacity %s", got, capacity)
		}
		// The fee is the execution cost a USDC bridge is quoted with (a bridge pays no swap or
		// platform fee): the same as POST /price's, read at the same gas price.
		fee := num(t, out, "fee")
		q := mustQuote(t, s.API, "/price", quoteBody(obj{"originCurrency": devnet.USDCAddress.Hex(), "amount": "100000000"}))
		if priced := num(t, q, "fees.relayer.amount"); fee.Sign() <= 0 || fee.Cmp(priced) != 0 {
			t.Errorf("fee %s, POST /price charges %s", fee, priced)
		}
	})

	t.Run("GET /config/v2: the destination's native currency by default; no user, no user block; an empty wallet can bridge 0", func(t *testing.T) {
		var out obj
		getJSON(t, s.API, "/config/v2?originChainId=31338&destinationChainId=31337", &out)
		if _, ok := out["user"]; ok {
			t.Errorf("user without the user parameter: %v", out)
		}
		if got, want := num(t, out, "solver.capacityPerRequest"), new(big.Int).Mul(big.NewInt(5), big.NewInt(1e18)); got.Cmp(want) != 0 {
			t.Errorf("ETH capacity %s, want SOLVER_MAX_FILL's 5 ETH", got)
		}
		if got := num(t, out, "solver.balance"); got.Cmp(s.balance(t, 31337, common.Address{}, solver)) != 0 {
			t.Errorf("solver ETH balance %s", got)
		}
		getJSON(t, s.API, "/config/v2?originChainId=31338&destinationChainId=31337&user="+freshAddress(t).Hex(), &out)
		if str(t, out, "user.balance") != "0" || str(t, out, "user.maxBridgeAmount") != "0" {
			t.Errorf("empty wallet: %v", out["user"])
		}
		if code := getJSON(t, s.API, "/config/v2?originChainId=31337&destinationChainId=31338&currency=btc", &out); code != http.StatusBadRequest ||
			out["errorCode"] != "UNSUPPORTED_CURRENCY" {
			t.Errorf("unlisted currency: %d %v", code, out)
		}
	})

	t.Run("GET and POST /currencies/v2 search the registry", func(t *testing.T) {
		search := func(body obj) []any {
			t.Helper()
			var out []any
			code, err := s.API.Do(context.Background(), http.MethodPost, "/currencies/v2", body, &out)
			if err != nil || code != http.StatusOK {
				t.Fatalf("%v: %d %v", body, code, err)
			}
			return out
		}
		key := func(c any) string { return fmt.Sprintf("%s@%.0f", str(t, c, "symbol"), get(t, c, "chainId")) }
		keys := func(list []any) string {
			var k []string
			for _, c := range list {
				k = append(k, key(c))
			}
			return strings.Join(k, " ")
		}
		for _, tc := range []struct {
			body obj
			want string
		}{
			{obj{}, "ETH@31337 USDC@31337 ETH@31338 USDC@31338"},
			{obj{"chainIds": []int{31338}, "term": "usd"}, "USDC@31338"},
			{obj{"address": strings.ToLower(devnet.USDCAddress.Hex())}, "USDC@31337 USDC@31338"},
			{obj{"tokens": []string{"31338:" + devnet.USDCAddress.Hex()}}, "USDC@31338"},
			{obj{"chainIds": []int{31337}, "currencyId": "usdc", "includeAllChains": true}, "USDC@31337 USDC@31338"},
			{obj{"term": "ether", "verified": true, "limit": 1}, "ETH@31337"},
			{obj{"depositAddressOnly": true}, "ETH@31337 USDC@31337 ETH@31338 USDC@31338"}, // every devnet chain has the factory
		} {
			if got := keys(search(tc.body)); got != tc.want {
				t.Errorf("%v: %q, want %q", tc.body, got, tc.want)
			}
		}
		var list []any
		if code := getJSON(t, s.API, "/currencies/v2?chainIds=31337&term=USD", &list); code != http.StatusOK || keys(list) != "USDC@31337" {
			t.Errorf("GET: %d %s", code, keys(list))
		}
		c := list[0].(obj)
		if c["vmType"] != "evm" || c["decimals"] != float64(6) || get(t, c, "metadata.verified") != true || get(t, c, "metadata.isNative") != false {
			t.Errorf("currency: %v", c)
		}
	})

	t.Run("GET /prices/rates: the feeds' prices as JSON numbers", func(t *testing.T) {
		var raw map[string]any
		if code := getJSON(t, s.API, "/prices/rates", &raw); code != http.StatusOK {
			t.Fatalf("%d %v", code, raw)
		}
		if raw["ETH"] != float64(devnet.ETHUSDPrice) || raw["USDC"] != float64(1) || len(raw) != 2 {
			t.Errorf("rates %v", raw)
		}
	})

	t.Run("GET /integrators/quote-data: the caller's fee profile, volume and sponsorship", func(t *testing.T) {
		c, key := newKey(t, s, auth.Integrator{Name: "catalog-co", BusinessVerified: true,
			PayoutAddress: devnet.TestAccounts()[7].Address.Hex()})
		var out obj
		if code := getJSON(t, c, "/integrators/quote-data", &out); code != http.StatusOK {
			t.Fatalf("%d %v", code, out)
		}
		if str(t, out, "integratorId") != key.Integrator.ID || str(t, out, "apiKey.id") != key.ID || str(t, out, "volume30dUsd") != "0" ||
			get(t, out, "revenueShare.eligible") != false || str(t, out, "revenueShare.rule") != "standard" ||
			get(t, out, "sponsorship.canSponsor") != false || str(t, out, "flatExecutionFeeUsd") != "0.02" {
			t.Errorf("quote data: %v", out)
		}
		minor := get(t, out, "platformFees").([]any)[4]
		if str(t, minor, "class") != "minor" || str(t, minor, "totalBps") != "15" || str(t, minor, "integratorBps") != "0" {
			t.Errorf("minor: %v", minor)
		}
		if code := getJSON(t, s.API, "/integrators/quote-data", &out); code != http.StatusUnauthorized || out["errorCode"] != "UNAUTHORIZED" {
			t.Errorf("without a key: %d %v", code, out)
		}
	})

	t.Run("GET /withdrawals/status follows the return of a request's deposit", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		acct := devnet.TestAccounts()[3]
		w := &e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}
		filled := s.ethBridge(t, ctx, acct.Address, acct.Address, common.Address{}, "100000000000000000")
		if _, err := w.ExecuteSteps(ctx, filled); err != nil {
			t.Fatal(err)
		}
		refunded := s.ethBridge(t, ctx, acct.Address, acct.Address, common.Address{}, "100000000000000000")
		d := depositStep(t, refunded)
		v, _ := new(big.Int).SetString(d.Value, 10)
		d.Value = new(big.Int).Div(v, big.NewInt(2)).String() // underpaid: refunded
		if _, err := w.SendTx(ctx, d); err != nil {
			t.Fatal(err)
		}
		var out obj
		if code := getJSON(t, s.API, "/withdrawals/status?id="+refunded.RequestID, &out); code != http.StatusOK || out["status"] != "processing" {
			t.Errorf("in flight: %d %v", code, out)
		}
		for _, id := range []string{filled.RequestID, refunded.RequestID} {
			if _, _, err := s.API.WaitStatus(ctx, id, "success", "refund", "failure"); err != nil {
				t.Fatal(err)
			}
		}
		getJSON(t, s.API, "/withdrawals/status?id="+filled.RequestID, &out)
		if out["status"] != "failed" || out["transaction"] != nil || !strings.Contains(str(t, out, "reason"), "filled") {
			t.Errorf("filled: %v", out)
		}
		getJSON(t, s.API, "/withdrawals/status?id="+refunded.RequestID, &out)
		refund := s.refundReceipt(t, refunded.RequestID)
		if out["status"] != "executed" || str(t, out, "transaction.txHash") != refund.TxHash.Hex() ||
			str(t, out, "withdrawal.amount") != d.Value || str(t, out, "withdrawal.depositor") != acct.Address.Hex() {
			t.Errorf("refunded: %v", out)
		}
		if code := getJSON(t, s.API, "/withdrawals/status?id=0x"+strings.Repeat("ab", 32), &out); code != http.StatusNotFound ||
			out["errorCode"] != "REQUEST_NOT_FOUND" {
			t.Errorf("unknown id: %d %v", code, out)
		}
	})
}
