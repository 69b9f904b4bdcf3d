package api

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/ratelimit"
)

// funcName is the name gin gives a handler in its RoutesInfo.
func funcName(h gin.HandlerFunc) string {
	return runtime.FuncForPC(reflect.ValueOf(h).Pointer()).Name()
}

// Every route either router serves is a row of the route table, on the listener its access says,
// with the row's handler last; and every row s serves is a route: a route registered beside the
// table (so without its bucket, usage name or documentation) fails here.
func TestEveryRouteIsARowOfTheTable(t *testing.T) {
	s := fullServer(t)
	for _, listener := range []struct {
		name   string
		router http.Handler
		admin  bool
	}{{"public", s.Handler(), false}, {"admin", s.AdminHandler(), true}} {
		want := map[string]string{}
		for _, rt := range s.routeTable() {
			if (rt.access == accessAdmin) == listener.admin {
				want[rt.method+" "+rt.path] = funcName(rt.handler)
			}
		}
		got := map[string]string{}
		for _, r := range listener.router.(*gin.Engine).Routes() {
			got[r.Method+" "+r.Path] = r.Handler
		}
		for route, handler := range got {
			if w, ok := want[route]; !ok {
				t.Errorf("%s listener: route %s is no row of the route table (api/routes.go)", listener.name, route)
			} else if w != handler {
				t.Errorf("%s listener: route %s is served by %s, its row names %s", listener.name, route, handler, w)
			}
		}
		for route := range want {
			if _, ok := got[route]; !ok {
				t.Errorf("%s listener: the row %s is not served", listener.name, route)
			}
		}
		if len(got) < 15 {
			t.Fatalf("%s listener: %d routes: the router was not read", listener.name, len(got))
		}
	}

	// A row served only with its dependency: GET /ws with the stream, the refund with a refunder.
	bare := fullServer(t)
	bare.Stream, bare.Admin = nil, nil
	for _, r := range append(bare.Handler().(*gin.Engine).Routes(), bare.AdminHandler().(*gin.Engine).Routes()...) {
		if r.Path == wsRoute || r.Path == adminRefundRoute {
			t.Errorf("%s %s is served without what it needs", r.Method, r.Path)
		}
	}
}

// The spec's Limits table: each route group has one bucket, and the versions of an endpoint share
// it ("/requests" and "/requests/v2" one, the three quote endpoints one, the three status
// endpoints one), so alternating between them never multiplies a limit. The static catalog shares
// one; GET /config/v2 reads two chains and has its own. A route not in the table and a path the
// API does not serve count as "other"; health checks and the admin API are not limited.
func TestEveryRouteGroupHasItsBucket(t *testing.T) {
	for route, want := range map[string]string{
		"/requests": ratelimit.Requests, "/requests/v2": ratelimit.Requests, // one shared bucket
		"/requests/v3": ratelimit.RequestsV3,
		"/quote/v2":    ratelimit.Quote, "/quote": ratelimit.Quote, "/price": ratelimit.Quote,
		"/intents/status/v3": ratelimit.Status, "/intents/status/v2": ratelimit.Status, "/intents/status": ratelimit.Status,
		"/transactions/index": ratelimit.Transactions, "/transactions/single": ratelimit.Transactions,
		"/chains": ratelimit.Chains, "/metrics/usage": ratelimit.Metrics,
		"/config/v2": ratelimit.Config, "/currencies/v2": ratelimit.Catalog, "/prices/rates": ratelimit.Catalog, // the static catalog shares one
		"/withdrawals/status": ratelimit.Withdrawals, "/integrators/quote-data": ratelimit.Integrators,
		wsRoute:   ratelimit.WS,
		docsRoute: ratelimit.Other, docsJSONRoute: ratelimit.Other, "/execute/swap": ratelimit.Other,
		"/execute": ratelimit.Other, "": ratelimit.Other, // a route not in the table, a path the API does not serve
		"/lives": "", adminRefundRoute: "", "/admin/integrators": "", // not limited
	} {
		if got := bucketOf(route); got != want {
			t.Errorf("bucketOf(%q) = %q, want %q", route, got, want)
		}
	}
}

// GET /metrics/usage answers counts by endpoint, the route pattern: the names the stored counts
// carry. Every row is counted under its own path.
func TestEveryRouteIsCountedUnderItsPath(t *testing.T) {
	for _, rt := range fullServer(t).routeTable() {
		if got := routeOf(rt.path).usageEndpoint(); got != rt.path {
			t.Errorf("%s %s is counted as %q", rt.method, rt.path, got)
		}
	}
}

// The access column is what the routers enforce: a route that requires a key answers 401 without
// one before its handler runs, an admin route is 404 on the public listener and 401 without the
// admin token on its own, a dashboard route 401 without a session (issue 39: "sessions in secure,
// HTTP-only cookies").
func TestEachRouteIsGuardedAsItsAccessSays(t *testing.T) {
	s := fullServer(t)
	public, admin := s.Handler(), s.AdminHandler()
	call := func(h http.Handler, method, path, ip string) (int, string) {
		r := httptest.NewRequest(method, strings.NewReplacer(":", "x").Replace(path), strings.NewReader("{}"))
		r.RemoteAddr = ip + ":40000"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code, w.Body.String()
	}
	keyed, admins, dashboards := 0, 0, 0
	for i, rt := range s.routeTable() {
		ip := fmt.Sprintf("198.51.100.%d", i+1) // the admin failure budget is per client
		switch rt.access {
		case accessKey:
			keyed++
			if code, body := call(public, rt.method, rt.path, ip); code != http.StatusUnauthorized || !strings.Contains(body, CodeUnauthorized) {
				t.Errorf("%s %s without a key: %d %s", rt.method, rt.path, code, body)
			}
		case accessDashboard:
			dashboards++
			if code, body := call(public, rt.method, rt.path, ip); code != http.StatusUnauthorized || !strings.Contains(body, CodeUnauthorized) {
				t.Errorf("%s %s without a dashboard session: %d %s", rt.method, rt.path, code, body)
			}
		case accessAdmin:
			admins++
			if code, body := call(public, rt.method, rt.path, ip); code != http.StatusNotFound || !strings.Contains(body, CodeNotFound) {
				t.Errorf("%s %s on the public listener: %d %s", rt.method, rt.path, code, body)
			}
			if code, body := call(admin, rt.method, rt.path, ip); code != http.StatusUnauthorized || !strings.Contains(body, CodeUnauthorized) {
				t.Errorf("%s %s without the admin token: %d %s", rt.method, rt.path, code, body)
			}
		}
	}
	if keyed != 4 || admins < 20 || dashboards < 15 {
		t.Fatalf("%d routes requiring a key, %d admin routes, %d dashboard routes", keyed, admins, dashboards)
	}
}

// The table refuses rows that cannot be served as written: the index is built from it when a
// router or the document is, so such a row stops the process at start.
func TestTheTableRefusesRowsThatDoNotHoldTogether(t *testing.T) {
	if _, err := indexRoutes(fullServer(t).routeTable()); err != nil {
		t.Fatalf("the table: %v", err)
	}
	h := lives
	for name, rows := range map[string][]route{
		"no handler":            {{method: "GET", path: "/x", access: accessPublic, bucket: ratelimit.Other}},
		"public without bucket": {{method: "GET", path: "/x", handler: h, access: accessPublic}},
		"keyed without bucket":  {{method: "GET", path: "/x", handler: h, access: accessKey}},
		"no such bucket":        {{method: "GET", path: "/x", handler: h, access: accessPublic, bucket: "nope"}},
		"admin with a bucket":   {{method: "GET", path: "/admin/x", handler: h, access: accessAdmin, bucket: ratelimit.Other}},
		"admin outside /admin":  {{method: "GET", path: "/x", handler: h, access: accessAdmin}},
		"public under /admin":   {{method: "GET", path: "/admin/x", handler: h, access: accessPublic, bucket: ratelimit.Other}},
		"twice": {{method: "GET", path: "/x", handler: h, access: accessPublic, bucket: ratelimit.Other},
			{method: "GET", path: "/x", handler: h, access: accessPublic, bucket: ratelimit.Other}},
		"one path, two buckets": {{method: "GET", path: "/x", handler: h, access: accessPublic, bucket: ratelimit.Other},
			{method: "POST", path: "/x", handler: h, access: accessPublic, bucket: ratelimit.Quote}},
		"one path, two body limits": {{method: "GET", path: "/x", handler: h, access: accessPublic, bucket: ratelimit.Other},
			{method: "POST", path: "/x", handler: h, access: accessPublic, bucket: ratelimit.Other, bodyLimit: 1}},
	} {
		if _, err := indexRoutes(rows); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
