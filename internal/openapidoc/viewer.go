package openapidoc

import (
	"bytes"
	"fmt"
	"html"
	"io/fs"
	"net/http"
	"strings"

	"github.com/intentd/intentd/internal/webasset"
)

// ContentSecurityPolicy keeps the reference self-contained: every script, stylesheet, image and
// request comes from the service that serves the page, nothing inline runs and no inline style
// block applies. The viewer (Swagger UI) needs only one thing beyond 'self': data: images, the
// icons its stylesheet embeds (and the page's empty icon). Its components set their styles
// through the elements' style properties (React), which a policy does not govern, so style-src
// needs no 'unsafe-inline'; "Try it out" sends its requests to the same service (connect-src
// 'self'). e2e/documentation.test.mjs renders the page in Chromium and finds no violation.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"font-src 'self'; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"

// Viewer is a service's interactive reference: the OpenAPI viewer built into package web
// (web.Docs, Swagger UI), its page titled for the service and reading the document at
// base/openapi.json, its assets served under base/assets/. It renders every operation with its
// parameters, schemas and responses, and sends requests to the service ("Try it out"). The page
// and its assets come from the binary: nothing is loaded from elsewhere, as the services work
// without outside network.
type Viewer struct {
	page   []byte
	assets fs.FS
}

// NewViewer makes the reference of the service titled title from the viewer app (web.Docs():
// index.html and assets/), served under base (say /documentation).
func NewViewer(app fs.FS, title, base string) (*Viewer, error) {
	page, err := fs.ReadFile(app, "index.html")
	if err != nil {
		return nil, fmt.Errorf("the viewer's page: %w", err)
	}
	if !bytes.Contains(page, []byte("{{TITLE}}")) || !bytes.Contains(page, []byte("{{BASE}}/openapi.json")) {
		return nil, fmt.Errorf("the viewer's page names no {{TITLE}} or {{BASE}}/openapi.json")
	}
	assets, err := fs.Sub(app, "assets")
	if err != nil {
		return nil, err
	}
	r := strings.NewReplacer("{{TITLE}}", html.EscapeString(title), "{{BASE}}", html.EscapeString(base))
	return &Viewer{page: []byte(r.Replace(string(page))), assets: assets}, nil
}

// MustViewer is NewViewer for a viewer embedded in the binary, which a test of the caller loads:
// an error is a bug.
func MustViewer(app fs.FS, title, base string) *Viewer {
	v, err := NewViewer(app, title, base)
	if err != nil {
		panic("openapidoc: " + err.Error())
	}
	return v
}

// ServePage writes the page with its Content-Security-Policy. It is asked for again on each
// visit (no-cache), so a new release's page, naming its new assets, is seen at once.
func (v *Viewer) ServePage(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(v.page)
}

// ServeAsset writes the asset name (a file name of assets/) and reports whether there is one; the
// caller answers its own 404 otherwise. Hashed assets are cached for a year, the others (the
// viewer's licence) revalidated.
func (v *Viewer) ServeAsset(w http.ResponseWriter, name string) bool {
	return webasset.Serve(w, v.assets, name)
}

// Assets are the names of the files under assets/, for tests that fetch each.
func (v *Viewer) Assets() []string {
	var out []string
	entries, _ := fs.ReadDir(v.assets, ".")
	for _, e := range entries {
		if !e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// ServeJSON writes the document.
func ServeJSON(w http.ResponseWriter, doc []byte) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(doc)
}
