package quote

import (
	"fmt"
	"strings"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/screening"
)

// screen refuses a quote whose user, recipient or refundTo is on the screening blocklist, with
// SANCTIONED_WALLET_ADDRESS naming the fields (each address in its chain's family: the user and
// refundTo on the origin, the recipient on the destination). Nothing is stored. The same
// addresses are screened again when the deposit is attested, the fill signed and a refund sent,
// since the list may change after the quote (docs/operations.md, "Screening").
func (e *Engine) screen(v *Validated, origin, dest *chains.Chain) *Error {
	if e.Screening == nil {
		return nil
	}
	var fields []string
	for _, f := range []struct {
		name string
		vm   chains.VMType
		addr string
	}{{"user", origin.VMType, v.User}, {"recipient", dest.VMType, v.Recipient}, {"refundTo", origin.VMType, v.RefundTo}} {
		if e.Screening.Blocked(f.vm, f.addr) {
			fields = append(fields, fmt.Sprintf("%s %s", f.name, f.addr))
		}
	}
	if len(fields) == 0 {
		return nil
	}
	screening.Hit(screening.PlaceQuote)
	return invalid(CodeSanctionedWalletAddress, "%s: the address is blocked by screening, so this request cannot be served",
		strings.Join(fields, ", "))
}
