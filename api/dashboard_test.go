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
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/events"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// dashClient calls the dashboard over real HTTP as one browser would: it keeps the session
// cookie (set by hand: Go's cookiejar does not send a Secure cookie over plain http, where a
// browser on loopback does) and sends the CSRF token it was given.
type dashClient struct {
	t      *testing.T
	base   string
	ip     string // X-Forwarded-For, so that tests can be different clients
	cookie string
	csrf   string
	noCSRF bool
	bodies []string
}

func (d *dashClient) call(method, path string, body any, out any) (int, http.Header) {
	d.t.Helper()
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			d.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, d.base+path, rd)
	if err != nil {
		d.t.Fatal(err)
	}
	if d.cookie != "" {
		req.Header.Set("Cookie", DashboardCookie+"="+d.cookie)
	}
	if d.csrf != "" && !d.noCSRF {
		req.Header.Set(DashboardCSRFHeader, d.csrf)
	}
	if d.ip != "" {
		req.Header.Set("X-Forwarded-For", d.ip)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		d.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	d.bodies = append(d.bodies, string(raw))
	if resp.Header.Get("Cache-Control") != "no-store" {
		d.t.Errorf("%s %s: Cache-Control %q", method, path, resp.Header.Get("Cache-Control"))
	}
	for _, c := range resp.Cookies() {
		if c.Name == DashboardCookie {
			if !c.HttpOnly || !c.Secure || c.SameSite != http.SameSiteStrictMode || c.Path != "/dashboard" {
				d.t.Errorf("%s %s: the session cookie is not HttpOnly, Secure, SameSite=Strict, Path=/dashboard: %+v", method, path, c)
			}
			d.cookie = c.Value
		}
	}
	if out != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			d.t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, raw)
		}
	}
	return resp.StatusCode, resp.Header
}

// signIn signs d in by password and keeps the CSRF token.
func (d *dashClient) signIn(email, password string) dashboardMeJSON {
	d.t.Helper()
	var me dashboardMeJSON
	if code, _ := d.call("POST", "/dashboard/api/session", map[string]string{"email": email, "password": password}, &me); code != http.StatusOK {
		d.t.Fatalf("sign in as %s: %d %s", email, code, d.bodies[len(d.bodies)-1])
	}
	d.csrf = me.CSRFToken
	return me
}

// dashboardStack is a public API server (the dashboard's listener) and an admin one over a fresh
// database, with webhooks configured and loopback receivers allowed.
type dashboardStack struct {
	pool   *pgxpool.Pool
	st     *store.Store
	s      *Server
	api    *httptest.Server
	admin  *adminClient
	sealer *events.Sealer
	logs   *bytes.Buffer
}

func newDashboardStack(t *testing.T) *dashboardStack {
	t.Helper()
	pool := testenv.Pool(t)
	st := store.New(pool)
	key, _ := hex.DecodeString("00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff")
	sealer, err := events.NewSealer(key)
	if err != nil {
		t.Fatal(err)
	}
	logs := &bytes.Buffer{}
	s := &Server{Store: st, Quotes: &quote.Engine{}, Logger: slog.New(slog.NewTextHandler(&syncWriter{w: logs}, &slog.HandlerOptions{Level: slog.LevelDebug})),
		AdminTokenSHA256: tokenHash(adminToken), Webhooks: sealer, WebhookPolicy: events.URLPolicy{AllowPrivate: true},
		TrustedProxies: []string{"127.0.0.1"}, Keys: auth.NewResolver(st, auth.ResolverOptions{MaxAge: time.Millisecond})}
	api := httptest.NewServer(s.Handler())
	t.Cleanup(api.Close)
	adm := httptest.NewServer(s.AdminHandler())
	t.Cleanup(adm.Close)
	return &dashboardStack{pool: pool, st: st, s: s, api: api, admin: &adminClient{t: t, base: adm.URL}, sealer: sealer, logs: logs}
}

// syncWriter lets the servers' goroutines log into one buffer.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// owner makes an integrator and its owner through the admin API, signs the owner in by a
// one-time link and sets their password.
func (ds *dashboardStack) owner(t *testing.T, name, email, password string) (auth.IntegratorView, *dashClient) {
	t.Helper()
	var in auth.IntegratorView
	if code := ds.admin.call("POST", "/admin/integrators", map[string]any{"operator": "ops", "name": name}, &in); code != http.StatusCreated {
		t.Fatalf("create integrator: %d", code)
	}
	var u auth.DashboardUserView
	if code := ds.admin.call("POST", "/admin/integrators/"+in.ID+"/dashboard-users", map[string]any{"operator": "ops",
		"email": email, "role": "owner"}, &u); code != http.StatusCreated || u.Role != auth.RoleOwner || u.HasPassword {
		t.Fatalf("create owner: %d %+v", code, u)
	}
	var link dashboardLinkJSON
	if code := ds.admin.call("POST", "/admin/integrators/"+in.ID+"/dashboard-users/"+u.ID+"/links", map[string]any{"operator": "ops"},
		&link); code != http.StatusCreated || link.Path != "/dashboard/#link="+link.Token {
		t.Fatalf("issue link: %d %+v", code, link)
	}
	d := &dashClient{t: t, base: ds.api.URL, ip: "198.51.100.1"}
	var me dashboardMeJSON
	if code, _ := d.call("POST", "/dashboard/api/session/link", map[string]string{"token": link.Token}, &me); code != http.StatusOK ||
		me.User.ID != u.ID || me.Integrator.ID != in.ID || me.CSRFToken == "" {
		t.Fatalf("sign in by link: %d %+v", code, me)
	}
	d.csrf = me.CSRFToken
	if code, _ := d.call("PUT", "/dashboard/api/me/password", map[string]string{"newPassword": password}, nil); code != http.StatusOK {
		t.Fatalf("set password: %d %s", code, d.bodies[len(d.bodies)-1])
	}
	return in, d
}

// Issue 39: "sign-in by email and password or an admin-issued one-time link; sessions in secure,
// HTTP-only cookies with CSRF protection; sign-in attempts limited". A link signs in once; a
// wrong email and a wrong password answer alike; the sixth attempt for an email within 15
// minutes is 429 with Retry-After, the right password too; a change without the CSRF token is
// 403; sign-out ends the session.
func TestDashboardSignInByPasswordAndLinkSessionsCSRFAndTheLimit(t *testing.T) {
	ds := newDashboardStack(t)
	in, owner := ds.owner(t, "acme", "Owner@Acme.example", "correct horse battery staple")

	// The link was used once: a second use fails, as does an unknown one.
	var link dashboardLinkJSON
	users, _ := ds.st.DashboardUsers(context.Background(), in.ID)
	if code := ds.admin.call("POST", "/admin/integrators/"+in.ID+"/dashboard-users/"+users[0].ID+"/links", map[string]any{"operator": "ops"},
		&link); code != http.StatusCreated {
		t.Fatalf("issue link: %d", code)
	}
	other := &dashClient{t: t, base: ds.api.URL, ip: "198.51.100.2"}
	var e Error
	if code, _ := other.call("POST", "/dashboard/api/session/link", map[string]string{"token": link.Token}, nil); code != http.StatusOK {
		t.Fatalf("first use of a link: %d", code)
	}
	other.cookie = ""
	if code, _ := other.call("POST", "/dashboard/api/session/link", map[string]string{"token": link.Token}, &e); code != http.StatusUnauthorized ||
		e.Code != CodeUnauthorized || other.cookie != "" {
		t.Fatalf("a link used twice: %d %+v", code, e)
	}

	// Password: the email in any case signs in; /me names the user, role, integrator and token.
	d := &dashClient{t: t, base: ds.api.URL, ip: "198.51.100.3"}
	me := d.signIn(" owner@acme.EXAMPLE ", "correct horse battery staple")
	if me.User.Email != "owner@acme.example" || me.Role != auth.RoleOwner || me.Integrator.Name != "acme" || !me.User.HasPassword {
		t.Fatalf("me: %+v", me)
	}
	var again dashboardMeJSON
	if code, _ := d.call("GET", "/dashboard/api/me", nil, &again); code != http.StatusOK || again.CSRFToken != me.CSRFToken {
		t.Fatalf("GET me: %d %+v", code, again)
	}
	// A password change ends the user's other sessions, and needs the current password.
	if code, _ := owner.call("PUT", "/dashboard/api/me/password", map[string]string{"newPassword": "correct horse battery staple"}, &e); code != http.StatusForbidden {
		t.Fatalf("a password change without the current one: %d %+v", code, e)
	}
	if code, _ := owner.call("PUT", "/dashboard/api/me/password", map[string]string{"currentPassword": "correct horse battery staple",
		"newPassword": "correct horse battery staple"}, nil); code != http.StatusOK {
		t.Fatalf("password change: %d", code)
	}
	if code, _ := owner.call("GET", "/dashboard/api/me", nil, &e); code != http.StatusOK {
		t.Fatalf("the session that changed the password: %d", code)
	}
	for _, c := range []*dashClient{other, d} {
		if code, _ := c.call("GET", "/dashboard/api/me", nil, &e); code != http.StatusUnauthorized {
			t.Fatalf("another session after a password change: %d", code)
		}
	}
	d.cookie = ""
	me = d.signIn("owner@acme.example", "correct horse battery staple")

	// CSRF: a change without the token, or with another session's, is 403 and changes nothing.
	d.noCSRF = true
	if code, _ := d.call("POST", "/dashboard/api/keys", map[string]string{"label": "x"}, &e); code != http.StatusForbidden || e.Code != CodeForbidden {
		t.Fatalf("a change without X-CSRF-Token: %d %+v", code, e)
	}
	d.noCSRF = false
	mine := d.csrf
	d.csrf = owner.csrf
	if code, _ := d.call("DELETE", "/dashboard/api/session", nil, &e); code != http.StatusForbidden {
		t.Fatalf("a change with another session's token: %d", code)
	}
	d.csrf = mine
	if keys, _ := ds.st.APIKeys(context.Background(), in.ID); len(keys) != 0 {
		t.Fatalf("a refused change created a key: %d", len(keys))
	}
	// No cookie, a made-up one: 401.
	anon := &dashClient{t: t, base: ds.api.URL}
	if code, _ := anon.call("GET", "/dashboard/api/me", nil, &e); code != http.StatusUnauthorized {
		t.Fatalf("no session: %d", code)
	}
	anon.cookie = strings.Repeat("A", 43)
	if code, _ := anon.call("GET", "/dashboard/api/me", nil, &e); code != http.StatusUnauthorized {
		t.Fatalf("a made-up session: %d", code)
	}

	// A wrong password and an unknown email answer the same, in similar time.
	attacker := &dashClient{t: t, base: ds.api.URL, ip: "203.0.113.9"}
	var wrong, unknown Error
	start := time.Now()
	codeWrong, _ := attacker.call("POST", "/dashboard/api/session", map[string]string{"email": "owner@acme.example", "password": "not it at all"}, &wrong)
	tookWrong := time.Since(start)
	start = time.Now()
	codeUnknown, _ := attacker.call("POST", "/dashboard/api/session", map[string]string{"email": "nobody@acme.example", "password": "not it at all"}, &unknown)
	tookUnknown := time.Since(start)
	if codeWrong != http.StatusUnauthorized || codeUnknown != codeWrong || wrong != unknown || attacker.cookie != "" {
		t.Fatalf("wrong password %d %+v, unknown email %d %+v", codeWrong, wrong, codeUnknown, unknown)
	}
	if tookUnknown < tookWrong/4 {
		t.Errorf("an unknown email answered in %s, a wrong password in %s: the hash was not checked", tookUnknown, tookWrong)
	}

	// The limit: 5 attempts per email in 15 minutes (one is spent above); the sixth is 429, the
	// right password too, from another client too.
	for i := 0; i < 4; i++ {
		if code, _ := attacker.call("POST", "/dashboard/api/session", map[string]string{"email": "owner@acme.example", "password": "guess " + strconv.Itoa(i)}, &e); code != http.StatusUnauthorized {
			t.Fatalf("attempt %d: %d %+v", i+2, code, e)
		}
	}
	late := &dashClient{t: t, base: ds.api.URL, ip: "198.51.100.4"}
	code, h := late.call("POST", "/dashboard/api/session", map[string]string{"email": "owner@acme.example", "password": "correct horse battery staple"}, &e)
	if retry, _ := strconv.Atoi(h.Get("Retry-After")); code != http.StatusTooManyRequests || e.Code != CodeRateLimited || retry < 1 || retry > 900 || late.cookie != "" {
		t.Fatalf("the sixth attempt: %d %+v Retry-After %q", code, e, h.Get("Retry-After"))
	}
	// Per client: 20 attempts in 15 minutes, whatever the emails.
	for i := range 14 { // the client's attempts 7 to 20 (the sixth above was refused, not counted)
		if code, _ := attacker.call("POST", "/dashboard/api/session", map[string]string{"email": "x" + strconv.Itoa(i) + "@acme.example", "password": "guess"}, &e); code != http.StatusUnauthorized {
			t.Fatalf("client attempt %d: %d", i+7, code)
		}
	}
	if code, h := attacker.call("POST", "/dashboard/api/session/link", map[string]string{"token": link.Token}, &e); code != http.StatusTooManyRequests ||
		h.Get("Retry-After") == "" {
		t.Fatalf("the client's 21st attempt: %d %+v", code, e)
	}

	// Sign-out ends the session and clears the cookie.
	if code, _ := d.call("DELETE", "/dashboard/api/session", nil, nil); code != http.StatusNoContent || d.cookie != "" {
		t.Fatalf("sign out: %d cookie %q", code, d.cookie)
	}
	d.cookie = owner.cookie // the ended session's token would not come back; another live one still works
	if code, _ := d.call("GET", "/dashboard/api/me", nil, nil); code != http.StatusOK {
		t.Fatalf("another session after a sign-out: %d", code)
	}

	// Nothing stores a credential as it is; no password, session or link token reaches the log.
	var stored string
	if err := ds.pool.QueryRow(context.Background(), `SELECT password_hash FROM dashboard_users`).Scan(&stored); err != nil ||
		!strings.HasPrefix(stored, "$argon2id$") || strings.Contains(stored, "correct horse") {
		t.Fatalf("the stored password: %q %v", stored, err)
	}
	for _, secret := range []string{"correct horse", link.Token, owner.cookie, me.CSRFToken} {
		if strings.Contains(ds.logs.String(), secret) {
			t.Errorf("a credential reached the log: %s", secret)
		}
	}
}

// Issue 39: "roles (owner, developer, support: support sees requests, never keys)", "Team (owner
// only)", public-api-notes §4 "keys shown as names only". An owner invites a developer and a
// support user; the developer cannot manage the team; support sees key labels only and is 403 on
// every other key and webhook route; the last owner cannot be demoted.
func TestDashboardRolesTeamAndKeysAsEachRoleMay(t *testing.T) {
	ds := newDashboardStack(t)
	in, owner := ds.owner(t, "acme", "owner@acme.example", "correct horse battery staple")
	_, k, err := ds.st.CreateAPIKey(context.Background(), store.NewKey{IntegratorID: in.ID, Label: "server"}, store.Actor{Name: "t", Via: store.ViaCLI})
	if err != nil {
		t.Fatal(err)
	}
	invite := func(email string, role auth.Role) *dashClient {
		var out invitedJSON
		if code, _ := owner.call("POST", "/dashboard/api/team", map[string]any{"email": email, "role": role}, &out); code != http.StatusCreated ||
			out.User.Role != role || out.Link.Token == "" {
			t.Fatalf("invite %s: %d %+v", email, code, out)
		}
		d := &dashClient{t: t, base: ds.api.URL, ip: "198.51.100.7"}
		var me dashboardMeJSON
		if code, _ := d.call("POST", "/dashboard/api/session/link", map[string]string{"token": out.Link.Token}, &me); code != http.StatusOK || me.Role != role {
			t.Fatalf("%s signs in by the invitation: %d %+v", email, code, me)
		}
		d.csrf = me.CSRFToken
		return d
	}
	dev := invite("dev@acme.example", auth.RoleDeveloper)
	support := invite("support@acme.example", auth.RoleSupport)
	var e Error
	if code, _ := owner.call("POST", "/dashboard/api/team", map[string]any{"email": "DEV@acme.example", "role": "support"}, &e); code != http.StatusConflict ||
		e.Code != CodeDashboardUserExists {
		t.Fatalf("an email in use: %d %+v", code, e)
	}

	// The team: the owner sees it; the developer and support may not manage it.
	var team dashboardUsersJSON
	if code, _ := owner.call("GET", "/dashboard/api/team", nil, &team); code != http.StatusOK || len(team.Users) != 3 {
		t.Fatalf("team: %d %+v", code, team)
	}
	for _, d := range []*dashClient{dev, support} {
		for _, c := range []struct {
			method, path string
			body         any
		}{
			{"GET", "/dashboard/api/team", nil},
			{"POST", "/dashboard/api/team", map[string]any{"email": "x@acme.example", "role": "owner"}},
			{"PATCH", "/dashboard/api/team/" + team.Users[0].ID, map[string]any{"role": "support"}},
			{"DELETE", "/dashboard/api/team/" + team.Users[0].ID, nil},
		} {
			if code, _ := d.call(c.method, c.path, c.body, &e); code != http.StatusForbidden || e.Code != CodeForbidden {
				t.Errorf("%s %s by a non-owner: %d %+v", c.method, c.path, code, e)
			}
		}
	}
	// The last owner keeps the role and stays.
	if code, _ := owner.call("PATCH", "/dashboard/api/team/"+team.Users[0].ID, map[string]any{"role": "developer"}, &e); code != http.StatusConflict ||
		e.Code != CodeLastOwner {
		t.Fatalf("demoting the last owner: %d %+v", code, e)
	}
	if code, _ := owner.call("DELETE", "/dashboard/api/team/"+team.Users[0].ID, nil, &e); code != http.StatusConflict {
		t.Fatalf("removing the last owner: %d", code)
	}

	// Keys: support sees labels only, and is 403 everywhere else; the developer sees details.
	var list dashboardKeysJSON
	if code, _ := support.call("GET", "/dashboard/api/keys", nil, &list); code != http.StatusOK || len(list.APIKeys) != 1 ||
		!reflect.DeepEqual(list.APIKeys[0], dashboardKeyJSON{Label: "server"}) {
		t.Fatalf("support's key list: %d %+v", code, list)
	}
	if raw := support.bodies[len(support.bodies)-1]; strings.Contains(raw, k.Prefix) || strings.Contains(raw, k.ID) {
		t.Fatalf("support's key list shows more than labels: %s", raw)
	}
	kp := "/dashboard/api/keys/" + k.ID
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"POST", "/dashboard/api/keys", map[string]any{"label": "mine"}},
		{"PATCH", kp, map[string]any{"label": "renamed"}},
		{"POST", kp + "/revoke", nil},
		{"GET", kp + "/webhook", nil},
		{"PUT", kp + "/webhook", map[string]any{"url": "https://93.184.216.34/x"}},
		{"POST", kp + "/webhook/rotate", map[string]any{}},
		{"POST", kp + "/webhook/test", nil},
		{"GET", kp + "/webhook/deliveries", nil},
		{"POST", kp + "/webhook/deliveries/1/resend", nil},
	} {
		if code, _ := support.call(c.method, c.path, c.body, &e); code != http.StatusForbidden || e.Code != CodeForbidden {
			t.Errorf("%s %s by support: %d %+v", c.method, c.path, code, e)
		}
	}
	if code, _ := dev.call("GET", "/dashboard/api/keys", nil, &list); code != http.StatusOK || len(list.APIKeys) != 1 ||
		list.APIKeys[0].ID != k.ID || list.APIKeys[0].Prefix != k.Prefix || list.APIKeys[0].CreatedAt == nil {
		t.Fatalf("the developer's key list: %d %+v", code, list)
	}

	// A role change applies to the user's live session at once; removal ends it.
	devID := ""
	for _, u := range team.Users {
		if u.Email == "dev@acme.example" {
			devID = u.ID
		}
	}
	if code, _ := owner.call("PATCH", "/dashboard/api/team/"+devID, map[string]any{"role": "support"}, nil); code != http.StatusOK {
		t.Fatalf("change role: %d", code)
	}
	if code, _ := dev.call("POST", "/dashboard/api/keys", map[string]any{"label": "x"}, &e); code != http.StatusForbidden {
		t.Fatalf("a developer made support still creates keys: %d", code)
	}
	if code, _ := owner.call("DELETE", "/dashboard/api/team/"+devID, nil, nil); code != http.StatusNoContent {
		t.Fatalf("remove: %d", code)
	}
	if code, _ := dev.call("GET", "/dashboard/api/me", nil, &e); code != http.StatusUnauthorized {
		t.Fatalf("a removed user's session: %d", code)
	}
	// Another integrator's owner reaches none of acme's keys or users.
	_, theirs := ds.owner(t, "other", "owner@other.example", "another long password")
	if code, _ := theirs.call("PATCH", kp, map[string]any{"label": "mine now"}, &e); code != http.StatusNotFound || e.Code != CodeAPIKeyNotFound {
		t.Fatalf("another integrator's key: %d %+v", code, e)
	}
	if code, _ := theirs.call("DELETE", "/dashboard/api/team/"+team.Users[1].ID, nil, &e); code != http.StatusNotFound || e.Code != CodeDashboardUserNotFound {
		t.Fatalf("another integrator's user: %d %+v", code, e)
	}
}

// Issue 39: "Keys: create (value shown once), rename, revoke, limits shown; per key, the webhook
// (URL, headers, enable, rotate the secret, a test delivery) and its delivery log with re-send";
// "every change audited as the admin API's are". The created key works on the public API until
// revoked; a test delivery reaches the receiver signed and shows in the log; the audit trail
// names the dashboard user; no key value or secret reaches another answer, the log or the trail.
func TestDashboardKeysAndWebhooksAreAuditedWithTheDashboardUser(t *testing.T) {
	ds := newDashboardStack(t)
	ctx := context.Background()
	in, owner := ds.owner(t, "acme", "owner@acme.example", "correct horse battery staple")

	var created createdKeyJSON
	if code, _ := owner.call("POST", "/dashboard/api/keys", map[string]any{"label": "server", "environment": "staging"}, &created); code != http.StatusCreated ||
		!auth.WellFormed(created.Key) || created.APIKey.Label != "server" || created.APIKey.IntegratorID != in.ID {
		t.Fatalf("create key: %d %+v", code, created)
	}
	shownAt := len(owner.bodies) - 1
	// The value works on the public API (a route that requires a key).
	usage := func() int {
		req, _ := http.NewRequest("GET", ds.api.URL+"/integrators/quote-data", nil)
		req.Header.Set("x-api-key", created.Key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := usage(); code != http.StatusOK {
		t.Fatalf("the created key on the public API: %d", code)
	}
	kp := "/dashboard/api/keys/" + created.APIKey.ID
	var k auth.KeyView
	if code, _ := owner.call("PATCH", kp, map[string]any{"label": "backend"}, &k); code != http.StatusOK || k.Label != "backend" {
		t.Fatalf("rename: %d %+v", code, k)
	}
	var list dashboardKeysJSON
	if code, _ := owner.call("GET", "/dashboard/api/keys", nil, &list); code != http.StatusOK || len(list.APIKeys) != 1 ||
		list.APIKeys[0].Label != "backend" || list.APIKeys[0].Tier != auth.TierDefault || list.APIKeys[0].Environment != "staging" {
		t.Fatalf("list: %d %+v", code, list)
	}

	// The webhook: set, a test delivery to a real receiver through the real dispatcher.
	type received struct {
		header http.Header
		body   []byte
	}
	got := make(chan received, 4)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- received{r.Header.Clone(), b}
	}))
	t.Cleanup(receiver.Close)
	var hook webhookJSON
	if code, _ := owner.call("PUT", kp+"/webhook", map[string]any{"url": receiver.URL + "/hooks",
		"headers": map[string]string{"Authorization": "Bearer receiver-token-123"}}, &hook); code != http.StatusCreated ||
		hook.Secret == "" || !hook.Webhook.Enabled {
		t.Fatalf("set webhook: %d %+v", code, hook)
	}
	secretAt := len(owner.bodies) - 1
	var queued testQueuedJSON
	if code, _ := owner.call("POST", kp+"/webhook/test", nil, &queued); code != http.StatusAccepted || queued.DeliveryID == 0 {
		t.Fatalf("test delivery: %d %+v", code, queued)
	}
	dctx, stop := context.WithCancel(ctx)
	dispatcher := &events.Dispatcher{Store: ds.st, Sealer: ds.sealer, Policy: events.URLPolicy{AllowPrivate: true},
		Opts: events.Options{Poll: 50 * time.Millisecond}}
	done := make(chan error, 1)
	go func() { done <- dispatcher.Run(dctx) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("the dispatcher: %v", err)
		}
	})
	var r received
	select {
	case r = <-got:
	case <-time.After(30 * time.Second):
		t.Fatal("the test delivery never reached the receiver")
	}
	ts, _ := strconv.ParseInt(r.header.Get(events.HeaderTimestamp), 10, 64)
	if r.header.Get(events.HeaderEvent) != events.TestEvent || r.header.Get("Authorization") != "Bearer receiver-token-123" ||
		r.header.Get(events.HeaderSignature) != events.Sign(hook.Secret, ts, r.body) || !strings.Contains(string(r.body), `"event":"webhook.test"`) {
		t.Fatalf("the test delivery: %v %s", r.header, r.body)
	}
	var log deliveriesJSON
	deadline := time.Now().Add(30 * time.Second)
	for {
		if code, _ := owner.call("GET", kp+"/webhook/deliveries", nil, &log); code != http.StatusOK {
			t.Fatalf("delivery log: %d", code)
		}
		if len(log.Deliveries) == 1 && log.Deliveries[0].State == store.DeliveryDelivered {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the test delivery is not delivered in the log: %+v", log)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if d := log.Deliveries[0]; d.ID != queued.DeliveryID || d.Event != events.TestEvent {
		t.Fatalf("the log's delivery: %+v", d)
	}
	var resent queuedJSON
	if code, _ := owner.call("POST", kp+"/webhook/deliveries/"+strconv.FormatInt(queued.DeliveryID, 10)+"/resend", nil, &resent); code != http.StatusAccepted ||
		resent.Queued != 1 {
		t.Fatalf("resend: %d %+v", code, resent)
	}
	select {
	case <-got:
	case <-time.After(30 * time.Second):
		t.Fatal("the re-sent delivery never reached the receiver")
	}
	var rotated webhookJSON
	if code, _ := owner.call("POST", kp+"/webhook/rotate", map[string]any{"overlapSeconds": 0}, &rotated); code != http.StatusOK ||
		rotated.Secret == "" || rotated.Secret == hook.Secret {
		t.Fatalf("rotate: %d %+v", code, rotated)
	}
	rotatedAt := len(owner.bodies) - 1
	var shown store.WebhookView
	if code, _ := owner.call("GET", kp+"/webhook", nil, &shown); code != http.StatusOK || shown.SecretPrefix != rotated.Webhook.SecretPrefix {
		t.Fatalf("show webhook: %d %+v", code, shown)
	}
	var disabled webhookJSON
	if code, _ := owner.call("PUT", kp+"/webhook", map[string]any{"enabled": false}, &disabled); code != http.StatusOK || disabled.Webhook.Enabled {
		t.Fatalf("disable webhook: %d %+v", code, disabled)
	}

	// Revoke: the key stops working on the public API.
	if code, _ := owner.call("POST", kp+"/revoke", nil, &k); code != http.StatusOK || k.RevokedAt == nil {
		t.Fatalf("revoke: %d %+v", code, k)
	}
	time.Sleep(10 * time.Millisecond) // the resolver's cache (MaxAge)
	if code := usage(); code != http.StatusUnauthorized {
		t.Fatalf("a revoked key on the public API: %d", code)
	}

	// The audit trail: every change, by the dashboard user, with no secret in it.
	rows, err := ds.pool.Query(ctx, `SELECT actor, via, action, coalesce(before::text, '') || coalesce(after::text, '') FROM admin_audit
		WHERE via = 'dashboard' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	var trail strings.Builder
	for rows.Next() {
		var actor, via, action, detail string
		if err := rows.Scan(&actor, &via, &action, &detail); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(actor, "owner@acme.example (dashboard user ") {
			t.Errorf("%s by %q", action, actor)
		}
		actions = append(actions, action)
		trail.WriteString(detail)
	}
	rows.Close()
	want := "dashboard_user.password,key.create,key.rename,webhook.create,webhook.test,webhook.resend,webhook.rotate,webhook.disable,key.revoke"
	if got := strings.Join(actions, ","); got != want {
		t.Fatalf("audit trail by the dashboard user:\n%s\nwant\n%s", got, want)
	}
	for secret, shownIn := range map[string]int{created.Key: shownAt, hook.Secret: secretAt, rotated.Secret: rotatedAt, "receiver-token-123": -1} {
		for where, text := range map[string]string{"log": ds.logs.String(), "audit": trail.String()} {
			if strings.Contains(text, secret) {
				t.Errorf("a secret reached the %s", where)
			}
		}
		for i, b := range owner.bodies {
			if i != shownIn && strings.Contains(b, secret) {
				t.Errorf("a secret reached answer %d: %s", i, b)
			}
		}
	}
}
