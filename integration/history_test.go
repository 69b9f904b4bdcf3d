package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/intentd/intentd/workflows"
)

// recordHistory writes the finished workflow's event history to
// $INTENTD_RECORD_HISTORIES/v<N>-<name>.json when that variable names a directory, N being the
// version the run took (its Version marker: workflows/versions.go). The replay test in package
// workflows replays every file in workflows/testdata/histories on every build, so a change to
// the workflow code that is not behind a new version fails there, and it requires a history of
// each workflow at every version. Record new histories with
//
//	INTENTD_RECORD_HISTORIES=$PWD/workflows/testdata/histories go test ./integration -run 'TestIntentFromQuoteToFillOnDevnet|TestDepositProblemsAreRefunded|TestRefundProblemsAndManualAdminRefund|TestFillNotIncluded|TestDepositConfirmationTimeout|TestFillSubmissionFailedIsRefunded|TestOrphanedAndDuplicateDepositsAreRefunded|TestSponsorshipIsPaidByTheIntegrator|TestScreening|TestASecondFillWaitsPendingUntilTheFirstDepositIsFinal|TestJunkDepositsCostTheSolverNothing|TestADepositAddressPaidByAPlainTransferIsSweptOnceAndFilled|TestAStrictDepositAddressRefundsAPaymentAfterItsFirstWithDoubleSpend|TestAStrictDepositAddressPaidInTheWrongCurrencyOrOnTheWrongChainIsSweptAndRefunded'
func (s *stack) recordHistory(t *testing.T, requestID, name string) {
	t.Helper()
	dir := os.Getenv("INTENTD_RECORD_HISTORIES")
	if dir == "" {
		return
	}
	// The history is read once the run has closed: a status the API shows is written before the
	// run's last workflow task completes.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.Sys.Temporal.GetWorkflow(ctx, workflows.IntentWorkflowID(requestID), "").Get(ctx, nil); err != nil && ctx.Err() != nil {
		t.Fatalf("history of %s: the run did not close: %v", requestID, err)
	}
	it := s.Sys.Temporal.GetWorkflowHistory(ctx, workflows.IntentWorkflowID(requestID), "", false, 0)
	h := &historypb.History{}
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatalf("history of %s: %v", requestID, err)
		}
		h.Events = append(h.Events, e)
	}
	name = fmt.Sprintf("v%d-%s", runVersion(t, requestID, h), name)
	body, err := protojson.MarshalOptions{Multiline: true, Indent: "  "}.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".json"), body, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded the history of %s as %s.json", requestID, name)
}

// runVersion is the version a run recorded in its history: the one Version marker.
func runVersion(t *testing.T, requestID string, h *historypb.History) int {
	t.Helper()
	var versions []int
	for _, e := range h.GetEvents() {
		m := e.GetMarkerRecordedEventAttributes()
		if m.GetMarkerName() != "Version" {
			continue
		}
		var v int
		if err := converter.GetDefaultDataConverter().FromPayloads(m.GetDetails()["version"], &v); err != nil {
			t.Fatalf("history of %s: version: %v", requestID, err)
		}
		versions = append(versions, v)
	}
	if len(versions) != 1 {
		t.Fatalf("history of %s: %d Version markers, want the run's one", requestID, len(versions))
	}
	return versions[0]
}
