package integration

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/devnet/svm"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit"
	"github.com/intentd/intentd/testkit/e2e"
)

// Keys and tokens never reach a log (issue 13, Deliver 7): a full intent on the in-process stack
// with every credential in use — the dev API key on the quote and the status polls, a key that
// is not one, the admin token on an admin call and wrong tokens on others, the worker's key at
// the oracle, the solver's key signing the fill — logs every record at DEBUG, and none of them
// holds a key value, its hash, the admin token, the solver's or the oracle's private key, or the
// oracle API key. The standard library's logger (the HTTP servers' own errors) is captured too.
func TestKeysAndTokensNeverReachTheLogs(t *testing.T) {
	logs := newLogCapture()
	// The standard library's logger (the HTTP servers' own errors) goes to the capture too.
	oldDefault, oldOutput, oldFlags := slog.Default(), log.Writer(), log.Flags()
	slog.SetDefault(slog.New(logs))
	t.Cleanup(func() { slog.SetDefault(oldDefault); log.SetOutput(oldOutput); log.SetFlags(oldFlags) })
	s := startStackWith(t, stackOptions{logger: slog.New(logs)})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	// As `intentd-dev dev` makes it: an unlimited key of an integrator "dev".
	by := store.Actor{Name: "secrets-test", Via: store.ViaDev}
	in, err := s.Sys.Store.CreateIntegrator(ctx, auth.Integrator{Name: "dev"}, by)
	if err != nil {
		t.Fatal(err)
	}
	devKey, _, err := s.Sys.Store.CreateAPIKey(ctx, store.NewKey{IntegratorID: in.ID, Label: "dev", Environment: "dev",
		Tier: auth.TierDefault, Unlimited: true}, by)
	if err != nil {
		t.Fatal(err)
	}
	const wrongKey = "ik_5a1f0c3e9b7d24681357902468ace13579bdf02468ace13579bdf0246813579b"
	const wrongToken = "ia_0f9e8d7c6b5a49382716051f2e3d4c5b6a79887766554433221100ffeeddccbb"
	keyed := &e2e.Client{BaseURL: s.API.BaseURL, APIKey: devKey}

	acct := devnet.TestAccounts()[6]
	body := map[string]any{"user": acct.Address.Hex(), "recipient": freshAddress(t).Hex(), "originChainId": 31337,
		"destinationChainId": 31338, "originCurrency": "0x0000000000000000000000000000000000000000",
		"destinationCurrency": "0x0000000000000000000000000000000000000000", "amount": "200000000000000000",
		"tradeType": "EXACT_INPUT", "referrer": "secrets-test"}
	q, err := keyed.Quote(ctx, body)
	if err != nil {
		t.Fatalf("quote with the dev key: %v", err)
	}
	if code, _ := (&e2e.Client{BaseURL: s.API.BaseURL, APIKey: wrongKey}).Do(ctx, http.MethodPost, "/quote/v2", body, nil); code != http.StatusUnauthorized {
		t.Fatalf("quote with referrer and a wrong key: %d", code)
	}
	if _, err := (&e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}).ExecuteSteps(ctx, q); err != nil {
		t.Fatal(err)
	}
	final, seen, err := keyed.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
	if err != nil || final.Status != "success" {
		t.Fatalf("final %+v (seen %v): %v", final, seen, err)
	}

	refund := "/admin/requests/" + q.RequestID + "/refund"
	refundBody := map[string]any{"reason": "secrets test", "operator": "test"}
	for token, want := range map[string]int{wrongToken: http.StatusUnauthorized, testkit.AdminToken: http.StatusConflict} {
		if code, err := (&e2e.Client{BaseURL: s.Admin.BaseURL, Bearer: token}).Do(ctx, http.MethodPost, refund, refundBody, nil); code != want {
			t.Fatalf("admin refund of a request that succeeded: %d %v, want %d", code, err, want)
		}
	}

	keyHash := sha256.Sum256([]byte(devKey))
	secrets := map[string]string{
		"the dev API key":             devKey,
		"the dev API key's hash":      hex.EncodeToString(keyHash[:]),
		"a wrong API key":             wrongKey,
		"the admin token":             testkit.AdminToken,
		"a wrong admin token":         wrongToken,
		"the solver's private key":    hex.EncodeToString(crypto.FromECDSA(devnet.SolverKey())),
		"the oracle's signing key":    hex.EncodeToString(crypto.FromECDSA(devnet.OracleKey())),
		"the worker's oracle API key": testkit.OracleAPIKey,
		"the solver's Solana key":     svm.SolverKey().String(),
		"the Solana vault's key":      svm.VaultKey().String(),
	}
	records := logs.snapshot()
	var all strings.Builder
	debug, admin, sdk := 0, 0, 0
	for _, r := range records {
		all.WriteString(r.Msg + " " + r.Attrs + "\n")
		if r.Level == slog.LevelDebug {
			debug++
		}
		if strings.Contains(r.Msg, "admin refund") {
			admin++
		}
		if strings.Contains(r.Attrs, "component=temporal-sdk") {
			sdk++
		}
	}
	text := strings.ToLower(all.String())
	for what, secret := range secrets {
		if strings.Contains(text, strings.ToLower(secret)) {
			for _, line := range strings.Split(all.String(), "\n") {
				if strings.Contains(strings.ToLower(line), strings.ToLower(secret)) {
					t.Errorf("%s is in the logs: %s", what, line)
					break
				}
			}
		}
	}
	if debug == 0 || admin < 2 || sdk == 0 {
		t.Fatalf("the capture missed records: %d at DEBUG, %d of the admin calls, %d of the Temporal SDK, of %d", debug, admin, sdk, len(records))
	}
	t.Logf("%d records scanned (%d at DEBUG)", len(records), debug)
}
