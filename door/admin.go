package door

// The manual admin refund of an intent, sent to the request's workflow as the Temporal Update
// workflows.UpdateAdminRefund. AdminRefund checks the input, waits for the update to complete
// (the refund mined) and turns what Temporal answers into errors a caller can act on:
// ErrInvalid, ErrNotFound, ErrNotRefundable (with the workflow's reason; ErrRefundFailed when
// the workflow accepted it but the chain would not take the refund), ErrTimeout. `intentd admin
// refund` and POST /admin/requests/{requestId}/refund both go through it.

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/workflows"
)

var (
	// ErrInvalid is bad input: no reason or operator, a malformed requestId or recipient.
	ErrInvalid = errors.New("invalid admin refund")
	// ErrNotFound means the request has no intent workflow: an unknown requestId, or a request
	// whose deposit was never seen (the workflow starts with the deposit, unless the request was
	// opened before it, Open).
	ErrNotFound = errors.New("no intent workflow for this request")
	// ErrNotRefundable means the workflow refused the refund; errors.As to *NotRefundableError
	// for its reason.
	ErrNotRefundable = errors.New("not refundable")
	// ErrTimeout means the refund did not complete before the caller's context ended. An update
	// the workflow accepted goes on: the request's status shows when the refund is mined.
	ErrTimeout = errors.New("admin refund did not complete in time")
	// ErrRefundFailed means the workflow accepted the refund but it could not be made (the chain
	// refused it before anything was signed, or the transaction reverted): nothing was paid, and
	// the request waits for another attempt. It is also ErrNotRefundable.
	ErrRefundFailed = errors.New("the refund was not made")
)

// NotRefundableError is the workflow's refusal (its update validator's message), or a request
// whose workflow has already closed. It matches ErrNotRefundable with errors.Is.
//
// An error the update handler returns after accepting the update (the refund transaction could
// not be made, say) reaches the caller exactly like a rejection, as an application error, so it
// lands here too; Type tells them apart where the workflow sets one (REFUND_FAILED).
type NotRefundableError struct {
	Reason string // the workflow's message, fit to show to the operator
	Type   string // the application error's type, when the workflow sent one
	Err    error  // what Temporal returned, if anything
}

func (e *NotRefundableError) Error() string { return "not refundable: " + e.Reason }

// Is makes errors.Is(err, ErrNotRefundable) hold, and errors.Is(err, ErrRefundFailed) for an
// accepted refund that could not be made.
func (e *NotRefundableError) Is(target error) bool {
	return target == ErrNotRefundable || target == ErrRefundFailed && e.Type == workflows.ErrTypeAdminRefundFailed
}

func (e *NotRefundableError) Unwrap() error { return e.Err }

// Input limits: the reason and operator go into the audit table and the workflow history.
const (
	MaxReasonLen   = 2000
	MaxOperatorLen = 200
)

// ValidateAdminRefund checks a refund before it is sent and returns it normalised: reason and operator
// trimmed, the recipient (optional) as a checksummed address. Every failure is ErrInvalid.
func ValidateAdminRefund(requestID string, req intent.AdminRefund) (intent.AdminRefund, error) {
	invalid := func(format string, args ...any) (intent.AdminRefund, error) {
		return intent.AdminRefund{}, fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
	}
	if !intent.IsHash32(requestID) {
		return invalid("requestId must be 0x followed by 64 hex digits")
	}
	out := intent.AdminRefund{Operator: strings.TrimSpace(req.Operator), Reason: strings.TrimSpace(req.Reason),
		Recipient: strings.TrimSpace(req.Recipient)}
	switch {
	case out.Reason == "":
		return invalid("reason is required")
	case utf8.RuneCountInString(out.Reason) > MaxReasonLen:
		return invalid("reason is longer than %d characters", MaxReasonLen)
	case !utf8.ValidString(out.Reason):
		return invalid("reason is not valid UTF-8")
	case out.Operator == "":
		return invalid("operator is required")
	case utf8.RuneCountInString(out.Operator) > MaxOperatorLen:
		return invalid("operator is longer than %d characters", MaxOperatorLen)
	case !utf8.ValidString(out.Operator):
		return invalid("operator is not valid UTF-8")
	}
	if out.Recipient != "" {
		if !intent.IsAddress(out.Recipient) {
			return invalid("recipient must be a 0x-prefixed 20-byte hex address")
		}
		if !intent.ChecksumValid(out.Recipient) {
			return invalid("recipient %s", intent.ErrAddressChecksum)
		}
		if intent.IsZeroAddress(out.Recipient) {
			return invalid("recipient must not be the zero address")
		}
		out.Recipient = intent.ChecksumAddress(out.Recipient)
	}
	return out, nil
}

// AdminRefund asks the request's workflow to refund it and waits until the refund is mined (or ctx
// ends). The input is validated first (ErrInvalid). Errors: ErrNotFound when the request has no
// workflow; *NotRefundableError (ErrNotRefundable) when the workflow refuses, with its reason;
// ErrTimeout when ctx's deadline passes first; anything else wrapped as it came.
func (d *Door) AdminRefund(ctx context.Context, requestID string, req intent.AdminRefund) (*intent.AdminRefundResult, error) {
	c := d.Temporal
	req, err := ValidateAdminRefund(requestID, req)
	if err != nil {
		return nil, err
	}
	wfID := workflows.IntentWorkflowID(requestID)
	// Our own update id, so a timeout can name it (it is also the admin_refunds row's id).
	updateID := "admin-refund-" + rand.Text()
	handle, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: wfID, UpdateID: updateID,
		UpdateName: workflows.UpdateAdminRefund, Args: []any{req}, WaitForStage: client.WorkflowUpdateStageCompleted})
	if err == nil {
		var result intent.AdminRefundResult
		if err = handle.Get(ctx, &result); err == nil {
			return &result, nil
		}
	}
	return nil, classify(ctx, c, requestID, wfID, updateID, err)
}

// classify maps what UpdateWorkflow or the handle's Get returned to the package's errors.
func classify(ctx context.Context, c Temporal, requestID, wfID, updateID string, err error) error {
	// A validator's rejection comes back as the update's outcome: the validator's error
	// converted to an *ApplicationError, returned as is (not wrapped) by the handle. An error the
	// update handler returns after accepting the update surfaces the same way (see
	// NotRefundableError); an activity failure it passed on unwrapped would be an
	// *ActivityError whose cause is an ApplicationError, which is why this is a type assertion
	// on the outermost error and not errors.As.
	if appErr, ok := err.(*temporal.ApplicationError); ok {
		return &NotRefundableError{Reason: appErr.Message(), Type: appErr.Type(), Err: err}
	}
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		// Temporal answers NotFound both for a workflow that never existed and for one that has
		// closed ("workflow execution already completed"); the second is a finished request.
		desc, derr := c.DescribeWorkflowExecution(ctx, wfID, "")
		if derr == nil {
			if st := desc.GetWorkflowExecutionInfo().GetStatus(); st != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
				return &NotRefundableError{Reason: fmt.Sprintf("the request's workflow has already closed (%s)", st), Err: err}
			}
		}
		return fmt.Errorf("%w: %s (unknown request, or no deposit seen yet)", ErrNotFound, wfID)
	}
	var timedOut *client.WorkflowUpdateServiceTimeoutOrCanceledError
	if errors.As(err, &timedOut) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		if errors.Is(ctx.Err(), context.Canceled) {
			return fmt.Errorf("admin refund of %s (update %s): %w: %w", requestID, updateID, context.Canceled, err)
		}
		return fmt.Errorf("%w: update %s on workflow %s may still be running; follow the request's status", ErrTimeout, updateID, wfID)
	}
	return fmt.Errorf("admin refund of %s (update %s): %w", requestID, updateID, err)
}
