// Package workflows holds the durable workflows of the engine. Intent is one request's
// lifecycle, from the deposit seen on chain to the fill on the destination. Workflow code is
// deterministic and does no I/O: everything that touches a chain, the oracle or the database is
// an activity (package activities), referenced as method values so the compiler checks calls.
package workflows

import (
	"errors"
	"fmt"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/intentd/intentd/activities"
	"github.com/intentd/intentd/intent"
)

// Names shared by the API, the worker and operators.
const (
	TaskQueue     = "intents"
	SignalDeposit = "deposit"
	QueryState    = "state"
)

// IntentWorkflowID derives the workflow id from the requestId, so the start (or signal) from the
// scanner, the hint endpoint and a retry all land on one workflow per request.
func IntentWorkflowID(requestID string) string { return "intent-" + requestID }

// Typed search attributes that make intents findable in the Temporal Web UI.
var (
	AttrIntentStatus       = temporal.NewSearchAttributeKeyKeyword("IntentStatus")
	AttrOriginChainID      = temporal.NewSearchAttributeKeyInt64("OriginChainId")
	AttrDestinationChainID = temporal.NewSearchAttributeKeyInt64("DestinationChainId")
	AttrAPIKeyID           = temporal.NewSearchAttributeKeyKeyword("ApiKeyId")
	AttrUser               = temporal.NewSearchAttributeKeyKeyword("User")
	AttrFailReason         = temporal.NewSearchAttributeKeyKeyword("FailReason")
	AttrDepositAddress     = temporal.NewSearchAttributeKeyKeyword("DepositAddress")
	// AttrRefundHold is set on a refund request whose automatic refund is held for an operator
	// (intent.RefundHold: UNLISTED_CURRENCY, REFUND_BUDGET_EXCEEDED); absent otherwise.
	AttrRefundHold = temporal.NewSearchAttributeKeyKeyword("RefundHold")
)

// IntentInput starts an Intent: the execution the quote committed to.
type IntentInput struct {
	Execution intent.Execution
	APIKeyID  string
	// Policy is the operator's configuration for this intent, fixed when it starts.
	Policy Policy
	// Deposit is the deposit the workflow was started for. The door starts a workflow with its
	// first deposit in the input, not a signal, so that the start can be eager: the worker
	// that starts it runs its first workflow task from the start's answer, without the trip
	// through matching. Nil in the inputs of runs started by signal-with-start; a deposit for
	// a workflow already open is still a signal.
	Deposit *intent.Deposit `json:",omitempty"`
}

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

// State is the live state the QueryState query returns to operators.
type State struct {
	RequestID        string
	Status           intent.Status
	FailReason       intent.FailReason
	RefundFailReason intent.RefundFailReason `json:",omitempty"`
	Deposit          *intent.Deposit
	FillTx           string
	Attested         bool
	// RefundTx is the refund transaction once one is sent.
	RefundTx string `json:",omitempty"`
	// AwaitingOperator is set while the request waits for a manual admin refund (after
	// MANUAL_REFUND_REQUIRED or REFUND_RECIPIENT_IS_BLOCKED).
	AwaitingOperator bool `json:",omitempty"`
	// AwaitingExposure is set while the fill waits, pending, for room under its origin chain's
	// exposure cap (exposure.go).
	AwaitingExposure bool `json:",omitempty"`
	// Hold is why the automatic refund of a deposit no order can take was not made and waits
	// for an operator (changeLean 5); the deposit is attested only when an operator refunds it.
	Hold intent.RefundHold `json:",omitempty"`
}

// IntentResult is the final state.
type IntentResult = State

// Activity method values; nil receivers are fine, Temporal only uses the method names.
var (
	storeActs   *activities.StoreActivities
	chainActs   *activities.ChainActivities
	oracleActs  *activities.OracleActivities
	sponsorActs *activities.SponsorshipActivities
)

// Change ids of workflow.GetVersion: every change to what the workflow does for an intent
// already in flight goes through one (docs/operations.md, Versioning).
const (
	// changeRefunds, version 1: the deposit is attested before it is checked, and deposit
	// problems and refundable fill problems end in a refund instead of a failure.
	changeRefunds = "refunds"
	// changeInclusion, version 1: the attestation wait is bounded by the policy's
	// ConfirmationTimeout (DEPOSIT_CONFIRMATION_TIMEOUT), and a fill that is not included is
	// replaced with higher fees, then cancelled and refunded (TRANSACTION_NOT_INCLUDED); the
	// request is delayed while it waits.
	changeInclusion = "inclusion"
	// changeDuplicates, version 1: every deposit after the first is refunded as a
	// DepositRefund child request.
	changeDuplicates = "duplicates"
	// changeSubmission, version 1: a fill that could not be submitted is refunded when it was
	// never signed (TRANSACTION_SUBMISSION_FAILED), and waited for when it was.
	changeSubmission = "submission"
	// changeSponsorship, version 1: a sponsored request reserves what its integrator sponsors
	// before the fill is signed (refunded with SPONSOR_BALANCE_TOO_LOW when the balance does not
	// cover it), releases it when refunded or failed, and a landed fill is settled: the
	// reservation charged, feeSponsorship.actual.sponsorPayment written, app fees recorded as
	// owed.
	changeSponsorship = "sponsorship"
	// changeLean, version 1: fewer round trips per intent, the same transitions. A run at
	// this version takes the newest version of every change above without asking for it (no
	// Version marker and no TemporalChangeVersion search attribute upsert per change: each
	// upsert was a write of the visibility record), does not upsert the search attributes its
	// starter set nor status attributes that did not change, takes a deposit signalled at its
	// start without starting the order-deadline timer, and signs and broadcasts the fill as a
	// local activity (SubmitFill is idempotent: a retry broadcasts the stored transaction
	// again) instead of an activity task and a workflow task of its own. BENCHMARKS.md,
	// "Intents under load".
	//
	// Version 2 ("inline"): the waits for the deposit's attestation and for the fill's
	// inclusion first run as local activities of up to inlineWait each, so that an intent whose
	// chains answer within that time runs from its deposit to success in one workflow task (the
	// same transitions, each written to the read model as it happens); a wait that takes longer
	// goes on as the heartbeating activity of before for the rest of its time. Its status search
	// attributes are upserted once the run waits on anything but a local activity (and when it
	// ends), not at every transition: the server would write the visibility record once per
	// upsert although only the last of a workflow task is ever seen.
	//
	// Version 3 ("overlap"): once the deposit is attested, the write of the pending status and
	// the fill's signing and broadcast (SubmitFill) run at the same time, two local activities
	// where they ran one after the other; the submitted status is written once both are done, so
	// the read model still goes pending, then submitted. A sponsored request, which reserves its
	// sponsorship between the two, and one with an operator's refund pending keep the order of
	// before.
	//
	// Version 4 ("stable"): a transition's version is the run's start time and the transition's
	// place in the run (startWrite), where it was the time of the workflow task that wrote it.
	// A run whose workflow task is done again from its start (the server refuses to complete a
	// task a signal reached in the middle of, or a worker died in the middle of it) writes its
	// transitions again with the same versions, which change nothing: with the task's time,
	// they were newer than the run's last, and the read model, the stream and the webhooks went
	// from success back to waiting and through every status again.
	//
	// Version 5 ("guarded"): the money-safety rules of docs/operations.md, "Money safety": every
	// new step they add to a run (a check, a wait, a reservation) is taken only by runs at this
	// version (intentRun.guarded), so intents in flight before it replay unchanged.
	changeLean = "lean"
)

// inlineWait bounds a wait run as a local activity (changeLean version 2). The devnet's
// attestation (two confirmations of 1 s blocks) and a fill's inclusion fit in it; on a chain
// whose blocks or confirmations take longer, the wait moves on to an activity task after it.
// It stays under 80% of the workflow task timeout (10 s), past which the SDK has to heartbeat
// the workflow task.
const inlineWait = 6 * time.Second

// manualRefundWindow is how long a request whose refund needs an operator stays open for the
// adminRefund update.
const manualRefundWindow = 30 * 24 * time.Hour

type intentRun struct {
	in    IntentInput
	state State
	seq   int64
	// lean is set for runs at changeLean version 1 or later: the older changes are all at their
	// newest version without a GetVersion call each. inline is set at version 2, overlap at 3,
	// stable at 4, guarded at 5.
	lean, inline, overlap, stable bool
	// guarded is set at changeLean version 5: the money-safety steps (see changeLean).
	guarded bool
	// attrs are the IntentStatus and FailReason search attributes last set; a lean run upserts
	// them only when they change (its starter set waiting and N/A). An inline run keeps the
	// latest in wantAttrs until publishAttrs.
	attrs, wantAttrs [2]string

	depositSeenAt time.Time
	// filling is set before the fill is first signed: from then on nothing may be refunded by
	// hand, because the fill could still land.
	filling bool
	// refunding is set while a refund is being sent or once it has been.
	refunding bool
	// reserved is set while the request holds a sponsorship reservation (changeSponsorship).
	reserved bool
	// tiered is set (guarded runs of an Intent) when the deposit may be relied on at its value's
	// tier; hold is the deposit's share of its chain's exposure as the attestation left it, and
	// exposed is set while the request holds it (exposure.go).
	tiered  bool
	hold    *activities.ExposureResult
	exposed bool
	// adminPending is set when an adminRefund update is accepted; admin is its request once
	// the audit row is written, adminDone its outcome.
	adminPending bool
	admin        *adminRequest
	adminDone    *adminOutcome

	// watchingDuplicates is set once extra deposits are refunded as DepositRefund children;
	// refundChildren are those started, startingChildren those not yet confirmed started.
	watchingDuplicates bool
	refundChildren     map[string]bool
	startingChildren   int

	// Facts for the record that every write carries (recordFacts): the oracle's attestation
	// of the deposit, and a fill that was mined and reverted. moreTxs are transactions the
	// next write records besides its own (the attempts of a fill that did not land).
	attestation *intent.Attestation
	failedFill  *intent.FailedTx
	moreTxs     []intent.Tx
	// blocked are the addresses screening found on the blocklist (a guarded run only): the
	// depositor as its deposit was attested, or the recipient or depositor as the fill was to be
	// signed. Every write from then on carries them (data.blockedAddresses).
	blocked []string
}

type adminRequest struct {
	intent.AdminRefund
	updateID string
}

type adminOutcome struct {
	result *intent.AdminRefundResult
	err    error
}

// Intent runs one request: await the deposit, have it attested once confirmed, fill on the
// destination, and record every transition in the read model.
func Intent(ctx workflow.Context, in IntentInput) (*IntentResult, error) {
	r := &intentRun{in: in, state: State{RequestID: in.Execution.RequestID, Status: intent.StatusWaiting, FailReason: intent.FailReasonNA}}
	if err := r.setup(ctx); err != nil {
		return nil, err
	}
	res, err := r.run(ctx)
	if perr := r.publishAttrs(ctx); err == nil {
		err = perr
	}
	if r.watchingDuplicates {
		r.drainDuplicates(ctx)
	}
	// An adminRefund update still answering its caller finishes before the run closes.
	_ = workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
	return res, err
}

func (r *intentRun) setup(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, QueryState, func() (State, error) { return r.state, nil }); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateAdminRefund, r.onAdminRefund,
		workflow.UpdateHandlerOptions{Validator: r.validateAdminRefund}); err != nil {
		return err
	}
	v := workflow.GetVersion(ctx, changeLean, workflow.DefaultVersion, 5)
	r.stable, r.guarded = v >= 4, v >= 5
	if r.lean, r.inline, r.overlap = v >= 1, v >= 2, v >= 3; r.lean {
		// The door started the workflow with these search attributes (InitialSearchAttributes).
		r.attrs = [2]string{string(intent.StatusWaiting), string(intent.FailReasonNA)}
		r.wantAttrs = r.attrs
		return nil
	}
	return workflow.UpsertTypedSearchAttributes(ctx, searchAttributes(r.in.Execution, r.in.APIKeyID)...)
}

func (r *intentRun) run(ctx workflow.Context) (*IntentResult, error) {
	dep, err := r.awaitDeposit(ctx)
	if err != nil {
		return nil, err
	}
	if dep == nil {
		return r.fail(ctx, intent.FailReasonOrderExpired)
	}
	if !r.refunds(ctx) {
		if reason := r.checkDeposit(ctx, dep); reason != "" {
			return r.fail(ctx, reason)
		}
	}
	// changeLean 5: the deposit this request fills against is relied on at its value's tier.
	r.tiered = r.guarded
	return r.afterAttest(ctx, dep, func() (*IntentResult, error) {
		// From here on the deposit is confirmed on chain: a problem with it is refunded.
		if r.refunds(ctx) {
			if reason := r.checkDeposit(ctx, dep); reason != "" {
				return r.refund(ctx, reason)
			}
		}
		if r.hold != nil && !r.hold.Reserved {
			// changeLean 5: the origin chain's exposure cap is full. The request is pending and its
			// fill waits for room, never refunded for the wait.
			return r.fillPastTheCap(ctx)
		}
		if r.overlap && r.in.Execution.Sponsor == nil && !r.adminPending {
			// changeLean 3: the fill is signed while pending is written; fill waits for the
			// write before it writes anything else.
			return r.fill(ctx, r.startWrite(ctx, intent.StatusPending, ""))
		}
		if err := r.write(ctx, intent.StatusPending, ""); err != nil {
			return nil, err
		}
		return r.fill(ctx, nil)
	})
}

// afterAttest has the deposit attested, then runs next. An attestation that does not come
// ends the request in failure: DEPOSIT_CONFIRMATION_TIMEOUT when the wait ran out, or the
// reason the activity gave (DEPOSIT_REORGED).
func (r *intentRun) afterAttest(ctx workflow.Context, dep *intent.Deposit, next func() (*IntentResult, error)) (*IntentResult, error) {
	if err := r.attest(ctx, dep); err != nil {
		if isTimeout(err) && r.inclusion(ctx) {
			return r.fail(ctx, intent.FailReasonDepositConfirmationTimeout)
		}
		return r.fail(ctx, reasonOf(err))
	}
	if len(r.blocked) > 0 {
		// A listed depositor (a guarded run, screening.go): nothing is filled or refunded.
		return r.blockedWallet(ctx)
	}
	return next()
}

// refunds reports whether this run refunds (changeRefunds version 1); histories recorded
// before that change replay the old path, which ended such requests in failure.
func (r *intentRun) refunds(ctx workflow.Context) bool {
	return r.lean || workflow.GetVersion(ctx, changeRefunds, workflow.DefaultVersion, 1) == 1
}

// awaitDeposit returns the first deposit signalled, or nil when the order's deadline passes
// with none. Every later deposit for the order is refunded as a request of its own
// (watchDuplicates; before changeDuplicates they stayed in the channel).
func (r *intentRun) awaitDeposit(ctx workflow.Context) (*intent.Deposit, error) {
	ch := workflow.GetSignalChannel(ctx, SignalDeposit)
	var dep intent.Deposit
	wait := time.Unix(r.in.Execution.Deadline, 0).Sub(workflow.Now(ctx))
	if wait < time.Minute {
		wait = time.Minute
	}
	// A lean run started with its deposit (in its input, or by signal-with-start) takes it
	// without a timer.
	ok := r.lean && r.in.Deposit != nil
	if ok {
		dep = *r.in.Deposit
	} else {
		ok = r.lean && ch.ReceiveAsync(&dep)
	}
	if !ok {
		ok, _ = ch.ReceiveWithTimeout(ctx, wait, &dep)
	}
	if !ok {
		return nil, nil
	}
	r.depositSeenAt = workflow.Now(ctx)
	r.state.Deposit = &dep
	if r.lean || workflow.GetVersion(ctx, changeDuplicates, workflow.DefaultVersion, 1) == 1 {
		r.watchingDuplicates = true
		workflow.Go(ctx, r.watchDuplicates)
	}
	err := r.write(ctx, intent.StatusWaiting, "", depositTx(dep))
	return &dep, err
}

// checkDeposit compares the deposit with the order; a mismatch names its failReason.
func (r *intentRun) checkDeposit(ctx workflow.Context, d *intent.Deposit) intent.FailReason {
	ex := r.in.Execution
	switch {
	case d.ChainID != ex.OriginChainID:
		return intent.FailReasonDepositChainMismatch
	case !intent.SameAddress(d.Currency, ex.CurrencyIn.Address):
		return intent.FailReasonIncorrectDepositCurrency
	case intent.Big(d.Amount).Cmp(intent.Big(ex.AmountIn)) < 0:
		return intent.FailReasonDepositedAmountTooLowToFill
	case r.depositSeenAt.Unix() > ex.Deadline:
		return intent.FailReasonOrderExpired
	}
	return ""
}

// waitHeartbeatTimeout is the heartbeat timeout of the waits: a wait whose worker died is
// retried on another worker this long after its last heartbeat (a wait heartbeats after every
// check, at least every few seconds; the SDK sends them at most every 0.8 of this).
const waitHeartbeatTimeout = 10 * time.Second

// defaultWaitTimeout bounds the waits that have no bound of their own in the policy (a refund's
// wait for inclusion, and the waits of histories recorded before changeInclusion).
const defaultWaitTimeout = 30 * time.Minute

// waitingActivity is for the activities that wait (AttestDeposit for confirmations, AwaitTx
// for a transaction to be mined), for at most total. Each is one long-running attempt that
// checks on every new block of its chain and heartbeats between checks (activities.await), so
// its start-to-close timeout is the whole wait and its heartbeat timeout waitHeartbeatTimeout:
// a killed worker's wait is retried elsewhere within about ten seconds. When total passes
// (schedule-to-close) the server times the activity out and the workflow sees a
// *temporal.TimeoutError, as when every check was a failed attempt retried by Temporal. The retry
// policy now serves the retries after a worker died or a check failed for good.
//
// Only the options of the ScheduleActivityTask command change with this, not the commands, so
// histories recorded before replay unchanged; a wait scheduled with the old options (15 s
// start-to-close, no heartbeat timeout) simply runs in 15 s attempts.
func waitingActivity(ctx workflow.Context, total time.Duration) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout:    total,
		ScheduleToCloseTimeout: total,
		HeartbeatTimeout:       waitHeartbeatTimeout,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 300 * time.Millisecond, BackoffCoefficient: 1.5,
			MaximumInterval: 5 * time.Second},
	})
}

func (r *intentRun) attest(ctx workflow.Context, d *intent.Deposit) error {
	total := defaultWaitTimeout
	if r.inclusion(ctx) {
		total = r.in.Policy.WithDefaults().ConfirmationTimeout
	}
	var res activities.AttestResult
	in := activities.AttestInput{Deposit: *d}
	if r.tiered {
		in.Tiered, in.RequestID = true, r.in.Execution.RequestID
	}
	err := r.wait(ctx, total, oracleActs.AttestDeposit, in, &res)
	if err == nil {
		r.state.Attested = true
		if r.guarded {
			r.blocked = res.Blocked
		}
		r.hold = res.Exposure
		r.exposed = res.Exposure != nil && res.Exposure.Reserved
		if res.Signer != "" {
			chainID := res.ChainID
			if chainID == 0 {
				chainID = d.ChainID
			}
			r.attestation = &intent.Attestation{ChainID: chainID, Depository: res.Depository, Signer: res.Signer, Signature: res.Signature}
			// Every accepted signature of the engine's quorum (none in results recorded before
			// it): data only, the commands are those of before, so recorded histories replay.
			for _, s := range res.Signatures {
				r.attestation.Signatures = append(r.attestation.Signatures, intent.SignerSignature{Signer: s.Signer, Signature: s.Signature})
			}
		}
	}
	return err
}

// wait runs a waiting activity (waitingActivity) for at most total and stores its result in
// out. An inline run (changeLean version 2) first runs it as a local activity for up to
// inlineWait: its answer, or a failure for good, is the wait's; after a timeout or a failure
// Temporal would retry, the wait goes on as an activity task for the rest of total (both are
// idempotent: they only read the chains, the oracle and the stored transactions, and
// re-broadcast a stored transaction).
func (r *intentRun) wait(ctx workflow.Context, total time.Duration, activity, in, out any) error {
	if r.inline {
		budget := min(inlineWait, total)
		lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
			StartToCloseTimeout: budget, ScheduleToCloseTimeout: budget, RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1}})
		err := workflow.ExecuteLocalActivity(lctx, activity, in).Get(ctx, out)
		if err == nil || isNonRetryable(err) {
			return err
		}
		// The local attempt ended without an answer. It counts as its whole budget spent: a wait
		// that ran into its deadline may report the context's error rather than a timeout (the
		// SDK races the two), and the wait as a whole must never last longer than total.
		if total -= budget; total <= 0 {
			if isTimeout(err) {
				return err
			}
			return temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE, nil)
		}
		if err := r.publishAttrs(ctx); err != nil {
			return err
		}
	}
	return workflow.ExecuteActivity(waitingActivity(ctx, total), activity, in).Get(ctx, out)
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

// sendingLocalActivity is sendingActivity for a local activity (changeLean): the same attempt
// timeout and retries, bounded in all by sendingWindow, after which the workflow treats the
// submission as failed like an activity whose attempts ran out.
func (r *intentRun) sendingLocalActivity(ctx workflow.Context) workflow.Context {
	return workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: sendingAttempt, ScheduleToCloseTimeout: sendingWindow, RetryPolicy: r.sendingRetry()})
}

// sendingWindow bounds a local sending activity with all its retries: the default 20 attempts
// of up to 30 s with backoff capped at 10 s fit in it.
const sendingWindow = 15 * time.Minute

// fill signs, broadcasts and waits for the fill, then writes its outcome. pending, when not nil,
// is the write of the pending status under way (changeLean 3): it is waited for once the fill is
// submitted or refused, before any other write.
func (r *intentRun) fill(ctx workflow.Context, pending *startedWrite) (*IntentResult, error) {
	ex := r.in.Execution
	if r.adminPending {
		// An operator's refund was accepted before the fill started: it wins.
		return r.adminRefund(ctx)
	}
	if ex.Sponsor != nil && r.settles(ctx) {
		// Nothing is signed until the sponsor's balance is held for the fill.
		ok, err := r.reserveSponsorship(ctx)
		if err != nil {
			return nil, err
		}
		if r.adminPending {
			r.releaseSponsorship(ctx)
			return r.adminRefund(ctx)
		}
		if !ok {
			return r.refund(ctx, intent.FailReasonSponsorBalanceTooLow)
		}
	}
	r.filling = true
	var sub activities.FillSubmitted
	fillIn := activities.FillInput{RequestID: ex.RequestID, ChainID: ex.DestinationChainID, OrderID: ex.OrderID,
		Currency: ex.CurrencyOut.Address, Recipient: ex.Recipient, Amount: ex.AmountOut}
	if d := r.state.Deposit; d != nil {
		fillIn.Depositor = d.Depositor // screened with the recipient (activities/screening.go)
	}
	var submit workflow.Future
	if r.lean {
		submit = workflow.ExecuteLocalActivity(r.sendingLocalActivity(ctx), chainActs.SubmitFill, fillIn)
	} else {
		submit = workflow.ExecuteActivity(r.sendingActivity(ctx), chainActs.SubmitFill, fillIn)
	}
	err := submit.Get(ctx, &sub)
	if pending != nil {
		if err := r.finishWrite(ctx, pending); err != nil {
			return nil, err
		}
	}
	if err != nil {
		if blocked := activities.BlockedAddresses(err); r.guarded && blocked != nil {
			// Nothing was signed: screening refused the fill. No automatic refund either.
			r.filling, r.blocked = false, blocked
			return r.blockedWallet(ctx)
		}
		if isNonRetryable(err) {
			// Nothing was signed: the checks before signing refused the fill. An order another
			// party already filled is not refunded (its recipient was paid).
			if r.refunds(ctx) && reasonOf(err) != intent.FailReasonOrderAlreadyFilled {
				return r.refund(ctx, reasonOf(err))
			}
			return r.fail(ctx, reasonOf(err))
		}
		if !r.lean && workflow.GetVersion(ctx, changeSubmission, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
			return r.fail(ctx, intent.FailReasonTransactionSubmissionFailed)
		}
		workflow.GetLogger(ctx).Warn("fill not submitted after every attempt", "requestId", ex.RequestID, "error", err)
		// The chain or the signer stayed unavailable through every attempt. Without a signed
		// fill nothing can land: refund. With one, it may have reached a node, so it is waited
		// for (and replaced or cancelled) like any broadcast fill.
		var stored activities.StoredTx
		if err := r.publishAttrs(ctx); err != nil {
			return nil, err
		}
		if err := workflow.ExecuteActivity(r.sendingActivity(ctx), chainActs.StoredSolverTx, activities.StoredTxInput{
			RequestID: ex.RequestID, Kind: intent.TxKindFill}).Get(ctx, &stored); err != nil {
			return nil, fmt.Errorf("stored fill: %w", err)
		}
		if !stored.Found {
			return r.refund(ctx, intent.FailReasonTransactionSubmissionFailed)
		}
		sub = activities.FillSubmitted{TxHash: stored.Hash}
	}
	r.state.FillTx = sub.TxHash
	if err := r.write(ctx, intent.StatusSubmitted, "", intent.Tx{Direction: intent.TxOut, ChainID: ex.DestinationChainID,
		Hash: sub.TxHash, LogIndex: -1, Status: intent.TxPending}); err != nil {
		return nil, err
	}
	var inc activities.TxIncluded
	if r.inclusion(ctx) {
		got, err := r.awaitFill(ctx, sub)
		if err != nil {
			return nil, err
		}
		inc = *got
		if inc.Voided {
			return r.voidedFill(ctx, &inc)
		}
		if inc.Cancel {
			// The cancellation took the fill's nonce: the fill can never land, so the deposit
			// goes back. Every attempt of the fill, the cancellation too, is recorded as failed.
			r.moreTxs = fillAttempts(ex.DestinationChainID, &inc, intent.TxFailure)
			return r.refund(ctx, intent.FailReasonTransactionNotIncluded)
		}
	} else if err := workflow.ExecuteActivity(waitingActivity(ctx, defaultWaitTimeout), chainActs.AwaitTx, activities.AwaitTxInput{
		RequestID: ex.RequestID, Kind: intent.TxKindFill, ChainID: ex.DestinationChainID, TxHash: sub.TxHash,
	}).Get(ctx, &inc); err != nil {
		return r.fail(ctx, intent.FailReasonTransactionNotIncluded)
	}
	if inc.Hash == "" {
		inc.Hash = sub.TxHash
	}
	if !inc.Success {
		r.moreTxs = fillAttempts(ex.DestinationChainID, &inc, intent.TxFailure)
		r.failedFill = &intent.FailedTx{Hash: inc.Hash, Block: inc.Block, Call: inc.Call}
		if r.refunds(ctx) {
			// The fill reverted on chain, so it paid nothing: the deposit goes back.
			return r.refund(ctx, intent.FailReasonExecutionReverted)
		}
		return r.fail(ctx, intent.FailReasonExecutionReverted)
	}
	r.state.FillTx = inc.Hash
	if r.settles(ctx) {
		if err := r.settle(ctx); err != nil {
			return nil, err
		}
	}
	if err := r.write(ctx, intent.StatusSuccess, "", fillAttempts(ex.DestinationChainID, &inc, intent.TxSuccess)...); err != nil {
		return nil, err
	}
	return &r.state, nil
}

// fail ends the request with a failReason. Refunds for the failures that allow one are a later
// version of this workflow; until then the status is failure with the reason recorded.
func (r *intentRun) fail(ctx workflow.Context, reason intent.FailReason) (*IntentResult, error) {
	r.releaseSponsorship(ctx)
	r.releaseExposure(ctx)
	if err := r.write(ctx, intent.StatusFailure, reason.ForStatus(intent.StatusFailure)); err != nil {
		return nil, err
	}
	return &r.state, nil
}

// storeWriteOptions are those of the read-model writes (local activities). Without a
// schedule-to-close timeout the SDK would stop retrying after the start-to-close timeout, and a
// Postgres outage of a few seconds would fail the workflow; a write retries for as long as an
// operator might need to bring the database back.
var storeWriteOptions = workflow.LocalActivityOptions{
	StartToCloseTimeout:    10 * time.Second,
	ScheduleToCloseTimeout: manualRefundWindow,
	RetryPolicy:            &temporal.RetryPolicy{InitialInterval: 200 * time.Millisecond, MaximumInterval: 10 * time.Second},
}

// write records a transition in the read model (a local activity: short and idempotent) and in
// the search attributes.
func (r *intentRun) write(ctx workflow.Context, s intent.Status, reason intent.FailReason, txs ...intent.Tx) error {
	return r.finishWrite(ctx, r.startWrite(ctx, s, reason, txs...))
}

// startedWrite is a read-model write under way (startWrite).
type startedWrite struct {
	status intent.Status
	future workflow.Future
}

// startWrite starts the write of a transition; finishWrite waits for it. Nothing else may be
// written in between.
func (r *intentRun) startWrite(ctx workflow.Context, s intent.Status, reason intent.FailReason, txs ...intent.Tx) *startedWrite {
	r.state.Status = s
	if reason != "" {
		r.state.FailReason = reason
	}
	r.seq++
	now := workflow.Now(ctx)
	version := now.UnixMicro()*1000 + r.seq%1000
	if r.stable {
		// The same in a run done again: its writes of the transitions it had written change nothing.
		version = workflow.GetInfo(ctx).WorkflowStartTime.UnixMicro()*1000 + r.seq
	}
	t := intent.Transition{RequestID: r.in.Execution.RequestID, Version: version,
		Status: s, FailReason: r.state.FailReason, RefundFailReason: r.state.RefundFailReason,
		Txs: append(append([]intent.Tx{}, r.moreTxs...), txs...), At: now,
		Deposit: r.state.Deposit, Attestation: r.attestation, FailedTx: r.failedFill, BlockedAddresses: r.blocked}
	lctx := workflow.WithLocalActivityOptions(ctx, storeWriteOptions)
	r.moreTxs = nil
	return &startedWrite{status: s, future: workflow.ExecuteLocalActivity(lctx, storeActs.ApplyTransition, t)}
}

// finishWrite waits for w and upserts the search attributes it changes.
func (r *intentRun) finishWrite(ctx workflow.Context, w *startedWrite) error {
	if err := w.future.Get(ctx, nil); err != nil {
		return fmt.Errorf("write read model: %w", err)
	}
	r.wantAttrs = [2]string{string(w.status), string(r.state.FailReason)}
	if r.inline {
		return nil // upserted once the run waits (publishAttrs)
	}
	return r.upsertAttrs(ctx)
}

// publishAttrs upserts, in an inline run, the status search attributes the last write left
// unpublished; it does nothing in other runs, whose writes upsert them. An inline run calls it
// before it waits on anything but a local activity and when it ends: a workflow task's upserts
// are seen together once it completes, so the earlier ones of the same task would only rewrite
// the visibility record.
func (r *intentRun) publishAttrs(ctx workflow.Context) error {
	if !r.inline {
		return nil
	}
	return r.upsertAttrs(ctx)
}

// upsertAttrs upserts the status search attributes of the last write when they differ from
// those last set (or, before changeLean, always), with extra ones in the same command when
// given.
func (r *intentRun) upsertAttrs(ctx workflow.Context, extra ...temporal.SearchAttributeUpdate) error {
	if r.lean && r.wantAttrs == r.attrs && len(extra) == 0 {
		return nil // unchanged: an upsert would only rewrite the visibility record
	}
	r.attrs = r.wantAttrs
	return workflow.UpsertTypedSearchAttributes(ctx, append([]temporal.SearchAttributeUpdate{
		AttrIntentStatus.ValueSet(r.attrs[0]), AttrFailReason.ValueSet(r.attrs[1])}, extra...)...)
}

// inclusion reports whether this run bounds its waits for inclusion (changeInclusion).
func (r *intentRun) inclusion(ctx workflow.Context) bool {
	return r.lean || workflow.GetVersion(ctx, changeInclusion, workflow.DefaultVersion, 1) == 1
}

// awaitFill waits for one attempt of the fill to be mined. Each time FillBumpAfter passes
// without one, the request is marked delayed and the fill replaced with the same nonce and
// higher fees; after FillMaxBumps replacements it is replaced by a cancellation instead, and
// the wait goes on until the fill or the cancellation is mined (whichever it is, the nonce
// allows only one).
func (r *intentRun) awaitFill(ctx workflow.Context, sub activities.FillSubmitted) (*activities.TxIncluded, error) {
	ex, policy := r.in.Execution, r.in.Policy.WithDefaults()
	attempt, cancelled := 0, false
	for {
		var inc activities.TxIncluded
		err := r.wait(ctx, policy.FillBumpAfter, chainActs.AwaitTx, activities.AwaitTxInput{
			RequestID: ex.RequestID, Kind: intent.TxKindFill, ChainID: ex.DestinationChainID, TxHash: sub.TxHash,
			Voidable: r.guarded,
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
			RequestID: ex.RequestID, Kind: intent.TxKindFill, ChainID: ex.DestinationChainID, After: attempt, MaxBumps: policy.FillMaxBumps,
		}).Get(ctx, &rep); err != nil {
			// The replacement could not be sent: keep waiting for the attempts already out.
			workflow.GetLogger(ctx).Warn("fill not replaced", "requestId", ex.RequestID, "attempt", attempt, "error", err)
			continue
		}
		attempt, cancelled = rep.Attempt, rep.Final
	}
}

// voidedFill ends a request whose fill was signed for a chain that has since been reset (a new
// genesis, docs/operations.md "Restarting"; changeLean 5): none of its attempts was mined, the
// engine never sends them again and the node knows none of them, so on the chain as it is now the
// fill cannot land. Whether it landed on the old chain nobody can tell from here, so the deposit
// is not refunded automatically (that could pay twice) and no new fill is signed: the request
// ends in failure with TRANSACTION_NOT_INCLUDED and MANUAL_REFUND_REQUIRED, and waits for an
// operator's adminRefund, which the signed fill no longer forbids.
func (r *intentRun) voidedFill(ctx workflow.Context, inc *activities.TxIncluded) (*IntentResult, error) {
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
		return nil, err
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

// depositTx is the deposit as a transaction of its request.
func depositTx(d intent.Deposit) intent.Tx {
	return intent.Tx{Direction: intent.TxIn, ChainID: d.ChainID, Hash: d.TxHash, LogIndex: int(d.LogIndex), Block: d.BlockNumber}
}

// isTimeout reports whether an activity ran out of time: timed out by the server, or failed on
// an attempt after which no retry fits before its schedule-to-close deadline (the server then
// resolves it with the attempt's error and RETRY_STATE_TIMEOUT, not a TimeoutError).
func isTimeout(err error) bool {
	var te *temporal.TimeoutError
	if errors.As(err, &te) {
		return true
	}
	var ae *temporal.ActivityError
	return errors.As(err, &ae) && ae.RetryState() == enumspb.RETRY_STATE_TIMEOUT
}

func isNonRetryable(err error) bool {
	var appErr *temporal.ApplicationError
	return errors.As(err, &appErr) && appErr.NonRetryable()
}

// reasonOf maps an activity error to its failReason: non-retryable application errors carry
// the reason as their type.
func reasonOf(err error) intent.FailReason {
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && intent.FailReason(appErr.Type()).Valid() {
		return intent.FailReason(appErr.Type())
	}
	return intent.FailReasonUnknown
}

// InitialSearchAttributes are set when the workflow starts, so a request is findable in the
// Web UI before its first task runs.
func InitialSearchAttributes(ex intent.Execution, apiKeyID string) temporal.SearchAttributes {
	return temporal.NewSearchAttributes(searchAttributes(ex, apiKeyID)...)
}

// searchAttributes are an intent's search attributes as it starts: status waiting, no
// failReason; write updates the two as the intent moves on.
func searchAttributes(ex intent.Execution, apiKeyID string) []temporal.SearchAttributeUpdate {
	return []temporal.SearchAttributeUpdate{
		AttrIntentStatus.ValueSet(string(intent.StatusWaiting)),
		AttrOriginChainID.ValueSet(int64(ex.OriginChainID)),
		AttrDestinationChainID.ValueSet(int64(ex.DestinationChainID)),
		AttrAPIKeyID.ValueSet(apiKeyID),
		AttrUser.ValueSet(strings.ToLower(ex.User)),
		AttrFailReason.ValueSet(string(intent.FailReasonNA)),
	}
}

// SearchAttributeTypes lists the custom search attributes the namespace must have.
func SearchAttributeTypes() map[string]enumspb.IndexedValueType {
	return map[string]enumspb.IndexedValueType{
		AttrIntentStatus.GetName():       enumspb.INDEXED_VALUE_TYPE_KEYWORD,
		AttrOriginChainID.GetName():      enumspb.INDEXED_VALUE_TYPE_INT,
		AttrDestinationChainID.GetName(): enumspb.INDEXED_VALUE_TYPE_INT,
		AttrAPIKeyID.GetName():           enumspb.INDEXED_VALUE_TYPE_KEYWORD,
		AttrUser.GetName():               enumspb.INDEXED_VALUE_TYPE_KEYWORD,
		AttrFailReason.GetName():         enumspb.INDEXED_VALUE_TYPE_KEYWORD,
		AttrDepositAddress.GetName():     enumspb.INDEXED_VALUE_TYPE_KEYWORD,
		AttrRefundHold.GetName():         enumspb.INDEXED_VALUE_TYPE_KEYWORD,
	}
}
