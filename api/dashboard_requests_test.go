package api

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/ratelimit"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/usage"
)

// dashKey makes a key of the integrator straight in the store, as a seeded request's key.
func dashKey(t *testing.T, st *store.Store, integratorID, label string) usageKey {
	t.Helper()
	plain, k, err := st.CreateAPIKey(context.Background(), store.NewKey{IntegratorID: integratorID, Label: label}, store.Actor{Name: "t", Via: store.ViaCLI})
	if err != nil {
		t.Fatal(err)
	}
	return usageKey{plain: plain, Key: k}
}

// dashInvite has owner invite email as role and signs them in by the invitation's link.
func dashInvite(t *testing.T, ds *dashboardStack, owner *dashClient, email string, role auth.Role) *dashClient {
	t.Helper()
	var out invitedJSON
	if code, _ := owner.call("POST", "/dashboard/api/team", map[string]any{"email": email, "role": role}, &out); code != http.StatusCreated {
		t.Fatalf("invite %s: %d", email, code)
	}
	d := &dashClient{t: t, base: ds.api.URL, ip: "198.51.100.9"}
	var me dashboardMeJSON
	if code, _ := d.call("POST", "/dashboard/api/session/link", map[string]string{"token": out.Link.Token}, &me); code != http.StatusOK {
		t.Fatalf("%s signs in: %d", email, code)
	}
	d.csrf = me.CSRFToken
	return d
}

// dashIDs calls GET /dashboard/api/requests?query and returns the status and the ids in order.
func dashIDs(t *testing.T, d *dashClient, query string) (int, []string) {
	t.Helper()
	var out struct {
		Requests []struct {
			ID string `json:"id"`
		} `json:"requests"`
	}
	code, _ := d.call("GET", "/dashboard/api/requests?"+query, nil, &out)
	var ids []string
	for _, r := range out.Requests {
		ids = append(ids, r.ID)
	}
	return code, ids
}

// Issue 39, point 3: "the /requests/v3 filters (chain, currency, status, failReason, time,
// amount, AND/OR groups), the built-in views Failed and Refunds, saved views shared in the
// team, search by requestId or transaction hash listing every match, and a request page with
// … every transaction linked to its chain's explorer". Every answer is the session
// integrator's only: another integrator's request is 404 REQUEST_NOT_FOUND.
func TestDashboardRequestsFiltersViewsSearchAndPageAreTheIntegratorsOnly(t *testing.T) {
	ds := newDashboardStack(t)
	reg, err := chains.NewRegistry([]chains.Chain{
		{ID: 1, Name: "ethereum", HTTPRPCURL: "http://127.0.0.1:1", WSRPCURL: "ws://127.0.0.1:1", ExplorerURL: "https://explorer.example/", Currency: chains.Currency{ID: "eth", Symbol: "ETH", Name: "Ether", Decimals: 18}},
		{ID: 10, Name: "optimism", HTTPRPCURL: "http://127.0.0.1:1", WSRPCURL: "ws://127.0.0.1:1", Currency: chains.Currency{ID: "eth", Symbol: "ETH", Name: "Ether", Decimals: 18}},
	})
	if err != nil {
		t.Fatal(err)
	}
	ds.s.Chains = reg
	acme, owner := ds.owner(t, "acme", "owner@acme.example", "correct horse battery staple")
	globex, _ := ds.owner(t, "globex", "owner@globex.example", "correct horse battery staple")
	k1, k2 := dashKey(t, ds.st, acme.ID, "server"), dashKey(t, ds.st, acme.ID, "mobile")
	g := dashKey(t, ds.st, globex.ID, "globex")
	support := dashInvite(t, ds, owner, "support@acme.example", auth.RoleSupport)

	base := time.Now().Add(-time.Hour).Truncate(time.Second)
	shared := hashN(0xde)
	a := seedRequest(t, ds.st, seedReq{user: addrN(1), origin: 1, dest: 10, key: &k1, created: base, usd: "5", deposit: shared, fill: hashN(0xf1)})
	b := seedRequest(t, ds.st, seedReq{user: addrN(2), origin: 10, dest: 1, key: &k2, created: base.Add(time.Minute), usd: "500",
		status: intent.StatusRefund, fail: "SOLVER_CAPACITY_EXCEEDED", deposit: shared})
	c := seedRequest(t, ds.st, seedReq{user: addrN(3), origin: 1, dest: 8453, key: &k1, created: base.Add(2 * time.Minute), usd: "50",
		status: intent.StatusFailure, fail: "UNKNOWN"})
	other := seedRequest(t, ds.st, seedReq{user: addrN(4), origin: 1, dest: 10, key: &g, created: base.Add(3 * time.Minute), deposit: shared})

	// The list: every key of the integrator, never another's; the filters of /requests/v3.
	for _, tc := range []struct {
		what, query string
		want        []string
	}{
		{"every request of the integrator's keys", "", []string{c, b, a}},
		{"apiKeyId narrows to one key", "apiKeyId=" + k2.ID, []string{b}},
		{"chain", "originChainId=1", []string{c, a}},
		{"status", "status=refund,failure", []string{c, b}},
		{"failReason", "failReason=UNKNOWN", []string{c}},
		{"currency", "currencyInSymbol=eth&destinationChainId=10", []string{a}},
		{"amount", "amountUsdMin=50", []string{c, b}},
		{"time", "startTimestamp=" + strconv.FormatInt(base.Add(time.Minute).Unix(), 10) + "&endTimestamp=" + strconv.FormatInt(base.Add(time.Minute).Unix(), 10), []string{b}},
		{"an AND/OR group narrows the list", "filters=" + url.QueryEscape(`[{"originChainId":1,"status":"success"},{"failReason":"SOLVER_CAPACITY_EXCEEDED"}]`), []string{b, a}},
	} {
		code, ids := dashIDs(t, owner, tc.query)
		if code != http.StatusOK {
			t.Fatalf("%s: %d %s", tc.what, code, owner.bodies[len(owner.bodies)-1])
		}
		sameIDs(t, tc.what, ids, tc.want...)
	}
	var e Error
	if code, _ := owner.call("GET", "/dashboard/api/requests?apiKeyId="+g.ID, nil, &e); code != http.StatusNotFound || e.Code != CodeAPIKeyNotFound {
		t.Errorf("another integrator's apiKeyId: %d %+v", code, e)
	}
	if code, _ := owner.call("GET", "/dashboard/api/requests?apiKey="+k1.plain, nil, &e); code != http.StatusBadRequest {
		t.Errorf("a key's value as apiKey: %d %+v", code, e)
	}

	// The built-in views come first, and their queries select the failed and refunded requests.
	var views viewsJSON
	if code, _ := support.call("GET", "/dashboard/api/views", nil, &views); code != http.StatusOK || len(views.Views) != 2 ||
		views.Views[0].ID != "failed" || views.Views[1].ID != "refunds" || !views.Views[0].Builtin {
		t.Fatalf("the built-in views: %d %+v", code, views)
	}
	for i, want := range []string{c, b} {
		q := url.Values{}
		for k, raw := range views.Views[i].Query {
			q.Set(k, strings.Trim(string(raw), `"`))
		}
		_, ids := dashIDs(t, owner, q.Encode())
		sameIDs(t, "the built-in view "+views.Views[i].ID, ids, want)
	}
	if code, _ := owner.call("PATCH", "/dashboard/api/views/failed", map[string]any{"name": "Mine"}, &e); code != http.StatusConflict || e.Code != CodeViewBuiltin {
		t.Errorf("changing a built-in view: %d %+v", code, e)
	}
	if code, _ := owner.call("DELETE", "/dashboard/api/views/refunds", nil, &e); code != http.StatusConflict || e.Code != CodeViewBuiltin {
		t.Errorf("deleting a built-in view: %d %+v", code, e)
	}

	// A saved view: support saves it, the owner sees it, both audited.
	for _, bad := range []map[string]any{
		{"name": "", "icon": "star", "colour": "#112233", "query": map[string]any{}},
		{"name": "x", "icon": "star", "colour": "red", "query": map[string]any{}},
		{"name": "x", "icon": "star", "colour": "#112233", "query": map[string]any{"nope": "1"}},
		{"name": "x", "icon": "star", "colour": "#112233", "query": map[string]any{"status": "nope"}},
	} {
		if code, _ := support.call("POST", "/dashboard/api/views", bad, &e); code != http.StatusBadRequest {
			t.Errorf("a bad view %v: %d %+v", bad, code, e)
		}
	}
	var saved store.DashboardView
	if code, _ := support.call("POST", "/dashboard/api/views", map[string]any{"name": "Big refunds", "icon": "star", "colour": "#AABBCC",
		"query": map[string]any{"status": []string{"refund", "failure"}, "amountUsdMin": "100"}, "columns": []string{"id", "status"}}, &saved); code != http.StatusCreated ||
		saved.ID == "" || saved.Colour != "#aabbcc" || saved.CreatedBy == "" || saved.Builtin {
		t.Fatalf("save a view: %d %+v", code, saved)
	}
	if code, _ := owner.call("GET", "/dashboard/api/views", nil, &views); code != http.StatusOK || len(views.Views) != 3 || views.Views[2].ID != saved.ID ||
		len(views.Views[2].Columns) != 2 {
		t.Fatalf("the teammate's view: %d %+v", code, views)
	}
	var renamed store.DashboardView
	if code, _ := owner.call("PATCH", "/dashboard/api/views/"+saved.ID, map[string]any{"name": "Refunds over $100"}, &renamed); code != http.StatusOK ||
		renamed.Name != "Refunds over $100" || renamed.Colour != "#aabbcc" {
		t.Fatalf("rename the view: %d %+v", code, renamed)
	}
	if code, _ := owner.call("DELETE", "/dashboard/api/views/"+saved.ID, nil, nil); code != http.StatusNoContent {
		t.Fatalf("delete the view: %d", code)
	}
	if code, _ := owner.call("DELETE", "/dashboard/api/views/"+saved.ID, nil, &e); code != http.StatusNotFound || e.Code != CodeViewNotFound {
		t.Errorf("delete it again: %d %+v", code, e)
	}
	var actions []string
	rows, err := ds.pool.Query(context.Background(), `SELECT action || ' ' || actor FROM admin_audit WHERE target_type = 'dashboard_view' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		actions = append(actions, s)
	}
	if len(actions) != 3 || !strings.HasPrefix(actions[0], "view.create support@acme.example") || !strings.HasPrefix(actions[1], "view.update owner@acme.example") ||
		!strings.HasPrefix(actions[2], "view.delete owner@acme.example") {
		t.Errorf("the views' audit: %q", actions)
	}

	// Search: the shared deposit hash lists both of the integrator's requests, never globex's.
	var found searchJSON
	if code, _ := support.call("GET", "/dashboard/api/search?q="+shared, nil, &found); code != http.StatusOK || len(found.Matches) != 2 ||
		found.Matches[0].RequestID != b || found.Matches[1].RequestID != a || found.Matches[0].MatchedOn != "txHash" || found.Matches[0].Status != "refund" {
		t.Fatalf("search by a transaction hash: %d %+v", code, found)
	}
	if code, _ := owner.call("GET", "/dashboard/api/search?q="+c, nil, &found); code != http.StatusOK || len(found.Matches) != 1 || found.Matches[0].MatchedOn != "requestId" {
		t.Fatalf("search by a request id: %d %+v", code, found)
	}
	if code, _ := owner.call("GET", "/dashboard/api/search?q="+other, nil, &found); code != http.StatusOK || len(found.Matches) != 0 {
		t.Fatalf("search for another integrator's request: %d %+v", code, found)
	}
	if code, _ := owner.call("GET", "/dashboard/api/search?q=hello", nil, &e); code != http.StatusBadRequest {
		t.Errorf("a q of no known form: %d %+v", code, e)
	}

	// The request page: each transaction, linked when its chain has an explorer.
	var page requestPageJSON
	if code, _ := support.call("GET", "/dashboard/api/requests/"+a, nil, &page); code != http.StatusOK || len(page.Transactions) != 2 {
		t.Fatalf("the request page: %d %+v", code, page)
	}
	for _, tx := range page.Transactions {
		switch tx.Kind {
		case "deposit":
			if tx.ChainName != "ethereum" || tx.ExplorerURL != "https://explorer.example/tx/"+shared {
				t.Errorf("the deposit's link: %+v", tx)
			}
		case "fill": // seeded on the origin chain's id too, whose explorer links it
			if tx.ExplorerURL == "" {
				t.Errorf("the fill's link: %+v", tx)
			}
		default:
			t.Errorf("a transaction of kind %q", tx.Kind)
		}
	}
	if !strings.Contains(string(page.Request), `"id":"`+a+`"`) {
		t.Errorf("the page's record: %s", page.Request)
	}
	if code, _ := owner.call("GET", "/dashboard/api/requests/"+other, nil, &e); code != http.StatusNotFound || e.Code != CodeRequestNotFound {
		t.Errorf("another integrator's request: %d %+v", code, e)
	}

	// The fees as quoted against actual, from the record; the workflow's link for operators
	// only (a flag only the admin API sets), and only with a Temporal Web UI configured.
	if _, err := ds.pool.Exec(context.Background(), `UPDATE requests SET record = jsonb_set(record, '{data,fees}',
		'{"quoted":{"swap":{"usd":"0.10","amount":"100000","amountFormatted":"0.1"}},"actual":{"swap":{"usd":"0.09","amount":"90000","amountFormatted":"0.09"}},"currency":{"chainId":1}}')
		WHERE id = $1`, a); err != nil {
		t.Fatal(err)
	}
	ds.s.TemporalUIURL, ds.s.TemporalNamespace = "http://127.0.0.1:8233", "default"
	var me dashboardMeJSON
	owner.call("GET", "/dashboard/api/me", nil, &me)
	page = requestPageJSON{}
	if code, _ := owner.call("GET", "/dashboard/api/requests/"+a, nil, &page); code != http.StatusOK || page.Workflow != nil ||
		!strings.Contains(string(page.Fees.Quoted), `"amount":"100000"`) || !strings.Contains(string(page.Fees.Actual), `"usd":"0.09"`) {
		t.Fatalf("the page for a user who is no operator: %d %+v", code, page)
	}
	var op auth.DashboardUserView
	if code := ds.admin.call("PATCH", "/admin/integrators/"+acme.ID+"/dashboard-users/"+me.User.ID, map[string]any{"operator": "ops",
		"isOperator": true}, &op); code != http.StatusOK || !op.Operator {
		t.Fatalf("mark the owner an operator: %d %+v", code, op)
	}
	if code, _ := owner.call("GET", "/dashboard/api/requests/"+a, nil, &page); code != http.StatusOK || page.Workflow == nil ||
		page.Workflow.URL != "http://127.0.0.1:8233/namespaces/default/workflows/"+url.PathEscape(page.Workflow.ID) || !strings.Contains(page.Workflow.ID, a) {
		t.Fatalf("the operator's workflow link: %d %+v", code, page.Workflow)
	}
	page = requestPageJSON{}
	if code, _ := support.call("GET", "/dashboard/api/requests/"+a, nil, &page); code != http.StatusOK || page.Workflow != nil {
		t.Errorf("support is no operator: %d %+v", code, page.Workflow)
	}
	var n int
	if err := ds.pool.QueryRow(context.Background(), `SELECT count(*) FROM admin_audit WHERE action = 'dashboard_user.operator'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("the operator flag's audit: %d %v", n, err)
	}
}

// Issue 39, point 4: "the sponsorship balance and its history", for owners and developers
// ("Support users get … no keys"): after an operator's top-up and a reservation the balance and
// the ledger, newest first, in whole millionths of a USD; support is 403.
func TestDashboardBalanceAfterATopUpAndItsHistoryOwnersAndDevelopersOnly(t *testing.T) {
	ds := newDashboardStack(t)
	acme, owner := ds.owner(t, "acme", "owner@acme.example", "correct horse battery staple")
	dev := dashInvite(t, ds, owner, "dev@acme.example", auth.RoleDeveloper)
	support := dashInvite(t, ds, owner, "support@acme.example", auth.RoleSupport)
	if code := ds.admin.call("POST", "/admin/integrators/"+acme.ID+"/sponsorship/top-ups",
		map[string]any{"operator": "alice", "amountUsd": "100.25", "reason": "wire 4711"}, nil); code != http.StatusOK {
		t.Fatalf("top up: %d", code)
	}
	if _, err := ds.pool.Exec(context.Background(), `UPDATE integrators SET sponsor_wallet = $2, sponsor_chain_id = 1 WHERE id = $1`,
		acme.ID, addrN(9)); err != nil {
		t.Fatal(err)
	}
	k := dashKey(t, ds.st, acme.ID, "server")
	req := seedRequest(t, ds.st, seedReq{user: addrN(1), origin: 1, dest: 10, key: &k})
	ok, err := ds.st.ReserveSponsorship(context.Background(), req, intent.Sponsor{IntegratorID: acme.ID, AmountUSD: decimal.RequireFromString("0.000001")})
	if err != nil || !ok {
		t.Fatalf("reserve: %v %v", ok, err)
	}
	for _, d := range []*dashClient{owner, dev} {
		var out balanceJSON
		if code, _ := d.call("GET", "/dashboard/api/balance", nil, &out); code != http.StatusOK {
			t.Fatalf("balance: %d %s", code, d.bodies[len(d.bodies)-1])
		}
		if out.Balance.Amount != "100249999" || out.Balance.Currency != "USD" || out.Balance.USD != "100.249999" || len(out.History) != 2 {
			t.Fatalf("the balance after a top-up and a reservation: %+v", out)
		}
		if h := out.History[0]; h.Kind != "reserve" || h.Amount != "-1" || h.BalanceAfter != "100249999" || h.RequestID != req {
			t.Errorf("the reservation: %+v", h)
		}
		if h := out.History[1]; h.Kind != "topup" || h.Amount != "100250000" || h.BalanceAfter != "100250000" || h.Reason != "wire 4711" {
			t.Errorf("the top-up: %+v", h)
		}
		var page balanceJSON
		if code, _ := d.call("GET", "/dashboard/api/balance?limit=1&before="+strconv.FormatInt(out.History[0].ID, 10), nil, &page); code != http.StatusOK ||
			len(page.History) != 1 || page.History[0].Kind != "topup" {
			t.Errorf("the next page: %d %+v", code, page)
		}
	}
	var e Error
	if code, _ := support.call("GET", "/dashboard/api/balance", nil, &e); code != http.StatusForbidden || e.Code != CodeForbidden {
		t.Errorf("support reads the balance: %d %+v", code, e)
	}
}

// Issue 39, point 4: "request volume, error rate by code and 429 pressure by endpoint and key
// over a chosen range, drawn as charts from the usage counts". Real calls through the API with
// the integrator's keys (one limited to 2 searches an hour), the recorder flushed, then the
// sums; support sees the keys by label only.
func TestDashboardObservabilityCountsRealCallsErrorsAnd429sByEndpointAndKey(t *testing.T) {
	ds := newDashboardStack(t)
	acme, owner := ds.owner(t, "acme", "owner@acme.example", "correct horse battery staple")
	globex, _ := ds.owner(t, "globex", "owner@globex.example", "correct horse battery staple")
	support := dashInvite(t, ds, owner, "support@acme.example", auth.RoleSupport)
	by := store.Actor{Name: "t", Via: store.ViaCLI}
	tight, tk, err := ds.st.CreateAPIKey(context.Background(), store.NewKey{IntegratorID: acme.ID, Label: "tight", Tier: auth.TierCustom,
		Limits: map[string]auth.Rate{ratelimit.RequestsV3: {Count: 2, Period: time.Hour}}}, by)
	if err != nil {
		t.Fatal(err)
	}
	loose := dashKey(t, ds.st, acme.ID, "loose")
	foreign := dashKey(t, ds.st, globex.ID, "globex")
	ds.s.Limits = ratelimit.New(ratelimit.Options{})

	for i, want := range []int{http.StatusBadRequest, http.StatusOK, http.StatusTooManyRequests, http.StatusTooManyRequests} {
		path := "/requests/v3"
		if i == 0 {
			path += "?nope=1"
		}
		if code, body := get(t, ds.api.URL, path, tight); code != want {
			t.Fatalf("call %d: %d %v, want %d", i, code, body, want)
		}
	}
	for _, k := range []string{loose.plain, foreign.plain} {
		if code, _ := get(t, ds.api.URL, "/requests/v3", k); code != http.StatusOK {
			t.Fatalf("a call: %d", code)
		}
	}
	if err := ds.s.Usage.FlushAll(context.Background()); err != nil {
		t.Fatal(err)
	}

	now := time.Now().Unix()
	q := "/dashboard/api/observability?granularity=hourly&from=" + strconv.FormatInt(now-3600, 10) + "&to=" + strconv.FormatInt(now, 10)
	sum := func(out observabilityJSON) (calls, errs, limited int64) {
		for _, b := range out.Buckets {
			calls, errs, limited = calls+b.Calls, errs+b.Errors, limited+b.RateLimited
		}
		return
	}
	var out observabilityJSON
	if code, _ := owner.call("GET", q, nil, &out); code != http.StatusOK {
		t.Fatalf("observability: %d %s", code, owner.bodies[len(owner.bodies)-1])
	}
	if calls, errs, limited := sum(out); calls != 5 || errs != 3 || limited != 2 || out.Granularity != usage.Hourly || len(out.Buckets) < 2 {
		t.Fatalf("the sums: %d calls, %d errors, %d rate-limited over %d buckets; want 5, 3, 2: %+v", calls, errs, limited, len(out.Buckets), out)
	}
	if len(out.ErrorsByCode) != 2 || out.ErrorsByCode[0] != (obsCodeJSON{Code: CodeRateLimited, Count: 2}) ||
		out.ErrorsByCode[1] != (obsCodeJSON{Code: CodeInvalidInput, Count: 1}) {
		t.Errorf("errors by code: %+v", out.ErrorsByCode)
	}
	if len(out.RateLimitedByEndpoint) != 1 || out.RateLimitedByEndpoint[0] != (obsEndpointJSON{Endpoint: "/requests/v3", Count: 2}) {
		t.Errorf("429s by endpoint: %+v", out.RateLimitedByEndpoint)
	}
	if len(out.RateLimitedByKey) != 1 || out.RateLimitedByKey[0] != (obsKeyJSON{APIKeyID: tk.ID, Label: "tight", Count: 2}) {
		t.Errorf("429s by key: %+v", out.RateLimitedByKey)
	}
	var sup observabilityJSON
	if code, _ := support.call("GET", q, nil, &sup); code != http.StatusOK || len(sup.RateLimitedByKey) != 1 ||
		sup.RateLimitedByKey[0] != (obsKeyJSON{Label: "tight", Count: 2}) || strings.Contains(support.bodies[len(support.bodies)-1], tk.ID) ||
		strings.Contains(support.bodies[len(support.bodies)-1], tight) {
		t.Errorf("support's 429s by key: %d %+v", code, sup.RateLimitedByKey)
	}
	out = observabilityJSON{}
	if code, _ := owner.call("GET", q+"&apiKeyId="+loose.ID, nil, &out); code != http.StatusOK {
		t.Fatalf("one key: %d", code)
	}
	if calls, errs, _ := sum(out); calls != 1 || errs != 0 {
		t.Errorf("apiKeyId narrows to one key: %d calls, %d errors", calls, errs)
	}
	var e Error
	if code, _ := owner.call("GET", q+"&apiKeyId="+foreign.ID, nil, &e); code != http.StatusNotFound || e.Code != CodeAPIKeyNotFound {
		t.Errorf("another integrator's key: %d %+v", code, e)
	}
	if code, _ := owner.call("GET", "/dashboard/api/observability?granularity=minutely&from=0&to="+strconv.FormatInt(now, 10), nil, &e); code != http.StatusBadRequest {
		t.Errorf("a range wider than minutely allows: %d %+v", code, e)
	}
}
