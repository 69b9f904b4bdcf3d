package workflows

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/intentd/intentd/activities"
	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
)

// refundGuard is a harness whose refunds are recorded: SubmitRefund's inputs, the attestations
// asked for, the RefundHold search attribute upserted, and the adminRefund's audit.
type refundGuard struct {
	*harness
	refunds  []activities.RefundInput
	attests  int
	holds    []string
	refuse   error // SubmitRefund's answer for the automatic refund, when set
	hold     intent.RefundHold
	requests []intent.RefundRequest
}

func newRefundGuard(t *testing.T) *refundGuard {
	g := &refundGuard{harness: newHarness(t)}
	g.attest = func(context.Context, activities.AttestInput) (*activities.AttestResult, error) {
		g.attests++
		return &activities.AttestResult{Signer: "0xOracle"}, nil
	}
	g.env.OnActivity(storeActs.InsertRefundRequest, mock.Anything, mock.Anything).Return(
		func(_ context.Context, r intent.RefundRequest) (*activities.RefundRequestStored, error) {
			g.requests = append(g.requests, r)
			return &activities.RefundRequestStored{Hold: g.hold}, nil
		})
	g.env.OnActivity(chainActs.SubmitRefund, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.RefundInput) (*activities.RefundSubmitted, error) {
			if g.refuse != nil && in.Kind == intent.TxKindRefund {
				return nil, g.refuse
			}
			g.refunds = append(g.refunds, in)
			return &activities.RefundSubmitted{TxHash: "0xrefund"}, nil
		})
	g.env.OnActivity(storeActs.RecordAdminRefund, mock.Anything, mock.Anything).Return(nil)
	g.env.OnActivity(storeActs.CompleteAdminRefund, mock.Anything, mock.Anything).Return(nil)
	g.env.OnUpsertTypedSearchAttributes(mock.Anything).Run(func(args mock.Arguments) {
		if v, ok := args.Get(0).(temporal.SearchAttributes).GetKeyword(AttrRefundHold); ok {
			g.holds = append(g.holds, v)
		}
	}).Return(nil)
	return g
}

// state queries the run's live state.
func (g *refundGuard) state(t *testing.T) State {
	v, err := g.env.QueryWorkflow(QueryState)
	require.NoError(t, err)
	var s State
	require.NoError(t, v.Get(&s))
	return s
}

// adminRefund sends an adminRefund update and records its outcome in *done.
func (g *refundGuard) adminRefund(t *testing.T, done *error) {
	g.env.UpdateWorkflow(UpdateAdminRefund, "admin-refund-1", &testsuite.TestUpdateCallback{
		OnAccept: func() {},
		OnReject: func(err error) { t.Errorf("adminRefund refused: %v", err) },
		OnComplete: func(_ any, err error) {
			*done = err
			if err == nil {
				*done = errNone
			}
		},
	}, intent.AdminRefund{Operator: "alice", Reason: "junk token, the depositor asked"})
}

var errNone = temporal.NewApplicationError("completed", "none")

func (g *refundGuard) result(t *testing.T) *IntentResult {
	require.True(t, g.env.IsWorkflowCompleted())
	require.NoError(t, g.env.GetWorkflowError())
	var res IntentResult
	require.NoError(t, g.env.GetWorkflowResult(&res))
	return &res
}

// Issue 33, point 1: "a deposit in a currency the chain's configuration does not list is never
// refunded automatically: it is recorded (visible to operators, counted by a Prometheus metric,
// findable in the Temporal Web UI by search attribute) and left for a manual admin refund" and
// "200 junk deposits must not cost 200 oracle attestations + 200 refund estimations up front;
// an operator's admin refund may be the moment such a deposit gets attested". The same holds for
// a refund past its depositor's budget ("past which they wait for an operator").
func TestAHeldRefundIsNeitherAttestedNorSentUntilAnOperatorRefundsIt(t *testing.T) {
	for _, hold := range []intent.RefundHold{intent.RefundHoldUnlistedCurrency, intent.RefundHoldBudgetExceeded} {
		t.Run(string(hold), func(t *testing.T) {
			g := newRefundGuard(t)
			g.hold = hold
			d := deposit()
			d.Currency, d.Depositor = "0x00000000000000000000000000000000000000aa", "0xJunk"
			var done error
			g.env.RegisterDelayedCallback(func() {
				s := g.state(t)
				require.Equal(t, intent.StatusFailure, s.Status)
				require.Equal(t, intent.FailReasonOrphanedDepositRefund, s.FailReason)
				require.Equal(t, intent.RefundFailReasonManualRefundRequired, s.RefundFailReason)
				require.Equal(t, hold, s.Hold)
				require.True(t, s.AwaitingOperator)
				require.False(t, s.Attested)
				require.Zero(t, g.attests, "nothing is attested before the operator acts")
				require.Empty(t, g.refunds, "nothing is estimated or sent before the operator acts")
				g.adminRefund(t, &done)
			}, 24*time.Hour)
			g.env.ExecuteWorkflow(DepositRefund, NewDepositRefund(d, "", "", Policy{}))
			res := g.result(t)

			require.Len(t, g.requests, 1)
			require.True(t, g.requests[0].CheckHold, "the store is asked whether the refund is held")
			require.Equal(t, d.Currency, g.requests[0].Currency)
			require.Equal(t, d.Amount, g.requests[0].Amount)
			require.Equal(t, []string{string(hold)}, g.holds, "findable by its RefundHold search attribute")
			require.Equal(t, errNone, done, "the operator's refund is made")
			require.Equal(t, 1, g.attests, "the operator's refund is the moment the deposit is attested")
			require.Len(t, g.refunds, 1)
			require.Equal(t, intent.TxKindManualRefund, g.refunds[0].Kind)
			require.Equal(t, intent.StatusRefund, res.Status)
			require.Equal(t, intent.FailReasonManualAdminRefund, res.FailReason)
			require.Equal(t, []intent.Status{intent.StatusWaiting, intent.StatusFailure, intent.StatusRefund}, g.statuses())
		})
	}
}

// The refund request of a deposit that is not held is attested and refunded as before.
func TestARefundThatIsNotHeldIsAttestedAndMade(t *testing.T) {
	g := newRefundGuard(t)
	g.env.ExecuteWorkflow(DepositRefund, NewDepositRefund(deposit(), "", "", Policy{}))
	res := g.result(t)
	require.Equal(t, intent.StatusRefund, res.Status)
	require.Equal(t, 1, g.attests)
	require.Len(t, g.refunds, 1)
	require.Empty(t, g.holds)
	require.Empty(t, res.Hold)
}

// Issue 33, point 3: "make engine refunds and depository withdrawals share ONE once-only id":
// a run pays every refund, automatic or manual, under the deposit's withdrawal
// id, named by the deposit's transaction and log (the chain's depository completes it).
func TestARunPaysItsRefundsUnderTheDepositsWithdrawalID(t *testing.T) {
	g := newRefundGuard(t)
	d := deposit()
	d.Amount, d.LogIndex = "999", 3 // too little to fill: refunded
	g.env.RegisterDelayedCallback(func() { g.env.SignalWorkflow(SignalDeposit, d) }, time.Second)
	g.env.ExecuteWorkflow(Intent, IntentInput{Execution: execution()})
	res := g.result(t)
	require.Equal(t, intent.StatusRefund, res.Status)
	require.Len(t, g.refunds, 1)
	require.Equal(t, d.TxHash, g.refunds[0].DepositTx)
	require.Equal(t, uint(3), g.refunds[0].DepositLogIndex)
}

// Issue 33, point 1: "'No price' means not worth it": a refund that cannot be valued ends with
// refundFailReason AMOUNT_TOO_LOW_TO_REFUND and nothing is sent. Unlike a refund valued below
// its gas, which ends there, it is not known to be worthless: the request waits for an operator.
func TestARefundThatCannotBeValuedIsAmountTooLowAndWaitsForAnOperator(t *testing.T) {
	for _, tc := range []struct {
		name    string
		details []any
		waits   bool
	}{
		{"no price: waits for an operator", []any{activities.RefundUnpriced}, true},
		{"priced below its gas: ends", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newRefundGuard(t)
			g.refuse = temporal.NewNonRetryableApplicationError("not worth it", string(intent.RefundFailReasonAmountTooLowToRefund), nil, tc.details...)
			d := deposit()
			d.Amount = "999"
			g.env.RegisterDelayedCallback(func() { g.env.SignalWorkflow(SignalDeposit, d) }, time.Second)
			g.env.ExecuteWorkflow(Intent, IntentInput{Execution: execution()})
			res := g.result(t)
			require.Equal(t, intent.StatusFailure, res.Status)
			require.Equal(t, intent.RefundFailReasonAmountTooLowToRefund, res.RefundFailReason)
			require.Empty(t, g.refunds, "nothing is sent")
			require.Equal(t, tc.waits, res.AwaitingOperator)
		})
	}
}

// Issue 33, point 1 (review L19): "an extra deposit into an existing order by a different
// depositor is refunded to its depositor, not to the order's refundTo"; the order's own
// depositor paying again is refunded to refundTo as before.
func TestAnExtraDepositIsRefundedToItsDepositorUnlessTheOrdersDepositorMadeIt(t *testing.T) {
	h := newHarness(t)
	var children []DepositRefundInput
	h.env.OnWorkflow(DepositRefund, mock.Anything, mock.Anything).Return(
		func(_ workflow.Context, in DepositRefundInput) (*State, error) {
			children = append(children, in)
			return &State{}, nil
		})
	ex := execution()
	ex.RefundTo = "0x00000000000000000000000000000000000000f1"
	first := deposit()
	again, stranger := deposit(), deposit()
	again.TxHash, again.LogIndex = "0xagain", 1
	stranger.TxHash, stranger.Depositor = "0xstranger", "0xStranger"
	h.env.RegisterDelayedCallback(func() {
		for _, d := range []intent.Deposit{first, again, stranger} {
			h.env.SignalWorkflow(SignalDeposit, d)
		}
	}, time.Second)
	h.env.ExecuteWorkflow(Intent, IntentInput{Execution: ex})
	require.True(t, h.env.IsWorkflowCompleted())
	require.NoError(t, h.env.GetWorkflowError())
	require.Len(t, children, 2)
	to := map[string]string{}
	for _, c := range children {
		to[c.Deposit.TxHash] = c.RefundTo
	}
	require.Equal(t, map[string]string{"0xagain": "0x00000000000000000000000000000000000000f1", "0xstranger": "0xStranger"}, to)
}

// Issue 34, point 1: "Family and funding strategy are data in the workflow input": the fill is
// paid by the family the execution names, a refund by the family that found the deposit.
func TestEachPaymentNamesTheFamilyTheRequestsDataGives(t *testing.T) {
	h := newHarness(t)
	ex := execution()
	ex.Funding, ex.PayoutFamily = intent.Funding{Family: "evm", Strategy: intent.FundingDepository}, "evm"
	res := h.runExecution(t, ex, deposit())
	require.Equal(t, intent.StatusSuccess, res.Status)
	require.Len(t, h.fills, 1)
	require.Equal(t, chains.VMTypeEVM, h.fills[0].Family)

	g := newRefundGuard(t)
	d := deposit()
	d.Amount, d.Family = "999", "evm" // too little to fill: refunded
	g.env.RegisterDelayedCallback(func() { g.env.SignalWorkflow(SignalDeposit, d) }, time.Second)
	g.env.ExecuteWorkflow(Intent, IntentInput{Execution: execution()})
	require.Equal(t, intent.StatusRefund, g.result(t).Status)
	require.Len(t, g.refunds, 1)
	require.Equal(t, chains.VMTypeEVM, g.refunds[0].Family)
}
