// Package e2e runs the public TypeScript SDK (@relayprotocol/relay-sdk, with a viem wallet)
// against the engine on the devnet: sdk.test.mjs is the client, this test starts the stack it
// talks to; solana.test.mjs (solana_test.go) is a @solana/kit client and the SDK with its Solana
// adapter bridging from the local Solana chain; gasless.test.mjs (gasless_test.go) is a viem
// client, and the SDK's executeGaslessBatch, bridging USDC without ETH through POST /execute;
// perps.test.mjs (perps_test.go) is a viem client withdrawing from the local perps exchange as
// the SDK's own flow does.
// The Node packages are pinned in package-lock.json and installed by `make test` (npm ci); see
// e2e/README.md.
package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit"
)

// TestPublicSDK is the client contract end to end: every quote the API returns is executable by
// the SDK unmodified (ETH bridge, USDC bridge with approve, ETH -> USDC swap, each to success
// with at least the quoted minimum paid), an underpaid deposit reaches the SDK as a refund,
// a strict deposit address quoted through the SDK and paid by a plain transfer (ETH, USDC)
// reaches success, and a quote error reaches it as {message, errorCode}; each finished request
// reads back through GET /requests/v3 with an integrator's key. documentation.test.mjs runs on the
// same stack: the API reference at /documentation rendered in Chromium with nothing loaded from
// elsewhere (issue 39, point 5).
func TestPublicSDK(t *testing.T) {
	node := nodeFor(t, "@relayprotocol/relay-sdk")
	s := testkit.Start(t, testkit.Options{})

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// An integrator's key, for reading finished requests back through GET /requests/v3.
	pool, err := pgxpool.New(ctx, s.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	st, by := store.New(pool), store.Actor{Name: "e2e", Via: store.ViaCLI}
	in, err := st.CreateIntegrator(ctx, auth.Integrator{Name: "sdk suite"}, by)
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := st.CreateAPIKey(ctx, store.NewKey{IntegratorID: in.ID, Label: "sdk suite"}, by)
	if err != nil {
		t.Fatal(err)
	}
	// E2E_FILES narrows a run to some of the suite's files (space separated, say
	// E2E_FILES=sdk.test.mjs); make test runs them all.
	files := []string{"sdk.test.mjs", "stream.test.mjs", "browser.test.mjs", "documentation.test.mjs"}
	if f := strings.Fields(os.Getenv("E2E_FILES")); len(f) > 0 {
		files = f
	}
	if slices.Contains(files, "browser.test.mjs") || slices.Contains(files, "documentation.test.mjs") {
		chromium, err := filepath.Abs(filepath.Join("..", "scripts", "chromium.sh"))
		if err != nil {
			t.Fatal(err)
		}
		if out, err := exec.CommandContext(ctx, chromium).CombinedOutput(); err != nil {
			t.Fatalf("scripts/chromium.sh (the browser of browser.test.mjs): %v\n%s", err, out)
		}
	}
	args := append([]string{"--test", "--test-reporter=spec", "--test-concurrency=1"}, files...)
	runNode(t, ctx, node, "the SDK suite", args,
		"INTENTD_API_URL="+s.API.BaseURL,
		"INTENTD_WS_URL=ws"+strings.TrimPrefix(s.API.BaseURL, "http")+"/ws",
		"INTENTD_CHROMIUM=/usr/bin/chromium",
		"INTENTD_RPC_31337="+s.RPCs[31337],
		"INTENTD_RPC_31338="+s.RPCs[31338],
		"INTENTD_USDC="+devnet.USDCAddress.Hex(),
		"INTENTD_DEPOSITORY="+devnet.DepositoryAddress.Hex(),
		"INTENTD_API_KEY="+key,
	)
}
