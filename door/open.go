package door

import (
	"context"
	"errors"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/workflows"
)

// ErrUnknownRequest is returned by Open for a requestId no quote was made for.
var ErrUnknownRequest = errors.New("no quote for this requestId")

// Open starts a request's workflow before any deposit, for the flows where the engine sends the
// funding itself (a relayed deposit): the request must be running before its funding exists.
// The workflow waits for its deposit as a workflow started by a signal does, until the order's
// deadline, and the deposit reaches it like any other: the scanner or a client's hint finds it
// and Deliver signals it to the open workflow. Opening a request whose workflow exists already,
// open or closed, does nothing. Errors: ErrUnknownRequest for a requestId without a quote;
// anything else is the read model's or Temporal's, worth a retry.
func (d *Door) Open(ctx context.Context, requestID string) error {
	q, err := d.Requests.QuoteByRequestID(ctx, requestID)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w: %s", ErrUnknownRequest, requestID)
	}
	if err != nil {
		return err
	}
	err = d.startBeforeDeposit(ctx, q, nil)
	var already *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &already) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open %s: %w", q.RequestID, err)
	}
	d.logger().Info("request opened before its deposit", "requestId", q.RequestID)
	return nil
}

// ErrAlreadyExecuting is returned by OpenRelayed for a request whose workflow exists already:
// its deposit was found first, or it was executed before. Nothing is relayed a second time.
var ErrAlreadyExecuting = errors.New("the request is already executing")

// OpenRelayed starts a gasless request's workflow with the call it relays (POST /execute,
// workflows.RelayFunding): the workflow relays it, then waits for the deposit it makes as any
// other. A request whose workflow exists, open or closed, is ErrAlreadyExecuting; a requestId
// without a quote ErrUnknownRequest.
func (d *Door) OpenRelayed(ctx context.Context, requestID string, call intent.RelayCall, integratorID string, subsidize bool) error {
	relay := workflows.RelayFunding{Call: call, IntegratorID: integratorID, Subsidize: subsidize}
	q, err := d.Requests.QuoteByRequestID(ctx, requestID)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w: %s", ErrUnknownRequest, requestID)
	}
	if err != nil {
		return err
	}
	err = d.startBeforeDeposit(ctx, q, &relay)
	var already *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &already) {
		return fmt.Errorf("%w: %s", ErrAlreadyExecuting, q.RequestID)
	}
	if err != nil {
		return fmt.Errorf("open %s: %w", q.RequestID, err)
	}
	d.logger().Info("gasless request opened: relaying its call", "requestId", q.RequestID, "chainId", relay.Call.ChainID)
	return nil
}

// Started reports whether the request's workflow exists, open or closed: its deposit was found,
// or it was executed before.
func (d *Door) Started(ctx context.Context, requestID string) (bool, error) {
	_, err := d.Temporal.DescribeWorkflowExecution(ctx, workflows.IntentWorkflowID(requestID), "")
	var missing *serviceerror.NotFound
	switch {
	case errors.As(err, &missing):
		return false, nil
	case err != nil:
		return false, err
	}
	return true, nil
}

// startBeforeDeposit starts the request's Intent workflow before any deposit exists, with the
// call it relays when relay is set; a workflow already there is
// *serviceerror.WorkflowExecutionAlreadyStarted.
func (d *Door) startBeforeDeposit(ctx context.Context, q *store.StoredQuote, relay *workflows.RelayFunding) error {
	_, err := d.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                                       workflows.IntentWorkflowID(q.RequestID),
		TaskQueue:                                workflows.TaskQueue,
		WorkflowIDReusePolicy:                    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		WorkflowExecutionErrorWhenAlreadyStarted: true,
		EnableEagerStart:                         d.EagerStart,
		TypedSearchAttributes:                    workflows.InitialSearchAttributes(q.Execution, q.APIKeyID),
	}, workflows.Intent, workflows.IntentInput{Execution: q.Execution, APIKeyID: q.APIKeyID, Policy: d.Policy, Relay: relay})
	return err
}

// RelayStandalone starts the workflow of a standalone gasless call (POST /execute without a
// requestId) under requestID, whose request the API stored (store.InsertRelayRequest): it relays
// the call and ends once it is mined. A requestID already started is ErrAlreadyExecuting.
func (d *Door) RelayStandalone(ctx context.Context, requestID string, call intent.RelayCall, integratorID, apiKeyID string) error {
	exec := intent.Execution{RequestID: requestID, User: call.To, Recipient: call.To, OriginChainID: call.ChainID,
		DestinationChainID: call.ChainID, Funding: intent.Funding{Family: "evm", Strategy: intent.FundingRelayed}}
	relay := workflows.RelayFunding{Call: call, IntegratorID: integratorID, Subsidize: true, Standalone: true}
	err := d.startBeforeDeposit(ctx, &store.StoredQuote{RequestID: requestID, Execution: exec, APIKeyID: apiKeyID}, &relay)
	var already *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &already) {
		return fmt.Errorf("%w: %s", ErrAlreadyExecuting, requestID)
	}
	if err != nil {
		return fmt.Errorf("relay %s: %w", requestID, err)
	}
	d.logger().Info("standalone gasless call: relaying it", "requestId", requestID, "chainId", call.ChainID)
	return nil
}
