package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/intentd/intentd/activities"
	"github.com/intentd/intentd/intent"
)

// Gasless requests (intent.FundingRelayed, POST /execute, docs/gasless.md). The API starts the
// request's workflow with the user's signed call (IntentInput.Relay) before any deposit exists.
// The fund phase has the origin's family relay it first (chains.Relayer): signed once by the
// relayer, never the solver, and kept before it is broadcast, after the integrator's
// sponsorship balance has reserved the most it can cost (SPONSOR_BALANCE_TOO_LOW otherwise,
// nothing sent), then waited for and replaced like a fill. Once mined, its depository deposit,
// which the scanner finds like any other, makes the request depositing and funds it through the
// ordinary lifecycle. The relayer's gas is settled on the reservation: charged as
// mined when the integrator sponsors the fees (subsidizeFees), else given back once the deposit
// is found as quoted (the user pays origin gas in the quote's fee, originGasOverhead) and
// charged when the request ends without one: a call that deposits nothing costs the integrator
// its gas and the user nothing else.

// RelayFunding is what a gasless request's workflow relays (IntentInput.Relay).
type RelayFunding struct {
	Call intent.RelayCall
	// IntegratorID is the integrator whose key executed the call: its sponsorship balance backs
	// the relayer's gas.
	IntegratorID string
	// Subsidize is executionOptions.subsidizeFees: the integrator pays the origin gas.
	Subsidize bool
	// Standalone is a call that funds no quote (POST /execute without a requestId: an EIP-7702
	// upgrade, any call of the user's): the request ends once it is mined, success when it did
	// not revert, and the integrator pays its gas whatever options it named.
	Standalone bool `json:",omitempty"`
}

// relayFunding relays the request's call and waits for it to be mined, and reports done when
// the request ended on the way: TRANSACTION_SUBMISSION_FAILED when nothing was broadcast,
// SPONSOR_BALANCE_TOO_LOW when the integrator's balance did not cover it, TRANSACTION_NOT_INCLUDED
// when the relayer's cancellation took its nonce, TRANSACTION_REVERTED when it was mined and
// reverted. Broadcast, the request is waiting; mined, it waits for the deposit the call made,
// which makes it depositing (fund.go).
func (r *intentRun) relayFunding(ctx workflow.Context) (done bool, err error) {
	rl, ex := r.in.Relay, r.in.Execution
	in := activities.RelayInput{RequestID: ex.RequestID, Call: rl.Call, IntegratorID: rl.IntegratorID}
	var sent activities.RelaySent
	err = workflow.ExecuteActivity(r.sendingActivity(ctx), chainActs.SubmitRelay, in).Get(ctx, &sent)
	if err != nil {
		if isNonRetryable(err) {
			// Refused before anything was signed; a reservation made before the refusal goes back.
			workflow.GetLogger(ctx).Warn("relayed call refused", "requestId", ex.RequestID, "error", err)
			r.relayHeld = true
			r.settleRelay(ctx, false, "")
			return true, r.fail(ctx, reasonOf(err))
		}
		var stored activities.StoredTx
		if err := workflow.ExecuteActivity(r.sendingActivity(ctx), chainActs.StoredSolverTx, activities.StoredTxInput{
			RequestID: ex.RequestID, Kind: intent.TxKindRelay}).Get(ctx, &stored); err != nil {
			return true, fmt.Errorf("stored relay: %w", err)
		}
		if !stored.Found {
			workflow.GetLogger(ctx).Error("relayed call not signed after every attempt", "requestId", ex.RequestID, "error", err)
			r.relayHeld = true
			r.settleRelay(ctx, false, "")
			return true, r.fail(ctx, intent.FailReasonTransactionSubmissionFailed)
		}
		sent = activities.RelaySent{TxHash: stored.Hash}
	}
	r.relayHeld = true
	// Broadcast: the request waits for its deposit (the read model, the stream and webhooks say
	// waiting; depositing once the deposit the call made is found, fund.go).
	if err := r.write(ctx, intent.StatusWaiting, ""); err != nil {
		return true, err
	}
	inc, err := r.awaitPayment(ctx, intent.TxKindRelay, rl.Call.ChainID, sent.TxHash)
	if err != nil {
		return true, err
	}
	switch {
	case inc.Voided:
		// Signed for a chain since reset: nothing was paid for it.
		r.settleRelay(ctx, false, "")
		return true, r.fail(ctx, intent.FailReasonTransactionNotIncluded)
	case inc.Cancel:
		r.settleRelay(ctx, true, inc.Fee)
		return true, r.fail(ctx, intent.FailReasonTransactionNotIncluded)
	case !inc.Success:
		r.settleRelay(ctx, true, inc.Fee)
		return true, r.fail(ctx, intent.FailReasonTransactionReverted)
	}
	if rl.Standalone {
		r.settleRelay(ctx, true, inc.Fee)
		tx := intent.Tx{Direction: intent.TxIn, ChainID: rl.Call.ChainID, Hash: inc.Hash, LogIndex: -1, Block: inc.Block,
			Timestamp: inc.Timestamp, Fee: inc.Fee}
		return true, r.write(ctx, intent.StatusSuccess, "", tx)
	}
	if rl.Subsidize {
		r.settleRelay(ctx, true, inc.Fee)
	} else {
		r.relayFee = inc.Fee
	}
	return false, nil
}

// awaitPayment waits for one attempt of the request's transaction of kind on chainID to be
// mined, replacing it each time FillBumpAfter passes without one, as a fill is (EVM: the same
// nonce at higher fees, then a cancellation); once the family answers that its replacement was
// the last, the wait goes on until an attempt is mined.
func (r *intentRun) awaitPayment(ctx workflow.Context, kind intent.TxKind, chainID uint64, txHash string) (*activities.TxIncluded, error) {
	ex, policy := r.in.Execution, r.in.Policy.WithDefaults()
	attempt, final := 0, false
	for {
		var inc activities.TxIncluded
		err := r.wait(ctx, policy.FillBumpAfter, chainActs.AwaitTx, activities.AwaitTxInput{
			RequestID: ex.RequestID, Kind: kind, ChainID: chainID, TxHash: txHash}, &inc)
		if err == nil {
			return &inc, nil
		}
		if !isTimeout(err) {
			return nil, fmt.Errorf("await %s: %w", kind, err)
		}
		if final {
			continue
		}
		if err := r.publishAttrs(ctx); err != nil {
			return nil, err
		}
		var rep activities.Replaced
		if err := workflow.ExecuteActivity(r.sendingActivity(ctx), chainActs.ReplaceTx, activities.ReplaceInput{
			RequestID: ex.RequestID, Kind: kind, ChainID: chainID, After: attempt, MaxBumps: policy.FillMaxBumps,
		}).Get(ctx, &rep); err != nil {
			workflow.GetLogger(ctx).Warn("transaction not replaced", "requestId", ex.RequestID, "kind", kind, "attempt", attempt, "error", err)
			continue
		}
		attempt, final = rep.Attempt, rep.Final
	}
}

// settleRelay settles the relayed gas the request holds a reservation for, once: charged fee
// (wei, as mined) or given back whole. A settlement that cannot be written is logged; the
// reservation then stays for an operator.
func (r *intentRun) settleRelay(ctx workflow.Context, charge bool, fee string) {
	if !r.relayHeld {
		return
	}
	r.relayHeld = false
	in := activities.SettleRelayInput{RequestID: r.in.Execution.RequestID, ChainID: r.in.Relay.Call.ChainID, Fee: fee, Charge: charge}
	var out activities.RelaySettled
	if err := workflow.ExecuteActivity(r.sendingActivity(ctx), chainActs.SettleRelay, in).Get(ctx, &out); err != nil {
		workflow.GetLogger(ctx).Error("relayed gas not settled", "requestId", in.RequestID, "charge", charge, "error", err)
		return
	}
	workflow.GetLogger(ctx).Info("relayed gas settled", "requestId", in.RequestID, "chargedUsd", out.ChargedUSD)
}

// relayDeposited settles a request's relayed gas once its deposit is found as quoted: the user
// pays the origin gas in the quote's fee, so the integrator's reservation goes back.
func (r *intentRun) relayDeposited(ctx workflow.Context) {
	r.settleRelay(ctx, false, "")
}

// relayEnded settles a request's relayed gas when it ends without a deposit found as quoted:
// the integrator pays what the relayer paid.
func (r *intentRun) relayEnded(ctx workflow.Context) {
	r.settleRelay(ctx, true, r.relayFee)
}
