package api

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/intentd/intentd/chains"
)

// TestChainsServeNoPrivateRPCURL: the engine's RPC URLs carry the provider's key, so GET /chains
// serves only the public URLs a chain is configured with, and "" for a chain that has none.
func TestChainsServeNoPrivateRPCURL(t *testing.T) {
	const secret = "k3y-0f-the-rpc-provider"
	eth := chains.Currency{ID: "eth", Symbol: "ETH", Name: "Ether", Decimals: 18}
	reg, err := chains.NewRegistry([]chains.Chain{
		{ID: 1, Name: "private", HTTPRPCURL: "https://rpc.example/v2/" + secret, WSRPCURL: "wss://rpc.example/ws/" + secret, Currency: eth},
		{ID: 2, Name: "public", HTTPRPCURL: "https://rpc.example/v2/" + secret, WSRPCURL: "wss://rpc.example/ws/" + secret,
			PublicRPCURL: "https://public.example/rpc", PublicWSRPCURL: "wss://public.example/ws", Currency: eth},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer((&Server{Chains: reg, Logger: slog.New(slog.DiscardHandler)}).Handler())
	defer srv.Close()
	res, err := http.Get(srv.URL + "/chains")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || strings.Contains(string(body), secret) {
		t.Fatalf("%d: the private RPC URL is served: %s", res.StatusCode, body)
	}
	var out struct {
		Chains []struct {
			ID         uint64 `json:"id"`
			HTTPRPCURL string `json:"httpRpcUrl"`
			WSRPCURL   string `json:"wsRpcUrl"`
		} `json:"chains"`
	}
	if err := json.Unmarshal(body, &out); err != nil || len(out.Chains) != 2 {
		t.Fatalf("%v: %s", err, body)
	}
	if c := out.Chains[0]; c.HTTPRPCURL != "" || c.WSRPCURL != "" {
		t.Errorf("chain without public URLs: %+v", c)
	}
	if c := out.Chains[1]; c.HTTPRPCURL != "https://public.example/rpc" || c.WSRPCURL != "wss://public.example/ws" {
		t.Errorf("chain with public URLs: %+v", c)
	}
}
