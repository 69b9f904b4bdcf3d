package activities

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
)

// testHeads is a chain head the test moves; WaitHead wakes on every move.
type testHeads struct {
	mu      sync.Mutex
	head    uint64
	changed chan struct{}
}

func newTestHeads(head uint64) *testHeads {
	return &testHeads{head: head, changed: make(chan struct{})}
}

func (h *testHeads) SeenHead() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.head
}

func (h *testHeads) WaitHead(ctx context.Context, after uint64) (uint64, error) {
	for {
		h.mu.Lock()
		head, ch := h.head, h.changed
		h.mu.Unlock()
		if head > after {
			return head, nil
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-ch:
		}
	}
}

func (h *testHeads) next() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.head++
	close(h.changed)
	h.changed = make(chan struct{})
}

// countingLogger counts the lines of each level and keeps the key-values of the last ERROR.
type countingLogger struct {
	debug, info, warn, error atomic.Int64

	mu        sync.Mutex
	lastError []any
}

func (l *countingLogger) Debug(string, ...any) { l.debug.Add(1) }
func (l *countingLogger) Info(string, ...any)  { l.info.Add(1) }
func (l *countingLogger) Warn(string, ...any)  { l.warn.Add(1) }
func (l *countingLogger) Error(_ string, kv ...any) {
	l.error.Add(1)
	l.mu.Lock()
	l.lastError = kv
	l.mu.Unlock()
}

// A wait checks once per new head, heartbeats after each check, and returns as soon as a check
// after the ending block says done: within the time the check takes, not a poll interval.
func TestAwaitChecksOnEveryNewHead(t *testing.T) {
	heads := newTestHeads(100)
	var checks, beats atomic.Int64
	var doneAt atomic.Uint64
	doneAt.Store(104)
	spec := waitSpec{what: "test", chain: heads, heartbeat: func() { beats.Add(1) }, log: &countingLogger{}}
	type result struct {
		n   int
		err error
		at  time.Time
	}
	res := make(chan result, 1)
	go func() {
		n, err := await(context.Background(), spec, func(context.Context) (bool, error) {
			checks.Add(1)
			return heads.SeenHead() >= doneAt.Load(), nil
		})
		res <- result{n, err, time.Now()}
	}()
	for range 3 {
		time.Sleep(50 * time.Millisecond)
		heads.next()
	}
	time.Sleep(50 * time.Millisecond)
	require.Equal(t, int64(4), checks.Load(), "one check at the start and one per new head")
	heads.next() // head 104 ends the wait
	sealed := time.Now()
	r := <-res
	require.NoError(t, r.err)
	require.Equal(t, 5, r.n)
	require.Less(t, r.at.Sub(sealed), 20*time.Millisecond, "the wait ended %s after its block", r.at.Sub(sealed))
	require.Equal(t, int64(4), beats.Load(), "a heartbeat after every check that did not end the wait")
}

// A block that arrives while a check runs is not missed: the next check runs at once.
func TestAwaitDoesNotMissABlockDuringACheck(t *testing.T) {
	heads := newTestHeads(10)
	var checks atomic.Int64
	start := time.Now()
	n, err := await(context.Background(), waitSpec{what: "test", chain: heads, log: &countingLogger{}},
		func(context.Context) (bool, error) {
			if checks.Add(1) == 1 {
				heads.next() // mined while the first check looks
				return false, nil
			}
			return true, nil
		})
	require.NoError(t, err)
	require.Equal(t, 2, n)
	require.Less(t, time.Since(start), 100*time.Millisecond)
}

// awaitFailing runs a wait whose checks fail with errs in turn, then see a new block, then end
// it; it returns the number of checks.
func awaitFailing(t *testing.T, log *countingLogger, attrs []any, errs ...error) int {
	t.Helper()
	heads := newTestHeads(1)
	var checks atomic.Int64
	n, err := await(context.Background(), waitSpec{what: "test", chain: heads, log: log, attrs: attrs},
		func(context.Context) (bool, error) {
			switch c := int(checks.Add(1)); {
			case c <= len(errs):
				return false, errs[c-1]
			case c == len(errs)+1:
				heads.next()
				return false, nil
			default:
				return true, nil
			}
		})
	require.NoError(t, err)
	return n
}

// Unavailable checks are retried inside the wait with a backoff and are not returned; they are
// logged at WARN once per waitWarnEvery, and the recovery at INFO. A failure that is not
// unavailable ends the wait with its error.
func TestAwaitRetriesUnavailableAndReturnsFailures(t *testing.T) {
	log := &countingLogger{}
	n := awaitFailing(t, log, nil, unavailable(errors.New("oracle down (1)")),
		unavailable(errors.New("oracle down (2)")), unavailable(errors.New("oracle down (3)")))
	require.Equal(t, 5, n)
	require.Equal(t, int64(1), log.warn.Load(), "three failures within %s: one warning", waitWarnEvery)
	require.Equal(t, int64(1), log.info.Load(), "the recovery")

	permanent := errors.New("attested deposit differs")
	n, err := await(context.Background(), waitSpec{what: "test", chain: newTestHeads(1), log: log}, func(context.Context) (bool, error) {
		return false, permanent
	})
	require.ErrorIs(t, err, permanent)
	require.Equal(t, 1, n)
}

// A check refused until an operator acts is retried inside the wait like an unavailable one, but
// logged at ERROR (with its attributes) at most once per waitWarnEvery, never at WARN; the
// wait goes on once the configuration is fixed.
func TestAwaitRetriesWhatNeedsAnOperatorAtError(t *testing.T) {
	log := &countingLogger{}
	refused := needsOperator(errors.New("oracle: 400 UNKNOWN_CHAIN"), "code", "UNKNOWN_CHAIN")
	n := awaitFailing(t, log, []any{"tx", "0x7a"}, refused, refused, unavailable(errors.New("oracle down")))
	require.Equal(t, 5, n)
	require.Equal(t, int64(1), log.error.Load(), "two refusals within %s: one error", waitWarnEvery)
	require.Equal(t, int64(1), log.warn.Load(), "the outage after them is a warning of its own")
	require.Equal(t, int64(1), log.info.Load(), "the recovery")
	log.mu.Lock()
	defer log.mu.Unlock()
	require.Subset(t, log.lastError, []any{"tx", "0x7a", "code", "UNKNOWN_CHAIN"})
}

// The backoff between unavailable checks grows to waitBackoffMax and no further.
func TestAwaitBackoffIsCapped(t *testing.T) {
	var gaps []time.Duration
	last := time.Now()
	_, err := await(context.Background(), waitSpec{what: "test", chain: newTestHeads(1), log: &countingLogger{}},
		func(context.Context) (bool, error) {
			gaps = append(gaps, time.Since(last))
			last = time.Now()
			if len(gaps) == 6 {
				return true, nil
			}
			return false, unavailable(errors.New("down"))
		})
	require.NoError(t, err)
	// 250ms, 500ms, 1s, 2s, 2s between the six checks
	for i, want := range []time.Duration{waitBackoffMin, 2 * waitBackoffMin, 4 * waitBackoffMin, waitBackoffMax, waitBackoffMax} {
		got := gaps[i+1]
		require.GreaterOrEqual(t, got, want, "gap %d", i)
		require.Less(t, got, want+200*time.Millisecond, "gap %d", i)
	}
}

// When the activity's deadline (the workflow's schedule-to-close timeout) passes, the wait
// returns the context's error, whatever its checks say: the SDK then reports nothing and the
// server times the activity out, as the workflow expects.
func TestAwaitEndsAtTheDeadline(t *testing.T) {
	for _, tc := range []struct {
		name  string
		check func(context.Context) (bool, error)
	}{
		{"waiting", func(context.Context) (bool, error) { return false, nil }},
		{"unavailable", func(context.Context) (bool, error) { return false, unavailable(errors.New("down")) }},
		{"a check that runs into the deadline", func(ctx context.Context) (bool, error) {
			<-ctx.Done()
			return false, unavailable(ctx.Err())
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, err := await(ctx, waitSpec{what: "test", chain: newTestHeads(1), log: &countingLogger{}}, tc.check)
			require.ErrorIs(t, err, context.DeadlineExceeded)
			require.Less(t, time.Since(start), 400*time.Millisecond)
		})
	}
}

// A worker that shuts down ends its waits with a benign, retryable error (logged at DEBUG by
// the SDK, retried at once elsewhere), not with the context's error (logged at ERROR).
func TestAwaitHandsOverOnWorkerShutdown(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		time.Sleep(50 * time.Millisecond)
		cancel(worker.ErrWorkerShutdown)
	}()
	_, err := await(ctx, waitSpec{what: "test", chain: newTestHeads(1), log: &countingLogger{}},
		func(context.Context) (bool, error) { return false, nil })
	var appErr *temporal.ApplicationError
	require.ErrorAs(t, err, &appErr)
	require.Equal(t, temporal.ApplicationErrorCategoryBenign, appErr.Category())
	require.False(t, appErr.NonRetryable())

	ctx, cancel2 := context.WithCancel(context.Background())
	cancel2()
	_, err = await(ctx, waitSpec{what: "test", chain: newTestHeads(1), log: &countingLogger{}},
		func(context.Context) (bool, error) { return false, nil })
	require.ErrorIs(t, err, context.Canceled)
}

// A wait run as a local activity (the workflow's inline waits) ends localWaitMargin before its
// deadline with a benign, retryable LocalWaitOver: the SDK WARNs about a local activity still
// running at its deadline, which would be one WARN per intent on a chain slower than the
// inline budget.
func TestALocalWaitEndsBeforeItsDeadline(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.SetTestTimeout(time.Second) // the local activity's schedule-to-close timeout
	wait := func(ctx context.Context) error {
		deadline := activity.GetInfo(ctx).Deadline
		_, err := await(ctx, waitSpec{what: "test", chain: newTestHeads(1), log: &countingLogger{}},
			func(context.Context) (bool, error) { return false, nil })
		if left := time.Until(deadline); left < localWaitMargin/2 {
			t.Errorf("the wait ended %s before its deadline, want about %s", left, localWaitMargin)
		}
		return err
	}
	env.RegisterActivity(wait)
	_, err := env.ExecuteLocalActivity(wait)
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	require.Equal(t, "LocalWaitOver", app.Type())
	require.False(t, app.NonRetryable())
	require.Equal(t, temporal.ApplicationErrorCategoryBenign, app.Category())
}

// deferringHeads is testHeads that counts its deferred waits (chains.DeferredHeads).
type deferringHeads struct {
	*testHeads
	deferred atomic.Int64
}

func (h *deferringHeads) WaitHeadDeferred(ctx context.Context, after uint64) (uint64, error) {
	h.deferred.Add(1)
	return h.WaitHead(ctx, after)
}

// A wait no fill waits for (a transaction's inclusion) checks each new block after the block's
// fills' window; the confirmations' wait, which a fill does wait for, checks at once.
func TestOnlyADeferredWaitLetsANewBlocksFillsGoFirst(t *testing.T) {
	for _, deferred := range []bool{false, true} {
		heads := &deferringHeads{testHeads: newTestHeads(1)}
		var checks atomic.Int64
		go func() {
			for checks.Load() < 2 {
				time.Sleep(5 * time.Millisecond)
				heads.next()
			}
		}()
		_, err := await(context.Background(), waitSpec{what: "test", chain: heads, deferred: deferred, log: &countingLogger{}},
			func(context.Context) (bool, error) { return checks.Add(1) >= 2, nil })
		require.NoError(t, err)
		want := int64(0)
		if deferred {
			want = 1
		}
		require.Equal(t, want, heads.deferred.Load(), "deferred waits of a wait with deferred %v", deferred)
	}
}
