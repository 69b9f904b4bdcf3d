package workflows

import (
	"context"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/activities"
	"github.com/intentd/intentd/intent"
)

// sponsoredHarness is a harness whose execution is sponsored by integrator "acme" and that logs,
// in order, the calls of the sponsorship activities, the fill and the refund.
type sponsoredHarness struct {
	*harness
	reserves bool // what ReserveSponsorship answers
}

func newSponsoredHarness(t *testing.T, reserves bool) *sponsoredHarness {
	h := &sponsoredHarness{harness: newHarness(t), reserves: reserves}
	h.env.OnActivity(sponsorActs.ReserveSponsorship, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.ReserveInput) (*activities.Reservation, error) {
			require.Equal(t, "acme", in.Sponsor.IntegratorID)
			h.calls = append(h.calls, "reserve")
			return &activities.Reservation{Reserved: h.reserves}, nil
		})
	h.env.OnActivity(sponsorActs.ReleaseSponsorship, mock.Anything, mock.Anything).Return(
		func(context.Context, activities.ReleaseInput) error {
			h.calls = append(h.calls, "release")
			return nil
		})
	h.env.OnActivity(chainActs.SubmitRefund, mock.Anything, mock.Anything).Return(
		func(context.Context, activities.RefundInput) (*activities.RefundSubmitted, error) {
			h.calls = append(h.calls, "refund")
			return &activities.RefundSubmitted{TxHash: "0xrefund"}, nil
		})
	return h
}

func sponsoredExecution() intent.Execution {
	ex := execution()
	ex.Sponsor = &intent.Sponsor{IntegratorID: "acme", AmountUSD: decimal.RequireFromString("0.05"), Amount: "10"}
	return ex
}

func (h *sponsoredHarness) run(t *testing.T) *IntentResult {
	return h.runExecution(t, sponsoredExecution(), deposit())
}

// A sponsored fill is signed only once the sponsor's balance is held for it, and the landed fill
// charges that reservation.
func TestSponsoredIntentReservesBeforeTheFillAndChargesWhenItLands(t *testing.T) {
	h := newSponsoredHarness(t, true)
	res := h.run(t)
	require.Equal(t, intent.StatusSuccess, res.Status)
	require.Equal(t, []string{"reserve", "fill"}, h.calls)
	require.Len(t, h.settlements, 1)
	require.Equal(t, intent.Settlement{RequestID: "0xabc", Sponsor: sponsoredExecution().Sponsor}, h.settlements[0])
}

// A sponsor whose balance no longer covers the request at fill time costs the solver nothing
// but the refund: no fill is signed, the deposit goes back with SPONSOR_BALANCE_TOO_LOW, and
// nothing is charged.
func TestSponsorBalanceTooLowAtFillTimeRefundsWithoutFilling(t *testing.T) {
	h := newSponsoredHarness(t, false)
	res := h.run(t)
	require.Equal(t, intent.StatusRefund, res.Status)
	require.Equal(t, intent.FailReasonSponsorBalanceTooLow, res.FailReason)
	require.Equal(t, []string{"reserve", "refund"}, h.calls)
	require.Empty(t, h.fills)
	require.Empty(t, h.settlements)
	last := h.transitions[len(h.transitions)-1]
	require.Equal(t, intent.StatusRefund, last.Status)
	require.Equal(t, intent.FailReasonSponsorBalanceTooLow, last.FailReason)
}

// A sponsored fill that reverts paid nothing: the reservation is released before the deposit
// is refunded, and nothing is charged.
func TestSponsoredFillThatRevertsReleasesTheReservation(t *testing.T) {
	h := newSponsoredHarness(t, true)
	h.fillReverts = true
	h.awaitTx = func(_ context.Context, in activities.AwaitTxInput) (*activities.TxIncluded, error) {
		return &activities.TxIncluded{Block: 9, Success: in.Kind != intent.TxKindFill}, nil
	}
	res := h.run(t)
	require.Equal(t, intent.StatusRefund, res.Status)
	require.Equal(t, intent.FailReasonExecutionReverted, res.FailReason)
	require.Equal(t, []string{"reserve", "fill", "release", "refund"}, h.calls)
	require.Empty(t, h.settlements)
}

// An unsponsored intent reserves nothing; its landed fill is still settled (its app fees owed).
func TestUnsponsoredIntentReservesNothingAndSettlesItsFill(t *testing.T) {
	h := newHarness(t)
	res := h.run(t, deposit())
	require.Equal(t, intent.StatusSuccess, res.Status)
	require.Equal(t, []intent.Settlement{{RequestID: "0xabc"}}, h.settlements)
}
