package workflows

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/intentd/intentd/activities"
	"github.com/intentd/intentd/intent"
)

// upserts returns the IntentStatus of every search-attribute upsert the run makes, in order.
func (h *harness) upserts() *[]string {
	var got []string
	h.env.OnUpsertTypedSearchAttributes(mock.Anything).Run(func(args mock.Arguments) {
		status, _ := args.Get(0).(temporal.SearchAttributes).GetKeyword(AttrIntentStatus)
		got = append(got, status)
	}).Return(nil)
	return &got
}

// "Its status search attributes are upserted once the run waits on anything but a
// local activity (and when it ends), not at every transition".
func TestInlineRunUpsertsItsStatusWhenItWaitsNotAtEveryTransition(t *testing.T) {
	t.Run("a fill mined within inlineWait: one upsert, success", func(t *testing.T) {
		h := newHarness(t)
		got := h.upserts()
		h.run(t, deposit())
		require.Equal(t, []string{"success"}, *got)
	})
	t.Run("a fill that takes longer: submitted is upserted before the activity task, then success", func(t *testing.T) {
		h := newHarness(t)
		h.env.SetTestTimeout(inlineWait + 10*time.Second) // a local activity's time is not skipped
		got := h.upserts()
		h.awaitTx = func(ctx context.Context, in activities.AwaitTxInput) (*activities.TxIncluded, error) {
			if activity.GetInfo(ctx).IsLocalActivity {
				return nil, blockUntilDeadline(ctx)
			}
			return &activities.TxIncluded{Block: 9, Success: true, Hash: "0xfill"}, nil
		}
		h.run(t, deposit())
		require.Equal(t, []string{"submitted", "success"}, *got)
	})
}

// The same rule for a DepositRefund: its last status (refund) is upserted when it ends.
func TestInlineDepositRefundUpsertsItsLastStatus(t *testing.T) {
	h := newHarness(t)
	upserted := h.upserts()
	h.env.OnActivity(storeActs.InsertRefundRequest, mock.Anything, mock.Anything).Return(&activities.RefundRequestStored{}, nil)
	h.env.OnActivity(chainActs.SubmitRefund, mock.Anything, mock.Anything).Return(&activities.RefundSubmitted{TxHash: "0xrefund"}, nil)
	h.env.ExecuteWorkflow(DepositRefund, NewDepositRefund(deposit(), "", "0xUser", Policy{}))
	require.True(t, h.env.IsWorkflowCompleted())
	require.NoError(t, h.env.GetWorkflowError())
	require.Equal(t, []intent.Status{intent.StatusWaiting, intent.StatusRefund}, h.statuses())
	got := *upserted
	require.NotEmpty(t, got)
	require.Equal(t, "refund", got[len(got)-1], "the closed record shows the final status")
}

func blockUntilDeadline(ctx context.Context) error {
	<-ctx.Done()
	return ctx.Err()
}
