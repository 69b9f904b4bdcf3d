package workflows

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"google.golang.org/protobuf/encoding/protojson"
)

// historyFiles lists the recorded histories (testdata/histories, recorded by the integration
// tests, see integration/history_test.go). A file's name says the version of the run it
// recorded: v<intentVersion>-<what it shows>.json.
func historyFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "histories", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no recorded histories in testdata/histories")
	}
	return files
}

// Every recorded history, of Intent and of DepositRefund, replays against the current workflow
// code. A change that would make a run already in flight take a different path fails here: such
// changes must go through a new intentVersion (versions.go).
func TestRecordedHistoriesReplay(t *testing.T) {
	logger := log.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	for _, f := range historyFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflow(Intent)
			r.RegisterWorkflow(DepositRefund)
			if err := r.ReplayWorkflowHistoryFromJSONFile(logger, f); err != nil {
				t.Fatalf("%s does not replay: %v", f, err)
			}
		})
	}
}

// Every version of intentVersion, from baseline to newestVersion, has a recorded history of each
// workflow that ran at it, so the replay test covers every path a run in flight can be on. Every
// history records its run's version once, in the Version marker of versionChangeID, and its file
// name starts with that version (v<N>-). A new version without its histories fails here (record
// them, see integration/history_test.go).
func TestEveryVersionHasARecordedHistory(t *testing.T) {
	seen := map[intentVersion]map[string]bool{} // version -> workflow types recorded at it
	for _, f := range historyFiles(t) {
		h := readHistory(t, f)
		var versions []intentVersion
		for _, e := range h.GetEvents() {
			m := e.GetMarkerRecordedEventAttributes()
			if m.GetMarkerName() != "Version" {
				continue
			}
			var id string
			var v intentVersion
			if err := converter.GetDefaultDataConverter().FromPayloads(m.GetDetails()["change-id"], &id); err != nil {
				t.Fatalf("%s: change id: %v", f, err)
			}
			if err := converter.GetDefaultDataConverter().FromPayloads(m.GetDetails()["version"], &v); err != nil {
				t.Fatalf("%s: version: %v", f, err)
			}
			if id != versionChangeID {
				t.Errorf("%s: a Version marker of change %q, not %q", f, id, versionChangeID)
			}
			versions = append(versions, v)
		}
		if len(versions) != 1 {
			t.Errorf("%s: %d Version markers, want the run's one", f, len(versions))
			continue
		}
		v := versions[0]
		if v < baseline || v > newestVersion {
			t.Errorf("%s: recorded at version %d, outside baseline (%d) to newestVersion (%d)", f, v, baseline, newestVersion)
		}
		if prefix := fmt.Sprintf("v%d-", v); !strings.HasPrefix(filepath.Base(f), prefix) {
			t.Errorf("%s: recorded at version %d, so its name starts with %s", f, v, prefix)
		}
		if seen[v] == nil {
			seen[v] = map[string]bool{}
		}
		seen[v][workflowType(t, h)] = true
	}
	for v := baseline; v <= newestVersion; v++ {
		for _, wf := range []string{"Intent", "DepositRefund"} {
			if !seen[v][wf] {
				t.Errorf("version %d: no recorded history of the %s workflow", v, wf)
			}
		}
	}
}

// The package reads a run's version in one place: one workflow.GetVersion call, readVersion's.
// A change checks r.hasMinVersion with a named version instead of a GetVersion of its own.
func TestTheVersionIsReadOnce(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "GetVersion" {
				calls = append(calls, fset.Position(sel.Pos()).String())
			}
			return true
		})
	}
	if len(calls) != 1 || !strings.HasPrefix(calls[0], "versions.go:") {
		t.Errorf("workflow.GetVersion is called at %v; want once, in versions.go (readVersion)", calls)
	}
}

// hasMinVersion holds from the version a change introduced on, and not before it.
func TestHasMinVersion(t *testing.T) {
	r := &intentRun{version: baseline}
	if !r.hasMinVersion(baseline) {
		t.Error("a run at baseline has the baseline")
	}
	if r.hasMinVersion(baseline + 1) {
		t.Error("a run at baseline has no later version")
	}
}

func readHistory(t *testing.T, file string) *historypb.History {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	h := &historypb.History{}
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(raw, h); err != nil {
		t.Fatalf("%s is not a history: %v", file, err)
	}
	return h
}

func workflowType(t *testing.T, h *historypb.History) string {
	t.Helper()
	if len(h.GetEvents()) == 0 {
		t.Fatal("empty history")
	}
	return h.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes().GetWorkflowType().GetName()
}
