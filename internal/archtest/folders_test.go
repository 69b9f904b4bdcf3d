package archtest

import (
	"slices"
	"strings"
	"testing"
)

// Issue 34, point 4: "no import points from a lower folder to a higher one". internal/ is the
// ground floor: its packages (logging, metrics, the group commit, the process helper of the
// tests, …) are used by the rest of the house and use none of it, their tests included. The
// stack the tests build (app, worker, workflows together) is testkit/, a top-level folder.
func TestInternalPackagesImportNothingAboveThem(t *testing.T) {
	pkgs := list(t, "./internal/...")
	var paths []string
	for p := range pkgs {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	ground := module + "/internal/"
	for _, p := range paths {
		if !strings.HasPrefix(p, ground) {
			continue
		}
		q := pkgs[p]
		for _, imp := range slices.Concat(q.Imports, q.TestImports, q.XTestImports) {
			if strings.HasPrefix(imp, module+"/") && !strings.HasPrefix(imp, ground) {
				t.Errorf("%s imports %s, a package above internal/", strings.TrimPrefix(p, module+"/"), strings.TrimPrefix(imp, module+"/"))
			}
		}
	}
}
