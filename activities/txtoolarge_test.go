package activities

import (
	"errors"
	"fmt"
	"testing"

	"go.temporal.io/sdk/temporal"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
)

// Issue 36 point 4: a family's *chains.TxTooLargeError (a Solana payment over 1232 bytes,
// refused before anything is kept) is the non-retryable failReason TRANSACTION_TOO_LARGE for a
// fill and for a refund.
func TestATransactionOverTheWireLimitIsTransactionTooLarge(t *testing.T) {
	large := fmt.Errorf("pay: %w", &chains.TxTooLargeError{Size: 1300, Limit: 1232})
	for name, err := range map[string]error{"fill": fillFailure(large), "refund": refundFailureOf(large)} {
		var app *temporal.ApplicationError
		if !errors.As(err, &app) || app.Type() != string(intent.FailReasonTransactionTooLarge) || !app.NonRetryable() {
			t.Errorf("%s: %v, want the non-retryable %s", name, err, intent.FailReasonTransactionTooLarge)
		}
	}
}
