package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/intentd/intentd/internal/cli"
	"github.com/intentd/intentd/internal/cli/clitest"
)

// runAdmin runs `intentd admin args…` as the binary runs it, with lookup as its environment,
// and returns its error.
func runAdmin(ctx context.Context, args []string, lookup lookupFunc, stdout, stderr io.Writer) error {
	_, err := cli.Execute(ctx, newRootCmd(lookup), append([]string{"admin"}, args...), stdout, stderr)
	return err
}

// The refund's command line: flags before or after the requestId, with one dash or two (as the
// flag package took them), --operator defaulting to $USER; what is missing is refused before
// Temporal is dialled.
func TestParseRefundArgs(t *testing.T) {
	const id = "0x5555555555555555555555555555555555555555555555555555555555555555"
	for _, tc := range []struct {
		name     string
		args     []string
		user     string
		wantOp   string
		wantErr  string
		wantRcpt string
	}{
		{"flags after the id", []string{id, "--reason", "fill stuck", "--operator", "bob"}, "alice", "bob", "", ""},
		{"flags before the id", []string{"--reason=fill stuck", id}, "alice", "alice", "", ""},
		{"flags around the id", []string{"-reason", "x", id, "--recipient", "0xabc"}, "alice", "alice", "", "0xabc"},
		{"a reason that looks like a flag", []string{id, "--reason", "-x", "-operator=bob"}, "alice", "bob", "", ""},
		{"no id", []string{"--reason", "x"}, "alice", "", "requestId is missing", ""},
		{"two ids", []string{id, "--reason", "fill", "stuck"}, "alice", "", "one requestId expected", ""},
		{"no reason", []string{id}, "alice", "", "--reason is required", ""},
		{"no operator", []string{id, "--reason", "x"}, "", "", "--operator is required", ""},
		{"unknown flag", []string{id, "--reason", "x", "--force"}, "alice", "", "unknown flag: --force", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := clitest.DryRun(newRootCmd(lookupIn(map[string]string{"USER": tc.user})), append([]string{"admin", "refund"}, tc.args...)...)
			if tc.wantErr != "" {
				if r.Err == nil || !strings.Contains(r.Err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want %q", r.Err, tc.wantErr)
				}
				return
			}
			flag := func(name string) string { return r.Cmd.Flags().Lookup(name).Value.String() }
			if r.Err != nil || r.Cmd.Flags().Arg(0) != id || flag("operator") != tc.wantOp || flag("recipient") != tc.wantRcpt ||
				flag("reason") == "" || flag("timeout") != (10*time.Minute).String() {
				t.Fatalf("%v: %v", r.Cmd.Flags().Args(), r.Err)
			}
		})
	}
	if r := clitest.DryRun(newRootCmd(lookupIn(nil)), "admin", "refund", "-h"); r.Code != 0 || !strings.Contains(r.Stdout, "--timeout") {
		t.Fatalf("-h: %+v", r)
	}
}

func TestLoadAdminConfig(t *testing.T) {
	env := func(m map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	c, err := loadAdminConfig(env(map[string]string{"USER": "alice", "TEMPORAL_NAMESPACE": ""}))
	if err != nil || c != (adminConfig{TemporalAddress: "127.0.0.1:7233", TemporalNamespace: "default"}) {
		t.Fatalf("defaults: %+v %v", c, err)
	}
	c, err = loadAdminConfig(env(map[string]string{"TEMPORAL_ADDRESS": "temporal:7233", "TEMPORAL_NAMESPACE": "intents"}))
	if err != nil || c != (adminConfig{TemporalAddress: "temporal:7233", TemporalNamespace: "intents"}) {
		t.Fatalf("set: %+v %v", c, err)
	}
}

// Review L13: `intentd admin webhooks` checks URLs with the same policy as the api, so it too
// refuses WEBHOOK_ALLOW_PRIVATE=true unless ENVIRONMENT is dev (its default).
func TestWebhooksCommandRefusesWebhookAllowPrivateOutsideDev(t *testing.T) {
	env := func(m map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	base := map[string]string{"DATABASE_URL": "postgres://x@127.0.0.1/db", "WEBHOOK_ALLOW_PRIVATE": "true"}
	if _, err := loadWebhooksConfig(env(map[string]string{"DATABASE_URL": base["DATABASE_URL"], "WEBHOOK_ALLOW_PRIVATE": "true",
		"ENVIRONMENT": "production"})); err == nil || !strings.Contains(err.Error(), "WEBHOOK_ALLOW_PRIVATE") {
		t.Errorf("production: %v, want WEBHOOK_ALLOW_PRIVATE refused", err)
	}
	if c, err := loadWebhooksConfig(env(base)); err != nil || !c.AllowPrivate {
		t.Errorf("dev (the default): %+v %v, want it kept", c, err)
	}
}
