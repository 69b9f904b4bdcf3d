package chains

import (
	"strings"
	"testing"
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
		_, err := ParseRegistry([]byte(strings.Replace(doc, "%s", url, 1)), func(string) (string, bool) { return "", false })
		if (err == nil) != ok {
			t.Errorf("%s: %v", url, err)
		}
	}
}
