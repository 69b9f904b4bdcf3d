package door

import (
	"context"
	"log/slog"
	"testing"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/workflows"
)

// startsClient records the workflows the door starts; closed makes every start find its workflow
// there already and every signal find it closed.
type startsClient struct {
	client.Client
	closed bool
	starts []client.StartWorkflowOptions
	inputs []any
}

func (f *startsClient) ExecuteWorkflow(_ context.Context, o client.StartWorkflowOptions, _ any, args ...any) (client.WorkflowRun, error) {
	f.starts = append(f.starts, o)
	f.inputs = append(f.inputs, args[0])
	if f.closed {
		return nil, serviceerror.NewWorkflowExecutionAlreadyStarted("started", "", "run")
	}
	return nil, nil
}

func (f *startsClient) SignalWorkflow(context.Context, string, string, string, any) error {
	return serviceerror.NewNotFound("workflow execution already completed")
}

func (f *startsClient) GetWorkflowHistory(context.Context, string, string, bool, enumspb.HistoryEventFilterType) client.HistoryEventIterator {
	return emptyHistory{}
}

type emptyHistory struct{ client.HistoryEventIterator }

func (emptyHistory) HasNext() bool { return false }

// byRequest is a read model of one quote, found by its requestId only, with no deposit recorded.
type byRequest struct {
	Requests
	q store.StoredQuote
}

func (r byRequest) QuoteByRequestID(_ context.Context, id string) (*store.StoredQuote, error) {
	if id != r.q.RequestID {
		return nil, store.ErrNotFound
	}
	return &r.q, nil
}

func (r byRequest) Status(context.Context, string) (*store.StatusRow, error) {
	return &store.StatusRow{}, nil
}

func (r byRequest) Record(context.Context, string) (*intent.Record, error) {
	return &intent.Record{}, nil
}

// Issue 35, point 3: a payment that arrived at a deposit address names its request: the door
// starts that request's workflow with it (found by requestId, not by an order), and a sweep's
// deposit, which the depository's scan and a client's hint both see under the address's order
// id, reaches no workflow at all (its request's workflow made it). Point 6, "nothing lost": a
// payment at the address of a request whose workflow has closed is not refunded as a deposit of
// its own (it is not in the depository), where a deposit of the order would be.
func TestAPaymentAtADepositAddressGoesToItsRequestAndASweepNowhere(t *testing.T) {
	ctx := context.Background()
	const requestID = "0x00000000000000000000000000000000000000000000000000000000000000aa"
	arrival := intent.Deposit{ChainID: 31337, TxHash: "0x01", OrderID: "0x0b", Depositor: "0x0c", Currency: "0x0000000000000000000000000000000000000000",
		Amount: "5", RequestID: requestID, Family: "evm"}

	f := &startsClient{}
	d := &Door{Temporal: f, Requests: byRequest{q: store.StoredQuote{RequestID: requestID,
		Execution: intent.Execution{RequestID: requestID, DepositAddress: &intent.ExecutionDepositAddress{Address: "0xDA"}}}},
		Logger: slog.New(slog.DiscardHandler)}
	sweep := arrival
	sweep.RequestID, sweep.SweptFrom, sweep.TxHash = "", "0xDA", "0x02"
	if err := (&Door{Logger: slog.New(slog.DiscardHandler)}).Deliver(ctx, sweep); err != nil {
		t.Fatalf("a sweep's deposit: %v, want it skipped before anything is read", err)
	}
	if err := d.Deliver(ctx, arrival); err != nil {
		t.Fatal(err)
	}
	if len(f.starts) != 1 || f.starts[0].ID != workflows.IntentWorkflowID(requestID) {
		t.Fatalf("starts = %+v, want the request's workflow", f.starts)
	}
	if in := f.inputs[0].(workflows.IntentInput); in.Deposit == nil || *in.Deposit != arrival {
		t.Fatalf("the workflow's input deposit = %+v, want the payment", in.Deposit)
	}

	closed := &startsClient{closed: true}
	d.Temporal = closed
	if err := d.Deliver(ctx, arrival); err != nil {
		t.Fatal(err)
	}
	if len(closed.starts) != 1 {
		t.Fatalf("starts for a closed request = %+v, want only the request's own (no refund request)", closed.starts)
	}
}
