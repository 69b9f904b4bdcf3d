package intent

import (
	"slices"
	"testing"
)

// Every status has a value in the vocabularies of the two older status endpoints, so a status
// added later cannot leak onto them unmapped.
func TestEveryStatusHasAV1AndAV2Value(t *testing.T) {
	v1 := []string{"pending", "received", "success", "failure", "fallback"}
	v2 := []string{"refund", "waiting", "depositing", "failure", "pending", "success"}
	all := []Status{StatusWaiting, StatusDepositing, StatusPending, StatusSubmitted, StatusSuccess, StatusDelayed, StatusRefund, StatusFailure}
	for _, s := range all {
		if !s.Valid() {
			t.Fatalf("%s is not valid", s)
		}
		if !slices.Contains(v1, s.V1()) {
			t.Errorf("%s.V1() = %q, not one of %v", s, s.V1(), v1)
		}
		if !slices.Contains(v2, s.V2()) {
			t.Errorf("%s.V2() = %q, not one of %v", s, s.V2(), v2)
		}
	}
	if len(legacyStatus) != len(all) {
		t.Fatalf("legacyStatus maps %d statuses, want %d", len(legacyStatus), len(all))
	}
}
