package auth

import (
	"strings"
	"testing"
)

// Review L1 (issue 33, point 7): a mixed-case address that fails EIP-55 is refused wherever an
// address is taken in, the integrator's payout and sponsorship wallets too; all lower and all
// upper case are still accepted (and written checksummed).
func TestCheckIntegratorRefusesAnAddressWithMixedCaseThatFailsEIP55(t *testing.T) {
	const good = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
	typo := "0x70997970c51812dc3A010C7d01b50e0d17dc79C8"
	for _, field := range []string{"payoutAddress", "sponsorWallet"} {
		set := func(addr string) *Integrator {
			in := &Integrator{Name: "acme"}
			if field == "payoutAddress" {
				in.PayoutAddress = addr
			} else {
				in.SponsorWallet, in.SponsorChainID = addr, 1
			}
			return in
		}
		if err := CheckIntegrator(set(typo)); err == nil || !strings.Contains(err.Error(), "EIP-55") {
			t.Errorf("%s %s: %v, want refused naming EIP-55", field, typo, err)
		}
		for _, ok := range []string{good, strings.ToLower(good), "0x" + strings.ToUpper(good[2:])} {
			in := set(ok)
			if err := CheckIntegrator(in); err != nil {
				t.Errorf("%s %s: %v, want accepted", field, ok, err)
			}
			if got := in.PayoutAddress + in.SponsorWallet; got != good {
				t.Errorf("%s %s written as %s, want %s", field, ok, got, good)
			}
		}
	}
}
