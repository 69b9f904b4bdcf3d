package fees

import (
	"errors"
	"fmt"
	"math/big"
	"sort"
)

// Component is a fee component of the `feeSponsorship` object.
type Component string

// The sponsorable fee components.
const (
	ComponentExecution Component = "execution"
	ComponentSwap      Component = "swap"
	ComponentPlatform  Component = "platform"
	ComponentApp       Component = "app"
	ComponentRent      Component = "rent"
)

// Components lists every component in the fixed order used for reporting and for consuming the
// sponsorship cap. Treat it as read-only.
var Components = []Component{ComponentExecution, ComponentSwap, ComponentPlatform, ComponentApp, ComponentRent}

func knownComponent(c Component) bool {
	for _, k := range Components {
		if k == c {
			return true
		}
	}
	return false
}

// Flow is the kind of quote a sponsorship is attached to.
type Flow string

// The flows Validate distinguishes.
const (
	// FlowSwap is a swap execution flow, the only flow supporting subsidizationBps.
	FlowSwap Flow = "swap"
	// FlowBridge is a bridge flow: subsidizationBps answers 400.
	FlowBridge Flow = "bridge"
	// FlowDepositAddress is a deposit-address quote: neither subsidizationBps nor
	// sponsoredFeeComponents is supported.
	FlowDepositAddress Flow = "deposit-address"
)

// Sponsorship is the sponsorship part of a quote request.
type Sponsorship struct {
	// Subsidize is `subsidizeFees`.
	Subsidize bool
	// Selected is `sponsoredFeeComponents`; empty with Subsidize means all components.
	// Duplicates are harmless.
	Selected []Component
	// Bps is `subsidizationBps`, the share of each selected component the sponsor covers;
	// nil means 10000 (all of it).
	Bps *int64
	// Max is `maxSubsidizationAmount`, the cap on the sponsor's total in the fee currency's
	// smallest unit; nil means no cap.
	Max *big.Int
	// AllOrNothing makes Max all-or-nothing, as deposit-address flows have it: when the fees to
	// sponsor exceed the cap, the sponsor pays none of them and the user pays all.
	AllOrNothing bool
}

// Validate checks the sponsorship options of a request for the given flow. Errors name the
// request field and are meant to be answered as 400. Rules:
//
//   - subsidizationBps must be from 0 to 10000, requires subsidizeFees: true, and is rejected
//     on bridge and deposit-address flows (supported only on swap execution flows);
//   - sponsoredFeeComponents may name only execution, swap, platform, app and rent, is
//     rejected on deposit-address flows, and requires subsidizeFees: true (decision: a
//     selection that would silently do nothing is a client error, like subsidizationBps);
//   - maxSubsidizationAmount must not be negative and requires subsidizeFees: true (same
//     decision: every sponsorship option requires subsidizeFees: true);
//   - flow must be one of FlowSwap, FlowBridge, FlowDepositAddress.
//
// The first failing rule is reported, in the order above.
func (s Sponsorship) Validate(flow Flow) error {
	switch flow {
	case FlowSwap, FlowBridge, FlowDepositAddress:
	default:
		return fmt.Errorf("fees: unknown flow %q", string(flow))
	}
	if s.Bps != nil {
		if *s.Bps < 0 || *s.Bps > MaxBps {
			return fmt.Errorf("subsidizationBps must be an integer from 0 to %d, got %d", MaxBps, *s.Bps)
		}
		if !s.Subsidize {
			return errors.New("subsidizationBps requires subsidizeFees: true")
		}
		if flow != FlowSwap {
			return fmt.Errorf("subsidizationBps is supported only on swap execution flows, not on %s flows", flow)
		}
	}
	if len(s.Selected) > 0 {
		for _, c := range s.Selected {
			if !knownComponent(c) {
				return fmt.Errorf("sponsoredFeeComponents: unknown component %q (allowed: execution, swap, platform, app, rent)", string(c))
			}
		}
		if flow == FlowDepositAddress {
			return errors.New("sponsoredFeeComponents is not supported on deposit-address flows")
		}
		if !s.Subsidize {
			return errors.New("sponsoredFeeComponents requires subsidizeFees: true")
		}
	}
	if s.Max != nil {
		if s.Max.Sign() < 0 {
			return fmt.Errorf("maxSubsidizationAmount must be a non-negative integer, got %s", s.Max)
		}
		if !s.Subsidize {
			return errors.New("maxSubsidizationAmount requires subsidizeFees: true")
		}
	}
	return nil
}

// ComponentResult is one component of a `feeSponsorship` phase.
type ComponentResult struct {
	Selected bool
	// Sponsored + UserPays == Total.
	Total, Sponsored, UserPays *big.Int
}

// Result is a `feeSponsorship` phase.
type Result struct {
	// Components has an entry for each of Components, plus one for any other key of the
	// totals passed to Apply (never selected, paid by the user).
	Components map[Component]ComponentResult
	// SponsoredTotal + UserPaysTotal == the sum of all totals.
	SponsoredTotal, UserPaysTotal *big.Int
	// CapHit is true when maxSubsidizationAmount reduced the sponsor's contribution below what
	// subsidizationBps alone gives (a cap exactly equal to that amount is not hit).
	CapHit bool
	// SelectedComponents lists the sponsored components in the order of Components; empty,
	// never nil, when nothing is sponsored.
	SelectedComponents []Component
}

// Apply splits each component total between the sponsor and the user.
//
//  1. Selection: nothing is sponsored unless Subsidize; with Subsidize, the components in
//     Selected, or all of Components when Selected is empty. Unknown names in Selected are
//     ignored (Validate rejects them), so a selection naming only unknown components sponsors
//     nothing.
//  2. Share: per selected component, wanted = floor(Total x Bps / 10000), rounded DOWN; Bps nil
//     means 10000, values outside 0..10000 are clamped. A nil total is 0; a non-positive total
//     is never sponsored.
//  3. Cap (deterministic): the cap Max is consumed component by component in the fixed order
//     execution, swap, platform, app, rent; each gets min(wanted, remaining cap). A component
//     earlier in the order is therefore covered in full before a later one gets anything.
//     Max nil means no cap; a negative Max is treated as 0. CapHit is set when any component
//     got less than wanted.
//  4. All or nothing: with AllOrNothing, a cap that is hit sponsors nothing: every component is
//     the user's, CapHit stays set and the selection is still reported.
//
// Keys of totals outside Components are reported as unselected components the user pays, so no
// amount is ever dropped. totals is not modified.
func (s Sponsorship) Apply(totals map[Component]*big.Int) Result {
	selected := map[Component]bool{}
	if s.Subsidize {
		if len(s.Selected) == 0 {
			for _, c := range Components {
				selected[c] = true
			}
		}
		for _, c := range s.Selected {
			if knownComponent(c) {
				selected[c] = true
			}
		}
	}
	bps := int64(MaxBps)
	if s.Bps != nil {
		bps = min(max(*s.Bps, 0), MaxBps)
	}
	var remaining *big.Int // nil: no cap
	if s.Max != nil {
		remaining = new(big.Int)
		if s.Max.Sign() > 0 {
			remaining.Set(s.Max)
		}
	}

	order := append([]Component(nil), Components...)
	var extra []Component
	for c := range totals {
		if !knownComponent(c) {
			extra = append(extra, c)
		}
	}
	sort.Slice(extra, func(i, j int) bool { return extra[i] < extra[j] })
	order = append(order, extra...)

	res := Result{
		Components:         make(map[Component]ComponentResult, len(order)),
		SponsoredTotal:     new(big.Int),
		UserPaysTotal:      new(big.Int),
		SelectedComponents: []Component{},
	}
	for _, c := range order {
		total := new(big.Int)
		if t := totals[c]; t != nil {
			total.Set(t)
		}
		sponsored := new(big.Int)
		if selected[c] {
			res.SelectedComponents = append(res.SelectedComponents, c)
			sponsored = bpsFloor(total, bps)
			if remaining != nil {
				if sponsored.Cmp(remaining) > 0 {
					sponsored.Set(remaining)
					res.CapHit = true
				}
				remaining.Sub(remaining, sponsored)
			}
		}
		userPays := new(big.Int).Sub(total, sponsored)
		res.Components[c] = ComponentResult{Selected: selected[c], Total: total, Sponsored: sponsored, UserPays: userPays}
		res.SponsoredTotal.Add(res.SponsoredTotal, sponsored)
		res.UserPaysTotal.Add(res.UserPaysTotal, userPays)
	}
	if s.AllOrNothing && res.CapHit {
		for c, cr := range res.Components {
			res.Components[c] = ComponentResult{Selected: cr.Selected, Total: cr.Total, Sponsored: new(big.Int), UserPays: new(big.Int).Set(cr.Total)}
		}
		res.UserPaysTotal.Add(res.UserPaysTotal, res.SponsoredTotal)
		res.SponsoredTotal = new(big.Int)
	}
	return res
}
