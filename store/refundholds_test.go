package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// Issue 33, point 1: "orphan refunds have a budget per depositor and chain (configurable),
// past which they wait for an operator", and "a deposit in a currency the chain's configuration
// does not list is never refunded automatically: it is recorded". Each decision is made once per
// request and kept, whoever asks again.
func TestOrphanRefundsHaveABudgetPerDepositorAndChainAndUnlistedCurrenciesAreHeld(t *testing.T) {
	ctx := context.Background()
	st := store.New(testenv.Pool(t))
	at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	budget := intent.RefundBudget{PerDepositor: 2, Window: 24 * time.Hour}
	const alice, bob = "0xAAAA000000000000000000000000000000000001", "0xbbbb000000000000000000000000000000000002"
	n := 0
	claim := func(chainID uint64, depositor string, at time.Time, unlisted bool) intent.RefundClaim {
		n++
		id := fmt.Sprintf("0x%064x", n)
		require.NoError(t, st.InsertRefundRequest(ctx, intent.RefundRequest{ID: id, Depositor: depositor, RefundTo: depositor,
			ChainID: chainID, At: at}))
		return intent.RefundClaim{RequestID: id, ChainID: chainID, Depositor: depositor, Currency: "0xC0FFEE0000000000000000000000000000000000",
			Amount: "1", At: at, Unlisted: unlisted, Budget: budget}
	}
	decide := func(c intent.RefundClaim, want intent.RefundHold, wantCreated bool) {
		t.Helper()
		hold, created, err := st.ClaimRefund(ctx, c)
		require.NoError(t, err)
		require.Equal(t, want, hold, "request %s", c.RequestID)
		require.Equal(t, wantCreated, created, "request %s", c.RequestID)
	}

	first, second, third := claim(31337, alice, at, false), claim(31337, alice, at.Add(time.Minute), false), claim(31337, alice, at.Add(2*time.Minute), false)
	decide(first, "", false)
	decide(second, "", false)
	decide(third, intent.RefundHoldBudgetExceeded, true)
	// Asked again (a retried activity), each keeps its decision; the held one is not counted again.
	decide(first, "", false)
	decide(third, intent.RefundHoldBudgetExceeded, false)
	// Another depositor, and the same depositor on another chain (in another case), have budgets of their own.
	decide(claim(31337, bob, at, false), "", false)
	decide(claim(31338, alice, at, false), "", false)
	// The window moves on: a day after the first two claims, alice has her budget again.
	decide(claim(31337, alice, at.Add(24*time.Hour+2*time.Minute), false), "", false)
	// An unlisted currency is held whatever the budget, and takes none of it.
	unlisted := claim(31337, bob, at, true)
	decide(unlisted, intent.RefundHoldUnlistedCurrency, true)
	decide(unlisted, intent.RefundHoldUnlistedCurrency, false)
	decide(claim(31337, bob, at, false), "", false)

	holds, err := st.RefundHolds(ctx, 31337, 10)
	require.NoError(t, err)
	require.Len(t, holds, 2)
	require.Equal(t, unlisted.RequestID, holds[0].RequestID) // held at the start of the day
	require.Equal(t, intent.RefundHoldUnlistedCurrency, holds[0].Reason)
	require.Equal(t, "0xc0ffee0000000000000000000000000000000000", holds[0].Currency)
	require.Equal(t, "1", holds[0].Amount)
	require.Equal(t, third.RequestID, holds[1].RequestID)
	require.Equal(t, intent.RefundHoldBudgetExceeded, holds[1].Reason)
	require.Equal(t, "0xaaaa000000000000000000000000000000000001", holds[1].Depositor)
}

// Issue 36, point 2 ("base58 and case-sensitive everywhere"): a Solana depositor's budget is
// its own, not shared with a wallet whose key differs only in case, and a hold keeps the
// depositor and the mint as written.
func TestASolanaDepositorsRefundBudgetIsKeyedAsWritten(t *testing.T) {
	ctx := context.Background()
	st := store.New(testenv.Pool(t))
	at := time.Date(2026, 11, 27, 11, 0, 0, 0, time.UTC)
	budget := intent.RefundBudget{PerDepositor: 1, Window: 24 * time.Hour}
	// Two valid base58 keys that differ only in the case of one letter.
	const wallet, twin, mint = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", "9XQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
		"EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
	require.True(t, intent.IsBase58Key(twin))
	n := 0
	claim := func(depositor string) intent.RefundClaim {
		n++
		id := fmt.Sprintf("0x5%063x", n)
		require.NoError(t, st.InsertRefundRequest(ctx, intent.RefundRequest{ID: id, Depositor: depositor, RefundTo: depositor,
			ChainID: 792703809, At: at}))
		return intent.RefundClaim{RequestID: id, ChainID: 792703809, Depositor: depositor, Currency: mint, Amount: "1", At: at, Budget: budget}
	}
	for _, c := range []struct {
		depositor string
		want      intent.RefundHold
	}{{wallet, ""}, {twin, ""}, {wallet, intent.RefundHoldBudgetExceeded}} {
		hold, _, err := st.ClaimRefund(ctx, claim(c.depositor))
		require.NoError(t, err)
		require.Equal(t, c.want, hold, "depositor %s", c.depositor)
	}
	holds, err := st.RefundHolds(ctx, 792703809, 10)
	require.NoError(t, err)
	require.Len(t, holds, 1)
	require.Equal(t, wallet, holds[0].Depositor)
	require.Equal(t, mint, holds[0].Currency)
}

// The held refunds have a gauge of their own, intentd_refunds_held{reason}, and are not counted by
// intentd_refunds_awaiting_operator: anyone can make junk deposits, and they must page no one.
func TestHeldRefundsAreCountedApartFromRefundsAwaitingAnOperator(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Pool(t)
	st := store.New(pool)
	at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	for i, unlisted := range []bool{true, false} {
		id := fmt.Sprintf("0x%064x", i+1)
		require.NoError(t, st.InsertRefundRequest(ctx, intent.RefundRequest{ID: id, Depositor: "0xd", RefundTo: "0xd", ChainID: 31337, At: at}))
		_, err := pool.Exec(ctx, `UPDATE requests SET status = 'failure', refund_fail_reason = 'MANUAL_REFUND_REQUIRED' WHERE id = $1`, id)
		require.NoError(t, err)
		if unlisted {
			_, _, err := st.ClaimRefund(ctx, intent.RefundClaim{RequestID: id, ChainID: 31337, Depositor: "0xd", Currency: "0xjunk",
				Amount: "1", At: at, Unlisted: true})
			require.NoError(t, err)
		}
	}
	reg := prometheus.NewRegistry()
	require.NoError(t, reg.Register(st.NewGauges(time.Minute)))
	require.Equal(t, 1.0, gauge(t, reg, "intentd_refunds_awaiting_operator", ""), "the held refund is not awaiting an operator's alert")
	require.Equal(t, 1.0, gauge(t, reg, "intentd_refunds_held", "UNLISTED_CURRENCY"))
	require.Equal(t, 0.0, gauge(t, reg, "intentd_refunds_held", "REFUND_BUDGET_EXCEEDED"))
}

// gauge is the value of a gathered gauge, with reason as its reason label when given.
func gauge(t *testing.T, reg *prometheus.Registry, name, reason string) float64 {
	t.Helper()
	families, err := reg.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if reason == "" || (len(m.GetLabel()) == 1 && m.GetLabel()[0].GetValue() == reason) {
				return m.GetGauge().GetValue()
			}
		}
	}
	t.Fatalf("no %s{reason=%q}", name, reason)
	return 0
}
