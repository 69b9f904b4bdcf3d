package web

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 39: "built with a well-kept front-end stack from the npm registry by the project's own
// files (pinned, with a lockfile), its assets embedded in the binary". The committed dist/ is
// exactly what build.mjs makes from the sources and the packages the lockfile pins: the build runs into a temporary directory and every file must be the same, none
// missing and none extra. A change to src/, build.mjs or package-lock.json without `make web`
// fails here.
func TestDistIsTheBuildOfTheSources(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not on the PATH: the web build needs Node.js 20 or later")
	}
	if _, err := os.Stat(filepath.Join("node_modules", "esbuild", "package.json")); err != nil {
		t.Fatal("the web build's packages are not installed: run `make web-deps` (npm ci in web/)")
	}
	out := t.TempDir()
	if b, err := exec.Command(node, "build.mjs", out).CombinedOutput(); err != nil {
		t.Fatalf("node build.mjs: %v\n%s", err, b)
	}
	built, committed := files(t, os.DirFS(out)), files(t, os.DirFS("dist"))
	for name, b := range built {
		c, ok := committed[name]
		switch {
		case !ok:
			t.Errorf("dist/%s is built but not committed: run `make web`", name)
		case !bytes.Equal(b, c):
			t.Errorf("dist/%s differs from its build: run `make web`", name)
		}
	}
	for name := range committed {
		if _, ok := built[name]; !ok {
			t.Errorf("dist/%s is committed but no longer built: run `make web`", name)
		}
	}
	if len(built) == 0 {
		t.Fatal("the build wrote nothing")
	}
}

// The embedded viewer is the page and the assets it names.
func TestDocsHoldsThePageAndTheAssetsItNames(t *testing.T) {
	page, err := fs.ReadFile(Docs(), "index.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"{{TITLE}}", "{{BASE}}/openapi.json", "{{BASE}}/assets/"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("index.html does not hold %q", want)
		}
	}
	for _, part := range strings.Split(string(page), "{{BASE}}/assets/")[1:] {
		name := part[:strings.IndexByte(part, '"')]
		if _, err := fs.Stat(Docs(), "assets/"+name); err != nil {
			t.Errorf("the page names assets/%s: %v", name, err)
		}
	}
}

// files reads every regular file of fsys by its path.
func files(t *testing.T, fsys fs.FS) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		out[p] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The embedded dashboard is its page and the assets it names.
func TestDashboardHoldsThePageAndTheAssetsItNames(t *testing.T) {
	page, err := fs.ReadFile(Dashboard(), "index.html")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(string(page), `"/dashboard/assets/`)[1:]
	if len(parts) != 2 {
		t.Fatalf("the page names %d assets, want its script and its stylesheet", len(parts))
	}
	for _, part := range parts {
		name := part[:strings.IndexByte(part, '"')]
		if _, err := fs.Stat(Dashboard(), "assets/"+name); err != nil {
			t.Errorf("the page names assets/%s: %v", name, err)
		}
	}
}
