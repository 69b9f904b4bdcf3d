package workflows

import (
	"context"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"github.com/intentd/intentd/activities"
	"github.com/intentd/intentd/intent"
)

// depositAddressExecution is execution() funded by a strict deposit address whose salt is the
// order and the user.
func depositAddressExecution() intent.Execution {
	ex := execution()
	ex.Funding = intent.Funding{Family: "evm", Strategy: intent.FundingDepositAddress}
	ex.DepositAddress = &intent.ExecutionDepositAddress{ID: "0xda01", Address: "0x00000000000000000000000000000000000000da",
		Type: intent.DepositAddressStrict, OrderID: ex.OrderID, Depositor: ex.User}
	return ex
}

// Issue 35, point 3: the engine "sweeps them, and runs the intent". A payment that arrived at the
// request's deposit address (a deposit naming the request, from the payer) is swept first: the
// sweep names the address, its salt, the payment's currency and block; the deposit the sweep
// made, in the depository under the address's order, is the one attested, and the fill screens
// the payer, not the address's depositor. The read model records the payment when it arrives
// and the sweep with the next write. Another payment at the address delivered to the running
// request (the scanner routes none, but the door would deliver one) is not in the depository:
// it is not refunded as an extra deposit.
func TestAPaymentAtTheDepositAddressIsSweptAndTheSweepsDepositIsTheRequests(t *testing.T) {
	h := newHarness(t)
	ex := depositAddressExecution()
	arrival := intent.Deposit{ChainID: 31337, TxHash: "0xpay", BlockNumber: 7, OrderID: ex.OrderID, Depositor: "0xPayer",
		Currency: native, Amount: "1000", RequestID: ex.RequestID, Family: "evm"}
	swept := intent.Deposit{ChainID: 31337, TxHash: "0xsweep", LogIndex: 3, BlockNumber: 8, BlockHash: "0xb8", OrderID: ex.OrderID,
		Depositor: ex.User, Currency: native, Amount: "1000", SweptFrom: ex.DepositAddress.Address, Family: "evm"}
	var sweeps []activities.SweepInput
	h.env.OnActivity(chainActs.SweepDepositAddress, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.SweepInput) (*activities.SweepSent, error) {
			sweeps = append(sweeps, in)
			return &activities.SweepSent{TxHash: "0xsweep"}, nil
		})
	h.env.OnActivity(chainActs.AwaitSweep, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.AwaitSweepInput) (*activities.Swept, error) {
			return &activities.Swept{Included: activities.TxIncluded{Hash: in.TxHash, Block: 8, Success: true, Fee: "21"}, Deposit: &swept}, nil
		})
	var attested []intent.Deposit
	h.attest = func(_ context.Context, in activities.AttestInput) (*activities.AttestResult, error) {
		attested = append(attested, in.Deposit)
		return &activities.AttestResult{Signer: "0xOracle"}, nil
	}
	refunds := 0
	h.env.OnWorkflow(DepositRefund, mock.Anything, mock.Anything).Return(func(workflow.Context, DepositRefundInput) (*State, error) {
		refunds++
		return &State{}, nil
	})
	later := arrival
	later.TxHash = "0xpay2"
	h.env.RegisterDelayedCallback(func() { h.env.SignalWorkflow(SignalDeposit, later) }, 0)
	h.env.ExecuteWorkflow(Intent, IntentInput{Execution: ex, Deposit: &arrival})
	require.True(t, h.env.IsWorkflowCompleted())
	require.NoError(t, h.env.GetWorkflowError())
	var res IntentResult
	require.NoError(t, h.env.GetWorkflowResult(&res))

	require.Equal(t, intent.StatusSuccess, res.Status)
	require.Equal(t, []activities.SweepInput{{RequestID: ex.RequestID, ChainID: 31337, Family: "evm", Address: ex.DepositAddress.Address,
		OrderID: ex.OrderID, Depositor: ex.User, Currency: native, Amount: arrival.Amount}}, sweeps)
	require.Equal(t, []intent.Deposit{swept}, attested, "the deposit attested")
	require.Equal(t, swept, *res.Deposit)
	require.Equal(t, arrival, *res.Arrival)
	require.Len(t, h.fills, 1)
	require.Equal(t, "0xPayer", h.fills[0].Depositor, "the fill screens who paid")
	require.Equal(t, []intent.Status{intent.StatusWaiting, intent.StatusPending, intent.StatusSubmitted, intent.StatusSuccess}, h.statuses())
	require.Equal(t, []intent.Tx{{Direction: intent.TxIn, ChainID: 31337, Hash: "0xpay", Block: 7}}, h.transitions[0].Txs)
	require.Equal(t, arrival, *h.transitions[0].Deposit)
	pending := h.transitions[1]
	require.Equal(t, intent.Tx{Direction: intent.TxIn, Kind: intent.TxKindDeposit, ChainID: 31337, Hash: "0xsweep", LogIndex: 3,
		Block: 8, Fee: "21", Status: intent.TxSuccess}, pending.Txs[0], "the sweep, with the next write")
	require.Equal(t, swept, *pending.Deposit)
	require.Zero(t, refunds, "a payment at the address refunded as an extra deposit")
}

// A sweep that moved nothing (the payment is no longer at the address: a reorg, or a sweep
// that reverted) ends the request in failure before anything is attested or filled.
func TestASweepThatMovedNothingFailsTheRequest(t *testing.T) {
	h := newHarness(t)
	ex := depositAddressExecution()
	arrival := intent.Deposit{ChainID: 31337, TxHash: "0xpay", BlockNumber: 7, OrderID: ex.OrderID, Depositor: "0xPayer",
		Currency: native, Amount: "1000", RequestID: ex.RequestID, Family: "evm"}
	h.env.OnActivity(chainActs.SweepDepositAddress, mock.Anything, mock.Anything).Return(&activities.SweepSent{TxHash: "0xsweep"}, nil)
	h.env.OnActivity(chainActs.AwaitSweep, mock.Anything, mock.Anything).Return(
		&activities.Swept{Included: activities.TxIncluded{Hash: "0xsweep", Block: 8, Success: false}}, nil)
	h.attest = func(context.Context, activities.AttestInput) (*activities.AttestResult, error) {
		t.Error("a deposit was attested")
		return &activities.AttestResult{}, nil
	}
	h.env.ExecuteWorkflow(Intent, IntentInput{Execution: ex, Deposit: &arrival})
	require.NoError(t, h.env.GetWorkflowError())
	var res IntentResult
	require.NoError(t, h.env.GetWorkflowResult(&res))
	require.Equal(t, intent.StatusFailure, res.Status)
	require.Equal(t, intent.FailReasonTransactionReverted, res.FailReason)
	require.Empty(t, h.fills)
	last := h.transitions[len(h.transitions)-1]
	require.Equal(t, intent.Tx{Direction: intent.TxIn, Kind: intent.TxKindDeposit, ChainID: 31337, Hash: "0xsweep", Block: 8,
		Status: intent.TxFailure}, last.Txs[0])
}

// Issue 35, point 2: "refundTo required for strict, optional for open (absent: no automatic
// refund; the zero address: refund the depositor)". A deposit at an open address quoted without
// refundTo that cannot be filled is not refunded by itself, to the payer or anyone: the request
// fails with MANUAL_REFUND_REQUIRED and waits for an operator; with the zero address it is
// refunded to the payer.
func TestAnOpenAddressWithoutRefundToIsNeverRefundedByItself(t *testing.T) {
	for _, tc := range []struct {
		refundTo string
		refunded bool
	}{{"", false}, {"0x0000000000000000000000000000000000000000", true}} {
		t.Run("refundTo="+tc.refundTo, func(t *testing.T) {
			g := newRefundGuard(t)
			ex := depositAddressExecution()
			ex.DepositAddress.Type, ex.RefundTo = intent.DepositAddressOpen, tc.refundTo
			arrival := intent.Deposit{ChainID: 31337, TxHash: "0xpay", BlockNumber: 7, OrderID: ex.OrderID, Depositor: "0xPayer",
				Currency: native, Amount: "999", RequestID: ex.RequestID, Family: "evm"}
			swept := arrival
			swept.TxHash, swept.LogIndex, swept.Depositor, swept.SweptFrom = "0xsweep", 3, ex.User, ex.DepositAddress.Address
			g.env.OnActivity(chainActs.SweepDepositAddress, mock.Anything, mock.Anything).Return(&activities.SweepSent{TxHash: "0xsweep"}, nil)
			g.env.OnActivity(chainActs.AwaitSweep, mock.Anything, mock.Anything).Return(
				&activities.Swept{Included: activities.TxIncluded{Hash: "0xsweep", Block: 8, Success: true}, Deposit: &swept}, nil)
			g.env.ExecuteWorkflow(Intent, IntentInput{Execution: ex, Deposit: &arrival})
			if tc.refunded {
				require.Equal(t, intent.StatusRefund, g.result(t).Status)
				require.Len(t, g.refunds, 1)
				require.Equal(t, "0xPayer", g.refunds[0].Recipient, "the zero address refunds who paid")
				return
			}
			res := g.result(t)
			require.Empty(t, g.refunds, "refunded without a refundTo")
			require.Equal(t, intent.StatusFailure, res.Status)
			require.Equal(t, intent.FailReasonDepositedAmountTooLowToFill, res.FailReason)
			require.Equal(t, intent.RefundFailReasonManualRefundRequired, res.RefundFailReason)
			require.True(t, res.AwaitingOperator, "the request waits for an operator's adminRefund")
		})
	}
}

// A deposit above its order that reaches the lifecycle is refunded whole (INCORRECT_PAYMENT) and
// nothing is filled, so no excess is ever kept. The scanner splits a strict address's excess off
// before the workflow sees the payment (deposits.splitExcess, its own refund leg) and requotes an
// open address's, so this is the lifecycle's guard, not the "more than quoted" row.
func TestADepositAddressPaidMoreThanQuotedIsRefundedWhole(t *testing.T) {
	g := newRefundGuard(t)
	ex := depositAddressExecution()
	ex.RefundTo = "0x00000000000000000000000000000000000000aa"
	arrival := intent.Deposit{ChainID: 31337, TxHash: "0xpay", BlockNumber: 7, OrderID: ex.OrderID, Depositor: "0xPayer",
		Currency: native, Amount: "1001", RequestID: ex.RequestID, Family: "evm"}
	swept := arrival
	swept.TxHash, swept.LogIndex, swept.Depositor, swept.SweptFrom = "0xsweep", 3, ex.User, ex.DepositAddress.Address
	g.env.OnActivity(chainActs.SweepDepositAddress, mock.Anything, mock.Anything).Return(&activities.SweepSent{TxHash: "0xsweep"}, nil)
	g.env.OnActivity(chainActs.AwaitSweep, mock.Anything, mock.Anything).Return(
		&activities.Swept{Included: activities.TxIncluded{Hash: "0xsweep", Block: 8, Success: true}, Deposit: &swept}, nil)
	g.env.ExecuteWorkflow(Intent, IntentInput{Execution: ex, Deposit: &arrival})
	res := g.result(t)
	require.Equal(t, intent.StatusRefund, res.Status)
	require.Equal(t, intent.FailReasonIncorrectPayment, res.FailReason)
	require.Empty(t, g.fills)
	require.Len(t, g.refunds, 1)
	require.Equal(t, "1001", g.refunds[0].Amount)
	require.Equal(t, "0x00000000000000000000000000000000000000aa", g.refunds[0].Recipient)
	require.Equal(t, "0xsweep", g.refunds[0].DepositTx, "the sweep's deposit is refunded")
}
