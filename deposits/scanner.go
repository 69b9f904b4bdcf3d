// Package deposits finds deposits on chain: the Scanner reads the depository's events from a
// block cursor kept in Postgres and hands each deposit to the door of the intent workflows
// (intents.Door.Deliver), which a client's transaction hint (POST /transactions/index) uses too.
// Over the same ranges it watches the issued deposit addresses (watch.go): a payment that
// arrives at one is recorded and delivered to the request it funds, whose workflow sweeps it
// into the depository; the sweeps' own deposits are not routed.
package deposits

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/metrics"
	"github.com/intentd/intentd/internal/pause"
	"github.com/intentd/intentd/store"
)

// Deliverer hands a deposit to its request's workflow (intents.Door). Delivering a deposit
// twice is harmless.
type Deliverer interface {
	Deliver(ctx context.Context, d intent.Deposit) error
}

// Scanner follows every enabled chain's depository from the stored cursor.
type Scanner struct {
	Chains   *chains.Clients
	Store    *store.Store
	Router   Deliverer
	Interval time.Duration // poll period; about one block
	MaxRange uint64        // blocks per log query
	// Parallel is how many orders' deposits are routed at once (default DefaultParallel).
	Parallel int
	// Addresses, when set, are the deposit addresses watched over the same ranges (watch.go).
	Addresses *AddressWatch
	// Requotes, when set, quotes again the payments at open deposit addresses that are not
	// their quote's (watch_open.go); without it every address routes only its first payment.
	Requotes Requoter
	// RefundGas, when set with a Requotes that prices legs (LegPricer), is the refund gas
	// ceiling of a currency on a chain: a payment that no request fills is refunded as a leg
	// only when worth more than its sweep and that refund (watch_legs.go).
	RefundGas func(chainID uint64, currency string) uint64
	Logger    *slog.Logger
}

// scannedChain is what the scanner reads of a chain.
type scannedChain interface {
	chains.HeadReader
	chains.DepositReader
}

// Run scans until ctx ends, one goroutine per chain.
func (s *Scanner) Run(ctx context.Context) {
	done := make(chan struct{})
	enabled := s.Chains.Registry().Enabled()
	for _, ch := range enabled {
		go func(id uint64) {
			defer func() { done <- struct{}{} }()
			s.follow(ctx, id)
		}(ch.ID)
	}
	for range enabled {
		<-done
	}
}

func (s *Scanner) follow(ctx context.Context, chainID uint64) {
	interval := s.Interval
	if interval <= 0 {
		interval = time.Second
	}
	heads, _ := chains.Capability[chains.HeadWatcher](s.Chains, chainID)
	wake := waker(heads, s.Chains.Registry(), chainID)
	var t turns
	for {
		var after uint64
		if heads != nil {
			after = heads.SeenHead()
		}
		if d := t.yieldFor(time.Now()); d > 0 && pause.For(ctx, d) != nil {
			return
		}
		p, err := s.scan(ctx, chainID, t.wrote, wake.upTo())
		if err != nil && ctx.Err() == nil {
			s.Logger.Warn("deposit scan failed; retrying", "chainId", chainID, "error", err)
		}
		t.record(p, time.Now())
		if err == nil && !p.locked {
			// Another scanner holds the chain: this one tries again shortly rather than on the
			// next block, so that when the holder is behind (its pass outlasted a block) the
			// blocks it has not reached yet are this one's turn.
			if pause.For(ctx, t.lockWait()) != nil {
				return
			}
			continue
		}
		if !nextScan(ctx, interval, wake, after) {
			return
		}
	}
}

// peerYield is how long a scanner that routed a chain's last pass waits before its next one
// while other workers scan the chain too (turns): the time a peer woken by the same block needs
// to take the scan lock. peerMemory is how long one sign of a peer (a scan lock it held, a
// cursor it moved) counts: a fleet whose other workers stopped stops yielding after it.
// lockRetry is how soon a scanner tries again after finding the chain's scan lock held, doubling
// up to maxLockRetry while it stays held (a holder stuck on a slow node is asked a few times a
// second, not forty).
const (
	peerYield    = 100 * time.Millisecond
	peerMemory   = 30 * time.Second
	lockRetry    = 25 * time.Millisecond
	maxLockRetry = 200 * time.Millisecond
)

// turns is one scanner's share of a chain's scans in a fleet. Every worker's scanner wakes on
// the same block and one of them wins the chain's scan lock (store.TryScanLock); the winner
// routes the block's deposits, and with eager starts (intents.Door.EagerStart) it runs their
// workflows too. Left to the race, the same worker kept winning (one of two workers ran 723
// of 960 intents, BENCHMARKS.md "Scale-out"), so a scanner that routed the last pass lets the
// others try first on the next block: the workers take the blocks in turn, and one that is
// busier (slower to wake) takes fewer. A scanner alone never yields: it has seen no peer.
type turns struct {
	routedLast bool          // this scanner's last pass routed deposits
	peerSeen   time.Time     // the last sign of another scanner of the chain
	wrote      uint64        // the cursor block this scanner's last pass wrote (0: none)
	retry      time.Duration // the last wait for a held lock (0: the lock was not held)
}

// pass is what one scan did: whether it held the chain's scan lock, whether the cursor it found
// was not the one this scanner left (another scanner moved it), how many deposits it routed
// and the cursor block it wrote.
type pass struct {
	locked, moved bool
	routed        int
	wrote         uint64
}

// yieldFor is how long to wait before the next pass at now.
func (t *turns) yieldFor(now time.Time) time.Duration {
	if t.routedLast && !t.peerSeen.IsZero() && now.Sub(t.peerSeen) < peerMemory {
		return peerYield
	}
	return 0
}

// record takes a pass's outcome at now.
func (t *turns) record(p pass, now time.Time) {
	if !p.locked || p.moved {
		t.peerSeen = now
	}
	t.routedLast = p.locked && p.routed > 0
	if p.locked {
		t.retry = 0
	}
	if p.wrote > 0 {
		t.wrote = p.wrote
	}
}

// lockWait is how long to wait before trying a held lock again: lockRetry at first, twice the
// last wait while it stays held, at most maxLockRetry.
func (t *turns) lockWait() time.Duration {
	if t.retry == 0 {
		t.retry = lockRetry
	} else {
		t.retry = min(2*t.retry, maxLockRetry)
	}
	return t.retry
}

// headWake is how a scan waits for a chain's next block: the head watcher's WaitHead or
// WaitHeadDeferred (wait, deferred), and the head the watcher has seen (seen).
type headWake struct {
	seen     func() uint64
	wait     func(ctx context.Context, after uint64) (uint64, error)
	deferred bool
}

// upTo is the last block a scan routes, 0 for the chain's head: on a chain whose scans wait
// for the fills' window, the head the watcher has seen. A scan that the interval started (no
// new head within it) read the chain's head itself, and when a block had just come that the
// watcher had not heard of yet, routed that block's deposits at once, beside the fills the
// block woke: the watcher's head is the one whose window the scans wait for. A block the watcher
// hears of later is routed by the scan that hearing wakes, after its window.
func (w *headWake) upTo() uint64 {
	if w == nil || !w.deferred {
		return 0
	}
	return w.seen()
}

// waker returns how the scans of a chain wait for its next block, nil when the chain's client
// does not watch its head. On a chain where every deposit needs two or more confirmations (its
// lowest confirmation tier's, chains.Chain.LeastConfirmations), the deposits of a
// new block cannot be attested before the next one, so their routing waits for the block's
// fills' window (chains.DeferredHeads): the block's arrival also confirms the deposits of the
// blocks before, whose fills then have the machine first. With one confirmation a deposit is
// attestable in its own block and its routing is the first step of its fill: it starts at once.
// The scan after one that a new block overtook starts once what is left of that block's window
// has passed (WaitHeadDeferred), at once when it came before.
func waker(heads chains.HeadWatcher, reg *chains.Registry, chainID uint64) *headWake {
	if heads == nil {
		return nil
	}
	w := &headWake{seen: heads.SeenHead, wait: heads.WaitHead}
	if d, ok := heads.(chains.DeferredHeads); ok {
		if c, err := reg.Get(chainID); err == nil && c.LeastConfirmations() >= 2 {
			w.wait, w.deferred = d.WaitHeadDeferred, true
		}
	}
	return w
}

// nextScan waits for the next scan of a chain: a block after the head the last scan started
// from (wake, when the chain's client watches its head), or interval from now, whichever comes
// first. Polling on a timer alone, a deposit waited half an interval on average before its block
// was scanned (a second's interval: mined -> routed p50 about 1 s under load, BENCHMARKS.md);
// woken by the head, a scan starts within the watcher's poll of the block (and its fills'
// window, see waker). It returns false once ctx ends.
//
// The interval is for a head that does not come (a stalled chain, a watcher that cannot read
// it): once the watcher has seen a new head, the wait for its fills' window is not cut short.
// Counted from the end of a scan a few hundred milliseconds into a block, the interval (the
// devnet's is 500 ms) ran out around the next block's arrival, often inside its window; the
// scan then routed the block's deposits beside its fills, and those fills reached the node 100
// to 200 ms later than other blocks' (about one block in three at 50 intents a second,
// BENCHMARKS.md).
func nextScan(ctx context.Context, interval time.Duration, wake *headWake, after uint64) bool {
	if wake == nil {
		return pause.For(ctx, interval) == nil
	}
	wait, cancel := context.WithCancel(ctx)
	defer cancel()
	stall := time.AfterFunc(interval, func() {
		if wake.seen() <= after {
			cancel()
		}
	})
	defer stall.Stop()
	_, _ = wake.wait(wait, after) // a new head (and its window), or no head within the interval, or ctx has ended
	return ctx.Err() == nil
}

// ScanOnce routes the deposits between the cursor and the head and advances the cursor. The
// cursor only moves after every deposit up to it was routed, so a crash re-routes, never skips.
// One scanner of all the workers' scans a chain at a time (store.TryScanLock): while another
// holds the chain, ScanOnce does nothing, so a deposit is routed once however many workers run.
func (s *Scanner) ScanOnce(ctx context.Context, chainID uint64) error {
	_, err := s.scan(ctx, chainID, 0, 0)
	return err
}

// scan is ScanOnce, and says what the pass did (turns). wrote is the cursor block this
// scanner's last pass wrote (0: none), to tell whether another scanner moved the cursor since;
// upTo, when not 0, is the last block the pass routes (headWake.upTo).
func (s *Scanner) scan(ctx context.Context, chainID, wrote, upTo uint64) (p pass, err error) {
	c, err := chains.Capability[scannedChain](s.Chains, chainID)
	if err != nil {
		return p, err
	}
	release, ok, err := s.Store.TryScanLock(ctx, chainID)
	if err != nil || !ok {
		// An error is no sign of a peer: the pass counts as held, routing nothing.
		return pass{locked: err != nil}, err
	}
	defer release()
	p.locked = true
	headRead := time.Now()
	head, err := c.Head(ctx)
	if err != nil {
		return p, err
	}
	if s.Addresses != nil {
		if err := s.Addresses.refresh(ctx, headRead); err != nil {
			return p, err
		}
	}
	genesis, err := c.BlockHash(ctx, 0)
	if err != nil {
		return p, err
	}
	from, err := s.resume(ctx, c, chainID, head, genesis)
	if err != nil {
		return p, err
	}
	p.moved = wrote > 0 && from != wrote+1
	if upTo > 0 {
		// After resume, which checks the cursor against the chain's own head: another worker's
		// watcher may have heard of a block this one's has not, and moved the cursor past upTo.
		head = min(head, upTo)
	}
	maxRange := s.MaxRange
	if maxRange == 0 {
		maxRange = 2000
	}
	for from <= head {
		to := min(head, from+maxRange-1)
		// The range's last block is read before and after its logs: if a reorg replaced it in
		// between, the logs may come from the old branch, so the cursor stays and the range is
		// scanned again (routing a deposit twice is harmless).
		hash, err := c.BlockHash(ctx, to)
		if err != nil {
			return p, err
		}
		deps, err := c.Deposits(ctx, from, to)
		if err != nil {
			return p, err
		}
		deps, sweeps := withoutSweeps(deps)
		if err := s.route(ctx, deps); err != nil {
			return p, err
		}
		arrived, err := s.arrivals(ctx, chainID, from, to)
		if err != nil {
			return p, err
		}
		if err := s.recordSweeps(ctx, sweeps); err != nil {
			return p, err
		}
		p.routed += len(deps) + arrived
		if again, err := c.BlockHash(ctx, to); err != nil {
			return p, err
		} else if again != hash {
			s.Logger.Warn("reorg during a scan: scanning the range again", "chainId", chainID, "from", from, "to", to)
			return p, nil
		}
		if err := s.Store.SetCursor(ctx, store.Cursor{ChainID: chainID, GenesisHash: genesis, Block: to, BlockHash: hash}); err != nil {
			return p, err
		}
		p.wrote = to
		from = to + 1
	}
	return p, nil
}

// DefaultParallel is how many orders' deposits a scan routes at once. Routing one deposit is a
// round trip to Temporal (the workflow's start) of a few to tens of milliseconds; one at a time,
// a block of a busy chain waited for the deposits before it (13 to 17 a second under a burst,
// BENCHMARKS.md "Intents under load").
const DefaultParallel = 32

// route hands deps to the router, up to Parallel orders at once. The deposits of one order go
// one after the other in the order of the chain (its first deposit is the one the request
// fills; later ones are refunded), so only distinct orders run concurrently. It returns the
// first error once every started delivery has returned; the caller then keeps its cursor and
// the range is routed again (a deposit delivered twice is harmless).
func (s *Scanner) route(ctx context.Context, deps []intent.Deposit) error {
	var orders []string
	byOrder := map[string][]intent.Deposit{}
	for _, d := range deps {
		key := strings.ToLower(d.OrderID)
		if _, ok := byOrder[key]; !ok {
			orders = append(orders, key)
		}
		byOrder[key] = append(byOrder[key], d)
	}
	parallel := s.Parallel
	if parallel <= 0 {
		parallel = DefaultParallel
	}
	var g errgroup.Group
	g.SetLimit(parallel)
	for _, o := range orders {
		g.Go(func() error {
			for _, d := range byOrder[o] {
				if err := s.Router.Deliver(ctx, d); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// reorgDepth is how far the scan steps back when the chain no longer has the cursor's block.
// Routing is idempotent, so scanning a block twice is harmless.
const reorgDepth = 64

// resume returns the first block to scan. A cursor whose block the chain no longer has (a reorg)
// steps back reorgDepth blocks; a different genesis (a devnet that was restarted: the chain is
// reset, ResetChain), or a head far behind the cursor, starts again from block 0.
func (s *Scanner) resume(ctx context.Context, c chains.HeadReader, chainID, head uint64, genesis string) (uint64, error) {
	cur, err := s.Store.Cursor(ctx, chainID)
	if errors.Is(err, store.ErrNotFound) {
		if st, ok := c.(chains.ScanStarter); ok {
			return st.ScanStart(head), nil
		}
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if !strings.EqualFold(cur.GenesisHash, genesis) {
		// A new chain: what the engine held of the old one goes (store.ResetChain).
		if err := ResetChain(ctx, s.Store, s.Logger, chainID, genesis); err != nil {
			return 0, err
		}
		return 0, nil
	}
	if head+reorgDepth < cur.Block {
		s.Logger.Warn("chain was reset; rescanning from block 0", "chainId", chainID, "cursor", cur.Block, "head", head)
		return 0, nil
	}
	if cur.Block <= head {
		hash, err := c.BlockHash(ctx, cur.Block)
		if err != nil {
			return 0, err
		}
		if hash == cur.BlockHash {
			return cur.Block + 1, nil
		}
	}
	back := uint64(0)
	if cur.Block > reorgDepth {
		back = cur.Block - reorgDepth
	}
	s.Logger.Warn("cursor block is no longer canonical; stepping back", "chainId", chainID, "cursor", cur.Block, "from", back)
	return back, nil
}

// ResetChain resets what the engine holds of chain chainID when genesis (the hash of its block 0)
// is not the one its cursor names (store.ResetChain): the solver transactions signed for the old
// chain are voided and its solver nonces forgotten. The worker calls it for every chain before it
// takes work, and the scanner when a pass finds a new genesis.
func ResetChain(ctx context.Context, st *store.Store, logger *slog.Logger, chainID uint64, genesis string) error {
	reset, voided, err := st.ResetChain(ctx, chainID, genesis)
	if err != nil {
		return fmt.Errorf("reset chain %d: %w", chainID, err)
	}
	if reset {
		metrics.ChainResets.WithLabelValues(strconv.FormatUint(chainID, 10)).Inc()
		logger.Warn("chain has a new genesis: a new chain; its solver transactions signed before are voided, its solver nonces "+
			"start again from the chain's, and it is scanned from block 0", "chainId", chainID, "genesis", genesis, "voided", voided)
	}
	return nil
}
