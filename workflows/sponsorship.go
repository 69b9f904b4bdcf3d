package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/intentd/intentd/activities"
	"github.com/intentd/intentd/intent"
)

// sponsor holds, for a sponsored request, what its integrator sponsors before anything is
// signed. An operator's refund accepted meanwhile wins (the reservation is given back); a
// balance that no longer covers it refunds the deposit with SPONSOR_BALANCE_TOO_LOW. The
// reservation is released when the request is refunded or fails, and charged when its fill
// lands (settle).
func (r *intentRun) sponsor(ctx workflow.Context) (done bool, err error) {
	if r.in.Execution.Sponsor == nil {
		return false, nil
	}
	ok, err := r.reserveSponsorship(ctx)
	if err != nil {
		return true, err
	}
	if r.adminPending {
		r.releaseSponsorship(ctx)
		return true, r.adminRefund(ctx)
	}
	if !ok {
		return true, r.refund(ctx, intent.FailReasonSponsorBalanceTooLow)
	}
	return false, nil
}

// reserveSponsorship holds what the execution sponsors on its integrator's balance (a local
// activity: one short, idempotent database transaction). It reports false when the balance no
// longer covers it.
func (r *intentRun) reserveSponsorship(ctx workflow.Context) (bool, error) {
	ex := r.in.Execution
	var res activities.Reservation
	lctx := workflow.WithLocalActivityOptions(ctx, storeWriteOptions)
	if err := workflow.ExecuteLocalActivity(lctx, sponsorActs.ReserveSponsorship, activities.ReserveInput{
		RequestID: ex.RequestID, Sponsor: *ex.Sponsor}).Get(ctx, &res); err != nil {
		return false, fmt.Errorf("reserve sponsorship: %w", err)
	}
	r.reserved = res.Reserved
	return res.Reserved, nil
}

// releaseSponsorship gives the request's reservation back, if it holds one: the request is
// refunded or fails, so the sponsor pays nothing. A release that cannot be written is logged
// and the request goes on; the reservation then stays held for an operator to release.
func (r *intentRun) releaseSponsorship(ctx workflow.Context) {
	if !r.reserved {
		return
	}
	lctx := workflow.WithLocalActivityOptions(ctx, storeWriteOptions)
	if err := workflow.ExecuteLocalActivity(lctx, sponsorActs.ReleaseSponsorship, activities.ReleaseInput{
		RequestID: r.in.Execution.RequestID}).Get(ctx, nil); err != nil {
		workflow.GetLogger(ctx).Error("sponsorship not released", "requestId", r.in.Execution.RequestID, "error", err)
		return
	}
	r.reserved = false
}

// settle settles the landed fill: the reservation, if the request holds one, is charged and
// named as feeSponsorship.actual.sponsorPayment, and the app fees are recorded as owed.
func (r *intentRun) settle(ctx workflow.Context) error {
	st := intent.Settlement{RequestID: r.in.Execution.RequestID}
	if r.reserved {
		st.Sponsor = r.in.Execution.Sponsor
	}
	lctx := workflow.WithLocalActivityOptions(ctx, storeWriteOptions)
	if err := workflow.ExecuteLocalActivity(lctx, sponsorActs.SettleFill, st).Get(ctx, nil); err != nil {
		return fmt.Errorf("settle fill: %w", err)
	}
	r.reserved = false
	return nil
}
