package chains_test

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/chains"
	_ "github.com/intentd/intentd/chains/evm" // the EVM family, whose notation reads the chains' addresses
)

func tieredRegistry(t *testing.T, extra string) (*chains.Registry, error) {
	t.Helper()
	doc := `{"chains": [{"id": 1, "httpRpcUrl": "https://rpc.example", "confirmations": 4,
		"currency": {"symbol": "ETH", "decimals": 18}` + extra + `}]}`
	return chains.ParseRegistry([]byte(doc), func(string) (string, bool) { return "", false })
}

// TestConfirmationsByValue holds the issue's rule "per chain, required confirmations tiered by
// the deposit's USD value (≤100: 1, ≤1000: 2, else 4)", with a maximum inclusive, and "an
// unlisted currency or a missing price takes the highest tier (never the lowest)".
func TestConfirmationsByValue(t *testing.T) {
	r, err := tieredRegistry(t, `, "confirmationTiers": [{"maxUsd": "100", "confirmations": 1}, {"maxUsd": "1000", "confirmations": 2}]`)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := r.Get(1)
	for _, tc := range []struct {
		usd    string
		priced bool
		want   uint64
	}{
		{"0", true, 1}, {"99.99", true, 1}, {"100", true, 1}, {"100.000001", true, 2}, {"1000", true, 2},
		{"1000.01", true, 4}, {"1000000", true, 4},
		{"1", false, 4}, // no price: the highest tier
		{"-1", true, 4},
	} {
		if got := c.DepositConfirmations(decimal.RequireFromString(tc.usd), tc.priced); got != tc.want {
			t.Errorf("%s USD (priced %v): %d confirmations, want %d", tc.usd, tc.priced, got, tc.want)
		}
	}
	if c.FinalConfirmations() != 4 || !c.Tiered() {
		t.Fatalf("final %d, tiered %v", c.FinalConfirmations(), c.Tiered())
	}
	if got := c.ExposureCap(decimal.NewFromInt(7)); !got.Equal(decimal.NewFromInt(7)) {
		t.Fatalf("default cap: %s", got)
	}

	r, err = tieredRegistry(t, `, "exposureCapUsd": "2500.5"`)
	if err != nil {
		t.Fatal(err)
	}
	c, _ = r.Get(1)
	if c.Tiered() || c.DepositConfirmations(decimal.NewFromInt(1), true) != 4 {
		t.Fatal("a chain without tiers waits its confirmations for every deposit")
	}
	if got := c.ExposureCap(decimal.NewFromInt(7)); !got.Equal(decimal.RequireFromString("2500.5")) {
		t.Fatalf("chain's cap: %s", got)
	}
}

// TestConfirmationTiersAreValidatedAtStart: "validate it at start (monotonic, decimals not
// floats)"; each mistake stops the registry with a message naming the tier.
func TestConfirmationTiersAreValidatedAtStart(t *testing.T) {
	for name, tc := range map[string]struct{ tiers, want string }{
		"a JSON number":                {`[{"maxUsd": 100, "confirmations": 1}]`, "maxUsd"},
		"not a decimal":                {`[{"maxUsd": "1e2x", "confirmations": 1}]`, "not a decimal string"},
		"zero maximum":                 {`[{"maxUsd": "0", "confirmations": 1}]`, "positive"},
		"zero confirmations":           {`[{"maxUsd": "100", "confirmations": 0}]`, "at least 1"},
		"more than final":              {`[{"maxUsd": "100", "confirmations": 5}]`, "more than the chain's 4"},
		"maxima not increasing":        {`[{"maxUsd": "100", "confirmations": 1}, {"maxUsd": "100", "confirmations": 2}]`, "above the tier before"},
		"confirmations decreasing":     {`[{"maxUsd": "100", "confirmations": 2}, {"maxUsd": "1000", "confirmations": 1}]`, "fewer than the tier before"},
		"a negative cap":               {`[], "exposureCapUsd": "-1"`, "at least 0"},
		"a cap that is not a decimal":  {`[], "exposureCapUsd": "lots"`, "exposureCapUsd"},
		"a cap given as a JSON number": {`[], "exposureCapUsd": 1000`, "exposureCapUsd"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := tieredRegistry(t, `, "confirmationTiers": `+tc.tiers)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}
