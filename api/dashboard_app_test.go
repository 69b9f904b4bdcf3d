package api

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// Issue 39: "a web app at /dashboard, served by the API process … its assets embedded in the
// binary; no outside assets at run time". The page is served at /dashboard and /dashboard/ (where
// a sign-in link lands) with a strict policy and no-cache, runs no inline script, loads nothing
// from elsewhere, and every asset it names is served with its type and cached for good.
func TestTheDashboardAppIsEmbeddedWithAStrictPolicyAndNoOutsideAssets(t *testing.T) {
	srv := httptest.NewServer(fullServer(t).Handler())
	defer srv.Close()
	var page []byte
	for _, p := range []string{dashboardAppRoute, dashboardAppSlash} {
		res, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		page, _ = io.ReadAll(res.Body)
		res.Body.Close()
		csp := res.Header.Get("Content-Security-Policy")
		if res.StatusCode != 200 || !strings.Contains(res.Header.Get("Content-Type"), "text/html") ||
			res.Header.Get("Cache-Control") != "no-cache" || !strings.Contains(csp, "script-src 'self';") ||
			!strings.Contains(csp, "connect-src 'self';") || strings.Contains(csp, "unsafe") ||
			strings.Contains(csp, "http") || strings.Contains(csp, "*") {
			t.Fatalf("%s: %d %v", p, res.StatusCode, res.Header)
		}
	}
	if strings.Contains(string(page), "<script>") || strings.Contains(string(page), "<style") ||
		regexp.MustCompile(`(src|href)="(https?:)?//`).Match(page) {
		t.Fatalf("the page must run no inline script and load nothing from elsewhere:\n%s", page)
	}
	assets := regexp.MustCompile(`(?:src|href)="(/dashboard/assets/[^"]+)"`).FindAllSubmatch(page, -1)
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
		if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), want) || len(body) < 1000 ||
			!strings.Contains(res.Header.Get("Cache-Control"), "immutable") {
			t.Errorf("%s: %d %v (%d bytes)", m[1], res.StatusCode, res.Header, len(body))
		}
	}
	for _, name := range []string{"nope.js", "..%2Findex.html", "index.html"} {
		res, err := http.Get(srv.URL + "/dashboard/assets/" + name)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 404 || !strings.Contains(string(body), CodeNotFound) {
			t.Errorf("%s: %d %s", name, res.StatusCode, body)
		}
	}
	res, err := http.Get(srv.URL + "/dashboard/assets/preact.LICENSE.txt")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("the licence: %d %v", res.StatusCode, res.Header)
	}
}
