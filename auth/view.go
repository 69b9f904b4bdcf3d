package auth

import (
	"time"

	"github.com/shopspring/decimal"
)

// KeyView is a key as the admin API answers it and the audit trail records it: everything the
// key stands for, never its value (which is not stored) nor its hash (which stays in the
// database), so no view can leak a credential.
type KeyView struct {
	ID           string              `json:"id"`
	IntegratorID string              `json:"integratorId"`
	Label        string              `json:"label"`
	Prefix       string              `json:"prefix"`
	Environment  string              `json:"environment"`
	Tier         Tier                `json:"tier"`
	Limits       map[string]RateView `json:"limits"`
	Unlimited    bool                `json:"unlimited"`
	CreatedAt    time.Time           `json:"createdAt"`
	LastUsedAt   *time.Time          `json:"lastUsedAt"`
	RevokedAt    *time.Time          `json:"revokedAt"`
}

// RateView is a Rate for people: the period as a Go duration ("1m0s", "1s"), where Rate's own
// JSON (kept in the database) has nanoseconds.
type RateView struct {
	Count  int    `json:"count"`
	Period string `json:"period"`
}

// View is the key's KeyView.
func (k *Key) View() KeyView {
	return KeyView{ID: k.ID, IntegratorID: k.Integrator.ID, Label: k.Label, Prefix: k.Prefix, Environment: k.Environment,
		Tier: k.Tier, Limits: RateViews(k.Limits), Unlimited: k.Unlimited, CreatedAt: k.CreatedAt,
		LastUsedAt: k.LastUsedAt, RevokedAt: k.RevokedAt}
}

// RateViews converts limits for display; never nil, so a key without limits shows {}.
func RateViews(limits map[string]Rate) map[string]RateView {
	out := make(map[string]RateView, len(limits))
	for b, r := range limits {
		out[b] = RateView{Count: r.Count, Period: r.Period.String()}
	}
	return out
}

// ParseRates reads limits written as RateViews (the admin API's and the CLI's form).
func ParseRates(in map[string]RateView) (map[string]Rate, error) {
	out := make(map[string]Rate, len(in))
	for b, v := range in {
		d, err := time.ParseDuration(v.Period)
		if err != nil {
			return nil, invalidf("limit %q: period %q is not a duration such as 1s or 1m", b, v.Period)
		}
		out[b] = Rate{Count: v.Count, Period: d}
	}
	return out, nil
}

// IntegratorView is an integrator as the admin API answers it and the audit trail records it.
// The balance is a decimal string (money is never a float).
type IntegratorView struct {
	ID                string          `json:"id"`
	Name              string          `json:"name"`
	BusinessVerified  bool            `json:"businessVerified"`
	PayoutAddress     string          `json:"payoutAddress"`
	SponsorWallet     string          `json:"sponsorWallet"`
	SponsorChainID    uint64          `json:"sponsorChainId"`
	SponsorBalanceUSD decimal.Decimal `json:"sponsorBalanceUsd"`
	CreatedAt         time.Time       `json:"createdAt"`
}

// View is the integrator's IntegratorView.
func (i *Integrator) View() IntegratorView {
	return IntegratorView{ID: i.ID, Name: i.Name, BusinessVerified: i.BusinessVerified, PayoutAddress: i.PayoutAddress,
		SponsorWallet: i.SponsorWallet, SponsorChainID: i.SponsorChainID, SponsorBalanceUSD: i.SponsorBalanceUSD,
		CreatedAt: i.CreatedAt}
}
