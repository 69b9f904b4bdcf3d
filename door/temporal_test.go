package door

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/intentd/intentd/devstack"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/workflows"
)

// stubIntent stands in for the Intent workflow: it answers the adminRefund update the way the
// contract in workflows/admin.go says, so this test checks how Temporal delivers each outcome
// to Refund, not the real workflow (integration/ does that).
func stubIntent(ctx workflow.Context, mode string) error {
	done := false
	if err := workflow.SetUpdateHandlerWithOptions(ctx, workflows.UpdateAdminRefund,
		func(ctx workflow.Context, req intent.AdminRefund) (*intent.AdminRefundResult, error) {
			switch mode {
			case "fail":
				return nil, temporal.NewApplicationError("the refund was not made: nonce too low", "REFUND_FAILED")
			case "slow":
				_ = workflow.Sleep(ctx, time.Hour)
			}
			done = true
			return &intent.AdminRefundResult{RequestID: req.Operator, Status: intent.StatusRefund, TxHash: "0xfeed",
				ChainID: 31337, Recipient: req.Recipient, Amount: "42"}, nil
		},
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, req intent.AdminRefund) error {
			if mode == "reject" {
				return errors.New("the request has no confirmed deposit to refund")
			}
			return nil
		}}); err != nil {
		return err
	}
	if mode == "finish" {
		return nil
	}
	return workflow.Await(ctx, func() bool { return done })
}

func TestRefundAgainstTemporal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal server")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	quiet := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	tmp, err := devstack.StartTemporal(ctx, devstack.TemporalOptions{FrontendPort: port, DisableUI: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Stop()
	c, err := client.Dial(client.Options{HostPort: tmp.HostPort(), Namespace: tmp.Namespace(), Logger: sdklog.NewStructuredLogger(quiet)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	w := worker.New(c, "admin-test", worker.Options{})
	w.RegisterWorkflowWithOptions(stubIntent, workflow.RegisterOptions{Name: "stubIntent"})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	ids := map[string]string{}
	for i, mode := range []string{"ok", "reject", "fail", "slow", "finish"} {
		id := "0x" + string(rune('a'+i)) + "000000000000000000000000000000000000000000000000000000000000000"
		ids[mode] = id
		run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: workflows.IntentWorkflowID(id), TaskQueue: "admin-test"},
			"stubIntent", mode)
		if err != nil {
			t.Fatal(err)
		}
		if mode == "finish" {
			if err := run.Get(ctx, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	req := intent.AdminRefund{Operator: "alice", Reason: "test", Recipient: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"}

	res, err := (&Door{Temporal: c}).AdminRefund(ctx, ids["ok"], req)
	if err != nil || res.TxHash != "0xfeed" || res.Recipient != "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" {
		t.Fatalf("ok: %+v %v", res, err)
	}

	_, err = (&Door{Temporal: c}).AdminRefund(ctx, ids["reject"], req)
	var nr *NotRefundableError
	if !errors.As(err, &nr) || nr.Reason != "the request has no confirmed deposit to refund" {
		t.Fatalf("reject: %v", err)
	}

	_, err = (&Door{Temporal: c}).AdminRefund(ctx, ids["fail"], req)
	if !errors.As(err, &nr) || nr.Type != "REFUND_FAILED" || nr.Reason != "the refund was not made: nonce too low" {
		t.Fatalf("fail: %v", err)
	}

	_, err = (&Door{Temporal: c}).AdminRefund(ctx, ids["finish"], req)
	if !errors.Is(err, ErrNotRefundable) || !errors.As(err, &nr) {
		t.Fatalf("closed workflow: %v", err)
	}
	t.Logf("closed workflow: %v", err)

	_, err = (&Door{Temporal: c}).AdminRefund(ctx, "0x9999999999999999999999999999999999999999999999999999999999999999", req)
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("no workflow: %v", err)
	}

	short, cancelShort := context.WithTimeout(ctx, 3*time.Second)
	defer cancelShort()
	_, err = (&Door{Temporal: c}).AdminRefund(short, ids["slow"], req)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("slow: %v", err)
	}
	t.Logf("slow: %v", err)
}
