package deposits

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
)

// Watching deposit addresses (docs/deposit-addresses.md, "Watching and sweeping"). The scanner
// reads, for every block range whose depository deposits it routes, the payments that arrived at
// the issued deposit addresses (chains.DepositAddressReader: a few calls per range, none per
// address), under the same cursor and scan lock: a range's cursor moves once both are routed,
// so a crash routes again, never skips, and one worker of a fleet routes each payment. Each
// payment is recorded once (store.RecordDepositAddressTransfer); the first one at an address
// funds the address's quote-time request (store.RouteFirstDepositAddressTransfer) and is
// delivered through the door as a deposit naming that request, whose workflow sweeps it into the
// depository. A later payment at a strict address, and the excess of its first over the quote,
// are refunded as requests of their own (watch_legs.go: DOUBLE_SPEND, INCORRECT_PAYMENT); at an
// open address, every payment other than its quote's is quoted again and funds a request of its
// own (watch_open.go), or, when it cannot be quoted, is refunded as a leg too.

// AddressWatch is the set of issued deposit addresses the scanner watches, shared by the
// scanners of every chain: the addresses are the same on every chain of a family (a payment on
// another chain than the address was issued for is seen too, and its request refunds it with
// DEPOSIT_CHAIN_MISMATCH once it is swept). It loads every address not disabled once, then
// before each scan pass those issued since its last load, and all of them again every
// watchFullReload, which is how a disabled address leaves the set.
type AddressWatch struct {
	Store *store.Store

	mu      sync.RWMutex
	byAddr  map[string]string                // address (lower case) -> id
	byID    map[string]intent.DepositAddress // id -> address
	newest  time.Time                        // the creation time of the newest address loaded
	started time.Time                        // when the last load started (zero: none yet)
	full    time.Time                        // when the last full load started

	loading sync.Mutex // one load at a time
}

// NewAddressWatch returns a watch of the addresses st holds, loaded on the first pass.
func NewAddressWatch(st *store.Store) *AddressWatch {
	return &AddressWatch{Store: st}
}

const (
	// watchFullReload is how often the watch loads every address again: a disabled address
	// stops being watched within it.
	watchFullReload = 5 * time.Minute
	// watchOverlap is how far before the newest address loaded a load of the new ones reads
	// again. An address's creation time is set by its quote (by the clock of the API process
	// that made it) before its row commits, so one created a moment before another may commit
	// after it: an insert that takes longer than this to commit, or an API host's clock this far
	// behind another's, is watched only from the next full load, and a payment it receives before
	// then is found by a reindex (docs/deposit-addresses.md). Every load reads again the
	// addresses of this window: a few dozen at a few quotes a second.
	watchOverlap = 10 * time.Second
)

// Watched returns the id of a watched address (lower case), chains.WatchedAddresses.
func (w *AddressWatch) Watched(address string) (string, bool) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	id, ok := w.byAddr[address]
	return id, ok
}

// Len is how many addresses are watched.
func (w *AddressWatch) Len() int {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return len(w.byAddr)
}

// address returns a watched address by its id.
func (w *AddressWatch) address(id string) (intent.DepositAddress, bool) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	a, ok := w.byID[id]
	return a, ok
}

// refresh loads the addresses issued since the last load (all of them on the first load and
// every watchFullReload), unless a load that started at or after notBefore has done so: a
// pass that read its chain's head at notBefore watches every address whose row committed before
// a block it scans was made, since no one pays an address before its quote has answered.
func (w *AddressWatch) refresh(ctx context.Context, notBefore time.Time) error {
	w.loading.Lock()
	defer w.loading.Unlock()
	w.mu.RLock()
	started, newest, full := w.started, w.newest, w.full
	w.mu.RUnlock()
	if !started.IsZero() && !started.Before(notBefore) {
		return nil
	}
	now := time.Now()
	since, reload := newest.Add(-watchOverlap), started.IsZero() || now.Sub(full) >= watchFullReload
	if reload {
		since = time.Time{}
	}
	got, err := w.Store.WatchedDepositAddresses(ctx, since)
	if err != nil {
		return fmt.Errorf("watched deposit addresses: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if reload {
		w.byAddr, w.byID, w.full = make(map[string]string, len(got)), make(map[string]intent.DepositAddress, len(got)), now
	}
	for _, a := range got {
		w.byAddr[a.Address] = a.ID
		w.byID[a.ID] = a
		if a.CreatedAt.After(w.newest) {
			w.newest = a.CreatedAt
		}
	}
	w.started = now
	return nil
}

// arrivals routes the payments at watched addresses in blocks [from, to] of a chain, in the
// chain's order, and returns how many it delivered. A chain whose family watches no deposit
// addresses has none.
func (s *Scanner) arrivals(ctx context.Context, chainID, from, to uint64) (int, error) {
	w := s.Addresses
	if w == nil || w.Len() == 0 {
		return 0, nil
	}
	r, err := chains.Capability[chains.DepositAddressReader](s.Chains, chainID)
	if errors.Is(err, chains.ErrUnsupported) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	ch, err := s.Chains.Registry().Get(chainID)
	if err != nil {
		return 0, err
	}
	ts, err := r.DepositAddressTransfers(ctx, from, to, w)
	if err != nil {
		return 0, err
	}
	return s.routeArrivals(ctx, chainID, string(ch.VMType), ts, w.address)
}

// routeArrivals records and routes payments at deposit addresses of one chain, in their order,
// and returns how many it delivered: the watch's (arrivals) and a reindex's (reindex.go).
// address finds a payment's address by its id; a payment whose address it does not find (a
// disabled one) is skipped.
func (s *Scanner) routeArrivals(ctx context.Context, chainID uint64, family string, ts []intent.DepositAddressTransfer,
	address func(id string) (intent.DepositAddress, bool)) (int, error) {
	delivered := 0
	for _, t := range ts {
		a, ok := address(t.AddressID)
		if !ok {
			continue // a full reload dropped it (disabled) after the read
		}
		t.SeenAt = time.Now()
		created, err := s.Store.RecordDepositAddressTransfer(ctx, t)
		if err != nil {
			return delivered, err
		}
		var requestID string
		var leg intent.FailReason // the refund leg of a payment no request fills ("": none)
		if a.Type == intent.DepositAddressStrict {
			leg = intent.FailReasonDoubleSpend // a strict address's later payment
		}
		if a.Type == intent.DepositAddressOpen && s.Requotes != nil {
			requestID, leg, err = s.routeOpen(ctx, a, t) // watch_open.go
		} else {
			requestID, err = s.Store.RouteFirstDepositAddressTransfer(ctx, t.ChainID, t.TxHash, t.LogIndex)
		}
		if err != nil {
			return delivered, err
		}
		if requestID == "" && leg != "" {
			if ok, err := s.routeRefundLeg(ctx, t, a, family, created, leg); err != nil { // watch_legs.go
				return delivered, err
			} else if ok {
				delivered++
				continue
			}
		}
		if requestID == "" {
			if created {
				s.Logger.Warn("another payment at a deposit address: recorded, not routed", "chainId", chainID, "address", a.Address,
					"addressId", a.ID, "tx", t.TxHash, "currency", t.Currency, "amount", t.Amount)
			}
			continue
		}
		arrival := t.ArrivalDeposit(a, requestID, family)
		if a.Type == intent.DepositAddressStrict && requestID == a.RequestID {
			if arrival, err = s.splitExcess(ctx, t, a, family, created); err != nil {
				return delivered, err
			}
		}
		if created {
			s.Logger.Info("payment at a deposit address", "chainId", chainID, "address", a.Address, "requestId", requestID,
				"tx", t.TxHash, "currency", t.Currency, "amount", t.Amount)
		}
		// Delivered again when seen again (a rescan after a crash between the routing and the
		// delivery): the door does not signal a deposit its workflow holds.
		if err := s.Router.Deliver(ctx, arrival); err != nil {
			return delivered, err
		}
		delivered++
	}
	return delivered, nil
}

// withoutSweeps splits deps into those to route and those sweeps of deposit addresses made
// (intent.Deposit.SweptFrom). A sweep's deposit reaches its request through the sweep its
// workflow sent (or, swept by another party, found by that workflow's sweep); routed, it would
// be a second deposit of its order, which the workflow refunds as a duplicate.
func withoutSweeps(deps []intent.Deposit) (route, sweeps []intent.Deposit) {
	for _, d := range deps {
		if d.SweptFrom == "" {
			route = append(route, d)
		} else {
			sweeps = append(sweeps, d)
		}
	}
	return route, sweeps
}

// recordSweeps records each sweep on the payments it moved (the address's history), once the
// range's payments are recorded.
func (s *Scanner) recordSweeps(ctx context.Context, sweeps []intent.Deposit) error {
	for _, d := range sweeps {
		if _, err := s.Store.RecordDepositAddressSweep(ctx, d.ChainID, d.SweptFrom, d.Currency, d.Amount, d.TxHash, d.BlockNumber); err != nil {
			return err
		}
		s.Logger.Debug("a deposit address's sweep: not routed", "chainId", d.ChainID, "tx", d.TxHash, "address", d.SweptFrom,
			"orderId", d.OrderID)
	}
	return nil
}
