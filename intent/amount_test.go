package intent

import (
	"math/big"
	"testing"
)

func TestParseAmountRejectsAnythingButAPositiveInteger(t *testing.T) {
	bad := []string{"", "0", "-1", "+1", "1.5", "1e18", "0x10", " 1", "1 ", "01", "abc",
		"115792089237316195423570985008687907853269984665640564039457584007913129639936"}
	for _, s := range bad {
		if _, err := ParseAmount(s); err == nil {
			t.Errorf("ParseAmount(%q) accepted", s)
		}
	}
	good := map[string]string{"1": "1", "1000000": "1000000",
		"115792089237316195423570985008687907853269984665640564039457584007913129639935": MaxUint256.String()}
	for s, want := range good {
		v, err := ParseAmount(s)
		if err != nil || v.String() != want {
			t.Errorf("ParseAmount(%q) = %v, %v", s, v, err)
		}
	}
}

func TestFormatUnits(t *testing.T) {
	cases := []struct {
		v    int64
		d    uint8
		want string
	}{{1500000, 6, "1.5"}, {1, 6, "0.000001"}, {0, 18, "0"}, {1000000, 6, "1"}, {-25, 1, "-2.5"}, {42, 0, "42"}}
	for _, c := range cases {
		if got := FormatUnits(big.NewInt(c.v), c.d); got != c.want {
			t.Errorf("FormatUnits(%d,%d) = %q, want %q", c.v, c.d, got, c.want)
		}
	}
}

func FuzzParseAmount(f *testing.F) {
	for _, s := range []string{"1", "0", "-1", "1.0", "99999999999999999999", "0x1", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseAmount(s)
		if err != nil {
			return
		}
		if v.Sign() <= 0 || v.String() != s {
			t.Fatalf("ParseAmount(%q) = %v: must round-trip and be positive", s, v)
		}
	})
}
