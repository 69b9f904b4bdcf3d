package workflows

import (
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/intentd/intentd/activities"
	"github.com/intentd/intentd/intent"
)

// exposureHarness is a harness whose attestation holds (or is refused) a share of the origin
// chain's exposure, and that logs the exposure activities among the calls.
func exposureHarness(t *testing.T, reserved bool) *harness {
	h := newHarness(t)
	hold := intent.ExposureHold{RequestID: "0xabc", ChainID: 31337, USD: decimal.NewFromInt(60), DepositBlock: 7, FinalBlock: 10}
	h.attest = func(_ context.Context, in activities.AttestInput) (*activities.AttestResult, error) {
		require.True(t, in.Tiered, "an intent relies on its deposit at its value's tier")
		require.Equal(t, "0xabc", in.RequestID)
		h.calls = append(h.calls, "attest")
		return &activities.AttestResult{Signer: "0xOracle", Exposure: &activities.ExposureResult{ExposureHold: hold, Reserved: reserved}}, nil
	}
	h.onWrite = func(tr intent.Transition) error {
		h.calls = append(h.calls, string(tr.Status))
		return nil
	}
	h.env.OnActivity(oracleActs.AwaitExposure, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.ExposureInput) (*activities.ExposureWaited, error) {
			require.Equal(t, hold, in.ExposureHold)
			time.Sleep(50 * time.Millisecond) // the chain's blocks
			h.calls = append(h.calls, "awaitExposure")
			return &activities.ExposureWaited{Reserved: true}, nil
		})
	h.env.OnActivity(oracleActs.ReleaseExposure, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.ExposureRelease) error {
			require.Equal(t, "0xabc", in.RequestID)
			h.calls = append(h.calls, "release")
			return nil
		})
	return h
}

// "Past the cap, fills wait (status stays pending, never a loss, never a refund because of the
// wait) until exposure drops": the request is written pending, then waits for its share, then
// fills; nothing is refunded.
func TestAFillPastTheCapWaitsPendingThenFills(t *testing.T) {
	h := exposureHarness(t, false)
	res := h.run(t, deposit())
	require.Equal(t, intent.StatusSuccess, res.Status)
	require.Equal(t, []string{"waiting", "attest", "pending", "awaitExposure", "fill", "submitted", "success"}, h.calls)
	require.False(t, res.AwaitingExposure)
}

// Under the cap the share is taken by the attestation itself: no step more than before.
func TestAFillUnderTheCapTakesNoStepMore(t *testing.T) {
	h := exposureHarness(t, true)
	res := h.run(t, deposit())
	require.Equal(t, intent.StatusSuccess, res.Status)
	require.NotContains(t, h.calls, "awaitExposure")
	require.NotContains(t, h.calls, "release")
}

// "Released ... when the fill ... fails": a request that ends paying nothing against its
// deposit (another party filled the order) gives its share back at once.
func TestARequestThatPaysNothingReleasesItsShare(t *testing.T) {
	h := exposureHarness(t, true)
	h.fillRefused = temporal.NewNonRetryableApplicationError("filled", string(intent.FailReasonOrderAlreadyFilled), nil)
	res := h.run(t, deposit())
	require.Equal(t, intent.StatusFailure, res.Status)
	require.Contains(t, h.calls, "release")
}
