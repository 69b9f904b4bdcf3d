// Package auth is who calls the API: integrators, their API keys, and the caller a request is
// resolved to. A key is shown once when it is created and stored only as its SHA-256 (keys carry
// 256 bits of entropy, so no stretching is needed); the API resolves a presented key through a
// short cache so a revoked key stops working within seconds on every process. Rate limits
// (package ratelimit) and usage counts (package usage) are keyed by what this package resolves.
// The integrator dashboard's people are here too (dashboard.go): their roles, the argon2id hash
// their passwords are kept as, and the tokens of their sessions and one-time sign-in links.
package auth

import (
	"time"

	"github.com/shopspring/decimal"
)

// Tier selects a key's rate limits: the spec's default and elevated limits, or limits of its own
// (Key.Limits).
type Tier string

// Tiers.
const (
	TierDefault  Tier = "default"
	TierElevated Tier = "elevated"
	TierCustom   Tier = "custom"
)

// Valid reports whether t is a known tier.
func (t Tier) Valid() bool { return t == TierDefault || t == TierElevated || t == TierCustom }

// Rate is a limit: Count requests per Period.
type Rate struct {
	Count  int           `json:"count"`
	Period time.Duration `json:"period"`
}

// Integrator is a business that owns API keys. Its profile decides the platform fee's revenue
// share (BusinessVerified, PayoutAddress) and whether its keys may sponsor fees (a sponsorship
// wallet with a balance).
type Integrator struct {
	ID               string // UUID
	Name             string
	BusinessVerified bool
	PayoutAddress    string // EVM address revenue-share payouts go to; "" when none
	// SponsorWallet and SponsorChainID name where the integrator's sponsorship is paid from
	// (feeSponsorship.actual.sponsorPayment); SponsorBalanceUSD is what it may still sponsor,
	// reservations for fills in flight already taken off.
	SponsorWallet     string
	SponsorChainID    uint64
	SponsorBalanceUSD decimal.Decimal
	CreatedAt         time.Time
}

// Key is a resolved API key: never the key itself, only what it stands for.
type Key struct {
	ID          string // UUID
	Label       string
	Prefix      string // the key's first characters, to recognise it in lists
	Environment string // e.g. "production", "staging", "dev"
	Tier        Tier
	// Limits are the key's own limits by bucket name (package ratelimit), used with TierCustom
	// and overriding the tier's for the buckets they name.
	Limits map[string]Rate
	// Unlimited is set for the development key `intentd-dev dev` prints: no rate limit applies,
	// so the SDK suite and load tools run against the embedded default.
	Unlimited  bool
	Integrator Integrator
	CreatedAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}
