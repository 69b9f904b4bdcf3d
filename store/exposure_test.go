package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

func ask(id string, usd int64, block, head uint64, cap int64) intent.ExposureAsk {
	return intent.ExposureAsk{ExposureHold: intent.ExposureHold{RequestID: id, ChainID: 31337, USD: decimal.NewFromInt(usd),
		DepositBlock: block, FinalBlock: block + 3}, Head: head, Cap: decimal.NewFromInt(cap)}
}

// TestTheExposureCapHoldsAcrossReservations holds the issue's "a cap on the total USD value
// filled against deposits not yet final on each origin chain": a reservation that would take a
// chain past its cap is refused, a deposit's hold ends by itself once the chain's head makes it
// final ("released when the deposit becomes final ... can never leak": nobody has to release it),
// a request's hold is released when it pays nothing, and a reservation is "idempotent by
// requestId".
func TestTheExposureCapHoldsAcrossReservations(t *testing.T) {
	st := store.New(testenv.Pool(t))
	ctx := context.Background()
	reserve := func(a intent.ExposureAsk) intent.ExposureAnswer {
		t.Helper()
		got, err := st.ReserveExposure(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}

	// Deposit a at block 100 (final at 103), 60 USD under a cap of 100.
	if got := reserve(ask("a", 60, 100, 100, 100)); !got.Reserved || !got.Exposure.Equal(decimal.NewFromInt(60)) || got.NextFinal != 103 {
		t.Fatalf("first: %+v", got)
	}
	// b, 60 USD at block 101: 120 > 100, refused; the exposure drops at block 103.
	if got := reserve(ask("b", 60, 101, 101, 100)); got.Reserved || !got.Exposure.Equal(decimal.NewFromInt(60)) || got.NextFinal != 103 {
		t.Fatalf("over the cap: %+v", got)
	}
	// a asks again (a retried activity): it holds its share, nothing is added.
	if got := reserve(ask("a", 60, 100, 101, 100)); !got.Reserved || !got.Exposure.Equal(decimal.NewFromInt(60)) {
		t.Fatalf("asked again: %+v", got)
	}
	// Another chain has a cap of its own.
	other := ask("c", 90, 7, 7, 100)
	other.ChainID = 31338
	if got := reserve(other); !got.Reserved {
		t.Fatalf("another chain: %+v", got)
	}
	// At head 102 a is not final yet: b still waits.
	if got := reserve(ask("b", 60, 101, 102, 100)); got.Reserved {
		t.Fatalf("at 102: %+v", got)
	}
	// At head 103 a is final and no longer counts: b takes its share.
	if got := reserve(ask("b", 60, 101, 103, 100)); !got.Reserved || !got.Exposure.Equal(decimal.NewFromInt(60)) || got.NextFinal != 104 {
		t.Fatalf("at 103: %+v", got)
	}
	exposure := func(chain, head uint64) string {
		v, err := st.ChainExposure(ctx, chain, head)
		if err != nil {
			t.Fatal(err)
		}
		return v.String()
	}
	if got := exposure(31337, 103); got != "60" {
		t.Fatalf("exposure at 103: %s", got)
	}
	// b's request ends without paying anything: its hold ends at once.
	if err := st.ReleaseExposure(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if got := exposure(31337, 103); got != "0" {
		t.Fatalf("after the release: %s", got)
	}
	// A hold of a chain that was reset (its deposit far above the new chain's head) counts not.
	if got := reserve(ask("d", 50, 5000, 5000, 100)); !got.Reserved {
		t.Fatal(got)
	}
	if got := exposure(31337, 10); got != "0" {
		t.Fatalf("after a reset: %s", got)
	}
	if n, err := st.PruneExposure(ctx, 31337, 10); err != nil || n != 2 { // a (final) and d (reset)
		t.Fatalf("pruned %d, %v", n, err)
	}
	if got := exposure(31338, 7); got != "90" {
		t.Fatalf("the other chain: %s", got)
	}
}

// TestConcurrentReservationsNeverPassTheCap: "the exposure is shared across worker processes
// (Postgres)": reservations racing on one chain take exactly the room the cap leaves.
func TestConcurrentReservationsNeverPassTheCap(t *testing.T) {
	st := store.New(testenv.Pool(t))
	var wg sync.WaitGroup
	var mu sync.Mutex
	reserved := 0
	for i := range 20 {
		wg.Go(func() {
			got, err := st.ReserveExposure(context.Background(), ask(fmt.Sprint("r", i), 10, 100, 100, 55))
			if err != nil {
				t.Error(err)
				return
			}
			if got.Reserved {
				mu.Lock()
				reserved++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if reserved != 5 {
		t.Fatalf("%d reservations of 10 USD under a cap of 55", reserved)
	}
}
