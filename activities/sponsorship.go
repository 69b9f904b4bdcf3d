package activities

import (
	"context"

	"github.com/intentd/intentd/intent"
)

// Sponsorships is the sponsorship ledger and the settlement of landed fills (store.Store). Each
// call is idempotent by request id: a retry answers what the first call did.
type Sponsorships interface {
	ReserveSponsorship(ctx context.Context, requestID string, sp intent.Sponsor) (reserved bool, err error)
	ReleaseSponsorship(ctx context.Context, requestID string) error
	SettleFill(ctx context.Context, st intent.Settlement) error
}

// SponsorshipActivities make integrators pay what they sponsor: a sponsored request reserves the
// sponsored USD before its fill is signed, and the reservation is charged when the fill lands or
// released when the request is refunded or fails. A fill is only signed once its reservation is
// held, so a sponsorship nobody can pay never costs the solver a fill.
type SponsorshipActivities struct {
	Store Sponsorships
}

// ReserveInput names the sponsored request and what it sponsors.
type ReserveInput struct {
	RequestID string
	Sponsor   intent.Sponsor
}

// Reservation says whether the sponsor's balance covered the request: when it did not, nothing
// was taken and the request is refunded with SPONSOR_BALANCE_TOO_LOW.
type Reservation struct {
	Reserved bool
}

// ReserveSponsorship takes what a request sponsors off its integrator's balance.
func (a *SponsorshipActivities) ReserveSponsorship(ctx context.Context, in ReserveInput) (*Reservation, error) {
	ok, err := a.Store.ReserveSponsorship(ctx, in.RequestID, in.Sponsor)
	if err != nil {
		return nil, err
	}
	return &Reservation{Reserved: ok}, nil
}

// ReleaseInput names the request whose reservation goes back to its integrator.
type ReleaseInput struct {
	RequestID string
}

// ReleaseSponsorship gives a refunded or failed request's reservation back.
func (a *SponsorshipActivities) ReleaseSponsorship(ctx context.Context, in ReleaseInput) error {
	return a.Store.ReleaseSponsorship(ctx, in.RequestID)
}

// SettleFill settles a landed fill: it charges the sponsor's reservation, if any, writes
// feeSponsorship.actual.sponsorPayment on the record and records the app fees owed.
func (a *SponsorshipActivities) SettleFill(ctx context.Context, in intent.Settlement) error {
	return a.Store.SettleFill(ctx, in)
}
