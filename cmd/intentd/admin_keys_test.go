package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/testkit/testenv"
)

// admin runs `intentd admin args…` against the database at url as operator alice and returns
// stdout; it fails the test unless the command succeeds.
func admin(t *testing.T, url string, args ...string) string {
	t.Helper()
	out, err := adminErr(url, args...)
	if err != nil {
		t.Fatalf("intentd admin %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func adminErr(url string, args ...string) (string, error) {
	env := map[string]string{"DATABASE_URL": url, "USER": "alice"}
	var stdout, stderr bytes.Buffer
	err := runAdmin(context.Background(), args, func(k string) (string, bool) { v, ok := env[k]; return v, ok }, &stdout, &stderr)
	if err != nil {
		err = errors.Join(err, errors.New(stderr.String()))
	}
	return stdout.String(), err
}

func decode[T any](t *testing.T, s string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return v
}

// The keys and integrators commands against a real database: the key's value is printed by
// create only; keys are listed per integrator; every change is audited as made by the CLI's
// operator.
func TestAdminKeysAndIntegratorsCommands(t *testing.T) {
	url := testenv.DatabaseURL(t)
	acme := decode[auth.IntegratorView](t, admin(t, url, "integrators", "create", "--name", "acme", "--business-verified",
		"--payout-address", "0x70997970c51812dc3a010c7d01b50e0d17dc79c8", "--json"))
	other := decode[auth.IntegratorView](t, admin(t, url, "integrators", "create", "--name", "other", "--json"))
	if !acme.BusinessVerified || acme.PayoutAddress != "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" {
		t.Fatalf("acme %+v", acme)
	}

	text := admin(t, url, "keys", "create", "--integrator", acme.ID, "--label", "backend", "--environment", "staging",
		"--limit", "quote=600/1m")
	value := strings.Fields(strings.SplitN(text, "\n", 2)[0])[1]
	if !auth.WellFormed(value) || !strings.Contains(text, "only time the key is shown") || !strings.Contains(text, "quote=600/1m0s") ||
		!strings.Contains(text, "custom") {
		t.Fatalf("keys create printed:\n%s", text)
	}
	created := decode[struct {
		Key    string       `json:"key"`
		APIKey auth.KeyView `json:"apiKey"`
	}](t, admin(t, url, "keys", "create", "--integrator", other.ID, "--label", "theirs", "--json"))

	list := admin(t, url, "keys", "list", "--integrator", acme.ID)
	if strings.Contains(list, value[3:]) || strings.Contains(list, created.APIKey.ID) || !strings.Contains(list, value[:9]) {
		t.Fatalf("keys list shows a value or another integrator's key:\n%s", list)
	}
	keys := decode[struct {
		APIKeys []auth.KeyView `json:"apiKeys"`
	}](t, admin(t, url, "keys", "list", "--integrator", acme.ID, "--json")).APIKeys
	if len(keys) != 1 || keys[0].Label != "backend" || keys[0].Environment != "staging" {
		t.Fatalf("keys %+v", keys)
	}
	id := keys[0].ID

	admin(t, url, "keys", "rename", "--integrator", acme.ID, id, "--label", "backend (eu)")
	admin(t, url, "keys", "limits", "--integrator", acme.ID, id, "--tier", "elevated")
	if _, err := adminErr(url, "keys", "revoke", "--integrator", acme.ID, created.APIKey.ID); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("revoking another integrator's key: %v", err)
	}
	revoked := decode[auth.KeyView](t, admin(t, url, "keys", "revoke", "--integrator", acme.ID, id, "--reason", "rotated", "--json"))
	if revoked.Label != "backend (eu)" || revoked.Tier != auth.TierElevated || len(revoked.Limits) != 0 || revoked.RevokedAt == nil {
		t.Fatalf("revoked %+v", revoked)
	}

	admin(t, url, "integrators", "update", acme.ID, "--sponsor-wallet", "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", "--sponsor-chain-id", "31337")
	admin(t, url, "integrators", "sponsorship", "top-up", acme.ID, "--amount-usd", "100.50", "--reason", "wire 4711")
	if _, err := adminErr(url, "integrators", "sponsorship", "adjust", acme.ID, "--amount-usd", "-1"); err == nil {
		t.Fatal("an adjustment without a reason was made")
	}
	if _, err := adminErr(url, "integrators", "sponsorship", "adjust", acme.ID, "--amount-usd", "-101", "--reason", "x"); err == nil ||
		!strings.Contains(err.Error(), "negative") {
		t.Fatalf("adjustment below zero: %v", err)
	}
	shown := admin(t, url, "integrators", "show", acme.ID)
	for _, want := range []string{"acme", "USD 100.50", "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC on chain 31337", "backend (eu)"} {
		if !strings.Contains(shown, want) {
			t.Fatalf("show lacks %q:\n%s", want, shown)
		}
	}
	if strings.Contains(shown, value[3:]) || strings.Contains(admin(t, url, "integrators", "list"), value[3:]) {
		t.Fatal("a key value was printed after its creation")
	}

	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var n int
	var audit string
	if err := pool.QueryRow(context.Background(), `SELECT count(*), string_agg(a::text, E'\n') FROM admin_audit a
		WHERE via = 'cli' AND actor = 'alice'`).Scan(&n, &audit); err != nil || n != 9 {
		// 2 integrators, 2 keys, rename, limits, revoke, profile update, top-up
		t.Fatalf("%d audited changes, want 9: %v", n, err)
	}
	if strings.Contains(audit, value[3:]) || strings.Contains(audit, created.Key[3:]) {
		t.Fatal("a key value is in the audit trail")
	}
}

func TestAdminKeysCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"keys", "create", "--label", "x"}, "--integrator is required"},
		{[]string{"keys", "rename", "--integrator", "i", "--label", "x"}, "one KEY_ID expected"},
		{[]string{"keys", "create", "--integrator", "i", "--limit", "quote=fast"}, `"quote=fast" is not BUCKET=COUNT/PERIOD`},
		{[]string{"keys", "destroy"}, `unknown command "destroy"`},
		{[]string{"keys", "list", "--integrator", "i", "--name", "x"}, "unknown flag: --name"},
		{[]string{"integrators", "show"}, "one ID expected"},
	} {
		// A database nothing listens on: a bad command line is refused before it is dialled.
		_, err := adminErr("postgres://intentd@127.0.0.1:1/none?connect_timeout=1", tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v", tc.args, err)
		}
	}
	if _, err := adminErr("postgres://intentd@127.0.0.1:1/none?connect_timeout=1", "integrators", "list"); err == nil ||
		!strings.Contains(err.Error(), "does not answer") {
		t.Errorf("database down: %v", err)
	}
	if _, err := adminErr("", "integrators", "list"); err == nil || !strings.Contains(err.Error(), "DATABASE_URL") {
		t.Errorf("no DATABASE_URL: %v", err)
	}
	var stdout bytes.Buffer
	if err := runAdmin(context.Background(), []string{"keys", "--help"}, func(string) (string, bool) { return "", false }, &stdout, &bytes.Buffer{}); err != nil ||
		!strings.Contains(stdout.String(), "keys create") {
		t.Fatalf("--help: %v %s", err, stdout.String())
	}
}
