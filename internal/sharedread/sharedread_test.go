package sharedread

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Callers that ask while a read is under way share it; with a maxAge, callers after it reuse its
// answer until it is that old, then a new read is made; a failed read is not reused.
func TestReadsAreSharedAndReusedForMaxAge(t *testing.T) {
	var calls atomic.Int32
	release := make(chan struct{})
	slow := func(context.Context) (int, error) { calls.Add(1); <-release; return 7, nil }
	g := &Group{}
	const maxAge = 50 * time.Millisecond
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v, err := Do(context.Background(), g, "k", maxAge, slow); err != nil || v != 7 {
				t.Errorf("shared read: %d %v", v, err)
			}
		}()
	}
	time.Sleep(20 * time.Millisecond)
	close(release)
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Fatalf("10 callers at once made %d reads, want 1", n)
	}
	if v, _ := Do(context.Background(), g, "k", maxAge, slow); v != 7 || calls.Load() != 1 {
		t.Fatalf("a caller within maxAge read again (%d reads)", calls.Load())
	}
	time.Sleep(60 * time.Millisecond)
	if _, _ = Do(context.Background(), g, "k", maxAge, slow); calls.Load() != 2 {
		t.Fatalf("a caller after maxAge got the old read (%d reads)", calls.Load())
	}
	failing := func(context.Context) (int, error) { calls.Add(1); return 0, errors.New("down") }
	for range 2 {
		if _, err := Do(context.Background(), g, "f", maxAge, failing); err == nil {
			t.Fatal("a failed read answered without its error")
		}
	}
	if n := calls.Load(); n != 4 {
		t.Fatalf("a failed read was reused (%d reads, want 4)", n)
	}
}

// A caller that gives up stops waiting without failing the read for the others: the read runs on
// a context of its own, which ends at the caller's deadline.
func TestACallerThatGivesUpDoesNotCancelTheRead(t *testing.T) {
	g := &Group{}
	release := make(chan struct{})
	read := func(ctx context.Context) (int, error) {
		select {
		case <-release:
			return 1, nil
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	gaveUp := make(chan error, 1)
	go func() { _, err := Do(ctx, g, "k", 0, read); gaveUp <- err }()
	time.Sleep(10 * time.Millisecond)
	other := make(chan error, 1)
	go func() { _, err := Do(context.Background(), g, "k", 0, read); other <- err }()
	time.Sleep(10 * time.Millisecond)
	cancel()
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Fatalf("the caller that gave up: %v", err)
	}
	close(release)
	if err := <-other; err != nil {
		t.Fatalf("the other caller's read failed with the first's cancellation: %v", err)
	}
}
