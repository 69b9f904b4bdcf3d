package workflows

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/intentd/intentd/activities"
	"github.com/intentd/intentd/intent"
)

const native = "0x0000000000000000000000000000000000000000"

func execution() intent.Execution {
	return intent.Execution{
		RequestID: "0xabc", OrderID: "0x01", User: "0xUser", Recipient: "0xRecipient", RefundTo: "0xUser",
		OriginChainID: 31337, DestinationChainID: 31338,
		CurrencyIn:  intent.Currency{ChainID: 31337, Address: native, Symbol: "ETH", Decimals: 18},
		CurrencyOut: intent.Currency{ChainID: 31338, Address: native, Symbol: "ETH", Decimals: 18},
		AmountIn:    "1000", AmountOut: "990", MinAmountOut: "990", Deadline: time.Now().Add(time.Hour).Unix(),
	}
}

func deposit() intent.Deposit {
	return intent.Deposit{ChainID: 31337, TxHash: "0xdep", LogIndex: 0, BlockNumber: 7, OrderID: "0x01", Depositor: "0xUser",
		Currency: native, Amount: "1000"}
}

type harness struct {
	env         *testsuite.TestWorkflowEnvironment
	transitions []intent.Transition
	fills       []activities.FillInput
	fillReverts bool
	// settlements are the SettleFill calls of landed fills.
	settlements []intent.Settlement
	// calls logs, in order, the activities that move money or hold it: "fill" here, others in
	// the tests that mock them.
	calls []string
	// attest and awaitTx, when set, replace the default AttestDeposit and AwaitTx (which
	// attest and mine at once).
	attest  func(context.Context, activities.AttestInput) (*activities.AttestResult, error)
	awaitTx func(context.Context, activities.AwaitTxInput) (*activities.TxIncluded, error)
	// onWrite and onFill, when set, run at the start of each ApplyTransition and SubmitFill.
	onWrite func(intent.Transition) error
	onFill  func()
	// refuseFill, when set, is SubmitFill's answer in place of a signed fill.
	refuseFill func(activities.FillInput) error
	// fillRefused, when set, is SubmitFill's answer: the checks before signing refused the fill.
	fillRefused error
}

func newHarness(t *testing.T) *harness {
	var s testsuite.WorkflowTestSuite
	h := &harness{env: s.NewTestWorkflowEnvironment()}
	h.env.RegisterActivity(&activities.StoreActivities{})
	h.env.RegisterActivity(&activities.ChainActivities{})
	h.env.RegisterActivity(&activities.OracleActivities{})
	h.env.RegisterActivity(&activities.SponsorshipActivities{})
	h.env.OnActivity(sponsorActs.SettleFill, mock.Anything, mock.Anything).Return(
		func(_ context.Context, st intent.Settlement) error {
			h.settlements = append(h.settlements, st)
			return nil
		})
	h.env.OnActivity(storeActs.ApplyTransition, mock.Anything, mock.Anything).Return(
		func(_ context.Context, tr intent.Transition) error {
			if h.onWrite != nil {
				if err := h.onWrite(tr); err != nil {
					return err
				}
			}
			h.transitions = append(h.transitions, tr)
			return nil
		})
	h.env.OnActivity(oracleActs.AttestDeposit, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.AttestInput) (*activities.AttestResult, error) {
			if h.attest != nil {
				return h.attest(ctx, in)
			}
			return &activities.AttestResult{Signer: "0xOracle"}, nil
		})
	h.env.OnActivity(chainActs.SubmitFill, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.FillInput) (*activities.FillSubmitted, error) {
			if h.onFill != nil {
				h.onFill()
			}
			if h.refuseFill != nil {
				return nil, h.refuseFill(in)
			}
			if h.fillRefused != nil {
				return nil, h.fillRefused
			}
			h.fills = append(h.fills, in)
			h.calls = append(h.calls, "fill")
			return &activities.FillSubmitted{TxHash: "0xfill"}, nil
		})
	h.env.OnActivity(chainActs.AwaitTx, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.AwaitTxInput) (*activities.TxIncluded, error) {
			if h.awaitTx != nil {
				return h.awaitTx(ctx, in)
			}
			return &activities.TxIncluded{Block: 9, Success: !h.fillReverts}, nil
		})
	return h
}

func (h *harness) run(t *testing.T, d intent.Deposit) *IntentResult {
	return h.runExecution(t, execution(), d)
}

// runExecution runs an Intent of ex paid by d and returns its result.
func (h *harness) runExecution(t *testing.T, ex intent.Execution, d intent.Deposit) *IntentResult {
	h.env.RegisterDelayedCallback(func() { h.env.SignalWorkflow(SignalDeposit, d) }, time.Second)
	h.env.ExecuteWorkflow(Intent, IntentInput{Execution: ex})
	require.True(t, h.env.IsWorkflowCompleted())
	require.NoError(t, h.env.GetWorkflowError())
	var res IntentResult
	require.NoError(t, h.env.GetWorkflowResult(&res))
	return &res
}

// runToSuccessAfterOneBump runs an intent whose fill may wait 2 s before it is bumped and
// checks that it went through delayed (one bump) to success.
func (h *harness) runToSuccessAfterOneBump(t *testing.T) {
	t.Helper()
	h.env.RegisterDelayedCallback(func() { h.env.SignalWorkflow(SignalDeposit, deposit()) }, time.Second)
	h.env.ExecuteWorkflow(Intent, IntentInput{Execution: execution(), Policy: Policy{FillBumpAfter: 2 * time.Second}})
	require.True(t, h.env.IsWorkflowCompleted())
	require.NoError(t, h.env.GetWorkflowError())
	require.Equal(t, []intent.Status{intent.StatusWaiting, intent.StatusPending, intent.StatusSubmitted, intent.StatusDelayed,
		intent.StatusSuccess}, h.statuses())
}

func (h *harness) statuses() []intent.Status {
	var out []intent.Status
	for _, tr := range h.transitions {
		out = append(out, tr.Status)
	}
	return out
}

// "The write of the pending status and the fill's signing and broadcast run at the
// same time; the submitted status is written once both are done". Here the pending write returns
// only once the fill's signing has started (one after the other, the write would time out), and
// the read model still goes waiting, pending, submitted, success, the fill made once.
func TestThePendingWriteAndTheFillsSigningRunAtTheSameTime(t *testing.T) {
	h := newHarness(t)
	signing := make(chan struct{})
	h.onFill = func() { close(signing) }
	h.onWrite = func(tr intent.Transition) error {
		if tr.Status != intent.StatusPending {
			return nil
		}
		select {
		case <-signing:
			return nil
		case <-time.After(5 * time.Second):
			return temporal.NewNonRetryableApplicationError("the fill was not signed while pending was written", "test", nil)
		}
	}
	res := h.run(t, deposit())
	require.Equal(t, intent.StatusSuccess, res.Status)
	require.Equal(t, []intent.Status{intent.StatusWaiting, intent.StatusPending, intent.StatusSubmitted, intent.StatusSuccess}, h.statuses())
	require.Len(t, h.fills, 1)
}

// A sponsored request keeps the pending write and the signing one after the other: its
// sponsorship is reserved between the two, so nothing is signed before pending is written.
func TestASponsoredRequestWritesPendingBeforeItsFillIsSigned(t *testing.T) {
	h := newSponsoredHarness(t, true)
	var order []string
	var mu sync.Mutex
	log := func(what string) { mu.Lock(); order = append(order, what); mu.Unlock() }
	h.onWrite = func(tr intent.Transition) error {
		if tr.Status == intent.StatusPending {
			// A slow write: a fill signed beside it would be logged first.
			time.Sleep(200 * time.Millisecond)
		}
		log(string(tr.Status))
		return nil
	}
	h.onFill = func() { log("fill") }
	res := h.run(t)
	require.Equal(t, intent.StatusSuccess, res.Status)
	require.Equal(t, []string{"waiting", "pending", "fill", "submitted", "success"}, order)
}

func TestIntentReportsWaitingPendingSubmittedSuccessAndFillsOnce(t *testing.T) {
	h := newHarness(t)
	res := h.run(t, deposit())
	require.Equal(t, intent.StatusSuccess, res.Status)
	require.Equal(t, []intent.Status{intent.StatusWaiting, intent.StatusPending, intent.StatusSubmitted, intent.StatusSuccess}, h.statuses())
	require.Len(t, h.fills, 1)
	require.Equal(t, activities.FillInput{RequestID: "0xabc", ChainID: 31338, OrderID: "0x01", Currency: native,
		Recipient: "0xRecipient", Amount: "990", Depositor: "0xUser"}, h.fills[0])
	for i := 1; i < len(h.transitions); i++ {
		require.Greater(t, h.transitions[i].Version, h.transitions[i-1].Version, "versions must increase")
	}
	last := h.transitions[len(h.transitions)-1]
	require.Equal(t, intent.FailReasonNA, last.FailReason)
	require.Equal(t, "0xfill", last.Txs[0].Hash)
}

func TestIntentDepositMismatchesFailWithTheirReasonAndNeverFill(t *testing.T) {
	cases := map[intent.FailReason]func(*intent.Deposit){
		intent.FailReasonIncorrectDepositCurrency:    func(d *intent.Deposit) { d.Currency = "0x00000000000000000000000000000000000000aa" },
		intent.FailReasonDepositedAmountTooLowToFill: func(d *intent.Deposit) { d.Amount = "999" },
		intent.FailReasonDepositChainMismatch:        func(d *intent.Deposit) { d.ChainID = 31338 },
	}
	for reason, mutate := range cases {
		t.Run(string(reason), func(t *testing.T) {
			h := newHarness(t)
			d := deposit()
			mutate(&d)
			res := h.run(t, d)
			require.Equal(t, intent.StatusFailure, res.Status)
			require.Equal(t, reason, res.FailReason)
			require.Empty(t, h.fills)
			last := h.transitions[len(h.transitions)-1]
			require.Equal(t, intent.StatusFailure, last.Status)
			require.Equal(t, reason, last.FailReason)
		})
	}
}

func TestIntentRevertedFillIsExecutionReverted(t *testing.T) {
	h := newHarness(t)
	h.fillReverts = true
	res := h.run(t, deposit())
	require.Equal(t, intent.StatusFailure, res.Status)
	require.Equal(t, intent.FailReasonExecutionReverted, res.FailReason)
}

func TestIntentStateQueryShowsLiveState(t *testing.T) {
	h := newHarness(t)
	h.env.RegisterDelayedCallback(func() {
		v, err := h.env.QueryWorkflow(QueryState)
		require.NoError(t, err)
		var s State
		require.NoError(t, v.Get(&s))
		require.Equal(t, intent.StatusWaiting, s.Status)
		require.Equal(t, "0xabc", s.RequestID)
	}, 500*time.Millisecond)
	h.run(t, deposit())
}
