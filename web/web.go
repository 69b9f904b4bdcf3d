// Package web holds the browser assets the binaries serve, built from this directory's Node
// project (package.json and package-lock.json pin every package; build.mjs runs esbuild) into
// dist/, which is committed: `go build` on a fresh clone embeds it without Node. `make web`
// rebuilds it after a change to the sources or the lockfile, and TestDistIsTheBuildOfTheSources
// fails while the committed dist/ is not what the build makes, so it cannot drift.
//
// Each tree of dist/ is one app, served as it is, with nothing loaded from elsewhere at run time:
// docs/ is the OpenAPI viewer of GET /documentation (internal/openapidoc serves it for the API
// and for the oracle); dashboard/ is the integrator dashboard of GET /dashboard (api serves it).
package web

import (
	"embed"
	"io/fs"
)

//go:embed all:dist
var dist embed.FS

// Docs is the OpenAPI viewer: index.html, the page (with {{TITLE}} and {{BASE}} for the server
// to fill in), and assets/, its script and stylesheet named by their content's hash.
func Docs() fs.FS { return sub("dist/docs") }

// Dashboard is the integrator dashboard: index.html, the page, served as it is, and assets/, its
// script and stylesheet named by their content's hash and the licences of what they bundle.
func Dashboard() fs.FS { return sub("dist/dashboard") }

func sub(dir string) fs.FS {
	f, err := fs.Sub(dist, dir)
	if err != nil {
		panic("web: " + err.Error()) // a constant path of the embedded tree: cannot fail
	}
	return f
}
