package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/intentd/intentd/intent"
)

// A read that finds no query in flight goes out at once and alone; reads that arrive while the
// in-flight limit is reached share the next query, and each gets its own row or ErrNotFound.
func TestStatusBatchCoalescesConcurrentReadsAndAnswersEachItsOwnRow(t *testing.T) {
	release := make(chan struct{})
	var calls atomic.Int32
	var mu sync.Mutex
	var sizes []int
	run := func(_ context.Context, ids []string) (map[string]*StatusRow, error) {
		if calls.Add(1) == 1 {
			<-release // the first query stays in flight while the others queue
		}
		mu.Lock()
		sizes = append(sizes, len(ids))
		mu.Unlock()
		out := map[string]*StatusRow{}
		for _, id := range ids {
			if id != "missing" {
				out[id] = &StatusRow{Status: intent.Status("status-of-" + id)}
			}
		}
		return out, nil
	}
	b := newStatusBatch(run, 1, 64)
	ctx := context.Background()

	first := make(chan error, 1)
	go func() {
		row, err := b.get(ctx, "a")
		if err == nil && row.Status != "status-of-a" {
			err = fmt.Errorf("first read got %q", row.Status)
		}
		first <- err
	}()
	for calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 40 {
		id := fmt.Sprint("r", i)
		if i == 7 {
			id = "missing"
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			row, err := b.get(ctx, id)
			switch {
			case id == "missing" && !errors.Is(err, ErrNotFound):
				errs <- fmt.Errorf("missing id: %v, want ErrNotFound", err)
			case id != "missing" && (err != nil || row.Status != intent.Status("status-of-"+id)):
				errs <- fmt.Errorf("%s: %v %v", id, row, err)
			}
		}()
	}
	waitQueued(t, b, 40)
	close(release)
	wg.Wait()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if sizes[0] != 1 || len(sizes) != 2 || sizes[1] != 40 {
		t.Fatalf("query sizes %v, want [1 40]: the first read alone, the 40 queued behind it in one query", sizes)
	}
	if inFlight, pending := b.groups.State(); inFlight != 0 || pending != 0 {
		t.Fatalf("after the reads: %d in flight, %d pending", inFlight, pending)
	}
}

// A failed query fails every read of its batch, and a caller that gives up returns at once
// without taking the others' answers with it.
func TestStatusBatchFailsTheWholeBatchAndLetsACallerGiveUp(t *testing.T) {
	release := make(chan struct{})
	boom := errors.New("connection reset")
	var calls atomic.Int32
	run := func(context.Context, []string) (map[string]*StatusRow, error) {
		if calls.Add(1) == 1 {
			<-release
			return nil, nil
		}
		return nil, boom
	}
	b := newStatusBatch(run, 1, 64)
	go func() { _, _ = b.get(context.Background(), "first") }()
	for calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	gone, cancel := context.WithCancel(context.Background())
	gaveUp := make(chan error, 1)
	go func() { _, err := b.get(gone, "impatient"); gaveUp <- err }()
	failed := make(chan error, 1)
	go func() { _, err := b.get(context.Background(), "patient"); failed <- err }()
	waitQueued(t, b, 2)
	cancel()
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled caller: %v", err)
	}
	close(release)
	if err := <-failed; !errors.Is(err, boom) {
		t.Fatalf("read in a failed batch: %v, want the query's error", err)
	}
}

// A batch never exceeds its size: a queue longer than that is read in several queries.
func TestStatusBatchSplitsALongQueue(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var sizes []int
	run := func(_ context.Context, ids []string) (map[string]*StatusRow, error) {
		mu.Lock()
		first := len(sizes) == 0
		sizes = append(sizes, len(ids))
		mu.Unlock()
		if first {
			<-release
		}
		out := map[string]*StatusRow{}
		for _, id := range ids {
			out[id] = &StatusRow{}
		}
		return out, nil
	}
	b := newStatusBatch(run, 1, 8)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _, _ = b.get(context.Background(), "lead") }()
	for {
		mu.Lock()
		n := len(sizes)
		mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := b.get(context.Background(), fmt.Sprint(i)); err != nil {
				t.Error(err)
			}
		}()
	}
	waitQueued(t, b, 20)
	close(release)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(sizes) != "[1 8 8 4]" {
		t.Fatalf("query sizes %v, want [1 8 8 4]", sizes)
	}
}

func waitQueued(t *testing.T, b *statusBatch, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, queued := b.groups.State()
		if queued >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d reads queued, want %d", queued, n)
		}
		time.Sleep(time.Millisecond)
	}
}
