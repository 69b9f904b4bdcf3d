package workflows

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"

	"github.com/intentd/intentd/activities"
	"github.com/intentd/intentd/intent"
)

// The waits are one long-running, heartbeated attempt each: their start-to-close timeout is the
// whole wait (the policy's bound), their heartbeat timeout waitHeartbeatTimeout. When the bound
// passes, the activity (which waits until its context ends, as activities.await does) times
// out and the workflow goes on exactly as when each check was an attempt: the fill is delayed
// and replaced, the attestation fails with DEPOSIT_CONFIRMATION_TIMEOUT.
func TestWaitsThatRunOutOfTimeAreTimeouts(t *testing.T) {
	checkOptions := func(t *testing.T, ctx context.Context, total time.Duration) {
		info := activity.GetInfo(ctx)
		if info.IsLocalActivity {
			// A run waits as a local activity first, for up to inlineWait.
			require.InDelta(t, min(inlineWait, total).Seconds(), info.Deadline.Sub(info.StartedTime).Seconds(), 0.5,
				"the local attempt lasts the wait, up to inlineWait")
			return
		}
		// The heartbeat timeout is waitHeartbeatTimeout, capped (as the server does) at the wait.
		require.Equal(t, min(waitHeartbeatTimeout, total), info.HeartbeatTimeout)
		require.InDelta(t, total.Seconds(), info.Deadline.Sub(info.StartedTime).Seconds(), 0.5,
			"the attempt may last the whole wait")
	}

	t.Run("the fill not mined within FillBumpAfter is delayed and replaced", func(t *testing.T) {
		h := newHarness(t)
		awaits, replaced := 0, 0
		h.awaitTx = func(ctx context.Context, in activities.AwaitTxInput) (*activities.TxIncluded, error) {
			awaits++
			checkOptions(t, ctx, 2*time.Second)
			if awaits == 1 {
				return nil, blockUntilDeadline(ctx)
			}
			return &activities.TxIncluded{Block: 9, Success: true, Hash: "0xfill2"}, nil
		}
		h.env.OnActivity(chainActs.ReplaceTx, mock.Anything, mock.Anything).Return(
			func(context.Context, activities.ReplaceInput) (*activities.Replaced, error) {
				replaced++
				return &activities.Replaced{TxHash: "0xfill2", Attempt: 1}, nil
			})
		h.runToSuccessAfterOneBump(t)
		require.Equal(t, 1, replaced)
		require.Equal(t, 2, awaits)
	})

	t.Run("a local wait that ends with its context's error at the deadline is a timeout too", func(t *testing.T) {
		h := newHarness(t)
		awaits := 0
		h.awaitTx = func(ctx context.Context, in activities.AwaitTxInput) (*activities.TxIncluded, error) {
			if awaits++; awaits == 1 {
				return nil, context.DeadlineExceeded // what await returns when the SDK's timeout loses the race
			}
			return &activities.TxIncluded{Block: 9, Success: true, Hash: "0xfill2"}, nil
		}
		h.env.OnActivity(chainActs.ReplaceTx, mock.Anything, mock.Anything).Return(&activities.Replaced{TxHash: "0xfill2", Attempt: 1}, nil)
		h.runToSuccessAfterOneBump(t)
	})

	t.Run("a wait longer than inlineWait goes on as an activity task for the rest of its time", func(t *testing.T) {
		h := newHarness(t)
		h.env.SetTestTimeout(inlineWait + 10*time.Second) // a local activity's time is not skipped
		var kinds []bool
		var deadlines []time.Duration
		h.awaitTx = func(ctx context.Context, in activities.AwaitTxInput) (*activities.TxIncluded, error) {
			info := activity.GetInfo(ctx)
			kinds = append(kinds, info.IsLocalActivity)
			deadlines = append(deadlines, info.Deadline.Sub(info.StartedTime).Round(time.Second))
			if info.IsLocalActivity {
				return nil, blockUntilDeadline(ctx)
			}
			require.Equal(t, waitHeartbeatTimeout, info.HeartbeatTimeout)
			return &activities.TxIncluded{Block: 9, Success: true, Hash: "0xfill"}, nil
		}
		h.env.RegisterDelayedCallback(func() { h.env.SignalWorkflow(SignalDeposit, deposit()) }, time.Second)
		h.env.ExecuteWorkflow(Intent, IntentInput{Execution: execution(), Policy: Policy{FillBumpAfter: 20 * time.Second}})
		require.True(t, h.env.IsWorkflowCompleted())
		require.NoError(t, h.env.GetWorkflowError())
		require.Equal(t, []bool{true, false}, kinds, "a local attempt, then an activity task")
		require.Equal(t, []time.Duration{inlineWait, 20*time.Second - inlineWait}, deadlines,
			"together they wait FillBumpAfter, no longer: the fill is replaced on time")
		require.Equal(t, []intent.Status{intent.StatusWaiting, intent.StatusPending, intent.StatusSubmitted, intent.StatusSuccess},
			h.statuses())
	})

	t.Run("the attestation not given within ConfirmationTimeout is DEPOSIT_CONFIRMATION_TIMEOUT", func(t *testing.T) {
		h := newHarness(t)
		h.attest = func(ctx context.Context, in activities.AttestInput) (*activities.AttestResult, error) {
			checkOptions(t, ctx, 2*time.Second)
			return nil, blockUntilDeadline(ctx)
		}
		h.env.RegisterDelayedCallback(func() { h.env.SignalWorkflow(SignalDeposit, deposit()) }, time.Second)
		h.env.ExecuteWorkflow(Intent, IntentInput{Execution: execution(), Policy: Policy{ConfirmationTimeout: 2 * time.Second}})
		require.True(t, h.env.IsWorkflowCompleted())
		require.NoError(t, h.env.GetWorkflowError())
		var res IntentResult
		require.NoError(t, h.env.GetWorkflowResult(&res))
		require.Equal(t, intent.StatusFailure, res.Status)
		require.Equal(t, intent.FailReasonDepositConfirmationTimeout, res.FailReason)
		require.Empty(t, h.fills)
	})
}
