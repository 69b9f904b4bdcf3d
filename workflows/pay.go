package workflows

import (
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/intentd/intentd/activities"
	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
)

// pay is the lifecycle's third phase: the request is pending and its order is filled on the
// destination. A deposit past its origin chain's exposure cap waits, pending, for room first
// (exposure.go), never refunded for the wait. Otherwise the fill is signed while pending is
// written (two local activities at once; fill waits for the write before it writes anything
// else), except for a sponsored request, which reserves its sponsorship between the two, and one
// with an operator's refund accepted, which keep them one after the other.
func (r *intentRun) pay(ctx workflow.Context) error {
	if r.hold != nil && !r.hold.Reserved {
		return r.fillPastTheCap(ctx)
	}
	if r.in.Execution.Sponsor == nil && !r.adminPending {
		return r.fill(ctx, r.startWrite(ctx, intent.StatusPending, ""))
	}
	if err := r.write(ctx, intent.StatusPending, ""); err != nil {
		return err
	}
	return r.fill(ctx, nil)
}

// fill signs, broadcasts and waits for the fill, then ends the request with its outcome.
// pending, when not nil, is the write of the pending status under way: it is waited for once
// the fill is submitted or refused, before any other write. An operator's refund accepted before
// anything is signed wins over the fill.
func (r *intentRun) fill(ctx workflow.Context, pending *startedWrite) error {
	if r.adminPending {
		return r.adminRefund(ctx)
	}
	if done, err := r.sponsor(ctx); done || err != nil {
		return err
	}
	r.filling = true
	sub, done, err := r.submitFill(ctx, pending)
	if done || err != nil {
		return err
	}
	r.state.FillTx = sub.TxHash
	if err := r.write(ctx, intent.StatusSubmitted, "", intent.Tx{Direction: intent.TxOut, ChainID: r.in.Execution.DestinationChainID,
		Hash: sub.TxHash, LogIndex: -1, Status: intent.TxPending}); err != nil {
		return err
	}
	inc, err := r.awaitFill(ctx, sub)
	if err != nil {
		return err
	}
	return r.landed(ctx, inc)
}

// submitFill signs and broadcasts the fill (a local activity: SubmitFill is idempotent, a retry
// broadcasts the stored transaction again), then finishes the pending write. A fill the checks
// before signing refused is refunded (or, when another party filled the order, its recipient
// paid, failed), one screening refused ends in BLOCKED_WALLET; either way the request is done.
// When the chain or the signer stayed unavailable through every attempt, a fill never signed
// cannot land and is refunded with TRANSACTION_SUBMISSION_FAILED; a signed one may have reached
// a node, so it is waited for (and replaced or cancelled) like any broadcast fill.
func (r *intentRun) submitFill(ctx workflow.Context, pending *startedWrite) (sub activities.FillSubmitted, done bool, err error) {
	ex := r.in.Execution
	in := activities.FillInput{RequestID: ex.RequestID, ChainID: ex.DestinationChainID, Family: payoutFamily(ex), OrderID: ex.OrderID,
		Currency: ex.CurrencyOut.Address, Recipient: ex.Recipient, Amount: ex.AmountOut}
	if r.state.Deposit != nil {
		in.Depositor = r.payer() // screened with the recipient (activities/screening.go)
	}
	err = workflow.ExecuteLocalActivity(r.sendingLocalActivity(ctx), chainActs.SubmitFill, in).Get(ctx, &sub)
	if pending != nil {
		if err := r.finishWrite(ctx, pending); err != nil {
			return sub, true, err
		}
	}
	if err == nil {
		return sub, false, nil
	}
	if blocked := activities.BlockedAddresses(err); blocked != nil {
		// Nothing was signed: screening refused the fill. No automatic refund either.
		r.filling, r.blocked = false, blocked
		return sub, true, r.blockedWallet(ctx)
	}
	if reason := reasonOf(err); isNonRetryable(err) {
		// Nothing was signed: the checks before signing refused the fill.
		if reason == intent.FailReasonOrderAlreadyFilled {
			return sub, true, r.fail(ctx, reason)
		}
		return sub, true, r.refund(ctx, reason)
	}
	workflow.GetLogger(ctx).Warn("fill not submitted after every attempt", "requestId", ex.RequestID, "error", err)
	if err := r.publishAttrs(ctx); err != nil {
		return sub, true, err
	}
	var stored activities.StoredTx
	if err := workflow.ExecuteActivity(r.sendingActivity(ctx), chainActs.StoredSolverTx, activities.StoredTxInput{
		RequestID: ex.RequestID, Kind: intent.TxKindFill}).Get(ctx, &stored); err != nil {
		return sub, true, fmt.Errorf("stored fill: %w", err)
	}
	if !stored.Found {
		return sub, true, r.refund(ctx, intent.FailReasonTransactionSubmissionFailed)
	}
	return activities.FillSubmitted{TxHash: stored.Hash}, false, nil
}

// awaitFill waits for one attempt of the fill to be mined. Each time FillBumpAfter passes
// without one, the request is marked delayed and the destination's family replaces the fill by
// its own policy (EVM: the same nonce at higher fees, and after FillMaxBumps replacements a
// cancellation, chains/evm/replace.go); once the family answers that its replacement was the
// last, the wait goes on until one of the attempts is mined.
func (r *intentRun) awaitFill(ctx workflow.Context, sub activities.FillSubmitted) (*activities.TxIncluded, error) {
	ex, policy := r.in.Execution, r.in.Policy.WithDefaults()
	attempt, cancelled := 0, false
	for {
		var inc activities.TxIncluded
		err := r.wait(ctx, policy.FillBumpAfter, chainActs.AwaitTx, activities.AwaitTxInput{
			RequestID: ex.RequestID, Kind: intent.TxKindFill, ChainID: ex.DestinationChainID, Family: payoutFamily(ex), TxHash: sub.TxHash,
		}, &inc)
		if err == nil {
			return &inc, nil
		}
		if !isTimeout(err) {
			return nil, fmt.Errorf("await fill: %w", err)
		}
		if r.state.Status != intent.StatusDelayed {
			if err := r.write(ctx, intent.StatusDelayed, ""); err != nil {
				return nil, err
			}
		}
		if cancelled {
			continue
		}
		var rep activities.Replaced
		if err := r.publishAttrs(ctx); err != nil {
			return nil, err
		}
		if err := workflow.ExecuteActivity(r.sendingActivity(ctx), chainActs.ReplaceTx, activities.ReplaceInput{
			RequestID: ex.RequestID, Kind: intent.TxKindFill, ChainID: ex.DestinationChainID, Family: payoutFamily(ex), After: attempt, MaxBumps: policy.FillMaxBumps,
		}).Get(ctx, &rep); err != nil {
			// The replacement could not be sent: keep waiting for the attempts already out.
			workflow.GetLogger(ctx).Warn("fill not replaced", "requestId", ex.RequestID, "attempt", attempt, "error", err)
			continue
		}
		attempt, cancelled = rep.Attempt, rep.Final
	}
}

// landed ends the request once an attempt of its fill, or its cancellation, is mined: success
// (the reservation charged and the app fees recorded, sponsorship.go), or a refund when the
// cancellation took the fill's nonce (TRANSACTION_NOT_INCLUDED) or the fill reverted
// (EXECUTION_REVERTED): either way it paid nothing. A fill voided by a chain's reset waits for
// an operator (voidedFill).
func (r *intentRun) landed(ctx workflow.Context, inc *activities.TxIncluded) error {
	chainID := r.in.Execution.DestinationChainID
	if inc.Voided {
		return r.voidedFill(ctx, inc)
	}
	if inc.Cancel {
		// Every attempt of the fill, the cancellation too, is recorded as failed.
		r.moreTxs = fillAttempts(chainID, inc, intent.TxFailure)
		return r.refund(ctx, intent.FailReasonTransactionNotIncluded)
	}
	if inc.Hash == "" {
		inc.Hash = r.state.FillTx
	}
	if !inc.Success {
		r.moreTxs = fillAttempts(chainID, inc, intent.TxFailure)
		r.failedFill = &intent.FailedTx{Hash: inc.Hash, Block: inc.Block, Call: inc.Call}
		return r.refund(ctx, intent.FailReasonExecutionReverted)
	}
	r.state.FillTx = inc.Hash
	if err := r.settle(ctx); err != nil {
		return err
	}
	return r.write(ctx, intent.StatusSuccess, "", fillAttempts(chainID, inc, intent.TxSuccess)...)
}

// voidedFill ends a request whose fill was signed for a chain that has since been reset (a new
// genesis, docs/operations.md "Restarting"): none of its attempts was mined, the engine never
// sends them again and the node knows none of them, so on the chain as it is now the fill cannot
// land. Whether it landed on the old chain nobody can tell from here, so the deposit is not
// refunded automatically (that could pay twice) and no new fill is signed: the request ends in
// failure with TRANSACTION_NOT_INCLUDED and MANUAL_REFUND_REQUIRED, and waits for an operator's
// adminRefund, which the signed fill no longer forbids.
func (r *intentRun) voidedFill(ctx workflow.Context, inc *activities.TxIncluded) error {
	ex := r.in.Execution
	workflow.GetLogger(ctx).Warn("fill voided by the chain's reset; waiting for an operator", "requestId", ex.RequestID,
		"attempts", inc.Attempts)
	r.filling = false
	for _, h := range inc.Attempts {
		r.moreTxs = append(r.moreTxs, intent.Tx{Direction: intent.TxOut, Kind: intent.TxKindFill, ChainID: ex.DestinationChainID,
			Hash: h, LogIndex: -1, Status: intent.TxFailure})
	}
	r.releaseSponsorship(ctx)
	r.state.RefundFailReason = intent.RefundFailReasonManualRefundRequired
	if err := r.write(ctx, intent.StatusFailure, intent.FailReasonTransactionNotIncluded); err != nil {
		return err
	}
	return r.awaitOperator(ctx)
}

// fillAttempts are the transactions of a mined fill for the record: the mined attempt with
// status mined (success, or failure when it reverted or was a cancellation) and its receipt's
// facts, and every other attempt broadcast (replaced, never mined) as a failure.
func fillAttempts(chainID uint64, inc *activities.TxIncluded, mined intent.TxStatus) []intent.Tx {
	out := []intent.Tx{{Direction: intent.TxOut, Kind: intent.TxKindFill, ChainID: chainID, Hash: inc.Hash, LogIndex: -1,
		Block: inc.Block, Timestamp: inc.Timestamp, Fee: inc.Fee, Status: mined}}
	for _, h := range inc.Attempts {
		if !strings.EqualFold(h, inc.Hash) {
			out = append(out, intent.Tx{Direction: intent.TxOut, Kind: intent.TxKindFill, ChainID: chainID, Hash: h, LogIndex: -1,
				Status: intent.TxFailure})
		}
	}
	return out
}

// payoutFamily is the family that pays the request's fill, as its execution names it (empty for
// an execution stored before it did: the destination chain's own).
func payoutFamily(ex intent.Execution) chains.VMType { return chains.VMType(ex.PayoutFamily) }
