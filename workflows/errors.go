package workflows

import (
	"errors"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"

	"github.com/intentd/intentd/activities"
	"github.com/intentd/intentd/intent"
)

// isTimeout reports whether an activity ran out of time: timed out by the server, or failed on
// an attempt after which no retry fits before its schedule-to-close deadline (the server then
// resolves it with the attempt's error and RETRY_STATE_TIMEOUT, not a TimeoutError).
func isTimeout(err error) bool {
	var te *temporal.TimeoutError
	if errors.As(err, &te) {
		return true
	}
	var ae *temporal.ActivityError
	return errors.As(err, &ae) && ae.RetryState() == enumspb.RETRY_STATE_TIMEOUT
}

func isNonRetryable(err error) bool {
	var appErr *temporal.ApplicationError
	return errors.As(err, &appErr) && appErr.NonRetryable()
}

// reasonOf maps an activity error to its failReason: non-retryable application errors carry
// the reason as their type.
func reasonOf(err error) intent.FailReason {
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && intent.FailReason(appErr.Type()).Valid() {
		return intent.FailReason(appErr.Type())
	}
	return intent.FailReasonUnknown
}

// refundReasonOf maps a refund error to its refundFailReason; anything unexpected needs an
// operator.
func refundReasonOf(err error) intent.RefundFailReason {
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && intent.RefundFailReason(appErr.Type()).Valid() {
		return intent.RefundFailReason(appErr.Type())
	}
	return intent.RefundFailReasonManualRefundRequired
}

// unpriced reports whether a refund's AMOUNT_TOO_LOW_TO_REFUND came from a refund that could not
// be valued (activities.RefundUnpriced) rather than one worth less than its gas.
func unpriced(err error) bool {
	var appErr *temporal.ApplicationError
	var detail string
	return errors.As(err, &appErr) && appErr.HasDetails() && appErr.Details(&detail) == nil && detail == activities.RefundUnpriced
}
