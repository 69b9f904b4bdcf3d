package main

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
	"time"
)

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
		{"no id", []string{"--reason", "x"}, "alice", "", "requestId is missing", ""},
		{"two ids", []string{id, "--reason", "fill", "stuck"}, "alice", "", "one requestId expected", ""},
		{"no reason", []string{id}, "alice", "", "--reason is required", ""},
		{"no operator", []string{id, "--reason", "x"}, "", "", "--operator is required", ""},
		{"unknown flag", []string{id, "--reason", "x", "--force"}, "alice", "", "see usage", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := parseRefundArgs(tc.args, tc.user, io.Discard)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || o.requestID != id || o.refund.Operator != tc.wantOp || o.refund.Recipient != tc.wantRcpt ||
				o.refund.Reason == "" || o.timeout != 10*time.Minute {
				t.Fatalf("%+v %v", o, err)
			}
		})
	}
	if _, err := parseRefundArgs([]string{"-h"}, "alice", io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
}

func TestLoadAdminConfig(t *testing.T) {
	env := func(m map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	c, err := loadAdminConfig(env(map[string]string{"USER": "alice", "TEMPORAL_NAMESPACE": ""}))
	if err != nil || c != (adminConfig{TemporalAddress: "127.0.0.1:7233", TemporalNamespace: "default", Operator: "alice"}) {
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
