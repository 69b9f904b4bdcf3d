package deposits

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/intentd/intentd/chains"
	_ "github.com/intentd/intentd/chains/evm" // the EVM family, whose notation reads the test chains' addresses
	"github.com/intentd/intentd/intent"
)

// recordingRouter records the deposits delivered and how many deliveries overlapped.
type recordingRouter struct {
	mu       sync.Mutex
	inFlight int
	maxSeen  int
	got      map[string][]string // order -> tx hashes in delivery order
	fail     string              // an order whose delivery fails
}

func (r *recordingRouter) Deliver(ctx context.Context, d intent.Deposit) error {
	r.mu.Lock()
	r.inFlight++
	r.maxSeen = max(r.maxSeen, r.inFlight)
	r.mu.Unlock()
	time.Sleep(5 * time.Millisecond) // a round trip to Temporal
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inFlight--
	if d.OrderID == r.fail {
		return errors.New("temporal unavailable")
	}
	r.got[d.OrderID] = append(r.got[d.OrderID], d.TxHash)
	return nil
}

func deposits(orders, perOrder int) []intent.Deposit {
	var out []intent.Deposit
	for i := range perOrder {
		for o := range orders {
			out = append(out, intent.Deposit{OrderID: fmt.Sprintf("0x%064x", o), TxHash: fmt.Sprintf("tx-%d-%d", o, i)})
		}
	}
	return out
}

// A busy block's deposits are routed concurrently (one at a time, a burst waited 47 s for its
// routing), but the deposits of one order keep the chain's order: the first is the one the
// request fills, the later ones are refunded.
func TestRouteDistinctOrdersConcurrentlyOneOrderInChainOrder(t *testing.T) {
	r := &recordingRouter{got: map[string][]string{}}
	s := &Scanner{Router: r, Parallel: 8}
	if err := s.route(context.Background(), deposits(40, 3)); err != nil {
		t.Fatal(err)
	}
	if r.maxSeen < 2 || r.maxSeen > 8 {
		t.Errorf("deliveries in flight at once: %d, want between 2 and Parallel (8)", r.maxSeen)
	}
	if len(r.got) != 40 {
		t.Fatalf("orders routed: %d, want 40", len(r.got))
	}
	for o, txs := range r.got {
		for i, tx := range txs {
			if want := fmt.Sprintf("tx-%d-%d", mustOrder(t, o), i); tx != want {
				t.Errorf("order %s: delivery %d is %s, want %s (chain order)", o, i, tx, want)
			}
		}
	}
}

// A failed delivery fails the scan (the cursor stays, and the range is routed again), after
// every delivery already started has returned.
func TestRouteFailureFailsTheScan(t *testing.T) {
	r := &recordingRouter{got: map[string][]string{}, fail: fmt.Sprintf("0x%064x", 3)}
	s := &Scanner{Router: r}
	if err := s.route(context.Background(), deposits(10, 1)); err == nil {
		t.Fatal("route returned nil with a failed delivery")
	}
	if r.inFlight != 0 {
		t.Errorf("%d deliveries still running after route returned", r.inFlight)
	}
}

func mustOrder(t *testing.T, o string) int {
	var n int
	if _, err := fmt.Sscanf(o, "0x%x", &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// confirmations is a registry of chain 1, which needs one confirmation, and chain 2, which
// needs two.
func confirmations(t *testing.T) *chains.Registry {
	t.Helper()
	cur := chains.Currency{Symbol: "ETH", Decimals: 18}
	reg, err := chains.NewRegistry([]chains.Chain{
		{ID: 1, HTTPRPCURL: "http://127.0.0.1:1", Confirmations: 1, Currency: cur},
		{ID: 2, HTTPRPCURL: "http://127.0.0.1:1", Confirmations: 2, Currency: cur},
		// Small deposits at one confirmation: attestable in their own block, like chain 1's.
		{ID: 3, HTTPRPCURL: "http://127.0.0.1:1", Confirmations: 4, Currency: cur,
			ConfirmationTiers: []chains.ConfirmationTier{{MaxUSD: "100", Confirmations: 1}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// waitingHeads is a head watcher that records which wait the scan used.
type waitingHeads struct{ plain, deferred int }

func (h *waitingHeads) SeenHead() uint64 { return 1 }
func (h *waitingHeads) WaitHead(context.Context, uint64) (uint64, error) {
	h.plain++
	return 2, nil
}
func (h *waitingHeads) WaitHeadDeferred(context.Context, uint64) (uint64, error) {
	h.deferred++
	return 2, nil
}

// "A deposit must have the chain's confirmations before it is attested": with two or more, the
// deposits of a new block wait for the next one anyway, so their scan lets the block's fills go
// first (chains.DeferredHeads); with one, a deposit is attestable in its own block and its scan
// starts at once. (A scanner that a block overtook scans again once what is left of the block's
// window has passed: WaitHeadDeferred, chains/evm TestADeferredWaitLetsTheNewBlocksFillsGoFirst.)
func TestTheScanOfANewBlockLetsItsFillsGoFirstOnlyWhenItsDepositsMustWaitForMoreBlocks(t *testing.T) {
	reg := confirmations(t)
	for _, tc := range []struct {
		chain         uint64
		plain, defers int
	}{{1, 1, 0}, {2, 0, 1}, {3, 1, 0}} {
		h := &waitingHeads{}
		if !nextScan(context.Background(), time.Second, waker(h, reg, tc.chain), 1) {
			t.Fatal("nextScan ended")
		}
		if h.plain != tc.plain || h.deferred != tc.defers {
			t.Errorf("chain %d: %d plain and %d deferred waits, want %d and %d", tc.chain, h.plain, h.deferred, tc.plain, tc.defers)
		}
	}
	if waker(nil, reg, 2) != nil {
		t.Error("a chain without a head watcher has a waker")
	}
}

// windowHeads is a head watcher on a chain needing two confirmations whose head is seen at seen
// and whose wait returns when release closes: until then the head is in its fills' window (or,
// when seen is not above the wait's after, no new head has come). cut records a wait that
// ended with its context instead.
type windowHeads struct {
	seen    uint64
	release chan struct{}
	cut     bool
}

func (h *windowHeads) SeenHead() uint64 { return h.seen }
func (h *windowHeads) WaitHead(ctx context.Context, after uint64) (uint64, error) {
	return h.WaitHeadDeferred(ctx, after)
}
func (h *windowHeads) WaitHeadDeferred(ctx context.Context, _ uint64) (uint64, error) {
	select {
	case <-ctx.Done():
		h.cut = true
		return 0, ctx.Err()
	case <-h.release:
		return h.seen, nil
	}
}

// "The scan interval is for a head that does not come": once the watcher has seen a new block,
// the scan waits for the block's fills' window in full, however soon the interval runs out (it
// ran out inside the window and the block's deposits were routed beside its fills); while no new
// head comes, the interval still starts a scan.
func TestTheScanIntervalNeverCutsANewBlocksFillsWindowShort(t *testing.T) {
	reg := confirmations(t)
	moved := &windowHeads{seen: 2, release: make(chan struct{})}
	time.AfterFunc(20*time.Millisecond, func() { close(moved.release) })
	if !nextScan(context.Background(), time.Millisecond, waker(moved, reg, 2), 1) {
		t.Fatal("nextScan ended")
	}
	if moved.cut {
		t.Error("the interval cut the new block's fills' window short")
	}
	stalled := &windowHeads{seen: 1, release: make(chan struct{})}
	if !nextScan(context.Background(), time.Millisecond, waker(stalled, reg, 2), 1) {
		t.Fatal("nextScan ended")
	}
	if !stalled.cut {
		t.Error("with no new head, nextScan returned before its interval")
	}
}

// "A new block's deposits are routed after its fills' window", also by a scan the interval
// started: on a chain whose scans wait for the window, a scan routes no block beyond the head
// the watcher has seen (a scan that read the chain's head itself routed a block the watcher had
// not heard of yet at once, beside the fills it woke); on a chain needing one confirmation, and
// without a watcher, a scan routes up to the chain's head.
func TestAScanRoutesNoBlockItsHeadWatcherHasNotSeen(t *testing.T) {
	reg := confirmations(t)
	h := &windowHeads{seen: 7}
	if got := waker(h, reg, 2).upTo(); got != 7 {
		t.Errorf("two confirmations: a scan routes up to block %d, want the watcher's head 7", got)
	}
	if got := waker(h, reg, 1).upTo(); got != 0 {
		t.Errorf("one confirmation: a scan routes up to block %d, want the chain's head (0)", got)
	}
	if got := waker(nil, reg, 2).upTo(); got != 0 {
		t.Errorf("no head watcher: a scan routes up to block %d, want the chain's head (0)", got)
	}
}

// "One worker scans a chain at a time", and in a fleet they take the blocks in turn: a scanner
// that routed the last pass yields the next block's scan lock to its peers for peerYield, once
// it has seen one (a lock it could not take, a cursor it did not leave), for peerMemory. A
// scanner alone never waits.
func TestAScannerThatRoutedTheLastPassLetsItsPeersScanTheNextBlockFirst(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	var alone turns
	for i := range 5 {
		alone.record(pass{locked: true, routed: 50, wrote: uint64(10 + i)}, t0.Add(time.Duration(i)*time.Second))
		if d := alone.yieldFor(t0.Add(time.Duration(i) * time.Second)); d != 0 {
			t.Fatalf("a scanner that has seen no peer waits %v after pass %d", d, i)
		}
	}

	var a turns
	a.record(pass{locked: false}, t0) // a peer held the lock
	if d := a.yieldFor(t0); d != 0 {
		t.Errorf("after a pass it did not route, the scanner waits %v; want none", d)
	}
	a.record(pass{locked: true, routed: 50, wrote: 11}, t0.Add(time.Second))
	if d := a.yieldFor(t0.Add(time.Second)); d != peerYield {
		t.Errorf("after routing a pass with a peer about, the scanner waits %v; want %v", d, peerYield)
	}
	a.record(pass{locked: true, routed: 0, wrote: 12}, t0.Add(2*time.Second))
	if d := a.yieldFor(t0.Add(2 * time.Second)); d != 0 {
		t.Errorf("after an empty pass the scanner waits %v; want none", d)
	}
	a.record(pass{locked: true, routed: 3, wrote: 13}, t0.Add(3*time.Second))
	if d := a.yieldFor(t0.Add(3*time.Second + peerMemory)); d != 0 {
		t.Errorf("with no sign of a peer for %v the scanner still waits %v", peerMemory, d)
	}
	if a.wrote != 13 {
		t.Errorf("the scanner remembers cursor block %d as its last; want 13", a.wrote)
	}

	// A cursor another scanner moved is a sign of a peer as good as a lock it held.
	var b turns
	b.record(pass{locked: true, moved: true, routed: 50, wrote: 20}, t0)
	if d := b.yieldFor(t0.Add(time.Second)); d != peerYield {
		t.Errorf("after a pass that found the cursor moved by another, the scanner waits %v; want %v", d, peerYield)
	}
}

// A scanner that finds the chain's scan lock held tries again in 25 ms, then 50, 100 and 200 ms
// while it stays held, and in 25 ms again once it has held the lock.
func TestAHeldScanLockIsTriedAgainSoonThenLessOften(t *testing.T) {
	var tr turns
	var waits []time.Duration
	for range 6 {
		tr.record(pass{locked: false}, time.Now())
		waits = append(waits, tr.lockWait())
	}
	want := []time.Duration{25 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 200 * time.Millisecond, 200 * time.Millisecond}
	if !slices.Equal(waits, want) {
		t.Errorf("waits %v, want %v", waits, want)
	}
	tr.record(pass{locked: true}, time.Now())
	tr.record(pass{locked: false}, time.Now())
	if d := tr.lockWait(); d != lockRetry {
		t.Errorf("after holding the lock, the first wait for it is %v, want %v", d, lockRetry)
	}
}
