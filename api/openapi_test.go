package api

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/intentd/intentd/events"
	"github.com/intentd/intentd/internal/openapidoc"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/store"
)

// apiChecker is the served document as a client loads it, validated as OpenAPI.
func apiChecker(t *testing.T) *openapidoc.Checker {
	t.Helper()
	c, err := openapidoc.NewChecker(context.Background(), openAPIJSON())
	if err != nil {
		t.Fatalf("the OpenAPI document: %v", err)
	}
	return c
}

// fullServer is an API with every optional part configured, so that its routers (the public
// one, and the admin API's) have every route the API can have.
func fullServer(t *testing.T) *Server {
	t.Helper()
	deadDB, err := pgxpool.New(context.Background(), "postgres://intentd@127.0.0.1:1/none?connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(deadDB.Close)
	s := &Server{Store: store.New(deadDB), Chains: unreachableChains(t).Registry(), Quotes: &quote.Engine{}, Indexer: &fakeIndexer{},
		Admin: &fakeRefunder{}, AdminTokenSHA256: tokenHash(adminToken), Logger: slog.New(slog.DiscardHandler),
		Stream: events.NewHub(nil, events.HubOptions{})}
	return s
}

// allRoutes are the routes of both of s's routers.
func allRoutes(s *Server) gin.RoutesInfo {
	return append(s.Handler().(*gin.Engine).Routes(), s.AdminHandler().(*gin.Engine).Routes()...)
}

// Every route the router registers is an operation of the OpenAPI document, and every operation
// of the document is a route: a route added without documentation fails here.
func TestEveryRouteIsDocumentedAndEveryOperationIsARoute(t *testing.T) {
	c := apiChecker(t)
	routes := map[string]bool{}
	for _, r := range allRoutes(fullServer(t)) {
		routes[r.Method+" "+openAPIPath(r.Path)] = true
		if c.Operation(r.Method, openAPIPath(r.Path)) == nil {
			t.Errorf("route %s %s is not in the OpenAPI document (no row of api/routes.go, routeTable)", r.Method, r.Path)
		}
	}
	for path, item := range c.Doc.Paths.Map() {
		for method := range item.Operations() {
			if !routes[method+" "+path] {
				t.Errorf("the document has %s %s, which is no route", method, path)
			}
		}
	}
	if len(routes) < 40 {
		t.Fatalf("%d routes: the router was not read", len(routes))
	}
}

// GET /documentation is an interactive reference with no outside assets (issue 39, point 5: "The
// API reference at /documentation rendered by a well-kept OpenAPI viewer (embedded, no outside
// assets)"), and /documentation/openapi.json an OpenAPI 3.1 document.
func TestTheReferenceIsOpenAPI31AndAnEmbeddedViewerWithoutOutsideAssets(t *testing.T) {
	srv := httptest.NewServer(fullServer(t).Handler())
	defer srv.Close()
	res, err := http.Get(srv.URL + docsRoute)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	csp := res.Header.Get("Content-Security-Policy")
	if res.StatusCode != 200 || !strings.Contains(res.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(csp, "script-src 'self';") || strings.Contains(csp, "http") || strings.Contains(csp, "*") {
		t.Fatalf("page: %d %v", res.StatusCode, res.Header)
	}
	if !strings.Contains(string(page), `data-openapi="`+docsJSONRoute+`"`) || strings.Contains(string(page), "<script>") ||
		regexp.MustCompile(`(src|href)="(https?:)?//`).Match(page) {
		t.Fatalf("the page must read the document, run no inline script and load nothing from elsewhere:\n%s", page)
	}
	// Every asset the page names is served with its type, and cached for good (hashed names).
	assets := regexp.MustCompile(`(?:src|href)="(/documentation/assets/[^"]+)"`).FindAllSubmatch(page, -1)
	if len(assets) != 2 {
		t.Fatalf("the page names %d assets, want its script and its stylesheet:\n%s", len(assets), page)
	}
	for _, m := range assets {
		res, err := http.Get(srv.URL + string(m[1]))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		want := map[bool]string{true: "text/javascript", false: "text/css"}[strings.HasSuffix(string(m[1]), ".js")]
		if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), want) || len(body) < 10000 ||
			!strings.Contains(res.Header.Get("Cache-Control"), "immutable") {
			t.Errorf("%s: %d %v (%d bytes)", m[1], res.StatusCode, res.Header, len(body))
		}
	}
	for _, name := range []string{"nope.js", "..%2Findex.html", "index.html"} {
		res, err := http.Get(srv.URL + "/documentation/assets/" + name)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 404 || !strings.Contains(string(body), CodeNotFound) {
			t.Errorf("%s: %d %s", name, res.StatusCode, body)
		}
	}
	res, err = http.Get(srv.URL + docsJSONRoute)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	c, err := openapidoc.NewChecker(context.Background(), raw)
	if err != nil {
		t.Fatal(err)
	}
	if c.Doc.OpenAPI != "3.1.0" || !c.Doc.IsOpenAPI31OrLater() {
		t.Fatalf("openapi %q", c.Doc.OpenAPI)
	}
	for _, code := range []string{CodeInvalidInput, CodeRateLimited, CodeGone, CodeWebhooksUnavailable} {
		if !strings.Contains(string(raw), `"`+code+`"`) {
			t.Errorf("%s is not documented", code)
		}
	}
}

// The check is not vacuous: an undocumented status, a wrong error code for a status and a body
// of the wrong shape are each refused.
func TestTheCheckerRefusesAnswersTheDocumentDoesNotDescribe(t *testing.T) {
	c := apiChecker(t)
	json := http.Header{"Content-Type": []string{"application/json"}}
	for _, tc := range []struct {
		method, path string
		status       int
		body         string
	}{
		{"GET", "/lives", 200, `{"status": "dead"}`},
		{"GET", "/lives", 418, `{}`},
		{"GET", "/intents/status/v3", 404, `{"message": "x", "errorCode": "NOT_REFUNDABLE"}`},
		{"GET", "/config/v2", 200, `{"enabled": "yes", "solver": {"address": "0x01"}, "supportsExternalLiquidity": false}`},
		{"GET", "/prices/rates", 200, `{"ETH": "3000"}`},
	} {
		req := httptest.NewRequest(tc.method, tc.path, nil)
		if err := c.Check(context.Background(), req, tc.path, tc.status, json, []byte(tc.body)); err == nil {
			t.Errorf("%s %s %d %s passed", tc.method, tc.path, tc.status, tc.body)
		}
	}
}
