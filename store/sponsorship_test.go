package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

const sponsorWallet = "0x00000000000000000000000000000000000000a1"

// by is who the tests' audited changes are made by.
var by = store.Actor{Name: "test", Via: store.ViaCLI, Reason: "test"}

// sponsorStore is a store with an integrator "acme" holding a sponsorship wallet and balance
// (topped up); it returns the integrator's id.
func sponsorStore(t *testing.T, balance string) (*store.Store, string) {
	t.Helper()
	st := store.New(testenv.Pool(t))
	ctx := context.Background()
	wallet, chain := sponsorWallet, uint64(31337)
	in, err := st.CreateIntegrator(ctx, auth.Integrator{Name: "acme", SponsorWallet: wallet, SponsorChainID: chain}, by)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.UpdateIntegrator(ctx, in.ID, store.IntegratorUpdate{SponsorWallet: &wallet, SponsorChainID: &chain}, by); err != nil {
		t.Fatal(err)
	}
	if _, err := st.TopUpSponsorBalance(ctx, in.ID, decimal.RequireFromString(balance), by); err != nil {
		t.Fatal(err)
	}
	return st, in.ID
}

// newRequest stores a quoted request with rec as its record.
func newRequest(t *testing.T, st *store.Store, id string, rec intent.Record) {
	t.Helper()
	rec.ID, rec.Status = id, intent.StatusWaiting
	if err := st.InsertQuote(context.Background(), intent.NewQuote{Record: rec, OrderID: "order-" + id,
		ExpiresAt: time.Now().Add(time.Minute), Origin: 31337, Dest: 31338}); err != nil {
		t.Fatal(err)
	}
}

func balanceOf(t *testing.T, st *store.Store, acme string) decimal.Decimal {
	t.Helper()
	a, err := st.SponsorAccount(context.Background(), acme)
	if err != nil {
		t.Fatal(err)
	}
	return a.BalanceUSD
}

// ledgerSum is the sum of the integrator's ledger deltas, which must equal its balance.
func ledgerSum(t *testing.T, st *store.Store, acme string) decimal.Decimal {
	t.Helper()
	var s decimal.Decimal
	if err := st.Pool().QueryRow(context.Background(), `SELECT COALESCE(sum(delta_usd), 0)::text FROM sponsorship_ledger
		WHERE integrator_id = $1`, acme).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

func sponsor(acme, usd string) intent.Sponsor {
	return intent.Sponsor{IntegratorID: acme, AmountUSD: decimal.RequireFromString(usd), Amount: "1"}
}

// A reservation takes the sponsored USD off the balance, a retry takes nothing more, the charge
// spends it (sponsorPayment on the record, in micro-dollars) and a release after the charge
// gives nothing back; every movement is a ledger row and the rows add up to the balance.
func TestSponsorshipReserveChargeRelease(t *testing.T) {
	ctx := context.Background()
	st, acme := sponsorStore(t, "1")
	newRequest(t, st, "r1", intent.Record{Data: intent.RecordData{FeeSponsorship: &intent.FeeSponsorship{
		Quoted: &intent.SponsorshipPhase{SelectedComponents: []string{"execution"}, SponsoredTotal: intent.Amount{Amount: "1"}}}}})
	for range 2 {
		ok, err := st.ReserveSponsorship(ctx, "r1", sponsor(acme, "0.25"))
		if err != nil || !ok {
			t.Fatalf("reserve: %v %v", ok, err)
		}
	}
	if b := balanceOf(t, st, acme); !b.Equal(decimal.RequireFromString("0.75")) {
		t.Fatalf("balance after reserving 0.25 twice over: %s, want 0.75", b)
	}
	sp := sponsor(acme, "0.25")
	for range 2 {
		if err := st.SettleFill(ctx, intent.Settlement{RequestID: "r1", Sponsor: &sp}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.ReleaseSponsorship(ctx, "r1"); err != nil {
		t.Fatal(err)
	}
	if b := balanceOf(t, st, acme); !b.Equal(decimal.RequireFromString("0.75")) {
		t.Fatalf("balance after the charge and a late release: %s, want 0.75", b)
	}
	if s := ledgerSum(t, st, acme); !s.Equal(balanceOf(t, st, acme)) {
		t.Fatalf("ledger adds up to %s, balance %s", s, balanceOf(t, st, acme))
	}
	var kinds []string
	rows, _ := st.Pool().Query(ctx, `SELECT kind FROM sponsorship_ledger ORDER BY id`)
	for rows.Next() {
		var k string
		_ = rows.Scan(&k)
		kinds = append(kinds, k)
	}
	if fmt.Sprint(kinds) != "[topup reserve charge]" {
		t.Fatalf("ledger kinds %v", kinds)
	}
	rec, err := st.Record(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	want := intent.SponsorPayment{Amount: "250000", Address: intent.ChecksumAddress(sponsorWallet), ChainID: 31337}
	if a := rec.Data.FeeSponsorship.Actual; a == nil || a.SponsorPayment == nil || *a.SponsorPayment != want {
		t.Fatalf("feeSponsorship.actual %+v, want sponsorPayment %+v", a, want)
	}
}

// A refunded request's reservation goes back once; a request the balance does not cover is
// declined, takes nothing, and stays declined on a retry even after a top-up.
func TestSponsorshipReleaseAndDecline(t *testing.T) {
	ctx := context.Background()
	st, acme := sponsorStore(t, "0.30")
	newRequest(t, st, "r1", intent.Record{})
	newRequest(t, st, "r2", intent.Record{})
	if ok, err := st.ReserveSponsorship(ctx, "r1", sponsor(acme, "0.20")); err != nil || !ok {
		t.Fatalf("reserve r1: %v %v", ok, err)
	}
	if ok, err := st.ReserveSponsorship(ctx, "r2", sponsor(acme, "0.20")); err != nil || ok {
		t.Fatalf("reserve r2 over the balance: %v %v, want declined", ok, err)
	}
	if _, err := st.TopUpSponsorBalance(ctx, acme, decimal.NewFromInt(5), by); err != nil {
		t.Fatal(err)
	}
	if ok, err := st.ReserveSponsorship(ctx, "r2", sponsor(acme, "0.20")); err != nil || ok {
		t.Fatalf("retried reserve of r2: %v %v, want the first answer (declined)", ok, err)
	}
	for range 2 {
		if err := st.ReleaseSponsorship(ctx, "r1"); err != nil {
			t.Fatal(err)
		}
	}
	if b := balanceOf(t, st, acme); !b.Equal(decimal.RequireFromString("5.30")) {
		t.Fatalf("balance %s, want 5.30", b)
	}
	if s := ledgerSum(t, st, acme); !s.Equal(balanceOf(t, st, acme)) {
		t.Fatalf("ledger adds up to %s, balance %s", s, balanceOf(t, st, acme))
	}
	if _, err := st.AdjustSponsorBalance(ctx, acme, decimal.NewFromInt(-6), by); !errors.Is(err, store.ErrBalanceTooLow) {
		t.Fatalf("adjusting below zero: %v", err)
	}
	if _, err := st.AdjustSponsorBalance(ctx, "nobody", decimal.NewFromInt(1), by); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown integrator: %v", err)
	}
	if _, err := st.SponsorAccount(ctx, "nobody"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown integrator's account: %v", err)
	}
	// A wallet removed: nothing more can be reserved, whatever the balance.
	none, zero := "", uint64(0)
	if _, err := st.UpdateIntegrator(ctx, acme, store.IntegratorUpdate{SponsorWallet: &none, SponsorChainID: &zero}, by); err != nil {
		t.Fatal(err)
	}
	newRequest(t, st, "r3", intent.Record{})
	if ok, err := st.ReserveSponsorship(ctx, "r3", sponsor(acme, "0.01")); err != nil || ok {
		t.Fatalf("reserve without a wallet: %v %v", ok, err)
	}
}

// Reservations racing for one balance never overdraw it: of 40 concurrent reservations of 0.05
// against 1.00, exactly 20 are held, the balance ends at 0, and the ledger adds up to it.
func TestConcurrentReservationsNeverOverdraw(t *testing.T) {
	ctx := context.Background()
	st, acme := sponsorStore(t, "1.00")
	const n = 40
	for i := range n {
		newRequest(t, st, fmt.Sprintf("c%d", i), intent.Record{})
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	held := 0
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := st.ReserveSponsorship(ctx, fmt.Sprintf("c%d", i), sponsor(acme, "0.05"))
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				held++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if held != 20 {
		t.Fatalf("%d reservations held, want 20", held)
	}
	if b := balanceOf(t, st, acme); !b.IsZero() {
		t.Fatalf("balance %s, want 0", b)
	}
	if s := ledgerSum(t, st, acme); !s.IsZero() {
		t.Fatalf("ledger adds up to %s, want 0", s)
	}
}

// A landed fill's app fees are recorded as owed once, at most what was paid for them.
func TestSettleFillRecordsAppFeesOwedOnce(t *testing.T) {
	ctx := context.Background()
	st := store.New(testenv.Pool(t))
	usdc := intent.Currency{ChainID: 31337, Address: "0xUSDC", Symbol: "USDC", Decimals: 6}
	newRequest(t, st, "r1", intent.Record{Data: intent.RecordData{
		FeeSponsorship: &intent.FeeSponsorship{Quoted: &intent.SponsorshipPhase{Components: map[string]intent.SponsoredComponent{
			"app": {Total: intent.Amount{Amount: "70"}, Sponsored: intent.Amount{Amount: "0"}, UserPays: intent.Amount{Amount: "70"}}}}},
		AppFees: &intent.AppFees{Currency: usdc, Quoted: []intent.AppFeeAmount{{Recipient: "0xA", Amount: "50"}, {Recipient: "0xB", Amount: "20"}}},
	}})
	for range 2 {
		if err := st.SettleFill(ctx, intent.Settlement{RequestID: "r1"}); err != nil {
			t.Fatal(err)
		}
	}
	owed, err := st.AppFeesOwed(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if len(owed) != 2 || owed[0].Amount.String() != "50" || owed[1].Amount.String() != "20" || owed[1].Recipient != "0xB" ||
		owed[0].Currency != "0xUSDC" || owed[0].ChainID != 31337 {
		t.Fatalf("owed %+v", owed)
	}
	rec, err := st.Record(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if a := rec.Data.AppFees.Actual; len(a) != 2 || a[0].Amount != "50" {
		t.Fatalf("appFees.actual %+v", a)
	}
	if err := st.SettleFill(ctx, intent.Settlement{RequestID: "unknown"}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown request: %v", err)
	}
}
