package api

import (
	"io/fs"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/internal/webasset"
	"github.com/intentd/intentd/web"
)

// The integrator dashboard's web app (issue 39): one page at /dashboard (and /dashboard/, where
// a one-time sign-in link lands: /dashboard/#link=<token>), its pages addressed by the URL's
// fragment so that the server has one page to serve, and its script and stylesheet under
// /dashboard/assets/. All of it is embedded in the binary (web.Dashboard); the app talks only to
// the dashboard's JSON API under /dashboard/api.
const (
	dashboardAppRoute    = "/dashboard"
	dashboardAppSlash    = "/dashboard/"
	dashboardAssetsRoute = "/dashboard/assets/:file"
)

// dashboardCSP keeps the app self-contained: scripts, styles, images and requests come from the
// service only, nothing inline runs, and no other site may frame it. The app's components and
// its charts (uPlot) set styles through the elements' style properties, which a policy does not
// govern, so style-src needs no 'unsafe-inline'. e2e/dashboard.test.mjs drives the app in
// Chromium and finds no violation.
const dashboardCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"font-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// dashboardPage is the app's page, read once from the embedded tree.
var dashboardPage = func() []byte {
	b, err := fs.ReadFile(web.Dashboard(), "index.html")
	if err != nil {
		panic("api: the dashboard's page is not embedded: " + err.Error()) // web's test catches it
	}
	return b
}()

// serveDashboardApp is GET /dashboard and /dashboard/: the app's page. It is asked for again on
// each visit (no-cache), so a new release's page, naming its new assets, is seen at once.
func serveDashboardApp(c *gin.Context) {
	h := c.Writer.Header()
	h.Set("Content-Security-Policy", dashboardCSP)
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	c.Status(http.StatusOK)
	_, _ = c.Writer.Write(dashboardPage)
}

// serveDashboardAsset is GET /dashboard/assets/:file: the app's script and stylesheet, cached
// for a year (their names change with their content), and the licences, revalidated.
func serveDashboardAsset(c *gin.Context) {
	if !webasset.Serve(c.Writer, dashboardAssets, c.Param("file")) {
		notFound(c)
	}
}

// dashboardAssets is the app's assets/ directory in the embedded tree.
var dashboardAssets = func() fs.FS {
	a, err := fs.Sub(web.Dashboard(), "assets")
	if err != nil {
		panic("api: the dashboard's assets are not embedded: " + err.Error())
	}
	return a
}()
