package activities

import (
	"context"
	"errors"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/internal/pause"
)

// Waiting inside an activity. A wait for a deposit's confirmations (AttestDeposit) or for a
// transaction to be mined (AwaitTx) is one long-running activity attempt, not a series of
// failed ones: it checks once per new block of its chain (woken by the chain client's head
// watcher, evm.Client.WaitHead) and at least every waitRecheck, heartbeats after every check,
// and returns once the awaited thing has happened.
//
//   - A check that finds the chain, the oracle or the database unavailable is retried inside
//     the loop with a capped backoff (waitBackoffMin to waitBackoffMax) and logged at WARN at
//     most once per waitWarnEvery; it is not returned. A check refused for a reason only an
//     operator can fix (needsOperator: the oracle refuses the engine's configuration) is
//     retried the same way, so a fixed configuration lets the wait go on, and logged at ERROR
//     at most once per waitWarnEvery.
//   - A check that fails for good (DEPOSIT_REORGED, a reverted deposit transaction, attested
//     facts that differ, ...) ends the activity with its error, as before.
//   - The workflow's schedule-to-close timeout bounds the whole wait. When it passes, the
//     activity's context ends and the loop returns the context's error; the SDK does not report
//     a result after the deadline, and the server times the activity out, so the workflow sees
//     the same *temporal.TimeoutError it saw when every check was an attempt.
//   - The workflow's heartbeat timeout (10 s) makes Temporal retry the wait on another worker
//     soon after its worker died; a worker that stops cleanly hands the wait over at once (see
//     ended, and the worker's WorkerStopTimeout). Each check is bounded by waitRoundTimeout, so
//     the loop heartbeats well within the heartbeat timeout.
const (
	waitRecheck      = 2 * time.Second
	waitRoundTimeout = 5 * time.Second
	waitBackoffMin   = 250 * time.Millisecond
	waitBackoffMax   = 2 * time.Second
	waitWarnEvery    = 10 * time.Second
)

// headWaiter is what a wait needs of its chain: the chain client's head watcher.
type headWaiter interface {
	// SeenHead is the last head the watcher read.
	SeenHead() uint64
	// WaitHead returns once the head is above after.
	WaitHead(ctx context.Context, after uint64) (uint64, error)
}

// unavailableError marks the error of a check as transient: what it needed could not be
// reached this time (an RPC or oracle outage, a database failover), or, with operator set,
// refused the engine until an operator fixes a configuration.
type unavailableError struct {
	err error
	// operator makes await log the error at ERROR rather than WARN, with attrs.
	operator bool
	attrs    []any
}

func (e unavailableError) Error() string { return e.err.Error() }
func (e unavailableError) Unwrap() error { return e.err }

// unavailable marks err as transient for await.
func unavailable(err error) error { return unavailableError{err: err} }

// needsOperator marks err as transient for await, logged at ERROR with attrs: the check fails
// until an operator fixes a configuration, and the wait goes on meanwhile so that the intents
// in flight continue once it is fixed instead of failing for a mistake of ours.
func needsOperator(err error, attrs ...any) error {
	return unavailableError{err: err, operator: true, attrs: attrs}
}

// waitSpec describes a wait for await.
type waitSpec struct {
	// what names the wait in logs ("attestation", "inclusion").
	what string
	// chain wakes the wait on its new heads; nil checks every waitRecheck only.
	chain headWaiter
	// heartbeat records the activity's heartbeat (with its details) after each check.
	heartbeat func()
	// attrs are logged with every line about the wait.
	attrs []any
	// log receives the wait's lines; nil means the activity's logger.
	log chains.Logger
	// deferred makes the wait check a new block after its fills' window (chains.DeferredHeads),
	// when chain has one: for waits that no fill waits for.
	deferred bool
}

// await runs check once per new head of w.chain, and at least every waitRecheck, until check
// reports done or fails with an error that is not unavailable (returned), or ctx ends (see
// ended). It returns the number of checks made.
func await(ctx context.Context, w waitSpec, check func(ctx context.Context) (done bool, err error)) (int, error) {
	var (
		checks, failing int
		backoff         time.Duration
		warned, erred   time.Time
	)
	log := w.log
	if log == nil {
		log = logger(ctx)
	}
	ctx, stopLocal := beforeLocalDeadline(ctx)
	defer stopLocal()
	ctx, stop := untilWorkerStops(ctx)
	defer stop()
	for {
		var after uint64
		if w.chain != nil {
			after = w.chain.SeenHead()
		}
		cctx, cancel := context.WithTimeout(ctx, waitRoundTimeout)
		done, err := check(cctx)
		cancel()
		checks++
		if err == nil && done {
			return checks, nil
		}
		if ctx.Err() != nil {
			return checks, ended(ctx)
		}
		if w.heartbeat != nil {
			w.heartbeat()
		}
		var ue unavailableError
		if err != nil && !errors.As(err, &ue) {
			return checks, err
		}
		if err != nil {
			failing++
			switch {
			case ue.operator && due(&erred):
				log.Error(w.what+" check refused until an operator acts; retrying",
					with(with(w.attrs, ue.attrs...), "failures", failing, "error", err)...)
			case !ue.operator && due(&warned):
				log.Warn(w.what+" check failed; retrying", with(w.attrs, "failures", failing, "error", err)...)
			}
			backoff = min(max(2*backoff, waitBackoffMin), waitBackoffMax)
			if pause.For(ctx, backoff) != nil {
				return checks, ended(ctx)
			}
			continue
		}
		if failing > 0 {
			log.Info(w.what+" check works again", with(w.attrs, "failures", failing)...)
			failing, backoff = 0, 0
		}
		if nextHead(ctx, w.chain, w.deferred, after) != nil {
			return checks, ended(ctx)
		}
	}
}

// due reports whether a line logged at most once per waitWarnEvery is due, last being when it
// was last logged; when it is, it records now in last.
func due(last *time.Time) bool {
	if !last.IsZero() && time.Since(*last) < waitWarnEvery {
		return false
	}
	*last = time.Now()
	return true
}

// untilWorkerStops returns ctx, cancelled with worker.ErrWorkerShutdown as its cause as soon as
// the activity's worker begins to stop (its stop channel closes, before the SDK cancels the
// activities it still runs).
func untilWorkerStops(ctx context.Context) (context.Context, func()) {
	if !activity.IsActivity(ctx) {
		return ctx, func() {}
	}
	stopping := activity.GetWorkerStopChannel(ctx)
	wctx, cancel := context.WithCancelCause(ctx)
	go func() {
		select {
		case <-stopping:
			cancel(worker.ErrWorkerShutdown)
		case <-wctx.Done():
		}
	}()
	return wctx, func() { cancel(nil) }
}

// localWaitMargin is how long before its deadline a wait run as a local activity (the workflow's
// inline waits) gives up: a local activity still running at its deadline is reported by the SDK
// with a WARN ("LocalActivity completed after activity deadline"), one per intent whose chain is
// slower than the inline budget.
const localWaitMargin = 250 * time.Millisecond

// errLocalWaitOver is the cause of a local wait's context ending localWaitMargin before its
// deadline.
var errLocalWaitOver = errors.New("the local wait's time is over")

// beforeLocalDeadline returns ctx, ended localWaitMargin before the deadline when ctx is a local
// activity's (with errLocalWaitOver as its cause), else ctx unchanged.
func beforeLocalDeadline(ctx context.Context) (context.Context, func()) {
	if !activity.IsActivity(ctx) {
		return ctx, func() {}
	}
	info := activity.GetInfo(ctx)
	if !info.IsLocalActivity || info.Deadline.IsZero() {
		return ctx, func() {}
	}
	return context.WithDeadlineCause(ctx, info.Deadline.Add(-localWaitMargin), errLocalWaitOver)
}

// ended is what a wait returns when its context has ended: the context's error (past the
// deadline the SDK reports nothing and the server times the activity out), or, when the worker is
// shutting down, a benign retryable error, which the SDK logs at DEBUG and Temporal retries at
// once on another worker, so that a deploy logs no error for every intent waiting. A local wait
// whose time is over (beforeLocalDeadline) returns a benign retryable error too: the workflow
// goes on waiting in an activity task.
func ended(ctx context.Context) error {
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, worker.ErrWorkerShutdown):
		return temporal.NewApplicationErrorWithOptions("the worker is stopping; the wait goes on in another attempt",
			"WorkerStopping", temporal.ApplicationErrorOptions{Category: temporal.ApplicationErrorCategoryBenign})
	case errors.Is(cause, errLocalWaitOver):
		return temporal.NewApplicationErrorWithOptions("the local wait's time is over; the wait goes on as an activity",
			"LocalWaitOver", temporal.ApplicationErrorOptions{Category: temporal.ApplicationErrorCategoryBenign})
	}
	return ctx.Err()
}

// nextHead returns once chain's head is above after (and past its fills' window when deferred),
// or waitRecheck has passed.
func nextHead(ctx context.Context, chain headWaiter, deferred bool, after uint64) error {
	wctx, cancel := context.WithTimeout(ctx, waitRecheck)
	defer cancel()
	d, canDefer := chain.(chains.DeferredHeads)
	switch {
	case chain == nil:
		<-wctx.Done()
	case deferred && canDefer:
		_, _ = d.WaitHeadDeferred(wctx, after)
	default:
		_, _ = chain.WaitHead(wctx, after)
	}
	return ctx.Err()
}

// heartbeat records an activity heartbeat with details (none when details is nil); outside an
// activity it does nothing. The SDK sends heartbeats in batches, with the context of the call
// that opened the batch, and flushes the last one when the worker stops, while the activity
// returns: that context must outlive the activity, or the flush fails (a WARN per wait on every
// deploy).
func heartbeat(ctx context.Context, details any) {
	if !activity.IsActivity(ctx) {
		return
	}
	ctx = context.WithoutCancel(ctx)
	if details == nil {
		activity.RecordHeartbeat(ctx)
		return
	}
	activity.RecordHeartbeat(ctx, details)
}

// with returns attrs followed by more, never writing into attrs' array.
func with(attrs []any, more ...any) []any {
	return append(attrs[:len(attrs):len(attrs)], more...)
}

// logger is the activity's logger, or the context's (chains.LoggerFrom: one that drops
// everything when none) outside an activity. The family's lines go through the same
// (chains.WithLogger), so they keep the activity's fields.
func logger(ctx context.Context) chains.Logger {
	if activity.IsActivity(ctx) {
		return activity.GetLogger(ctx)
	}
	return chains.LoggerFrom(ctx)
}
