// Package webasset serves the files of an embedded browser app's assets/ directory (package
// web's trees: the API reference's viewer, the dashboard): the media type by extension, and
// the cache rule of web/build.mjs's names, where a name carrying its content's hash is the same
// bytes for good.
package webasset

import (
	"io/fs"
	"net/http"
	"path"
	"regexp"
)

// hashed is an asset named by its content's hash (web/build.mjs): the same name is always the
// same bytes, so a browser may keep it for good.
var hashed = regexp.MustCompile(`-[A-Z0-9]{8}\.(js|css)$`)

// types are the media types of what an app's assets/ holds: scripts, stylesheets, licences.
var types = map[string]string{
	".js":  "text/javascript; charset=utf-8",
	".css": "text/css; charset=utf-8",
	".txt": "text/plain; charset=utf-8",
}

// Serve writes the asset name (a plain file name of assets) and reports whether there is one;
// the caller answers its own 404 otherwise. Hashed assets are cached for a year, the others (the
// licences) revalidated.
func Serve(w http.ResponseWriter, assets fs.FS, name string) bool {
	media, ok := types[path.Ext(name)]
	if !ok || name != path.Base(name) || !fs.ValidPath(name) {
		return false
	}
	b, err := fs.ReadFile(assets, name)
	if err != nil {
		return false
	}
	h := w.Header()
	h.Set("Content-Type", media)
	h.Set("X-Content-Type-Options", "nosniff")
	if hashed.MatchString(name) {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
	return true
}
