package workflows

import (
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/intentd/intentd/activities"
	"github.com/intentd/intentd/intent"
)

// attest is the lifecycle's second phase: the deposit is attested by the oracle once it has its
// confirmations, relied on at its value's tier (exposure.go), then checked against the order. A
// deposit that does not match the order is confirmed on chain by then, so it is refunded.
func (r *intentRun) attest(ctx workflow.Context) (done bool, err error) {
	r.tiered = true
	if done, err := r.confirm(ctx); done || err != nil {
		return true, err
	}
	if reason := r.checkDeposit(); reason != "" {
		return true, r.refund(ctx, reason)
	}
	r.relayDeposited(ctx)
	return false, nil
}

// confirm has the run's deposit attested. An attestation that does not come ends the request
// in failure: DEPOSIT_CONFIRMATION_TIMEOUT when the wait ran out, or the reason the activity
// gave (DEPOSIT_REORGED). A depositor on the blocklist ends it in BLOCKED_WALLET: nothing is
// filled or refunded.
func (r *intentRun) confirm(ctx workflow.Context) (done bool, err error) {
	if err := r.awaitAttestation(ctx, r.state.Deposit); err != nil {
		if isTimeout(err) {
			return true, r.fail(ctx, intent.FailReasonDepositConfirmationTimeout)
		}
		return true, r.fail(ctx, reasonOf(err))
	}
	if len(r.blocked) > 0 {
		return true, r.blockedWallet(ctx)
	}
	return false, nil
}

// awaitAttestation waits, for at most the policy's ConfirmationTimeout, for the oracle's
// attestation of d, and keeps what it says: the signatures for the record, the addresses
// screening found listed, the deposit's share of its chain's exposure.
func (r *intentRun) awaitAttestation(ctx workflow.Context, d *intent.Deposit) error {
	total := r.in.Policy.WithDefaults().ConfirmationTimeout
	var res activities.AttestResult
	in := activities.AttestInput{Deposit: *d}
	if r.tiered {
		in.Tiered, in.RequestID = true, r.in.Execution.RequestID
	}
	in.SweptPayment = r.sweptPayment(d)
	err := r.wait(ctx, total, oracleActs.AttestDeposit, in, &res)
	if err != nil {
		return err
	}
	r.state.Attested = true
	r.blocked = res.Blocked
	r.hold = res.Exposure
	r.exposed = res.Exposure != nil && res.Exposure.Reserved
	if res.Signer != "" {
		chainID := res.ChainID
		if chainID == 0 {
			chainID = d.ChainID
		}
		r.attestation = &intent.Attestation{ChainID: chainID, Depository: res.Depository, Signer: res.Signer, Signature: res.Signature}
		// Every accepted signature of the engine's quorum.
		for _, s := range res.Signatures {
			r.attestation.Signatures = append(r.attestation.Signatures, intent.SignerSignature{Signer: s.Signer, Signature: s.Signature})
		}
	}
	return nil
}

// wait runs a waiting activity (waitingActivity) for at most total and stores its result in
// out. It first runs it as a local activity for up to inlineWait, so that an intent whose chains
// answer within that time runs from its deposit to success in one workflow task: its answer, or
// a failure for good, is the wait's. After a timeout or a failure Temporal would retry, the wait
// goes on as an activity task for the rest of total (both are idempotent: they only read the
// chains, the oracle and the stored transactions, and re-broadcast a stored transaction).
func (r *intentRun) wait(ctx workflow.Context, total time.Duration, activity, in, out any) error {
	budget := min(inlineWait, total)
	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: budget, ScheduleToCloseTimeout: budget, RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1}})
	err := workflow.ExecuteLocalActivity(lctx, activity, in).Get(ctx, out)
	if err == nil || isNonRetryable(err) {
		return err
	}
	// The local attempt ended without an answer. It counts as its whole budget spent: a wait
	// that ran into its deadline may report the context's error rather than a timeout (the SDK
	// races the two), and the wait as a whole must never last longer than total.
	if total -= budget; total <= 0 {
		if isTimeout(err) {
			return err
		}
		return temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE, nil)
	}
	if err := r.publishAttrs(ctx); err != nil {
		return err
	}
	return workflow.ExecuteActivity(waitingActivity(ctx, total), activity, in).Get(ctx, out)
}
