package fees

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"

	"github.com/shopspring/decimal"
)

// MaxBps is 100% in basis points.
const MaxBps = 10000

// Platform-fee rates by bucket, in basis points (spec table "Platform fee charged to end
// users": 0.00%, 0.01%, 0.06%, 0.15%).
var platformBps = map[Class]decimal.Decimal{
	ClassBridge:     decimal.Zero,
	ClassWrap:       decimal.Zero,
	ClassStablecoin: decimal.NewFromInt(1),
	ClassMajor:      decimal.NewFromInt(6),
	ClassMinor:      decimal.NewFromInt(15),
}

// PlatformBps returns the platform fee rate of a bucket in basis points (1 bps = 0.01%), as an
// exact decimal: bridge and wrap 0, stablecoin 1 (0.01%), major 6 (0.06%), minor 15 (0.15%).
// An unrecognised class is priced as minor, so a bad bucket can never undercharge.
func PlatformBps(c Class) decimal.Decimal {
	if bps, ok := platformBps[c]; ok {
		return bps
	}
	return platformBps[ClassMinor]
}

// Revenue-share tiers (spec table "Revenue share on platform fees").
var (
	// tier1FloorUSD is the eligibility threshold: trailing volume must EXCEED it.
	tier1FloorUSD = decimal.NewFromInt(10_000_000)
	// tier2FloorUSD starts the second tier (inclusive).
	tier2FloorUSD = decimal.NewFromInt(100_000_000)

	tier1Share = map[Class]decimal.Decimal{
		ClassStablecoin: decimal.RequireFromString("0.34"),
		ClassMajor:      decimal.RequireFromString("0.25"),
		ClassMinor:      decimal.RequireFromString("0.3333"),
	}
	tier2Share = map[Class]decimal.Decimal{
		ClassStablecoin: decimal.RequireFromString("0.67"),
		ClassMajor:      decimal.RequireFromString("0.50"),
		ClassMinor:      decimal.RequireFromString("0.6667"),
	}
)

// Integrator is what the fee model needs to know about the integrator behind a quote.
type Integrator struct {
	// HasAPIKey: an API key was passed in the quote.
	HasAPIKey bool
	// BusinessVerified: business verification is completed.
	BusinessVerified bool
	// Volume30dUSD is the trailing-30-day aggregate USD volume.
	Volume30dUSD decimal.Decimal
	// PayoutAddress is the EVM address the integrator's share is paid to.
	PayoutAddress string
}

// Eligible reports whether the integrator qualifies for revenue share (spec "Eligibility"): an
// API key is passed, business verification is completed, the trailing 30-day volume EXCEEDS
// USD 10,000,000 (exactly 10,000,000 does not qualify), and an EVM payout address is supplied.
// A valid EVM address is "0x" followed by 40 hex digits, not the zero address; the EIP-55
// checksum of mixed-case addresses is not verified here (no hashing dependency): the address
// was checked when it was set (auth.CheckIntegrator) and is stored checksummed.
func Eligible(in Integrator) bool {
	return in.HasAPIKey && in.BusinessVerified && in.Volume30dUSD.GreaterThan(tier1FloorUSD) &&
		isEVMAddress(in.PayoutAddress)
}

// tier returns 0 for an ineligible integrator, else 1 (volume > 10M and < 100M) or 2 (volume >=
// 100M, including volume >= 1B).
func tier(in Integrator) int {
	switch {
	case !Eligible(in):
		return 0
	case in.Volume30dUSD.LessThan(tier2FloorUSD):
		return 1
	default:
		return 2
	}
}

// RevenueShare returns the integrator's share of the platform fee as a fraction in [0, 1]:
//
//	tier                   bridge/wrap  stablecoin  major  minor
//	> 10M  and < 100M      0            0.34        0.25   0.3333
//	>= 100M (incl. >= 1B)  0            0.67        0.50   0.6667
//
// Tier bounds: the spec's "10M to 100M" and "100M to 1B" are read as [lower, upper), except that
// the 10M threshold is strict ("exceeds"); exactly 100M is the upper tier. The spec has no tier
// above 1B, so volume of 1B or more keeps the top (100M to 1B) rates. An ineligible integrator
// (see Eligible) and an unrecognised class get 0.
func RevenueShare(c Class, in Integrator) decimal.Decimal {
	var share decimal.Decimal
	switch tier(in) {
	case 1:
		share = tier1Share[c]
	case 2:
		share = tier2Share[c]
	}
	return share // zero value for bridge, wrap, unknown classes and tier 0
}

// PlatformSplit is a priced platform fee (the record's `platformFee` object).
type PlatformSplit struct {
	Bucket Class
	// RuleID names the default rule applied: "<bucket>:<tier>" with tier "standard" (no
	// revenue share), "rs-10m-100m" or "rs-100m-1b", e.g. "major:rs-10m-100m".
	RuleID string
	// TotalBps is charged to the user; IntegratorBps = TotalBps x RevenueShare;
	// ServiceBps = TotalBps - IntegratorBps. All exact, in basis points.
	TotalBps, ServiceBps, IntegratorBps decimal.Decimal
	// Total is what the user pays; Service + Integrator == Total.
	Total, Service, Integrator *big.Int
	// IntegratorRecipient is the payout address when a non-zero share rate applies, else "".
	IntegratorRecipient string
}

var ruleTier = [...]string{"standard", "rs-10m-100m", "rs-100m-1b"}

// Platform prices the platform fee of a trade of bucket c on base (the amount, in the fee
// currency's smallest unit, the rate applies to) and splits it between the service and the
// integrator.
//
//	Total      = ceil(base x TotalBps / 10000)   rounded UP: the service never undercharges
//	Integrator = floor(Total x RevenueShare)      rounded DOWN, a share of the fee actually charged
//	Service    = Total - Integrator
//
// The user always pays the full Total: revenue share moves part of the fee to the integrator
// and never discounts the user. A nil or negative base prices a zero fee.
func Platform(c Class, base *big.Int, in Integrator) PlatformSplit {
	totalBps := PlatformBps(c)
	share := RevenueShare(c, in)
	intBps := totalBps.Mul(share)

	total := new(big.Int)
	if base != nil && base.Sign() > 0 {
		total = decimal.NewFromBigInt(base, 0).Mul(totalBps).Shift(-4).Ceil().BigInt()
	}
	integrator := decimal.NewFromBigInt(total, 0).Mul(share).Floor().BigInt()
	service := new(big.Int).Sub(total, integrator)

	split := PlatformSplit{
		Bucket:        c,
		RuleID:        string(c) + ":" + ruleTier[tier(in)],
		TotalBps:      totalBps,
		ServiceBps:    totalBps.Sub(intBps),
		IntegratorBps: intBps,
		Total:         total,
		Service:       service,
		Integrator:    integrator,
	}
	if share.Sign() > 0 {
		split.IntegratorRecipient = in.PayoutAddress
	}
	return split
}

// AppFee is one entry of the request's appFees: a recipient and a fee in integer basis points.
type AppFee struct {
	Recipient string
	Bps       int64
}

// ParseAppFee builds an AppFee from the request's {recipient, fee} strings, where fee is basis
// points as a decimal integer string. It rejects a non-integer fee, a fee outside 0..10000 and
// an empty recipient.
func ParseAppFee(recipient, fee string) (AppFee, error) {
	if recipient == "" {
		return AppFee{}, errors.New("appFees: recipient is required")
	}
	bps, err := strconv.ParseInt(fee, 10, 64)
	if err != nil {
		return AppFee{}, fmt.Errorf("appFees: fee must be an integer number of basis points, got %q", fee)
	}
	if bps < 0 || bps > MaxBps {
		return AppFee{}, fmt.Errorf("appFees: fee must be from 0 to %d basis points, got %d", MaxBps, bps)
	}
	return AppFee{Recipient: recipient, Bps: bps}, nil
}

// AppFees prices each app fee on base: amounts[i] = floor(base x fees[i].Bps / 10000), rounded
// DOWN, and total is their sum. App fees are added on top by the integrator and are not
// validated here (see ParseAppFee): a non-positive Bps, or a nil or negative base, prices 0.
// amounts has one entry per fee, in order, and is non-nil.
func AppFees(base *big.Int, fees []AppFee) (amounts []*big.Int, total *big.Int) {
	amounts = make([]*big.Int, len(fees))
	total = new(big.Int)
	for i, f := range fees {
		amounts[i] = bpsFloor(base, f.Bps)
		total.Add(total, amounts[i])
	}
	return amounts, total
}

// bpsFloor returns floor(amount x bps / 10000) as a new big.Int; 0 when amount is nil or
// non-positive or bps is non-positive.
func bpsFloor(amount *big.Int, bps int64) *big.Int {
	out := new(big.Int)
	if amount == nil || amount.Sign() <= 0 || bps <= 0 {
		return out
	}
	out.Mul(amount, big.NewInt(bps))
	return out.Quo(out, big.NewInt(MaxBps)) // both operands positive: Quo truncates = floor
}

// isEVMAddress reports whether s is "0x" + 40 hex digits and not the zero address.
func isEVMAddress(s string) bool {
	if len(s) != 42 || s[0] != '0' || s[1] != 'x' {
		return false
	}
	nonZero := false
	for i := 2; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
		default:
			return false
		}
		if c != '0' {
			nonZero = true
		}
	}
	return nonZero
}
