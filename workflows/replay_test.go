package workflows

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
)

// Every history recorded in testdata/histories (by the integration tests, see
// integration/history_test.go) replays against the current workflow code. A change that would
// make an intent already in flight take a different path fails here: such changes must go
// through workflow.GetVersion. The file name says which version of the code recorded it
// (v0: before the first GetVersion).
func TestRecordedHistoriesReplay(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "histories", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no recorded histories in testdata/histories")
	}
	logger := log.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflow(Intent)
			if err := r.ReplayWorkflowHistoryFromJSONFile(logger, f); err != nil {
				t.Fatalf("%s does not replay: %v", f, err)
			}
		})
	}
}
