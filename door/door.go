// Package door is the one door to the intent workflows: everything outside the worker that
// acts on a request's workflow goes through a Door, with typed methods. The deposit scanner
// delivers deposits (Deliver), the API indexes a client's transaction (IndexTransaction, with the
// transaction's id as its chain family writes it) and sends manual refunds (AdminRefund), the
// admin CLI sends them too; a flow whose funding the engine sends itself opens the request's
// workflow before any deposit (Open). Workflow ids, signal and update names, start options and
// how Temporal's answers map to errors live here and in package workflows only; callers never
// see the Temporal client. The door speaks no chain family's types: the chains registry reads
// transaction ids by the chain's family (chains.Notation).
package door

import (
	"context"
	"log/slog"
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/sharedread"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/workflows"
)

// Temporal is the part of the Temporal client the door uses (client.Client has it).
type Temporal interface {
	SignalWorkflow(ctx context.Context, workflowID string, runID string, signalName string, arg any) error
	GetWorkflowHistory(ctx context.Context, workflowID string, runID string, isLongPoll bool,
		filterType enumspb.HistoryEventFilterType) client.HistoryEventIterator
	ExecuteWorkflow(ctx context.Context, options client.StartWorkflowOptions, workflow any, args ...any) (client.WorkflowRun, error)
	UpdateWorkflow(ctx context.Context, options client.UpdateWorkflowOptions) (client.WorkflowUpdateHandle, error)
	DescribeWorkflowExecution(ctx context.Context, workflowID, runID string) (*workflowservice.DescribeWorkflowExecutionResponse, error)
}

// Requests is what the door reads of the read model (store.Store): the quote a deposit's order
// id names or a request opened by id, and a closed request's deposits and record.
type Requests interface {
	QuoteByOrderID(ctx context.Context, orderID string) (*store.StoredQuote, error)
	QuoteByRequestID(ctx context.Context, requestID string) (*store.StoredQuote, error)
	Status(ctx context.Context, requestID string) (*store.StatusRow, error)
	HasDeposit(ctx context.Context, requestID string, d intent.Deposit) (bool, error)
	Record(ctx context.Context, requestID string) (*intent.Record, error)
}

// Door acts on the intent workflows. It is built once per process (app.System.Intents).
type Door struct {
	Temporal Temporal
	Requests Requests
	// Chains reads the transactions clients report (IndexTransaction); nil turns that off.
	Chains *chains.Clients
	// Policy is handed to every intent the door starts.
	Policy workflows.Policy
	// EagerStart asks for eager starts (app.Config.EagerStart).
	EagerStart bool
	// HintMaxDeposits caps the deposits one transaction hint routes (IndexTransaction;
	// app.Config.HintMaxDeposits); 0 is DefaultHintMaxDeposits.
	HintMaxDeposits int
	Logger          *slog.Logger

	// hints are the transactions whose hints this door routed, and how far (IndexTransaction);
	// hintReads shares a hint's routing with the same hint arriving while it runs.
	hintsOnce sync.Once
	hints     *lru.Cache[hintKey, hintProgress]
	hintReads sharedread.Group
}

func (d *Door) logger() *slog.Logger {
	if d.Logger == nil {
		return slog.Default()
	}
	return d.Logger
}

// WorkflowID is the id of the workflow that runs request requestID, for the links operators
// follow to it (the dashboard's request page): the API names workflows only through the door.
func WorkflowID(requestID string) string { return workflows.IntentWorkflowID(requestID) }
