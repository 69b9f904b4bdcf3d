package door

import (
	"context"
	"errors"
	"strings"
	"testing"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/workflows"
)

const reqID = "0x2222222222222222222222222222222222222222222222222222222222222222"

func TestValidate(t *testing.T) {
	ok := intent.AdminRefund{Operator: "alice", Reason: "stuck fill"}
	for _, tc := range []struct {
		name      string
		requestID string
		req       intent.AdminRefund
		want      string // substring of the error; "" = valid
	}{
		{"valid", reqID, ok, ""},
		{"valid with recipient", reqID, intent.AdminRefund{Operator: "a", Reason: "r",
			Recipient: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"}, ""},
		{"empty reason", reqID, intent.AdminRefund{Operator: "alice"}, "reason is required"},
		{"blank reason", reqID, intent.AdminRefund{Operator: "alice", Reason: " \t\n "}, "reason is required"},
		{"long reason", reqID, intent.AdminRefund{Operator: "alice", Reason: strings.Repeat("x", MaxReasonLen+1)}, "reason is longer"},
		{"empty operator", reqID, intent.AdminRefund{Operator: "  ", Reason: "r"}, "operator is required"},
		{"long operator", reqID, intent.AdminRefund{Operator: strings.Repeat("o", MaxOperatorLen+1), Reason: "r"}, "operator is longer"},
		{"recipient without 0x", reqID, intent.AdminRefund{Operator: "a", Reason: "r",
			Recipient: "70997970c51812dc3a010c7d01b50e0d17dc79c8"}, "recipient"},
		{"short recipient", reqID, intent.AdminRefund{Operator: "a", Reason: "r", Recipient: "0x7099"}, "recipient"},
		{"non-hex recipient", reqID, intent.AdminRefund{Operator: "a", Reason: "r",
			Recipient: "0x70997970c51812dc3a010c7d01b50e0d17dc79zz"}, "recipient"},
		{"zero recipient", reqID, intent.AdminRefund{Operator: "a", Reason: "r",
			Recipient: "0x0000000000000000000000000000000000000000"}, "zero address"},
		// Review L1: mixed case that is not the EIP-55 checksum is a typo, never refunded to.
		{"recipient with a bad checksum", reqID, intent.AdminRefund{Operator: "a", Reason: "r",
			Recipient: "0x70997970c51812dc3A010C7d01b50e0d17dc79C8"}, "EIP-55"},
		{"checksummed recipient", reqID, intent.AdminRefund{Operator: "a", Reason: "r",
			Recipient: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"}, ""},
		{"empty request id", "", ok, "requestId"},
		{"short request id", "0x1234", ok, "requestId"},
		{"request id without 0x", strings.TrimPrefix(reqID, "0x"), ok, "requestId"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ValidateAdminRefund(tc.requestID, tc.req)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want ErrInvalid mentioning %q", err, tc.want)
			}
		})
	}
}

func TestValidateNormalises(t *testing.T) {
	got, err := ValidateAdminRefund(reqID, intent.AdminRefund{Operator: " alice ", Reason: "  stuck fill\n",
		Recipient: " 0x70997970c51812dc3a010c7d01b50e0d17dc79c8 "})
	if err != nil {
		t.Fatal(err)
	}
	want := intent.AdminRefund{Operator: "alice", Reason: "stuck fill", Recipient: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"}
	if got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

// fakeClient answers UpdateWorkflow and DescribeWorkflowExecution; any other call panics on the
// nil embedded interface.
type fakeClient struct {
	client.Client
	opts      client.UpdateWorkflowOptions
	updateErr error // returned by UpdateWorkflow
	getErr    error // returned by the handle's Get
	result    intent.AdminRefundResult
	status    enumspb.WorkflowExecutionStatus // 0: DescribeWorkflowExecution answers NotFound
}

func (f *fakeClient) UpdateWorkflow(_ context.Context, o client.UpdateWorkflowOptions) (client.WorkflowUpdateHandle, error) {
	f.opts = o
	if f.updateErr != nil {
		return nil, f.updateErr
	}
	return fakeHandle{f}, nil
}

func (f *fakeClient) DescribeWorkflowExecution(_ context.Context, id, _ string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	if f.status == 0 {
		return nil, serviceerror.NewNotFound("workflow not found for ID: " + id)
	}
	return &workflowservice.DescribeWorkflowExecutionResponse{WorkflowExecutionInfo: &workflowpb.WorkflowExecutionInfo{Status: f.status}}, nil
}

type fakeHandle struct{ f *fakeClient }

func (h fakeHandle) WorkflowID() string { return h.f.opts.WorkflowID }
func (h fakeHandle) RunID() string      { return "run" }
func (h fakeHandle) UpdateID() string   { return h.f.opts.UpdateID }
func (h fakeHandle) Get(_ context.Context, v any) error {
	if h.f.getErr != nil {
		return h.f.getErr
	}
	*(v.(*intent.AdminRefundResult)) = h.f.result
	return nil
}

func TestRefundSendsTheUpdate(t *testing.T) {
	f := &fakeClient{result: intent.AdminRefundResult{RequestID: reqID, Status: intent.StatusRefund, ChainID: 31337, TxHash: "0xabc"}}
	res, err := (&Door{Temporal: f}).AdminRefund(context.Background(), reqID, intent.AdminRefund{Operator: " alice ", Reason: "stuck"})
	if err != nil || res.TxHash != "0xabc" || res.ChainID != 31337 {
		t.Fatalf("refund: %+v %v", res, err)
	}
	o := f.opts
	if o.WorkflowID != workflows.IntentWorkflowID(reqID) || o.UpdateName != workflows.UpdateAdminRefund ||
		o.WaitForStage != client.WorkflowUpdateStageCompleted || o.UpdateID == "" || len(o.Args) != 1 {
		t.Fatalf("update options: %+v", o)
	}
	if arg := o.Args[0].(intent.AdminRefund); arg.Operator != "alice" || arg.Reason != "stuck" {
		t.Fatalf("argument not normalised: %+v", arg)
	}
}

func TestRefundInvalidSendsNothing(t *testing.T) {
	f := &fakeClient{}
	if _, err := (&Door{Temporal: f}).AdminRefund(context.Background(), reqID, intent.AdminRefund{Operator: "alice"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("got %v", err)
	}
	if f.opts.WorkflowID != "" {
		t.Fatal("an invalid refund reached Temporal")
	}
}

func TestRefundErrors(t *testing.T) {
	rejected := temporal.NewApplicationError("deposit not attested yet", "NotRefundable")
	for _, tc := range []struct {
		name string
		f    *fakeClient
		ctx  func() (context.Context, context.CancelFunc)
		want error
		msg  string
	}{
		{"validator rejects", &fakeClient{getErr: rejected}, nil, ErrNotRefundable, "deposit not attested yet"},
		{"no workflow", &fakeClient{updateErr: serviceerror.NewNotFound("workflow not found")}, nil, ErrNotFound, ""},
		{"workflow closed", &fakeClient{updateErr: serviceerror.NewNotFound("workflow execution already completed"),
			status: enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED}, nil, ErrNotRefundable, "already closed"},
		{"timeout", &fakeClient{updateErr: client.NewWorkflowUpdateServiceTimeoutOrCanceledError(context.DeadlineExceeded)},
			func() (context.Context, context.CancelFunc) { return context.WithTimeout(context.Background(), 0) }, ErrTimeout, ""},
		{"activity failure is not a rejection", &fakeClient{getErr: temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_START_TO_CLOSE, nil)},
			nil, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if tc.ctx != nil {
				ctx, cancel = tc.ctx()
			}
			defer cancel()
			_, err := (&Door{Temporal: tc.f}).AdminRefund(ctx, reqID, intent.AdminRefund{Operator: "alice", Reason: "r"})
			if err == nil {
				t.Fatal("no error")
			}
			if tc.want == nil {
				for _, e := range []error{ErrInvalid, ErrNotFound, ErrNotRefundable, ErrTimeout} {
					if errors.Is(err, e) {
						t.Fatalf("%v mapped to %v", err, e)
					}
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if tc.msg != "" {
				var nr *NotRefundableError
				if !errors.As(err, &nr) || nr.Reason != tc.msg && !strings.Contains(nr.Reason, tc.msg) {
					t.Fatalf("reason: %v", err)
				}
			}
		})
	}
}
