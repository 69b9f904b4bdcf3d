package usage_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
	"github.com/intentd/intentd/usage"
)

const (
	keyA = "11111111-1111-4111-8111-111111111111"
	keyB = "22222222-2222-4222-8222-222222222222"
)

// stored is what api_usage holds, summed over minutes: "key endpoint status errorCode" → count.
func stored(t *testing.T, st *store.Store) map[string]int64 {
	t.Helper()
	rows, err := st.Pool().Query(context.Background(), `SELECT api_key_id::text, endpoint, status, error_code, sum(count)::bigint
		FROM api_usage GROUP BY 1, 2, 3, 4`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var key, endpoint, code string
		var status int16
		var n int64
		if err := rows.Scan(&key, &endpoint, &status, &code, &n); err != nil {
			t.Fatal(err)
		}
		out[fmt.Sprintf("%s %s %d %s", key, endpoint, status, code)] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// call is one kind of call the tests count.
type call struct {
	key, endpoint string
	status        int
	code          string
}

func (c call) String() string {
	key := c.key
	if key == "" {
		key = "00000000-0000-0000-0000-000000000000"
	}
	return fmt.Sprintf("%s %s %d %s", key, c.endpoint, c.status, c.code)
}

var calls = []call{
	{keyA, "/quote/v2", 200, ""},
	{keyA, "/quote/v2", 400, "AMOUNT_TOO_LOW"},
	{keyB, "/intents/status/v3", 404, "REQUEST_NOT_FOUND"},
	{"", "/chains", 200, ""},
	{"", usage.Unrouted, 404, "NOT_FOUND"},
}

// Calls counted from many goroutines at once are in the store after a flush, exactly: by key
// (anonymous ones under the nil UUID), endpoint, status and errorCode.
func TestConcurrentCallsAreStoredExactlyAfterAFlush(t *testing.T) {
	st := store.New(testenv.Pool(t))
	r := usage.NewRecorder(st, usage.Options{})
	const goroutines, each = 8, 500
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				c := calls[(g+i)%len(calls)]
				r.Record(c.key, c.endpoint, c.status, c.code)
			}
		})
	}
	wg.Wait()
	want := map[string]int64{}
	for g := range goroutines {
		for i := range each {
			want[calls[(g+i)%len(calls)].String()]++
		}
	}
	if err := r.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := stored(t, st); !maps.Equal(got, want) {
		t.Fatalf("stored %v, want %v", got, want)
	}
	if r.Held() != 0 {
		t.Fatalf("%d calls still held after the flush", r.Held())
	}
	// A second flush with nothing new adds nothing.
	if err := r.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := stored(t, st); !maps.Equal(got, want) {
		t.Fatalf("after an empty flush: stored %v, want %v", got, want)
	}
}

// flaky is the real store, except that AddUsage fails as fail says: before reaching the
// database, or after its commit (the answer lost on the way back).
type flaky struct {
	*store.Store
	fail atomic.Value // "", "before" or "after"
}

var errLost = fmt.Errorf("%w: connection reset", intent.ErrUnavailable)

func (f *flaky) AddUsage(ctx context.Context, batchID string, counts []usage.Count) error {
	mode, _ := f.fail.Load().(string)
	if mode == "before" {
		return errLost
	}
	if err := f.Store.AddUsage(ctx, batchID, counts); err != nil {
		return err
	}
	if mode == "after" {
		return errLost
	}
	return nil
}

// A flush whose commit an error hid is retried with the same batch, which the store takes
// once: the calls are not counted twice. Without the batch id the retry would add them again.
func TestABatchRetriedAfterItsCommitWasHiddenIsCountedOnce(t *testing.T) {
	st := &flaky{Store: store.New(testenv.Pool(t))}
	r := usage.NewRecorder(st, usage.Options{})
	for range 3 {
		r.Record(keyA, "/quote/v2", 200, "")
	}
	st.fail.Store("after")
	if err := r.Flush(context.Background()); !errors.Is(err, intent.ErrUnavailable) {
		t.Fatalf("flush: %v, want the lost answer", err)
	}
	r.Record(keyA, "/quote/v2", 200, "")
	st.fail.Store("")
	if err := r.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{call{keyA, "/quote/v2", 200, ""}.String(): 4}
	if got := stored(t, st.Store); !maps.Equal(got, want) {
		t.Fatalf("stored %v, want %v", got, want)
	}
}

// While the store does not answer, the counts wait in memory (Held) and reach it once it does;
// nothing is lost or doubled.
func TestCountsWaitWhileTheStoreIsDownAndArriveWhenItAnswers(t *testing.T) {
	st := &flaky{Store: store.New(testenv.Pool(t))}
	r := usage.NewRecorder(st, usage.Options{})
	st.fail.Store("before")
	for i := range 5 {
		r.Record(keyB, "/chains", 200, "")
		if err := r.Flush(context.Background()); err == nil {
			t.Fatal("flush succeeded against a store that is down")
		}
		if got := r.Held(); got != int64(i+1) {
			t.Fatalf("held %d, want %d", got, i+1)
		}
	}
	st.fail.Store("")
	if err := r.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{call{keyB, "/chains", 200, ""}.String(): 5}
	if got := stored(t, st.Store); !maps.Equal(got, want) || r.Held() != 0 {
		t.Fatalf("stored %v (held %d), want %v", got, r.Held(), want)
	}
}

// A batch the database refuses (here a key id that is no UUID) would fail for ever: it is
// dropped with an error that says how many calls it held, and later counts still arrive.
func TestARefusedBatchIsDroppedAndDoesNotHoldBackLaterCounts(t *testing.T) {
	st := store.New(testenv.Pool(t))
	r := usage.NewRecorder(st, usage.Options{})
	r.Record("not-a-uuid", "/chains", 200, "")
	r.Record("not-a-uuid", "/chains", 200, "")
	var dropped *usage.DroppedError
	if err := r.Flush(context.Background()); !errors.As(err, &dropped) || dropped.Calls != 2 {
		t.Fatalf("flush: %v, want a DroppedError of 2 calls", err)
	}
	r.Record(keyA, "/chains", 200, "")
	if err := r.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{call{keyA, "/chains", 200, ""}.String(): 1}
	if got := stored(t, st); !maps.Equal(got, want) {
		t.Fatalf("stored %v, want %v", got, want)
	}
}

// FlushAll, the graceful stop's flush, retries a store that is down until it answers.
func TestFlushAllRetriesUntilTheStoreAnswers(t *testing.T) {
	st := &flaky{Store: store.New(testenv.Pool(t))}
	r := usage.NewRecorder(st, usage.Options{})
	r.Record(keyA, "/chains", 200, "")
	st.fail.Store("before")
	go func() { time.Sleep(300 * time.Millisecond); st.fail.Store("") }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.FlushAll(ctx); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{call{keyA, "/chains", 200, ""}.String(): 1}
	if got := stored(t, st.Store); !maps.Equal(got, want) {
		t.Fatalf("stored %v, want %v", got, want)
	}
}

// Run flushes on its own every FlushEvery and prunes counts older than the 14 days retained,
// keeping the younger ones.
func TestRunFlushesOnScheduleAndPrunesCountsOlderThanTheRetention(t *testing.T) {
	st := store.New(testenv.Pool(t))
	now := time.Now().UTC().Truncate(time.Minute)
	ctx := context.Background()
	minutes := []time.Duration{usage.Retention + 2*time.Hour, usage.Retention + time.Minute, usage.Retention - time.Hour, time.Hour}
	var old []usage.Count
	for _, ago := range minutes {
		old = append(old, usage.Count{KeyID: keyA, Time: now.Add(-ago), Endpoint: "/chains", Status: 200, N: 1})
	}
	if err := st.AddUsage(ctx, "33333333-3333-4333-8333-333333333333", old); err != nil {
		t.Fatal(err)
	}
	r := usage.NewRecorder(st, usage.Options{FlushEvery: 50 * time.Millisecond, PruneEvery: 50 * time.Millisecond})
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); r.Run(rctx) }()
	defer func() { cancel(); <-done }()
	r.Record(keyB, "/chains", 200, "")

	deadline := time.Now().Add(10 * time.Second)
	for {
		var ages []time.Duration
		rows, err := st.Pool().Query(ctx, `SELECT minute FROM api_usage WHERE api_key_id = $1 ORDER BY minute`, keyA)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var m time.Time
			if err := rows.Scan(&m); err != nil {
				t.Fatal(err)
			}
			ages = append(ages, now.Sub(m))
		}
		rows.Close()
		got := stored(t, st)[call{keyB, "/chains", 200, ""}.String()]
		if slices.Equal(ages, minutes[2:]) && got == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("kept minutes %v ago and %d new calls, want %v and 1", ages, got, minutes[2:])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// BenchmarkRecord is the request path's cost of counting a call, from as many goroutines as
// GOMAXPROCS; p99-ns is the 99th percentile of one call (BENCHMARKS.md).
func BenchmarkRecord(b *testing.B) {
	r := usage.NewRecorder(nil, usage.Options{})
	var mu sync.Mutex
	var all []time.Duration
	b.RunParallel(func(pb *testing.PB) {
		var own []time.Duration
		i := 0
		for pb.Next() {
			c := calls[i%len(calls)]
			i++
			start := time.Now()
			r.Record(c.key, c.endpoint, c.status, c.code)
			own = append(own, time.Since(start))
		}
		mu.Lock()
		all = append(all, own...)
		mu.Unlock()
	})
	slices.Sort(all)
	if len(all) > 0 {
		b.ReportMetric(float64(all[len(all)*99/100].Nanoseconds()), "p99-ns")
	}
}
