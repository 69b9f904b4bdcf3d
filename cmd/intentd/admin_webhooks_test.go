package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/events"
	"github.com/intentd/intentd/testkit/testenv"
)

// Review L15: after WEBHOOK_SECRETS_KEY is rotated (the old key moved to
// WEBHOOK_SECRETS_PREVIOUS_KEYS), `intentd admin webhooks reseal` seals every webhook's values
// again under the new key; run again, it has nothing to do. Without a key it says so.
func TestAdminWebhooksResealCommand(t *testing.T) {
	url := testenv.DatabaseURL(t)
	oldKey, newKey := strings.Repeat("11", 32), strings.Repeat("22", 32)
	run := func(env map[string]string, args ...string) (string, error) {
		env["DATABASE_URL"], env["USER"] = url, "alice"
		var stdout, stderr bytes.Buffer
		err := runAdmin(context.Background(), args, func(k string) (string, bool) { v, ok := env[k]; return v, ok }, &stdout, &stderr)
		if err != nil {
			err = errors.Join(err, errors.New(stderr.String()))
		}
		return stdout.String(), err
	}
	acme := decode[auth.IntegratorView](t, admin(t, url, "integrators", "create", "--name", "acme", "--json"))
	key := decode[struct {
		APIKey auth.KeyView `json:"apiKey"`
	}](t, admin(t, url, "keys", "create", "--integrator", acme.ID, "--label", "k", "--json")).APIKey
	if _, err := run(map[string]string{"WEBHOOK_SECRETS_KEY": oldKey, "WEBHOOK_ALLOW_PRIVATE": "true"}, "webhooks", "set",
		"--integrator", acme.ID, key.ID, "--url", "http://127.0.0.1:9/hook", "--header", "X-Token: t"); err != nil {
		t.Fatal(err)
	}
	rotated := map[string]string{"WEBHOOK_SECRETS_KEY": newKey, "WEBHOOK_SECRETS_PREVIOUS_KEYS": oldKey}
	out, err := run(rotated, "webhooks", "reseal", "--json")
	if res := decode[events.ResealResult](t, out); err != nil || res.Webhooks != 1 || res.Resealed != 1 || len(res.Unopened) != 0 {
		t.Fatalf("reseal: %s %v", out, err)
	}
	out, err = run(map[string]string{"WEBHOOK_SECRETS_KEY": newKey}, "webhooks", "reseal")
	if err != nil || !strings.Contains(out, "webhooks read 1, sealed again under the current key 0") {
		t.Fatalf("second reseal under the new key alone: %q %v", out, err)
	}
	if _, err := run(map[string]string{}, "webhooks", "reseal"); !errors.Is(err, events.ErrUnconfigured) {
		t.Fatalf("reseal without WEBHOOK_SECRETS_KEY: %v", err)
	}
}
