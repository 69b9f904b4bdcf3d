package chains

import (
	"errors"
	"fmt"
	"slices"

	"github.com/shopspring/decimal"
)

// Confirmations by value. A chain's `confirmations` is the depth at which a deposit is final:
// a reorg deeper than it is not expected, so a deposit that deep is relied on whatever its
// value. A small deposit may be relied on earlier, at the depth of its tier
// (`confirmationTiers`): what a reorg of a block or two could take back is then at most the
// tier's value, and the total of such deposits in flight on the chain is bounded by the exposure
// cap (`exposureCapUsd`, docs/operations.md "Confirmations by value"). The engine and the oracle
// apply the same rule, each with its own prices (prices.DepositDepth): the oracle signs a deposit
// only at the depth its own rule gives, and the engine relies on an attestation only once its
// own rule is met too, so the depth a deposit is filled at is the larger of the two.

// ConfirmationTier is one step of a chain's confirmations by value: a deposit worth at most
// MaxUSD (inclusive, a decimal string such as "100", never a JSON number) needs Confirmations.
type ConfirmationTier struct {
	MaxUSD        string `json:"maxUsd"`
	Confirmations uint64 `json:"confirmations"`

	// max is MaxUSD parsed (validateTiers).
	max decimal.Decimal
}

// Max is the tier's MaxUSD as a decimal (set once the registry has validated the chain).
func (t ConfirmationTier) Max() decimal.Decimal { return t.max }

// FinalConfirmations is the depth at which a deposit on the chain is final: its configured
// confirmations, 0 counting as 1 (a deposit in the head block has one confirmation). Deposits
// above every tier, and those whose value cannot be had, wait for it.
func (c *Chain) FinalConfirmations() uint64 { return max(c.Confirmations, 1) }

// LeastConfirmations is the fewest confirmations any deposit on the chain may need: its
// lowest tier's, else FinalConfirmations.
func (c *Chain) LeastConfirmations() uint64 {
	if len(c.ConfirmationTiers) > 0 {
		return max(c.ConfirmationTiers[0].Confirmations, 1)
	}
	return c.FinalConfirmations()
}

// Tiered reports whether the chain relies on some deposits before they are final.
func (c *Chain) Tiered() bool { return len(c.ConfirmationTiers) > 0 }

// DepositConfirmations is how many confirmations a deposit worth usd needs on the chain: those
// of the first tier whose MaxUSD is at least usd, else FinalConfirmations. priced is false when
// the deposit's value could not be had (a currency the chain does not list, a symbol without a
// price, a price source that failed): such a deposit is treated as the largest, never the
// smallest, and waits for FinalConfirmations.
func (c *Chain) DepositConfirmations(usd decimal.Decimal, priced bool) uint64 {
	final := c.FinalConfirmations()
	if !priced || usd.IsNegative() {
		return final
	}
	for _, t := range c.ConfirmationTiers {
		if usd.LessThanOrEqual(t.max) {
			return min(max(t.Confirmations, 1), final)
		}
	}
	return final
}

// ExposureCap is the most USD the engine fills against deposits of the chain that are not yet
// final (exposureCapUsd), or def when the chain file sets none (EXPOSURE_CAP_USD).
func (c *Chain) ExposureCap(def decimal.Decimal) decimal.Decimal {
	if c.exposureCap != nil {
		return *c.exposureCap
	}
	return def
}

// validateTiers checks the chain's confirmationTiers and exposureCapUsd and parses them:
// every maxUsd a positive decimal string, strictly increasing from tier to tier; every tier's
// confirmations at least 1, never fewer than the tier before and never more than the chain's
// confirmations (a tier asking for more than final would make a small deposit wait longer than
// a large one); exposureCapUsd, when set, a decimal of at least 0.
func validateTiers(c *Chain) error {
	c.ConfirmationTiers = slices.Clone(c.ConfirmationTiers) // parsed in place: not the caller's
	final := c.FinalConfirmations()
	for i := range c.ConfirmationTiers {
		t := &c.ConfirmationTiers[i]
		v, err := decimal.NewFromString(t.MaxUSD)
		switch {
		case err != nil:
			return fmt.Errorf("confirmationTiers[%d]: maxUsd %q is not a decimal string such as \"100\"", i, t.MaxUSD)
		case !v.IsPositive():
			return fmt.Errorf("confirmationTiers[%d]: maxUsd %s must be positive", i, t.MaxUSD)
		case t.Confirmations == 0:
			return fmt.Errorf("confirmationTiers[%d]: confirmations must be at least 1", i)
		case t.Confirmations > final:
			return fmt.Errorf("confirmationTiers[%d]: %d confirmations is more than the chain's %d, the depth at which every deposit is final",
				i, t.Confirmations, final)
		}
		if i > 0 {
			prev := c.ConfirmationTiers[i-1]
			if !v.GreaterThan(prev.max) {
				return fmt.Errorf("confirmationTiers[%d]: maxUsd %s must be above the tier before's %s", i, t.MaxUSD, prev.MaxUSD)
			}
			if t.Confirmations < prev.Confirmations {
				return fmt.Errorf("confirmationTiers[%d]: %d confirmations is fewer than the tier before's %d: a larger deposit never waits less",
					i, t.Confirmations, prev.Confirmations)
			}
		}
		t.max = v
	}
	c.exposureCap = nil
	if c.ExposureCapUSD != "" {
		v, err := decimal.NewFromString(c.ExposureCapUSD)
		if err != nil {
			return fmt.Errorf("exposureCapUsd %q is not a decimal string such as \"10000\"", c.ExposureCapUSD)
		}
		if v.IsNegative() {
			return errors.New("exposureCapUsd must be at least 0")
		}
		c.exposureCap = &v
	}
	return nil
}
