package api

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// adminClient calls the admin API of a real HTTP server and keeps every answer's body.
type adminClient struct {
	t       *testing.T
	base    string
	bodies  []string
	noToken bool
}

func (a *adminClient) call(method, path string, body any, out any) int {
	a.t.Helper()
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			a.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, a.base+path, rd)
	if err != nil {
		a.t.Fatal(err)
	}
	if !a.noToken {
		req.Header.Set("Authorization", "Bearer "+adminToken)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a.bodies = append(a.bodies, string(raw))
	if resp.Header.Get("Cache-Control") != "no-store" && resp.StatusCode != http.StatusUnauthorized {
		a.t.Errorf("%s %s: Cache-Control %q", method, path, resp.Header.Get("Cache-Control"))
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			a.t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, raw)
		}
	}
	return resp.StatusCode
}

// The admin API manages integrators and their keys over real HTTP, every change audited; one
// integrator's paths never show or change another's keys; a key's value is in its creation's
// answer only, never in another answer, the log or the audit trail.
func TestAdminAPIIntegratorsAndKeys(t *testing.T) {
	pool := testenv.Pool(t)
	st := store.New(pool)
	ctx := context.Background()
	var logs bytes.Buffer
	s := &Server{Store: st, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		AdminTokenSHA256: tokenHash(adminToken)}
	srv := httptest.NewServer(s.AdminHandler())
	t.Cleanup(srv.Close)
	a := &adminClient{t: t, base: srv.URL}

	var acme, other auth.IntegratorView
	if code := a.call("POST", "/admin/integrators", map[string]any{"operator": "alice", "name": "acme", "businessVerified": true,
		"payoutAddress": "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"}, &acme); code != http.StatusCreated ||
		acme.Name != "acme" || !acme.BusinessVerified || acme.PayoutAddress != "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" {
		t.Fatalf("create acme: %d %+v", code, acme)
	}
	if code := a.call("POST", "/admin/integrators", map[string]any{"operator": "alice", "name": "other"}, &other); code != http.StatusCreated {
		t.Fatalf("create other: %d", code)
	}
	type created struct {
		Key    string       `json:"key"`
		APIKey auth.KeyView `json:"apiKey"`
	}
	var mine, theirs created
	if code := a.call("POST", "/admin/integrators/"+acme.ID+"/keys", map[string]any{"operator": "alice", "label": "server",
		"environment": "staging"}, &mine); code != http.StatusCreated || !auth.WellFormed(mine.Key) ||
		mine.APIKey.Label != "server" || mine.APIKey.Environment != "staging" || mine.APIKey.IntegratorID != acme.ID {
		t.Fatalf("create key: %d %+v", code, mine)
	}
	if code := a.call("POST", "/admin/integrators/"+other.ID+"/keys", map[string]any{"operator": "bob", "label": "theirs"}, &theirs); code != http.StatusCreated {
		t.Fatalf("create their key: %d", code)
	}
	creations := len(a.bodies)

	// Listing per integrator: acme sees its key only, and no value.
	var list struct {
		APIKeys []auth.KeyView `json:"apiKeys"`
	}
	if code := a.call("GET", "/admin/integrators/"+acme.ID+"/keys", nil, &list); code != http.StatusOK || len(list.APIKeys) != 1 ||
		list.APIKeys[0].ID != mine.APIKey.ID || list.APIKeys[0].Prefix != mine.Key[:9] {
		t.Fatalf("acme's keys: %d %+v", code, list)
	}
	// Another integrator's key through acme's path: not found, for every operation.
	theirPath := "/admin/integrators/" + acme.ID + "/keys/" + theirs.APIKey.ID
	var e Error
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"GET", theirPath, nil},
		{"PATCH", theirPath, map[string]any{"operator": "alice", "label": "mine now"}},
		{"POST", theirPath + "/revoke", map[string]any{"operator": "alice"}},
	} {
		if code := a.call(c.method, c.path, c.body, &e); code != http.StatusNotFound || e.Code != CodeAPIKeyNotFound {
			t.Fatalf("%s %s: %d %+v", c.method, c.path, code, e)
		}
	}

	// Rename, limits, then the key resolves until it is revoked.
	mePath := "/admin/integrators/" + acme.ID + "/keys/" + mine.APIKey.ID
	var k auth.KeyView
	if code := a.call("PATCH", mePath, map[string]any{"operator": "alice", "label": "backend", "tier": "custom",
		"limits": map[string]any{"quote": map[string]any{"count": 600, "period": "1m"}}}, &k); code != http.StatusOK ||
		k.Label != "backend" || k.Tier != auth.TierCustom || k.Limits["quote"] != (auth.RateView{Count: 600, Period: "1m0s"}) {
		t.Fatalf("update: %d %+v", code, k)
	}
	if code := a.call("PATCH", mePath, map[string]any{"operator": "alice", "label": "x", "tier": "gold"}, &e); code != http.StatusBadRequest {
		t.Fatalf("bad tier: %d %+v", code, e)
	}
	if got, _ := st.APIKey(ctx, acme.ID, mine.APIKey.ID); got.Label != "backend" {
		t.Fatalf("a refused update renamed the key: %q", got.Label)
	}
	if key, err := auth.NewResolver(st, auth.ResolverOptions{}).Resolve(ctx, mine.Key); err != nil || key == nil || key.ID != mine.APIKey.ID {
		t.Fatalf("the created key does not resolve: %+v %v", key, err)
	}
	if code := a.call("POST", mePath+"/revoke", map[string]any{"operator": "alice", "reason": "leaked"}, &k); code != http.StatusOK || k.RevokedAt == nil {
		t.Fatalf("revoke: %d %+v", code, k)
	}
	if key, err := auth.NewResolver(st, auth.ResolverOptions{}).Resolve(ctx, mine.Key); err != nil || key != nil {
		t.Fatalf("a revoked key resolves: %+v %v", key, err)
	}

	// Sponsorship balance: top-up, adjustment, never below zero.
	var in auth.IntegratorView
	base := "/admin/integrators/" + acme.ID
	if code := a.call("POST", base+"/sponsorship/top-ups", map[string]any{"operator": "alice", "amountUsd": "100.25", "reason": "wire 4711"}, &in); code != http.StatusOK ||
		in.SponsorBalanceUSD.String() != "100.25" {
		t.Fatalf("top-up: %d %+v", code, in)
	}
	if code := a.call("POST", base+"/sponsorship/adjustments", map[string]any{"operator": "alice", "amountUsd": "-200", "reason": "oops"}, &e); code != http.StatusConflict ||
		e.Code != CodeSponsorBalanceNegative {
		t.Fatalf("adjust below zero: %d %+v", code, e)
	}
	if code := a.call("PATCH", base, map[string]any{"operator": "alice", "sponsorWallet": "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
		"sponsorChainId": 31337}, &in); code != http.StatusOK || in.SponsorChainID != 31337 || in.Name != "acme" || !in.BusinessVerified {
		t.Fatalf("update integrator: %d %+v", code, in)
	}
	var all struct {
		Integrators []auth.IntegratorView `json:"integrators"`
	}
	if code := a.call("GET", "/admin/integrators", nil, &all); code != http.StatusOK || len(all.Integrators) != 2 {
		t.Fatalf("list integrators: %d %+v", code, all)
	}
	if code := a.call("GET", base, nil, &in); code != http.StatusOK || in.ID != acme.ID {
		t.Fatalf("show: %d %+v", code, in)
	}

	// Without the token nothing is answered.
	noToken := &adminClient{t: t, base: srv.URL, noToken: true}
	if code := noToken.call("GET", "/admin/integrators/"+acme.ID+"/keys", nil, &e); code != http.StatusUnauthorized || e.Code != CodeUnauthorized {
		t.Fatalf("no token: %d %+v", code, e)
	}

	// Every change is in the audit trail, made over HTTP by its operator.
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM admin_audit WHERE via = 'http' AND actor IN ('alice', 'bob') AND remote <> ''`).Scan(&n); err != nil || n != 9 {
		// 2 integrators, 2 keys, the key's rename and limits, its revocation, the top-up and
		// the profile update; the refused changes none.
		t.Fatalf("%d audited changes, want 9: %v", n, err)
	}
	var audit string
	if err := pool.QueryRow(ctx, `SELECT string_agg(a::text, E'\n') FROM admin_audit a`).Scan(&audit); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{mine.Key, theirs.Key} {
		secret, hash := v[3:], hex.EncodeToString(auth.Hash(v))
		if n := strings.Count(strings.Join(a.bodies[:creations], "\n"), secret); n != 1 {
			t.Fatalf("the key is in %d creation answers, want its own only", n)
		}
		for where, text := range map[string]string{"a later answer": strings.Join(a.bodies[creations:], "\n"),
			"the log": logs.String(), "the audit trail": audit} {
			if strings.Contains(text, secret) || strings.Contains(text, hash) {
				t.Fatalf("a key value or hash is in %s:\n%s", where, text)
			}
		}
	}
	if strings.Contains(logs.String(), adminToken) {
		t.Fatal("the admin token was logged")
	}
}
