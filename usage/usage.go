// Package usage counts API calls for GET /metrics/usage: by API key, minute, endpoint (the
// route pattern), HTTP status and errorCode. Counting runs on every request, so it touches no
// database: a Recorder adds to in-memory counters spread over shards, each behind its own
// mutex and picked at random, so that one hot key does not serialise the server. The counts
// are flushed as one batch every few seconds and once more when the API stops gracefully.
//
// A batch carries an id that the store records in the same transaction as its counts, and a
// batch the store could not take is retried as it was before anything newer is taken. So a
// flush whose commit an error hid (the connection lost on COMMIT) adds nothing twice, and a
// database that is down only delays the counts: they wait in memory.
package usage

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/google/uuid"

	"github.com/intentd/intentd/intent"
)

// Count is the calls of one key to one endpoint in one minute with one outcome. In a query's
// answer (store.Usage) Time is the start of the granularity's bucket instead of the minute.
type Count struct {
	KeyID     string    // the API key's id; "" for a call without a key that resolved
	Time      time.Time // the start of the minute the calls ended in, UTC
	Endpoint  string    // the route pattern (Unrouted for a path the API does not serve)
	Status    int       // the HTTP status answered
	ErrorCode string    // the errorCode answered; "" for none
	N         int64
}

// Unrouted is the endpoint a call to a path the API does not serve is counted under: raw paths
// are never recorded, so scanning random paths cannot grow the table.
const Unrouted = "*"

// Store keeps the counts. AddUsage adds a batch once by its id: called again with an id it
// has taken, it adds nothing. PruneUsage deletes the counts of minutes before before.
type Store interface {
	AddUsage(ctx context.Context, batchID string, counts []Count) error
	PruneUsage(ctx context.Context, before time.Time) (int64, error)
}

// Defaults of Options, and how long counts are kept (the spec's 14 days).
const (
	DefaultFlushEvery = 5 * time.Second
	DefaultPruneEvery = time.Hour
	Retention         = 14 * 24 * time.Hour
)

// Options tune a Recorder; the zero value is the defaults.
type Options struct {
	FlushEvery time.Duration    // how often Run flushes (DefaultFlushEvery)
	PruneEvery time.Duration    // how often Run deletes counts older than Retention (DefaultPruneEvery)
	Now        func() time.Time // the clock calls are counted by (time.Now)
	Logger     *slog.Logger     // where Run reports failures (slog.Default)
}

// shards spreads concurrent calls over this many counters.
const shards = 32

type key struct {
	keyID     string
	minute    int64 // Unix seconds of the minute's start
	endpoint  string
	status    int
	errorCode string
}

// shard is one counter; padded to a cache line of its own so shards do not share one.
type shard struct {
	mu     sync.Mutex
	counts map[key]int64
	_      [48]byte
}

// batch is a flush that the store has not yet confirmed, retried as it was.
type batch struct {
	id     string
	counts []Count
}

// Recorder counts calls in memory and flushes them to a Store. It is safe for concurrent use.
type Recorder struct {
	store  Store
	opts   Options
	shards [shards]shard

	flushMu sync.Mutex
	pending *batch
}

// NewRecorder returns a recorder that flushes to st.
func NewRecorder(st Store, o Options) *Recorder {
	if o.FlushEvery <= 0 {
		o.FlushEvery = DefaultFlushEvery
	}
	if o.PruneEvery <= 0 {
		o.PruneEvery = DefaultPruneEvery
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	r := &Recorder{store: st, opts: o}
	for i := range r.shards {
		r.shards[i].counts = map[key]int64{}
	}
	return r
}

// Record counts one call, in the current minute. It is the request path's only cost: a clock
// read, a random shard and a map increment under that shard's lock.
func (r *Recorder) Record(keyID, endpoint string, status int, errorCode string) {
	k := key{keyID: keyID, minute: r.opts.Now().Unix() / 60 * 60, endpoint: endpoint, status: status, errorCode: errorCode}
	sh := &r.shards[rand.IntN(shards)]
	sh.mu.Lock()
	sh.counts[k]++
	sh.mu.Unlock()
}

// drain takes every shard's counts, merged, in one order (so that two processes adding
// overlapping rows lock them in the same order and cannot deadlock).
func (r *Recorder) drain() []Count {
	merged := map[key]int64{}
	for i := range r.shards {
		sh := &r.shards[i]
		sh.mu.Lock()
		m := sh.counts
		if len(m) > 0 {
			sh.counts = make(map[key]int64, len(m))
		}
		sh.mu.Unlock()
		for k, n := range m {
			merged[k] += n
		}
	}
	out := make([]Count, 0, len(merged))
	for k, n := range merged {
		out = append(out, Count{KeyID: k.keyID, Time: time.Unix(k.minute, 0).UTC(), Endpoint: k.endpoint, Status: k.status,
			ErrorCode: k.errorCode, N: n})
	}
	slices.SortFunc(out, func(a, b Count) int {
		return cmp.Or(cmp.Compare(a.KeyID, b.KeyID), a.Time.Compare(b.Time), cmp.Compare(a.Endpoint, b.Endpoint),
			cmp.Compare(a.Status, b.Status), cmp.Compare(a.ErrorCode, b.ErrorCode))
	})
	return out
}

// Flush adds what was counted since the last flush to the store, as one batch. A batch the
// store could not take because it did not answer (intent.ErrUnavailable) is kept and retried
// first, as it was, by the next Flush; one it refused is dropped, since it would fail the same
// way for ever and hold back every later count (the error says how many calls were lost).
func (r *Recorder) Flush(ctx context.Context) error {
	r.flushMu.Lock()
	defer r.flushMu.Unlock()
	if r.pending != nil {
		if err := r.add(ctx); err != nil {
			return err
		}
	}
	if counts := r.drain(); len(counts) > 0 {
		r.pending = &batch{id: uuid.NewString(), counts: counts}
		return r.add(ctx)
	}
	return nil
}

// add sends the pending batch; it stays pending only when the store did not answer.
func (r *Recorder) add(ctx context.Context) error {
	err := r.store.AddUsage(ctx, r.pending.id, r.pending.counts)
	if err == nil {
		r.pending = nil
		return nil
	}
	if errors.Is(err, intent.ErrUnavailable) || ctx.Err() != nil {
		return err
	}
	lost := calls(r.pending.counts)
	r.pending = nil
	return &DroppedError{Calls: lost, Err: err}
}

// DroppedError is a batch the store refused (not one it could not be reached for): its counts
// are gone.
type DroppedError struct {
	Calls int64
	Err   error
}

func (e *DroppedError) Error() string { return "usage batch refused and dropped: " + e.Err.Error() }
func (e *DroppedError) Unwrap() error { return e.Err }

func calls(counts []Count) int64 {
	var n int64
	for _, c := range counts {
		n += c.N
	}
	return n
}

// Held is the number of calls counted but not yet in the store: the pending batch and the
// shards.
func (r *Recorder) Held() int64 {
	r.flushMu.Lock()
	var n int64
	if r.pending != nil {
		n = calls(r.pending.counts)
	}
	r.flushMu.Unlock()
	for i := range r.shards {
		sh := &r.shards[i]
		sh.mu.Lock()
		for _, c := range sh.counts {
			n += c
		}
		sh.mu.Unlock()
	}
	return n
}

// FlushAll flushes until everything counted is in the store or ctx ends, retrying with
// backoff while the store does not answer: the graceful stop's last flush. A batch the store
// refused is reported with the rest flushed all the same.
func (r *Recorder) FlushAll(ctx context.Context) error {
	var dropped error
	op := func() error {
		err := r.Flush(ctx)
		var d *DroppedError
		if errors.As(err, &d) {
			dropped = errors.Join(dropped, err)
			if r.Held() == 0 {
				return nil
			}
		}
		return err
	}
	b := backoff.NewExponentialBackOff(backoff.WithInitialInterval(100*time.Millisecond), backoff.WithMaxElapsedTime(0))
	return errors.Join(dropped, backoff.Retry(op, backoff.WithContext(b, ctx)))
}

// Run flushes every FlushEvery and prunes counts older than Retention at start and every
// PruneEvery, until ctx ends; a failure is logged and the work is done again at the next tick.
// It does not flush when ctx ends: the server stops serving first and then calls FlushAll, so
// the calls still in flight at the stop are counted too.
func (r *Recorder) Run(ctx context.Context) {
	flush := time.NewTicker(r.opts.FlushEvery)
	defer flush.Stop()
	prune := time.NewTicker(r.opts.PruneEvery)
	defer prune.Stop()
	r.prune(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-flush.C:
			if err := r.Flush(ctx); err != nil && ctx.Err() == nil {
				r.opts.Logger.Warn("usage flush failed; retried at the next flush", "error", err, "held", r.Held())
			}
		case <-prune.C:
			r.prune(ctx)
		}
	}
}

// prune deletes the counts older than Retention.
func (r *Recorder) prune(ctx context.Context) {
	n, err := r.store.PruneUsage(ctx, r.opts.Now().Add(-Retention))
	switch {
	case err != nil && ctx.Err() == nil:
		r.opts.Logger.Warn("usage prune failed; retried at the next prune", "error", err)
	case n > 0:
		r.opts.Logger.Debug("usage pruned", "rows", n)
	}
}
