package api

import (
	"bytes"
	"context"
	"encoding/hex"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/events"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// Issue 15, "webhook configuration per API key": one endpoint per key (URL, enabled, custom
// headers, a signing secret shown once and rotatable with an overlap) through the admin API;
// outside dev mode only https to public addresses; bad input is 400 and changes nothing; the
// secret and the header values never appear in another answer, the log or the audit trail.
func TestAdminAPIWebhooks(t *testing.T) {
	pool := testenv.Pool(t)
	st := store.New(pool)
	ctx := context.Background()
	key, _ := hex.DecodeString("00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff")
	sealer, err := events.NewSealer(key)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	s := &Server{Store: st, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		AdminTokenSHA256: tokenHash(adminToken), Webhooks: sealer}
	srv := httptest.NewServer(s.AdminHandler())
	t.Cleanup(srv.Close)
	a := &adminClient{t: t, base: srv.URL}
	by := store.Actor{Name: "t", Via: store.ViaCLI}
	in, err := st.CreateIntegrator(ctx, auth.Integrator{Name: "acme"}, by)
	if err != nil {
		t.Fatal(err)
	}
	_, k, err := st.CreateAPIKey(ctx, store.NewKey{IntegratorID: in.ID, Label: "prod"}, by)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := st.CreateIntegrator(ctx, auth.Integrator{Name: "other"}, by)
	path := "/admin/integrators/" + in.ID + "/keys/" + k.ID + "/webhook"

	var e Error
	if code := a.call("GET", path, nil, &e); code != http.StatusNotFound || e.Code != CodeWebhookNotFound {
		t.Fatalf("show before set: %d %+v", code, e)
	}
	for _, bad := range []map[string]any{
		{"operator": "alice", "url": "http://hooks.example.com/x"},                                                       // not https
		{"operator": "alice", "url": "https://127.0.0.1/x"},                                                              // loopback
		{"operator": "alice", "url": "https://10.0.0.1/x"},                                                               // private
		{"operator": "alice", "url": "https://93.184.216.34/x", "headers": map[string]string{"X-Signature-SHA256": "x"}}, // reserved
		{"operator": "alice", "url": "https://93.184.216.34/x", "headers": map[string]string{"Bad Name": "x"}},
		{"operator": "alice", "enabled": true},      // a new webhook needs a url
		{"operator": "alice", "url": 5},             // wrong type
		{"operator": "alice", "uri": "https://x.y"}, // unknown field
		{"url": "https://93.184.216.34/x"},          // no operator
	} {
		if code := a.call("PUT", path, bad, &e); code != http.StatusBadRequest || e.Code != CodeInvalidInput {
			t.Errorf("PUT %v: %d %+v, want 400 INVALID_INPUT", bad, code, e)
		}
	}
	if code := a.call("GET", path, nil, &e); code != http.StatusNotFound {
		t.Fatalf("a refused change created a webhook: %d", code)
	}

	var created struct {
		Webhook store.WebhookView `json:"webhook"`
		Secret  string            `json:"secret"`
	}
	body := map[string]any{"operator": "alice", "url": "https://93.184.216.34/hooks",
		"headers": map[string]string{"authorization": "Bearer receiver-token-123"}}
	if code := a.call("PUT", path, body, &created); code != http.StatusCreated || !strings.HasPrefix(created.Secret, events.SecretPrefix) ||
		!created.Webhook.Enabled || created.Webhook.URL != "https://93.184.216.34/hooks" ||
		strings.Join(created.Webhook.HeaderNames, ",") != "Authorization" ||
		!strings.HasPrefix(created.Secret, created.Webhook.SecretPrefix) {
		t.Fatalf("create: %d %+v", code, created)
	}
	shownIn := map[string]int{created.Secret: len(a.bodies) - 1}
	var shown store.WebhookView
	if code := a.call("GET", path, nil, &shown); code != http.StatusOK || shown.URL != created.Webhook.URL {
		t.Fatalf("show: %d %+v", code, shown)
	}
	var updated struct {
		Webhook store.WebhookView `json:"webhook"`
		Secret  string            `json:"secret"`
	}
	if code := a.call("PUT", path, map[string]any{"operator": "alice", "headers": map[string]string{}}, &updated); code != http.StatusOK ||
		updated.Secret != "" || len(updated.Webhook.HeaderNames) != 0 || updated.Webhook.SecretPrefix != created.Webhook.SecretPrefix {
		t.Fatalf("update: %d %+v (a change keeps the secret and shows none)", code, updated)
	}
	if code := a.call("POST", path+"/disable", map[string]any{"operator": "bob"}, &updated); code != http.StatusOK || updated.Webhook.Enabled {
		t.Fatalf("disable: %d %+v", code, updated)
	}
	var rotated struct {
		Webhook store.WebhookView `json:"webhook"`
		Secret  string            `json:"secret"`
	}
	if code := a.call("POST", path+"/rotate", map[string]any{"operator": "bob", "overlapSeconds": 999999999}, &e); code != http.StatusBadRequest {
		t.Fatalf("rotate with a too long overlap: %d", code)
	}
	if code := a.call("POST", path+"/rotate", map[string]any{"operator": "bob", "overlapSeconds": 3600}, &rotated); code != http.StatusOK ||
		rotated.Secret == "" || rotated.Secret == created.Secret || rotated.Webhook.PreviousSecretEnds == nil {
		t.Fatalf("rotate: %d %+v", code, rotated)
	}
	shownIn[rotated.Secret] = len(a.bodies) - 1
	var log struct {
		Deliveries []store.DeliveryLog `json:"deliveries"`
	}
	if code := a.call("GET", path+"/deliveries?state=dead", nil, &log); code != http.StatusOK || len(log.Deliveries) != 0 {
		t.Fatalf("deliveries: %d %+v", code, log)
	}
	if code := a.call("GET", path+"/deliveries?state=lost", nil, &e); code != http.StatusBadRequest {
		t.Fatalf("deliveries with a bad state: %d", code)
	}
	if code := a.call("POST", path+"/resend", map[string]any{"operator": "bob"}, &e); code != http.StatusBadRequest {
		t.Fatalf("resend without since: %d", code)
	}
	if code := a.call("POST", path+"/deliveries/42/resend", map[string]any{"operator": "bob"}, &e); code != http.StatusNotFound {
		t.Fatalf("resend of an unknown delivery: %d", code)
	}
	// Another integrator's path does not reach the key.
	if code := a.call("GET", "/admin/integrators/"+other.ID+"/keys/"+k.ID+"/webhook", nil, &e); code != http.StatusNotFound {
		t.Fatalf("another integrator's path: %d", code)
	}
	a.noToken = true
	if code := a.call("GET", path, nil, &e); code != http.StatusUnauthorized {
		t.Fatalf("without the admin token: %d", code)
	}

	var audit strings.Builder
	rows, err := pool.Query(ctx, `SELECT action, coalesce(before::text, ''), coalesce(after::text, '') FROM admin_audit ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for rows.Next() {
		var action, before, after string
		if err := rows.Scan(&action, &before, &after); err != nil {
			t.Fatal(err)
		}
		actions = append(actions, action)
		audit.WriteString(before + after)
	}
	rows.Close()
	if got := strings.Join(actions, ","); !strings.Contains(got, "webhook.create,webhook.update,webhook.disable,webhook.rotate") {
		t.Fatalf("audit trail: %s", got)
	}
	for _, secret := range []string{created.Secret, rotated.Secret, "receiver-token-123"} {
		for where, text := range map[string]string{"log": logs.String(), "audit": audit.String()} {
			if strings.Contains(text, secret) {
				t.Errorf("a secret reached the %s", where)
			}
		}
		for i, b := range a.bodies {
			if j, ok := shownIn[secret]; (!ok || i != j) && strings.Contains(b, secret) {
				t.Errorf("a secret reached answer %d: %s", i, b)
			}
		}
	}
	var stored []byte
	if err := pool.QueryRow(ctx, `SELECT headers FROM webhooks`).Scan(&stored); err == nil && bytes.Contains(stored, []byte("receiver-token")) {
		t.Error("custom header values are stored in the clear")
	}

	// Without WEBHOOK_SECRETS_KEY the API cannot seal a secret: 503, nothing changes.
	s2 := &Server{Store: st, Logger: slog.New(slog.DiscardHandler), AdminTokenSHA256: tokenHash(adminToken)}
	srv2 := httptest.NewServer(s2.AdminHandler())
	t.Cleanup(srv2.Close)
	a2 := &adminClient{t: t, base: srv2.URL}
	if code := a2.call("POST", path+"/rotate", map[string]any{"operator": "bob"}, &e); code != http.StatusServiceUnavailable ||
		e.Code != CodeWebhooksUnavailable {
		t.Fatalf("rotate without a sealer: %d %+v", code, e)
	}
}
