package chains_test

import (
	"strings"
	"testing"

	"github.com/intentd/intentd/chains"
	_ "github.com/intentd/intentd/chains/evm" // the EVM family, whose notation reads the chains' addresses
)

// TestPublicRPCURLHoldsNoCredentials: a "public" URL with a user or password in it is a secret
// configured in the wrong field, so the registry refuses it rather than serving it.
func TestPublicRPCURLHoldsNoCredentials(t *testing.T) {
	doc := `{"chains": [{"id": 1, "httpRpcUrl": "https://rpc.example/KEY", "publicRpcUrl": "%s",
		"currency": {"symbol": "ETH", "decimals": 18}}]}`
	for url, ok := range map[string]bool{
		"https://public.example/rpc":        true,
		"https://user:pass@rpc.example/rpc": false,
		"rpc.example":                       false,
	} {
		_, err := chains.ParseRegistry([]byte(strings.Replace(doc, "%s", url, 1)), func(string) (string, bool) { return "", false })
		if (err == nil) != ok {
			t.Errorf("%s: %v", url, err)
		}
	}
}

// The oracle spec's chain files name endpoints as $VARIABLE placeholders and VM families as
// ethereum-vm; both are read beside ${VAR:-default} and evm.
func TestSpecPlaceholdersAndVMFamilies(t *testing.T) {
	env := func(k string) (string, bool) {
		v, ok := map[string]string{"BASE_RPC_URL": "https://base.example/key"}[k]
		return v, ok
	}
	got, err := chains.ExpandPlaceholders(`"$BASE_RPC_URL" "${OTHER:-x}"`, env)
	if err != nil || got != `"https://base.example/key" "x"` {
		t.Fatalf("%q %v", got, err)
	}
	if _, err := chains.ExpandPlaceholders(`"$MISSING_RPC_URL"`, env); err == nil || !strings.Contains(err.Error(), "MISSING_RPC_URL") {
		t.Fatalf("missing: %v", err)
	}
	r, err := chains.ParseRegistry([]byte(`{"chains":[{"id":8453,"name":"base","vmType":"ethereum-vm","httpRpcUrl":"$BASE_RPC_URL",
		"currency":{"symbol":"ETH","decimals":18}}]}`), env)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := r.Get(8453); c.VMType != chains.VMTypeEVM || c.HTTPRPCURL != "https://base.example/key" {
		t.Fatalf("%+v", c)
	}
}

// Issue 33, point 1: a listed currency's refund gas ceiling (refundGas) is configuration
// "validated at start": one that no refund could be sent with, or above a block's worth, is a
// typo the registry refuses.
func TestARefundGasCeilingIsWholeGasWithinBounds(t *testing.T) {
	doc := `{"chains": [{"id": 1, "httpRpcUrl": "https://rpc.example/KEY",
		"currency": {"symbol": "ETH", "decimals": 18, "refundGas": %s}}]}`
	for gas, ok := range map[string]bool{"0": true, "21000": true, "400000": true, "20999": false, "10000001": false} {
		reg, err := chains.ParseRegistry([]byte(strings.Replace(doc, "%s", gas, 1)), func(string) (string, bool) { return "", false })
		if (err == nil) != ok {
			t.Errorf("refundGas %s: %v", gas, err)
		}
		if ok && gas == "400000" {
			if c, _ := reg.Get(1); c.Currency.RefundGas != 400_000 {
				t.Errorf("refundGas read as %d", c.Currency.RefundGas)
			}
		}
	}
}
