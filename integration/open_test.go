package integration

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/converter"

	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/door"
	"github.com/intentd/intentd/testkit/e2e"
	"github.com/intentd/intentd/workflows"
)

// Issue 34, point 2: the door "can open a request whose workflow starts before any deposit (for
// flows where the engine sends the funding itself)". A request opened by the door is running
// before anything is paid: its workflow is open, started without a deposit, and the request is
// waiting. Its deposit, sent as the quote's steps say and found by the scanner, is signalled to
// that same run, which fills it: success, one fill, the recipient paid. Opening it again does
// nothing; a requestId without a quote is ErrUnknownRequest.
func TestARequestOpenedBeforeItsDepositIsFilledWhenItsDepositComes(t *testing.T) {
	s := startStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	d := s.Sys.Intents()
	if err := d.Open(ctx, "0x"+strings.Repeat("0", 64)); !errors.Is(err, door.ErrUnknownRequest) {
		t.Fatalf("opening a request without a quote = %v, want ErrUnknownRequest", err)
	}

	acct, recipient := devnet.TestAccounts()[3], devnet.TestAccounts()[8].Address
	q := s.ethBridge(t, ctx, acct.Address, recipient, common.Address{}, "200000000000000000")
	if err := d.Open(ctx, q.RequestID); err != nil {
		t.Fatal(err)
	}
	id := workflows.IntentWorkflowID(q.RequestID)
	desc, err := s.Sys.Temporal.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		t.Fatalf("no workflow after Open: %v", err)
	}
	if st := desc.GetWorkflowExecutionInfo().GetStatus(); st != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		t.Fatalf("the opened workflow is %s, want running", st)
	}
	run := desc.GetWorkflowExecutionInfo().GetExecution().GetRunId()
	if dep := s.startedWith(t, ctx, id); dep {
		t.Fatal("the opened workflow was started with a deposit")
	}
	if err := d.Open(ctx, q.RequestID); err != nil {
		t.Fatalf("opening it again: %v", err)
	}
	if st, _, err := s.API.Status(ctx, q.RequestID); err != nil || st.Status != "waiting" {
		t.Fatalf("status of the opened request = %+v, %v, want waiting", st, err)
	}

	before := s.balance(t, 31338, common.Address{}, recipient)
	if _, err := (&e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}).SendTx(ctx, depositStep(t, q)); err != nil {
		t.Fatal(err)
	}
	final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
	if err != nil {
		t.Fatal(err)
	}
	if final.Status != "success" {
		t.Fatalf("the opened request ended %s (%s), seen %v", final.Status, final.FailReason, seen)
	}
	if n := s.fills(t, 31338, common.HexToHash(q.Protocol.V2.OrderID)); n != 1 {
		t.Fatalf("%d fills, want 1", n)
	}
	minOut, _ := new(big.Int).SetString(q.Details.CurrencyOut.MinimumAmount, 10)
	if got := new(big.Int).Sub(s.balance(t, 31338, common.Address{}, recipient), before); got.Cmp(minOut) < 0 {
		t.Fatalf("the recipient got %s, less than the quote's minimum %s", got, minOut)
	}
	desc, err = s.Sys.Temporal.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := desc.GetWorkflowExecutionInfo().GetExecution().GetRunId(); got != run {
		t.Fatalf("the request was filled by run %s, not the opened run %s", got, run)
	}
}

// startedWith reports whether a workflow's input (its first event) holds a deposit.
func (s *stack) startedWith(t *testing.T, ctx context.Context, workflowID string) bool {
	t.Helper()
	it := s.Sys.Temporal.GetWorkflowHistory(ctx, workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	ev, err := it.Next()
	if err != nil {
		t.Fatal(err)
	}
	var in workflows.IntentInput
	if err := converter.GetDefaultDataConverter().FromPayload(ev.GetWorkflowExecutionStartedEventAttributes().GetInput().GetPayloads()[0], &in); err != nil {
		t.Fatal(err)
	}
	return in.Deposit != nil
}
