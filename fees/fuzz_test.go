package fees

import (
	"math/big"
	"reflect"
	"testing"
)

// FuzzApply checks the sponsorship invariants on arbitrary inputs: for every component
// Sponsored + UserPays == Total and 0 <= Sponsored <= Total; SponsoredTotal <= Max;
// SponsoredTotal + UserPaysTotal == sum of totals; nothing sponsored without subsidizeFees;
// Sponsored never exceeds the subsidizationBps share; CapHit iff the cap reduced a component;
// Apply is deterministic and does not mutate its inputs. The selection mask picks components
// (bit i = Components[i]; bit 5 adds an unknown name); scale shifts every amount left so the
// fuzzer also reaches amounts far above uint64.
func FuzzApply(f *testing.F) {
	f.Add(true, uint8(0), false, int64(0), false, uint64(0), uint64(100), uint64(200), uint64(300), uint64(400), uint64(500), uint8(0))
	f.Add(true, uint8(0b10101), true, int64(3333), true, uint64(250), uint64(1), uint64(999), uint64(7), uint64(0), uint64(12345), uint8(0))
	f.Add(false, uint8(0b11111), true, int64(10000), true, uint64(1), uint64(5), uint64(5), uint64(5), uint64(5), uint64(5), uint8(3))
	f.Add(true, uint8(0b100000), true, int64(-7), true, uint64(0), uint64(1<<63), uint64(1<<63), uint64(1<<63), uint64(1<<63), uint64(1<<63), uint8(64))
	f.Add(true, uint8(0), true, int64(20000), false, uint64(0), uint64(3), uint64(3), uint64(3), uint64(3), uint64(3), uint8(200))
	f.Fuzz(func(t *testing.T, subsidize bool, mask uint8, bpsSet bool, bps int64, maxSet bool, maxAmt uint64,
		exec, swap, platform, app, rent uint64, scale uint8) {
		sh := uint(scale % 128)
		amt := func(v uint64) *big.Int { return new(big.Int).Lsh(new(big.Int).SetUint64(v), sh) }
		s := Sponsorship{Subsidize: subsidize}
		for i, c := range Components {
			if mask&(1<<i) != 0 {
				s.Selected = append(s.Selected, c)
			}
		}
		if mask&(1<<5) != 0 {
			s.Selected = append(s.Selected, "bogus")
		}
		if bpsSet {
			s.Bps = &bps
		}
		if maxSet {
			s.Max = amt(maxAmt)
		}
		tot := map[Component]*big.Int{
			ComponentExecution: amt(exec), ComponentSwap: amt(swap), ComponentPlatform: amt(platform),
			ComponentApp: amt(app), ComponentRent: amt(rent),
		}
		snapshot := map[Component]string{}
		for c, v := range tot {
			snapshot[c] = v.String()
		}
		var maxBefore string
		if s.Max != nil {
			maxBefore = s.Max.String()
		}
		selBefore := append([]Component(nil), s.Selected...)

		r := s.Apply(tot)
		checkInvariants(t, s, tot, r)

		// Selection semantics.
		for _, c := range Components {
			want := subsidize && (mask&0b11111 == 0 || mask&(1<<indexOf(c)) != 0)
			if mask&0b11111 == 0 && mask&(1<<5) != 0 {
				// Only an unknown name was selected: the selection is non-empty, so nothing
				// known is selected.
				want = false
			}
			if r.Components[c].Selected != want {
				t.Errorf("%s selected = %v, want %v (mask %06b)", c, r.Components[c].Selected, want, mask)
			}
		}
		// Without a cap, each selected component gets exactly its share.
		if s.Max == nil && r.CapHit {
			t.Errorf("capHit without a cap")
		}
		// Determinism and no mutation.
		if r2 := s.Apply(tot); !reflect.DeepEqual(r, r2) {
			t.Errorf("Apply is not deterministic")
		}
		for c, v := range tot {
			if v.String() != snapshot[c] {
				t.Errorf("totals[%s] mutated: %s -> %s", c, snapshot[c], v)
			}
		}
		if s.Max != nil && s.Max.String() != maxBefore {
			t.Errorf("max mutated")
		}
		if !reflect.DeepEqual(selBefore, s.Selected) {
			t.Errorf("selected mutated")
		}
	})
}
