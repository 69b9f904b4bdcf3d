package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/chains/solana" // the Solana family's notation: the registry reads the Solana chain
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/prices"
	"github.com/intentd/intentd/quote"
)

// solWallet is a Solana wallet address, in base58's mixed case.
const solWallet = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"

// solanaChains is the devnet's EVM chains (31337, 31338) and the Solana chain, enabled, with SOL
// and USDC at its mint, every RPC dead: the Solana family has no client yet (no VM), so the
// engine lists the chain and quotes nothing to or from it.
func solanaChains(t *testing.T) *chains.Clients {
	t.Helper()
	list := devnet.ChainConfigs(map[uint64]string{31337: deadRPC, 31338: deadRPC})
	list = append(list, chains.Chain{ID: solana.ChainID, Name: "solana", DisplayName: "Solana", VMType: chains.VMTypeSVM,
		HTTPRPCURL: deadRPC, PublicRPCURL: "https://solana.example/rpc", DepositEnabled: true, Depository: solWallet,
		Currency: chains.Currency{ID: "sol", Symbol: "SOL", Name: "Solana", Decimals: solana.NativeDecimals},
		ERC20:    []chains.Currency{{ID: "usdc", Symbol: "USDC", Name: "USD Coin", Address: solana.USDCAddress, Decimals: solana.USDCDecimals}}})
	reg, err := chains.NewRegistry(list)
	if err != nil {
		t.Fatal(err)
	}
	return chains.NewClients(reg, evm.VM())
}

// Issue 36, point 2: "/chains lists the chain with vmType svm". The Solana chain is listed beside
// the EVM chains with its addresses as written (base58, case kept: SOL at the System Program's
// id, USDC at its mint, the depository), and without the EVM solver's address, which is not one
// of its.
func TestChainsListTheSolanaChainWithVMTypeSVMAndItsAddressesAsWritten(t *testing.T) {
	pool := solanaChains(t)
	h := quoteServer(t, pool, prices.Table{}, nil, nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/chains", nil))
	type currency struct {
		Address  string `json:"address"`
		Symbol   string `json:"symbol"`
		Decimals uint8  `json:"decimals"`
	}
	var out struct {
		Chains []struct {
			ID               uint64     `json:"id"`
			DisplayName      string     `json:"displayName"`
			VMType           string     `json:"vmType"`
			HTTPRPCURL       string     `json:"httpRpcUrl"`
			Currency         currency   `json:"currency"`
			ERC20Currencies  []currency `json:"erc20Currencies"`
			SolverCurrencies []currency `json:"solverCurrencies"`
			SolverAddresses  []string   `json:"solverAddresses"`
			Protocol         struct {
				V2 struct {
					Depository string `json:"depository"`
				} `json:"v2"`
			} `json:"protocol"`
		} `json:"chains"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &out); w.Code != http.StatusOK || err != nil || len(out.Chains) != 3 {
		t.Fatalf("%d %v: %s", w.Code, err, w.Body)
	}
	evmChain, sol := out.Chains[0], out.Chains[2]
	if evmChain.VMType != "evm" || len(evmChain.SolverAddresses) != 1 || evmChain.Currency.Address != chains.NativeAddress {
		t.Errorf("the EVM chain: %+v", evmChain)
	}
	if sol.ID != solana.ChainID || sol.VMType != "svm" || sol.DisplayName != "Solana" || sol.HTTPRPCURL != "https://solana.example/rpc" {
		t.Errorf("the Solana chain: %+v", sol)
	}
	if sol.Currency != (currency{Address: solana.NativeAddress, Symbol: "SOL", Decimals: 9}) {
		t.Errorf("SOL: %+v, want the System Program's id and 9 decimals", sol.Currency)
	}
	usdc := currency{Address: solana.USDCAddress, Symbol: "USDC", Decimals: 6}
	if len(sol.ERC20Currencies) != 1 || sol.ERC20Currencies[0] != usdc || len(sol.SolverCurrencies) != 2 || sol.SolverCurrencies[1] != usdc {
		t.Errorf("the Solana chain's tokens: %+v, %+v, want USDC at its mint as written", sol.ERC20Currencies, sol.SolverCurrencies)
	}
	if sol.Protocol.V2.Depository != solWallet || len(sol.SolverAddresses) != 0 {
		t.Errorf("depository %q, solvers %v: want the depository as written and no EVM solver", sol.Protocol.V2.Depository, sol.SolverAddresses)
	}

	// The currency search lists Solana's tokens as written and compares its addresses exactly.
	for query, want := range map[string]int{"?address=" + solana.USDCAddress: 1, "?address=" + strings.ToLower(solana.USDCAddress): 0,
		"?tokens=792703809:" + solana.NativeAddress: 1} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/currencies/v2"+query, nil))
		var found []struct {
			ChainID uint64 `json:"chainId"`
			Address string `json:"address"`
			VMType  string `json:"vmType"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &found); w.Code != http.StatusOK || err != nil || len(found) != want {
			t.Errorf("/currencies/v2%s: %d %s, want %d currencies", query, w.Code, w.Body, want)
			continue
		}
		for _, f := range found {
			if f.ChainID != solana.ChainID || f.VMType != "svm" || f.Address != solana.USDCAddress && f.Address != solana.NativeAddress {
				t.Errorf("/currencies/v2%s: %+v", query, f)
			}
		}
	}
}

// Issue 36, point 2: "INVALID_ADDRESS for an EVM address on the Solana side and the reverse", on
// every quote endpoint; and, until the family's funding, payout and steps exist, a quote to or
// from the Solana chain with good addresses is answered at once with 400 UNSUPPORTED_CHAIN
// saying Solana routes are not offered yet: never a crash, a hang or a retryable 503.
func TestAQuoteTouchingSolanaRefusesTheOtherFamilysAddressesAndIsNotOfferedYet(t *testing.T) {
	pool := solanaChains(t)
	src := prices.Table{"ETH": decimal.NewFromInt(3000), "USDC": decimal.NewFromInt(1), "SOL": decimal.NewFromInt(150)}
	h := quoteServer(t, pool, src, nil, nil)
	evmUser := devnet.TestAccounts()[0].Address.Hex()
	toSolana := func(over map[string]any) map[string]any {
		b := map[string]any{"user": evmUser, "originChainId": 31337, "originCurrency": devnet.USDCAddress.Hex(),
			"destinationChainId": solana.ChainID, "destinationCurrency": solana.USDCAddress, "recipient": solWallet, "amount": "10000000"}
		for k, v := range over {
			b[k] = v
		}
		return b
	}
	fromSolana := func(over map[string]any) map[string]any {
		b := map[string]any{"user": solWallet, "originChainId": solana.ChainID, "originCurrency": solana.USDCAddress,
			"destinationChainId": 31338, "destinationCurrency": devnet.USDCAddress.Hex(), "recipient": evmUser, "amount": "10000000"}
		for k, v := range over {
			b[k] = v
		}
		return b
	}
	cases := []struct {
		name string
		body map[string]any
		code string
		says string
	}{
		{"an EVM recipient on Solana", toSolana(map[string]any{"recipient": evmUser}), quote.CodeInvalidAddress, "is an EVM address"},
		{"no recipient, the EVM user's on Solana", toSolana(map[string]any{"recipient": ""}), quote.CodeInvalidAddress, "is an EVM address"},
		{"an EVM user on Solana", fromSolana(map[string]any{"user": evmUser}), quote.CodeInvalidAddress, "is an EVM address"},
		{"a base58 recipient on an EVM chain", fromSolana(map[string]any{"recipient": solWallet}), quote.CodeInvalidAddress,
			"is not a valid EVM address"},
		{"a base58 recipient between EVM chains", ethToUSDC(map[string]any{"recipient": solWallet}), quote.CodeInvalidAddress,
			"is not a valid EVM address"},
		{"EVM to Solana", toSolana(nil), quote.CodeUnsupportedChain, "Solana routes are not offered yet"},
		{"Solana to EVM", fromSolana(nil), quote.CodeUnsupportedChain, "Solana routes are not offered yet"},
		{"SOL to EVM", fromSolana(map[string]any{"originCurrency": solana.NativeAddress, "amount": "1000000000"}), quote.CodeUnsupportedChain,
			"Solana routes are not offered yet"},
	}
	for _, path := range []string{"/quote/v2", "/quote", "/price"} {
		for _, c := range cases {
			start := time.Now()
			status, body := postQuote(t, h, path, "", c.body)
			checkError(t, path+": "+c.name, status, body, c.code)
			if msg, _ := body["message"].(string); !strings.Contains(msg, c.says) || status != http.StatusBadRequest {
				t.Errorf("%s: %s: %d %v, want 400 %s saying %q", path, c.name, status, body, c.code, c.says)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("%s: %s answered in %v: it reached for a chain", path, c.name, d)
			}
		}
	}
	// GET /config/v2 prices the same route (quote.Engine.Bridge): refused the same way.
	for _, q := range []string{"originChainId=31337&destinationChainId=792703809", "originChainId=792703809&destinationChainId=31338"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/config/v2?currency=usdc&"+q, nil))
		var body map[string]any
		_ = json.Unmarshal(w.Body.Bytes(), &body)
		if msg, _ := body["message"].(string); w.Code != http.StatusBadRequest || body["errorCode"] != quote.CodeUnsupportedChain ||
			!strings.Contains(msg, "Solana routes are not offered yet") {
			t.Errorf("/config/v2?%s: %d %s, want 400 UNSUPPORTED_CHAIN", q, w.Code, w.Body)
		}
	}
}
