package quote

import (
	"errors"
	"fmt"
	"testing"

	"github.com/intentd/intentd/intent"
)

// A store that could not reach its database says so with intent.ErrUnavailable: that is
// SERVICE_UNAVAILABLE (retry); any other failed write is UNKNOWN_ERROR.
func TestStoreErrorTellsUnreachableFromRefused(t *testing.T) {
	if e := storeError(fmt.Errorf("insert quote: %w", fmt.Errorf("%w: dial tcp: refused", intent.ErrUnavailable))); e.Code != CodeServiceUnavailable {
		t.Fatalf("unreachable: %v", e)
	}
	if e := storeError(errors.New("insert quote: relation \"quotes\" does not exist")); e.Code != CodeUnknownError || e.Cause() == nil {
		t.Fatalf("refused: %v", e)
	}
}
