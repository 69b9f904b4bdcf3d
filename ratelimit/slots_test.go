package ratelimit

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/intentd/intentd/testkit/testenv"
)

// Issue 33, point 4: "a global cap (global = across API processes: Redis is already the
// limiter's shared store)". Two processes' slots over one Redis admit the cap together, a
// release on one frees a slot for the other, and the slots of a process that died without a
// word are freed once it stops counting as alive.
func TestSlotsHoldOneCapAcrossProcesses(t *testing.T) {
	ctx := context.Background()
	rc, prefix := testenv.RedisClient(t), prefix(t)
	proc := func(ttl time.Duration) *Slots {
		return NewSlots(SlotsOptions{Redis: rc, Prefix: prefix, Name: "ws", Cap: 3, Beat: ttl / 3, TTL: ttl})
	}
	a, b := proc(time.Minute), proc(time.Minute)
	for i, s := range []*Slots{a, a, b} {
		if !s.Acquire(ctx) {
			t.Fatalf("slot %d of 3 refused", i+1)
		}
	}
	if a.Acquire(ctx) || b.Acquire(ctx) {
		t.Fatal("a fourth slot was taken")
	}
	a.Release(ctx)
	if !b.Acquire(ctx) || b.Acquire(ctx) {
		t.Fatal("a released slot was not taken exactly once by the other process")
	}
	if a.Held() != 1 || b.Held() != 2 || a.FailOpen() != 0 {
		t.Fatalf("held %d and %d, fail open %d", a.Held(), b.Held(), a.FailOpen())
	}

	// A process that dies holding slots: they count until its TTL passes, then no longer.
	a.Release(ctx)
	b.Release(ctx)
	b.Release(ctx)
	dying := proc(time.Second)
	if takes(dying, 2) != 2 {
		t.Fatal("the dying process's slots")
	}
	if !a.Acquire(ctx) || a.Acquire(ctx) {
		t.Fatal("the dying process's slots are not counted while it is alive")
	}
	deadline := time.Now().Add(10 * time.Second)
	for !b.Acquire(ctx) {
		if time.Now().After(deadline) {
			t.Fatal("a dead process's slots were never freed")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// takes asks s for n slots and says how many it got.
func takes(s *Slots, n int) int {
	got := 0
	for range n {
		if s.Acquire(context.Background()) {
			got++
		}
	}
	return got
}

// "fall back sanely if Redis is down, as the limiter does": a process whose Redis does not
// answer admits its share of the cap (all of it when it never saw another process), not
// everyone and not no one, and counts what it so decided.
func TestSlotsFallBackToTheProcesssShareWithoutRedis(t *testing.T) {
	ctx := context.Background()
	dead := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", DialTimeout: 100 * time.Millisecond, MaxRetries: -1})
	t.Cleanup(func() { _ = dead.Close() })
	s := NewSlots(SlotsOptions{Redis: dead, Prefix: prefix(t), Name: "ws", Cap: 4})
	for i := range 4 {
		if !s.Acquire(ctx) {
			t.Fatalf("slot %d of 4 refused with Redis down", i+1)
		}
	}
	if s.Acquire(ctx) {
		t.Fatal("past the cap with Redis down")
	}
	if s.FailOpen() < 4 {
		t.Fatalf("fail open counted %d", s.FailOpen())
	}
	// Having seen two processes alive, it takes half.
	s2 := NewSlots(SlotsOptions{Redis: dead, Prefix: prefix(t), Name: "ws", Cap: 4})
	s2.procs.Store(2)
	if n := takes(s2, 3); n != 2 {
		t.Fatalf("a process that saw two alive took %d of a cap of 4, want half", n)
	}
}
