package fees

import (
	"math/big"
	"reflect"
	"strings"
	"testing"
)

func i64(v int64) *int64 { return &v }

func TestSponsorshipValidate(t *testing.T) {
	tests := []struct {
		name    string
		s       Sponsorship
		flow    Flow
		wantErr string // substring; "" = valid
	}{
		{"no sponsorship is valid", Sponsorship{}, FlowSwap, ""},
		{"with subsidizeFees true, all components are sponsored", Sponsorship{Subsidize: true}, FlowDepositAddress, ""},
		{"subsidizationBps (integer 0 to 10000): 0", Sponsorship{Subsidize: true, Bps: i64(0)}, FlowSwap, ""},
		{"subsidizationBps (integer 0 to 10000): 10000", Sponsorship{Subsidize: true, Bps: i64(10000)}, FlowSwap, ""},
		{"subsidizationBps (integer 0 to 10000): 10001", Sponsorship{Subsidize: true, Bps: i64(10001)}, FlowSwap, "subsidizationBps"},
		{"subsidizationBps (integer 0 to 10000): -1", Sponsorship{Subsidize: true, Bps: i64(-1)}, FlowSwap, "subsidizationBps"},
		{"subsidizationBps requires subsidizeFees: true", Sponsorship{Bps: i64(5000)}, FlowSwap, "subsidizationBps requires subsidizeFees"},
		{"subsidizationBps: bridge flows return 400 when it is set", Sponsorship{Subsidize: true, Bps: i64(5000)}, FlowBridge, "subsidizationBps"},
		{"subsidizationBps: deposit-address flows return 400 when it is set", Sponsorship{Subsidize: true, Bps: i64(5000)}, FlowDepositAddress, "subsidizationBps"},
		{"sponsoredFeeComponents selects components", Sponsorship{Subsidize: true, Selected: []Component{"execution", "swap", "platform", "app", "rent"}}, FlowSwap, ""},
		{"sponsoredFeeComponents selects components on bridge flows", Sponsorship{Subsidize: true, Selected: []Component{"app"}}, FlowBridge, ""},
		{"sponsoredFeeComponents: unknown component", Sponsorship{Subsidize: true, Selected: []Component{"gas"}}, FlowSwap, `sponsoredFeeComponents: unknown component "gas"`},
		{"sponsoredFeeComponents: names are case-sensitive", Sponsorship{Subsidize: true, Selected: []Component{"Swap"}}, FlowSwap, "sponsoredFeeComponents"},
		{"Deposit addresses do not support sponsoredFeeComponents", Sponsorship{Subsidize: true, Selected: []Component{"swap"}}, FlowDepositAddress, "sponsoredFeeComponents is not supported on deposit-address"},
		{"sponsoredFeeComponents without subsidizeFees (decision: error)", Sponsorship{Selected: []Component{"swap"}}, FlowSwap, "sponsoredFeeComponents requires subsidizeFees"},
		{"maxSubsidizationAmount caps the sponsor's total", Sponsorship{Subsidize: true, Max: big.NewInt(0)}, FlowDepositAddress, ""},
		{"maxSubsidizationAmount negative", Sponsorship{Subsidize: true, Max: big.NewInt(-1)}, FlowSwap, "maxSubsidizationAmount must be a non-negative"},
		{"maxSubsidizationAmount without subsidizeFees (decision: error)", Sponsorship{Max: big.NewInt(10)}, FlowSwap, "maxSubsidizationAmount requires subsidizeFees"},
		{"unknown flow", Sponsorship{}, Flow("teleport"), "unknown flow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.s.Validate(tt.flow)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tt.wantErr != "" && err == nil:
				t.Errorf("want error containing %q, got nil", tt.wantErr)
			case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
		})
	}
}

func totals(exec, swap, platform, app, rent int64) map[Component]*big.Int {
	return map[Component]*big.Int{
		ComponentExecution: big.NewInt(exec), ComponentSwap: big.NewInt(swap), ComponentPlatform: big.NewInt(platform),
		ComponentApp: big.NewInt(app), ComponentRent: big.NewInt(rent),
	}
}

// sponsored renders the sponsored amount of each component in Components order.
func sponsored(r Result) []int64 {
	out := make([]int64, len(Components))
	for i, c := range Components {
		out[i] = r.Components[c].Sponsored.Int64()
	}
	return out
}

func TestSponsorshipApply(t *testing.T) {
	tests := []struct {
		name          string
		s             Sponsorship
		totals        map[Component]*big.Int
		wantSponsored []int64
		wantSelected  []Component
		wantCapHit    bool
	}{
		{"nothing is sponsored without subsidizeFees", Sponsorship{}, totals(100, 200, 300, 400, 500),
			[]int64{0, 0, 0, 0, 0}, []Component{}, false},
		{"nothing is sponsored without subsidizeFees even with options", Sponsorship{Selected: []Component{"swap"}, Bps: i64(10000), Max: big.NewInt(1000)}, totals(100, 200, 300, 400, 500),
			[]int64{0, 0, 0, 0, 0}, []Component{}, false},
		{"with subsidizeFees true, all components are sponsored", Sponsorship{Subsidize: true}, totals(100, 200, 300, 400, 500),
			[]int64{100, 200, 300, 400, 500}, Components, false},
		{"sponsoredFeeComponents selects components", Sponsorship{Subsidize: true, Selected: []Component{"app", "execution", "app"}}, totals(100, 200, 300, 400, 500),
			[]int64{100, 0, 0, 400, 0}, []Component{"execution", "app"}, false},
		{"subsidizationBps sets the share of each selected component, rounded down", Sponsorship{Subsidize: true, Bps: i64(3333)}, totals(100, 200, 3, 10000, 1),
			[]int64{33, 66, 0, 3333, 0}, Components, false},
		{"subsidizationBps 0 sponsors nothing but keeps the selection", Sponsorship{Subsidize: true, Bps: i64(0)}, totals(100, 200, 300, 400, 500),
			[]int64{0, 0, 0, 0, 0}, Components, false},
		{"maxSubsidizationAmount caps the sponsor's total: consumed in order execution, swap, platform, app, rent", Sponsorship{Subsidize: true, Max: big.NewInt(450)}, totals(100, 200, 300, 400, 500),
			[]int64{100, 200, 150, 0, 0}, Components, true},
		{"maxSubsidizationAmount equal to the sponsored amount is not hit", Sponsorship{Subsidize: true, Max: big.NewInt(1500)}, totals(100, 200, 300, 400, 500),
			[]int64{100, 200, 300, 400, 500}, Components, false},
		{"maxSubsidizationAmount 0 sponsors nothing", Sponsorship{Subsidize: true, Max: big.NewInt(0)}, totals(100, 200, 300, 400, 500),
			[]int64{0, 0, 0, 0, 0}, Components, true},
		{"subsidizationBps applied per component before maxSubsidizationAmount", Sponsorship{Subsidize: true, Bps: i64(5000), Max: big.NewInt(200)}, totals(100, 200, 300, 400, 500),
			[]int64{50, 100, 50, 0, 0}, Components, true},
		{"cap order skips unselected components", Sponsorship{Subsidize: true, Selected: []Component{"rent", "swap"}, Max: big.NewInt(250)}, totals(100, 200, 300, 400, 500),
			[]int64{0, 200, 0, 0, 50}, []Component{"swap", "rent"}, true},
		{"missing and nil totals are zero", Sponsorship{Subsidize: true}, map[Component]*big.Int{ComponentSwap: big.NewInt(7), ComponentApp: nil},
			[]int64{0, 7, 0, 0, 0}, Components, false},
		{"negative total is never sponsored", Sponsorship{Subsidize: true}, totals(-5, 10, 0, 0, 0),
			[]int64{0, 10, 0, 0, 0}, Components, false},
		// Issue 35, point 2: deposit addresses have "`maxSubsidizationAmount` all-or-nothing"
		// (public-api-notes §5.1: "if fees exceed cap, user pays all").
		{"all or nothing: fees above maxSubsidizationAmount are all the user's", Sponsorship{Subsidize: true, Max: big.NewInt(1499), AllOrNothing: true},
			totals(100, 200, 300, 400, 500), []int64{0, 0, 0, 0, 0}, Components, true},
		{"all or nothing: fees within maxSubsidizationAmount are all sponsored", Sponsorship{Subsidize: true, Max: big.NewInt(1500), AllOrNothing: true},
			totals(100, 200, 300, 400, 500), []int64{100, 200, 300, 400, 500}, Components, false},
		{"all or nothing: the cap is on what subsidizationBps gives", Sponsorship{Subsidize: true, Bps: i64(5000), Max: big.NewInt(750), AllOrNothing: true},
			totals(100, 200, 300, 400, 500), []int64{50, 100, 150, 200, 250}, Components, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.s.Apply(tt.totals)
			if got := sponsored(r); !reflect.DeepEqual(got, tt.wantSponsored) {
				t.Errorf("sponsored = %v, want %v", got, tt.wantSponsored)
			}
			if !reflect.DeepEqual(r.SelectedComponents, tt.wantSelected) {
				t.Errorf("selected = %v, want %v", r.SelectedComponents, tt.wantSelected)
			}
			if r.CapHit != tt.wantCapHit {
				t.Errorf("capHit = %v, want %v", r.CapHit, tt.wantCapHit)
			}
			checkInvariants(t, tt.s, tt.totals, r)
		})
	}
}

func TestSponsorshipApply_unknownTotalKeysAreUserPaid(t *testing.T) {
	tot := totals(1, 2, 3, 4, 5)
	tot["gas"] = big.NewInt(100)
	r := Sponsorship{Subsidize: true}.Apply(tot)
	g, ok := r.Components["gas"]
	if !ok || g.Selected || g.Sponsored.Sign() != 0 || g.UserPays.Int64() != 100 {
		t.Fatalf("gas component: %+v (present %v)", g, ok)
	}
	if r.SponsoredTotal.Int64() != 15 || r.UserPaysTotal.Int64() != 100 {
		t.Fatalf("totals: sponsored %s user %s", r.SponsoredTotal, r.UserPaysTotal)
	}
}

func TestSponsorshipApply_doesNotMutateInputs(t *testing.T) {
	tot := totals(100, 200, 300, 400, 500)
	max := big.NewInt(450)
	sel := []Component{"rent", "swap", "execution"}
	s := Sponsorship{Subsidize: true, Selected: sel, Bps: i64(9000), Max: max}
	r := s.Apply(tot)
	if max.Int64() != 450 || *s.Bps != 9000 || !reflect.DeepEqual(sel, []Component{"rent", "swap", "execution"}) {
		t.Fatalf("sponsorship mutated: max %s bps %d sel %v", max, *s.Bps, sel)
	}
	if !reflect.DeepEqual(tot, totals(100, 200, 300, 400, 500)) {
		t.Fatalf("totals mutated: %v", tot)
	}
	// Results do not alias inputs.
	for _, c := range Components {
		cr := r.Components[c]
		cr.Total.SetInt64(-1)
		cr.Sponsored.SetInt64(-1)
		cr.UserPays.SetInt64(-1)
	}
	r.SponsoredTotal.SetInt64(-1)
	if max.Int64() != 450 || !reflect.DeepEqual(tot, totals(100, 200, 300, 400, 500)) {
		t.Fatalf("result aliases inputs")
	}
	if !reflect.DeepEqual(Components, []Component{"execution", "swap", "platform", "app", "rent"}) {
		t.Fatalf("Components mutated: %v", Components)
	}
}

// checkInvariants asserts the sponsorship invariants of the spec on a result.
func checkInvariants(t *testing.T, s Sponsorship, tot map[Component]*big.Int, r Result) {
	t.Helper()
	sum, wantSum := new(big.Int), new(big.Int)
	for c, v := range tot {
		if v != nil {
			sum.Add(sum, v)
		}
		if _, ok := r.Components[c]; !ok {
			t.Errorf("component %q missing from result", c)
		}
	}
	for _, c := range Components {
		if _, ok := r.Components[c]; !ok {
			t.Errorf("component %q missing from result", c)
		}
	}
	bps := int64(10000)
	if s.Bps != nil {
		bps = min(max(*s.Bps, 0), 10000)
	}
	capped := false
	for c, cr := range r.Components {
		if cr.Total == nil || cr.Sponsored == nil || cr.UserPays == nil {
			t.Fatalf("%s: nil amount %+v", c, cr)
		}
		if new(big.Int).Add(cr.Sponsored, cr.UserPays).Cmp(cr.Total) != 0 {
			t.Errorf("%s: sponsored %s + userPays %s != total %s", c, cr.Sponsored, cr.UserPays, cr.Total)
		}
		if cr.Sponsored.Sign() < 0 {
			t.Errorf("%s: sponsored %s < 0", c, cr.Sponsored)
		}
		if cr.Total.Sign() >= 0 && cr.Sponsored.Cmp(cr.Total) > 0 {
			t.Errorf("%s: sponsored %s > total %s", c, cr.Sponsored, cr.Total)
		}
		if cr.Total.Sign() <= 0 && cr.Sponsored.Sign() != 0 {
			t.Errorf("%s: non-positive total %s sponsored %s", c, cr.Total, cr.Sponsored)
		}
		if !cr.Selected && cr.Sponsored.Sign() != 0 {
			t.Errorf("%s: unselected but sponsored %s", c, cr.Sponsored)
		}
		// The share applied per component is an upper bound; without the cap it is exact.
		want := bpsFloor(cr.Total, bps)
		if !cr.Selected {
			want.SetInt64(0)
		}
		if cr.Sponsored.Cmp(want) > 0 {
			t.Errorf("%s: sponsored %s above subsidizationBps share %s", c, cr.Sponsored, want)
		}
		if cr.Sponsored.Cmp(want) < 0 {
			capped = true
		}
		wantTotal := new(big.Int)
		if v := tot[c]; v != nil {
			wantTotal.Set(v)
		}
		if cr.Total.Cmp(wantTotal) != 0 {
			t.Errorf("%s: total %s, input %s", c, cr.Total, wantTotal)
		}
	}
	if capped != r.CapHit {
		t.Errorf("capHit = %v, but a component was reduced below its share: %v", r.CapHit, capped)
	}
	if s.Max != nil && r.SponsoredTotal.Cmp(s.Max) > 0 && (s.Max.Sign() >= 0 || r.SponsoredTotal.Sign() != 0) {
		t.Errorf("sponsoredTotal %s > max %s", r.SponsoredTotal, s.Max)
	}
	if r.CapHit && s.AllOrNothing && r.SponsoredTotal.Sign() != 0 {
		t.Errorf("all or nothing: cap hit but sponsoredTotal %s", r.SponsoredTotal)
	}
	if r.CapHit && !s.AllOrNothing && s.Max != nil && s.Max.Sign() >= 0 && r.SponsoredTotal.Cmp(s.Max) != 0 {
		t.Errorf("cap hit but sponsoredTotal %s != max %s", r.SponsoredTotal, s.Max)
	}
	if r.CapHit && s.Max == nil {
		t.Errorf("cap hit without a cap")
	}
	if new(big.Int).Add(r.SponsoredTotal, r.UserPaysTotal).Cmp(sum) != 0 {
		t.Errorf("sponsoredTotal %s + userPaysTotal %s != sum of totals %s", r.SponsoredTotal, r.UserPaysTotal, sum)
	}
	for _, cr := range r.Components {
		wantSum.Add(wantSum, cr.Sponsored)
	}
	if wantSum.Cmp(r.SponsoredTotal) != 0 {
		t.Errorf("sponsoredTotal %s != sum of components %s", r.SponsoredTotal, wantSum)
	}
	if !s.Subsidize && (r.SponsoredTotal.Sign() != 0 || len(r.SelectedComponents) != 0) {
		t.Errorf("subsidizeFees false but sponsored %s, selected %v", r.SponsoredTotal, r.SelectedComponents)
	}
	for i, c := range r.SelectedComponents {
		if !r.Components[c].Selected {
			t.Errorf("%s listed as selected but component not selected", c)
		}
		if i > 0 && indexOf(r.SelectedComponents[i-1]) >= indexOf(c) {
			t.Errorf("selectedComponents not in canonical order: %v", r.SelectedComponents)
		}
	}
}

func indexOf(c Component) int {
	for i, k := range Components {
		if k == c {
			return i
		}
	}
	return -1
}
