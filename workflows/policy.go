package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// Policy holds the configured limits an intent runs under; zero values take the defaults.
type Policy struct {
	// ConfirmationTimeout bounds the wait for the deposit's confirmations and attestation;
	// after it the request fails with DEPOSIT_CONFIRMATION_TIMEOUT (DEPOSIT_CONFIRMATION_TIMEOUT).
	ConfirmationTimeout time.Duration
	// FillBumpAfter is how long a fill may stay out of a block before it is replaced with the
	// same nonce and a higher fee (FILL_BUMP_AFTER); the request is delayed from then on.
	FillBumpAfter time.Duration
	// FillMaxBumps is how many such replacements are made (FILL_MAX_BUMPS); after the last
	// one the fill is cancelled and, once the cancellation is mined, the deposit refunded
	// with TRANSACTION_NOT_INCLUDED.
	FillMaxBumps int
	// SubmitAttempts is how many times signing and broadcasting a fill or refund is tried
	// while the chain or the signer is unavailable (FILL_SUBMIT_ATTEMPTS); a fill never signed
	// after them is refunded with TRANSACTION_SUBMISSION_FAILED.
	SubmitAttempts int
}

// Policy defaults.
const (
	DefaultConfirmationTimeout = 30 * time.Minute
	DefaultFillBumpAfter       = 30 * time.Second
	DefaultFillMaxBumps        = 3
	DefaultSubmitAttempts      = 20
)

// WithDefaults fills the zero values of p.
func (p Policy) WithDefaults() Policy {
	if p.ConfirmationTimeout <= 0 {
		p.ConfirmationTimeout = DefaultConfirmationTimeout
	}
	if p.FillBumpAfter <= 0 {
		p.FillBumpAfter = DefaultFillBumpAfter
	}
	if p.FillMaxBumps < 0 {
		p.FillMaxBumps = 0
	} else if p.FillMaxBumps == 0 {
		p.FillMaxBumps = DefaultFillMaxBumps
	}
	if p.SubmitAttempts <= 0 {
		p.SubmitAttempts = DefaultSubmitAttempts
	}
	return p
}

// inlineWait bounds a wait run as a local activity (attest.go, wait). The devnet's attestation
// (two confirmations of 1 s blocks) and a fill's inclusion fit in it; on a chain whose blocks or
// confirmations take longer, the wait moves on to an activity task after it. It stays under 80%
// of the workflow task timeout (10 s), past which the SDK has to heartbeat the workflow task.
const inlineWait = 6 * time.Second

// manualRefundWindow is how long a request whose refund needs an operator stays open for the
// adminRefund update.
const manualRefundWindow = 30 * 24 * time.Hour

// storeWriteOptions are those of the read-model writes (local activities). Without a
// schedule-to-close timeout the SDK would stop retrying after the start-to-close timeout, and a
// Postgres outage of a few seconds would fail the workflow; a write retries for as long as an
// operator might need to bring the database back.
var storeWriteOptions = workflow.LocalActivityOptions{
	StartToCloseTimeout:    10 * time.Second,
	ScheduleToCloseTimeout: manualRefundWindow,
	RetryPolicy:            &temporal.RetryPolicy{InitialInterval: 200 * time.Millisecond, MaximumInterval: 10 * time.Second},
}

// waitHeartbeatTimeout is the heartbeat timeout of the waits: a wait whose worker died is
// retried on another worker this long after its last heartbeat (a wait heartbeats after every
// check, at least every few seconds; the SDK sends them at most every 0.8 of this).
const waitHeartbeatTimeout = 10 * time.Second

// defaultWaitTimeout bounds the waits that have no bound of their own in the policy: a refund's
// wait for inclusion.
const defaultWaitTimeout = 30 * time.Minute

// waitingActivity is for the activities that wait (AttestDeposit for confirmations, AwaitTx
// for a transaction to be mined), for at most total. Each is one long-running attempt that
// checks on every new block of its chain and heartbeats between checks (activities.await), so
// its start-to-close timeout is the whole wait and its heartbeat timeout waitHeartbeatTimeout:
// a killed worker's wait is retried elsewhere within about ten seconds. When total passes
// (schedule-to-close) the server times the activity out and the workflow sees a
// *temporal.TimeoutError, as when every check was a failed attempt retried by Temporal. The retry
// policy serves the retries after a worker died or a check failed for good.
func waitingActivity(ctx workflow.Context, total time.Duration) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout:    total,
		ScheduleToCloseTimeout: total,
		HeartbeatTimeout:       waitHeartbeatTimeout,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 300 * time.Millisecond, BackoffCoefficient: 1.5,
			MaximumInterval: 5 * time.Second},
	})
}

// sendingActivity is for activities that sign and broadcast: a transport failure is retried
// with backoff, a bounded number of times.
func (r *intentRun) sendingActivity(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: sendingAttempt, RetryPolicy: r.sendingRetry()})
}

// sendingAttempt bounds one attempt of a sending activity.
const sendingAttempt = 30 * time.Second

// sendingRetry is the retry policy of the sending activities, local or not.
func (r *intentRun) sendingRetry() *temporal.RetryPolicy {
	return &temporal.RetryPolicy{InitialInterval: 500 * time.Millisecond, BackoffCoefficient: 2,
		MaximumInterval: 10 * time.Second, MaximumAttempts: int32(r.in.Policy.WithDefaults().SubmitAttempts)}
}

// sendingLocalActivity is sendingActivity for a local activity (the fill's signing and
// broadcast): the same attempt timeout and retries, bounded in all by sendingWindow, after which
// the workflow treats the submission as failed like an activity whose attempts ran out.
func (r *intentRun) sendingLocalActivity(ctx workflow.Context) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: sendingAttempt, ScheduleToCloseTimeout: sendingWindow, RetryPolicy: r.sendingRetry()})
}

// sendingWindow bounds a local sending activity with all its retries: the default 20 attempts
// of up to 30 s with backoff capped at 10 s fit in it.
const sendingWindow = 15 * time.Minute
