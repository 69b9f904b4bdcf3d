package openapidoc

import (
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
)

// The viewer's page is titled for its service and reads the document under its base; its assets
// are served with their types, the hashed ones cached for good, and nothing outside assets/ is
// served as an asset.
func TestTheViewerServesItsPageAndOnlyItsAssets(t *testing.T) {
	app := fstest.MapFS{
		"index.html":                    {Data: []byte(`<title>{{TITLE}}</title><div data-openapi="{{BASE}}/openapi.json"></div><script src="{{BASE}}/assets/reference-ABCDEFGH.js"></script>`)},
		"assets/reference-ABCDEFGH.js":  {Data: []byte("x()")},
		"assets/reference-ABCDEFGH.css": {Data: []byte("a{}")},
		"assets/swagger-ui.LICENSE.txt": {Data: []byte("licence")},
		"secret.txt":                    {Data: []byte("not an asset")},
	}
	v, err := NewViewer(app, "A <b> API", "/documentation")
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	v.ServePage(w)
	page := w.Body.String()
	if !strings.Contains(page, "<title>A &lt;b&gt; API</title>") || !strings.Contains(page, `data-openapi="/documentation/openapi.json"`) ||
		!strings.Contains(page, `src="/documentation/assets/reference-ABCDEFGH.js"`) {
		t.Fatalf("page: %s", page)
	}
	if w.Header().Get("Content-Security-Policy") != ContentSecurityPolicy || w.Header().Get("Cache-Control") != "no-cache" {
		t.Fatalf("page headers: %v", w.Header())
	}
	for name, want := range map[string][2]string{
		"reference-ABCDEFGH.js":  {"text/javascript; charset=utf-8", "public, max-age=31536000, immutable"},
		"reference-ABCDEFGH.css": {"text/css; charset=utf-8", "public, max-age=31536000, immutable"},
		"swagger-ui.LICENSE.txt": {"text/plain; charset=utf-8", "no-cache"},
	} {
		w := httptest.NewRecorder()
		if !v.ServeAsset(w, name) || w.Header().Get("Content-Type") != want[0] || w.Header().Get("Cache-Control") != want[1] {
			t.Errorf("%s: %v", name, w.Header())
		}
	}
	for _, name := range []string{"../secret.txt", "../index.html", "nope.js", "", ".", "/reference-ABCDEFGH.js"} {
		if v.ServeAsset(httptest.NewRecorder(), name) {
			t.Errorf("%q was served", name)
		}
	}
	if got := strings.Join(v.Assets(), ","); got != "reference-ABCDEFGH.css,reference-ABCDEFGH.js,swagger-ui.LICENSE.txt" {
		t.Errorf("assets: %s", got)
	}
	if _, err := NewViewer(fstest.MapFS{"index.html": {Data: []byte("<p>")}}, "x", "/d"); err == nil {
		t.Error("a page without placeholders was accepted")
	}
}

// The policy names no origin but the service's own, and allows no inline script.
func TestThePolicyAllowsNothingFromElsewhere(t *testing.T) {
	for _, bad := range []string{"http", "*", "unsafe-inline", "unsafe-eval"} {
		if strings.Contains(ContentSecurityPolicy, bad) {
			t.Errorf("the policy holds %q: %s", bad, ContentSecurityPolicy)
		}
	}
}
