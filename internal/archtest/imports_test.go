package archtest

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/intentd/intentd"

// pkg is what `go list -json` says of one package.
type pkg struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
	Deps         []string
	Standard     bool
}

// list runs `go list -json` on patterns (with the build flags of the Makefile) and returns the
// packages by import path.
func list(t *testing.T, patterns ...string) map[string]pkg {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-json"}, patterns...)...)
	cmd.Dir = "../.."
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list: %v\n%s", err, errb.String())
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(&out)
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs[p.ImportPath] = p
	}
	return pkgs
}

// rule forbids the packages matching pkgs to import (directly, or anywhere in their dependency
// closure when deps is set) the import paths with one of the forbidden prefixes.
type rule struct {
	name      string
	pkgs      []string // import paths relative to the module
	deps      bool     // check the whole closure, not only direct imports
	forbidden []string // prefixes; relative to the module when they start with "./"
	except    []string // prefixes allowed despite forbidden
}

func abs(p string) string {
	if rest, ok := strings.CutPrefix(p, "./"); ok {
		return module + "/" + rest
	}
	return p
}

func matches(path string, prefixes []string) bool {
	for _, p := range prefixes {
		p = abs(p)
		if path == p || strings.HasPrefix(path, p+"/") || strings.HasSuffix(p, "/") && strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

var rules = []rule{
	{
		name: "the workflow code's closure holds no database driver, no Gin, no HTTP server of ours",
		pkgs: []string{"workflows"}, deps: true,
		forbidden: []string{"github.com/jackc/pgx", "github.com/gin-gonic/gin", "./store", "./api", "./oracle",
			"./quote", "./deposits", "./door", "./app"},
		except: []string{"./oracle/oracleapi"},
	},
	{
		name: "activities reach the store, the oracle and the chains only through interfaces and clients",
		pkgs: []string{"activities"},
		forbidden: []string{"./store", "./api", "./oracle", "./quote", "./door", "./app", "github.com/gin-gonic/gin",
			"github.com/jackc/pgx", "github.com/ethereum/go-ethereum/ethclient", "github.com/ethereum/go-ethereum/rpc", "net/http"},
		except: []string{"./oracle/oracleapi"},
	},
	{
		name:      "the API reaches workflows only through the door",
		pkgs:      []string{"api"},
		forbidden: []string{"./workflows", "./activities", "go.temporal.io/sdk/client", "./deposits"},
	},
	{
		name: "events reads the outbox through the store and knows no workflow, no Temporal, no Gin (the API mounts it)",
		pkgs: []string{"events"},
		forbidden: []string{"./workflows", "./activities", "go.temporal.io", "github.com/gin-gonic/gin", "./api", "./door",
			"github.com/jackc/pgx"},
	},
	{
		name:      "quote knows neither HTTP nor Postgres",
		pkgs:      []string{"quote"},
		forbidden: []string{"net/http", "github.com/gin-gonic/gin", "github.com/jackc/pgx", "./store", "./api"},
	},
	{
		name:      "usage counting knows neither HTTP nor Postgres (the store adds its batches)",
		pkgs:      []string{"usage"},
		forbidden: []string{"net/http", "github.com/gin-gonic/gin", "github.com/jackc/pgx", "./store", "./api"},
	},
	{
		name: "the production binary and its composition never link the Temporal server or the dev stack",
		pkgs: []string{"cmd/intentd", "app"}, deps: true,
		forbidden: []string{"go.temporal.io/server", "./devnet", "./devstack", "./testkit"},
	},
	{
		name:      "no raw chain client outside chains/",
		pkgs:      []string{"activities", "api", "quote", "prices", "door", "deposits", "worker", "app"},
		forbidden: []string{"github.com/ethereum/go-ethereum/ethclient", "github.com/ethereum/go-ethereum/rpc"},
	},
}

// TestImportRules checks every rule against `go list`. Each failure names the package, the
// forbidden import and, for closure rules, that it came in through the dependencies.
func TestImportRules(t *testing.T) {
	var patterns []string
	for _, r := range rules {
		for _, p := range r.pkgs {
			patterns = append(patterns, "./"+p)
		}
	}
	slices.Sort(patterns)
	pkgs := list(t, slices.Compact(patterns)...)
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			for _, rel := range r.pkgs {
				p, ok := pkgs[module+"/"+rel]
				if !ok {
					t.Fatalf("go list did not report %s", rel)
				}
				imports := p.Imports
				if r.deps {
					imports = p.Deps
				}
				for _, imp := range imports {
					if matches(imp, r.forbidden) && !matches(imp, r.except) {
						t.Errorf("%s imports %s", rel, imp)
					}
				}
			}
		})
	}
}
