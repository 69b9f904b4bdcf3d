package workflows

import (
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/protobuf/encoding/protojson"
)

// historyFiles lists the recorded histories (testdata/histories, recorded by the integration
// tests, see integration/history_test.go). The file name says which version of the code
// recorded it (v0: before the first GetVersion).
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
// code. A change that would make a request already in flight take a different path fails here:
// such changes must go through workflow.GetVersion.
func TestRecordedHistoriesReplay(t *testing.T) {
	logger := log.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	types := map[string]int{}
	for _, f := range historyFiles(t) {
		types[workflowType(t, readHistory(t, f))]++
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflow(Intent)
			r.RegisterWorkflow(DepositRefund)
			if err := r.ReplayWorkflowHistoryFromJSONFile(logger, f); err != nil {
				t.Fatalf("%s does not replay: %v", f, err)
			}
		})
	}
	for _, wf := range []string{"Intent", "DepositRefund"} {
		if types[wf] == 0 {
			t.Errorf("no recorded history of the %s workflow", wf)
		}
	}
}

// Every workflow.GetVersion change id in this package has, for each of its versions from
// DefaultVersion to its newest, a recorded history that took that version: the replay test
// then covers every path a request in flight can be on. A new change id or version without a
// recorded history fails here (record one, see integration/history_test.go).
func TestEveryVersionHasARecordedHistory(t *testing.T) {
	changes := getVersionCalls(t)
	if len(changes) == 0 {
		t.Fatal("found no workflow.GetVersion calls")
	}
	seen := map[string]map[int]bool{} // change id -> versions recorded
	mark := func(id string, v int) {
		if seen[id] == nil {
			seen[id] = map[int]bool{}
		}
		seen[id][v] = true
	}
	for id := range changes {
		if _, ok := versionOfChange[id]; !ok {
			t.Errorf("change %q is not in versionOfChange: say which code version introduced it", id)
		}
	}
	for _, f := range historyFiles(t) {
		h := readHistory(t, f)
		for _, e := range h.GetEvents() {
			m := e.GetMarkerRecordedEventAttributes()
			if m.GetMarkerName() != "Version" {
				continue
			}
			var id string
			var v int
			if err := converter.GetDefaultDataConverter().FromPayloads(m.GetDetails()["change-id"], &id); err != nil {
				t.Fatalf("%s: change id: %v", f, err)
			}
			if err := converter.GetDefaultDataConverter().FromPayloads(m.GetDetails()["version"], &v); err != nil {
				t.Fatalf("%s: version: %v", f, err)
			}
			mark(id, v)
		}
		// An Intent history recorded before a change ran that change's DefaultVersion path.
		if workflowType(t, h) == "Intent" {
			for id := range changes {
				if recordedBefore(filepath.Base(f), id) {
					mark(id, int(workflow.DefaultVersion))
				}
			}
		}
	}
	ids := make([]string, 0, len(changes))
	for id := range changes {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		ok := true
		if !seen[id][int(workflow.DefaultVersion)] {
			ok = false
			t.Errorf("change %q: no recorded history took its DefaultVersion path (recorded before the change)", id)
		}
		for v := 1; v <= changes[id]; v++ {
			if !seen[id][v] {
				ok = false
				t.Errorf("change %q: no recorded history took version %d", id, v)
			}
		}
		if ok {
			t.Logf("change %q: DefaultVersion and versions 1 to %d each have a recorded history", id, changes[id])
		}
	}
}

// recordedBefore reports whether a history file named vN-… was recorded before change id was
// introduced: versionOfChange says which vN introduced each change.
func recordedBefore(file, id string) bool {
	n, err := strconv.Atoi(strings.TrimPrefix(strings.SplitN(file, "-", 2)[0], "v"))
	return err == nil && n < versionOfChange[id]
}

// versionOfChange is the code version (the vN of the recorded histories' file names) that
// introduced each change id; docs/operations.md, Versioning, tells the same story.
var versionOfChange = map[string]int{
	changeRefunds:     1,
	changeInclusion:   2,
	changeDuplicates:  3,
	changeSubmission:  3,
	changeSponsorship: 4,
	changeLean:        5,
}

// getVersionCalls finds every workflow.GetVersion(ctx, id, min, max) call in the package's
// non-test files and returns each change id with its newest version, resolving constants with
// go/types so a change id or version named by a constant is followed.
func getVersionCalls(t *testing.T) map[string]int {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var parsed []*ast.File
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, af)
	}
	// Only the constants matter: type-check without an importer and ignore the errors about
	// imports; the change ids and versions are the package's own constants and literals.
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	conf := types.Config{Importer: nil, Error: func(error) {}}
	_, _ = conf.Check("workflows", fset, parsed, info)
	out := map[string]int{}
	for _, af := range parsed {
		ast.Inspect(af, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 4 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "GetVersion" {
				return true
			}
			id, max := info.Types[call.Args[1]].Value, info.Types[call.Args[3]].Value
			if id == nil || max == nil || id.Kind() != constant.String || max.Kind() != constant.Int {
				t.Errorf("%s: GetVersion with a change id or version that is not a constant", fset.Position(call.Pos()))
				return true
			}
			v, _ := constant.Int64Val(max)
			if cid := constant.StringVal(id); int(v) > out[cid] {
				out[cid] = int(v)
			}
			return true
		})
	}
	return out
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
