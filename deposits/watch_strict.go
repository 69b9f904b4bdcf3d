package deposits

import (
	"context"

	"github.com/intentd/intentd/intent"
)

// A later payment at a strict deposit address (issue 35: "strict: a second deposit is refunded,
// DOUBLE_SPEND"). A strict address is bound to its quote: its first payment funds the quote's
// request (watch.go); every payment after it is routed to a refund request of its own, which
// sweeps the payment into the depository and refunds it to the address's refundTo
// (workflows/depositrefund_strict.go). The payment is recorded as routed to that refund request
// (the address's history names it), and delivered again when seen again: the refund request's
// workflow id derives from the payment, so it starts once.

// DepositAddressRefunder starts the refund request of a later payment at a strict deposit
// address (door.Door). A Router without it leaves such payments recorded and unrouted.
type DepositAddressRefunder interface {
	RefundDepositAddressPayment(ctx context.Context, arrival intent.Deposit, a intent.DepositAddress) error
}

// routeStrictLater routes t, a payment at the strict address a after its first one, to its
// refund request, and reports whether it was delivered.
func (s *Scanner) routeStrictLater(ctx context.Context, t intent.DepositAddressTransfer, a intent.DepositAddress, family string,
	created bool) (bool, error) {
	refunder, ok := s.Router.(DepositAddressRefunder)
	if !ok {
		return false, nil
	}
	refundID := t.ArrivalDeposit(a, "", family).RefundRequestID()
	routed, err := s.Store.RouteDepositAddressTransfer(ctx, t.ChainID, t.TxHash, t.LogIndex, refundID)
	if err != nil {
		return false, err
	}
	if routed != refundID { // routed before to another request: it is that request's
		return false, nil
	}
	if created {
		s.Logger.Warn("a later payment at a strict deposit address: refunding it (DOUBLE_SPEND)", "chainId", t.ChainID,
			"address", a.Address, "refundRequestId", refundID, "tx", t.TxHash, "currency", t.Currency, "amount", t.Amount)
	}
	if err := refunder.RefundDepositAddressPayment(ctx, t.ArrivalDeposit(a, refundID, family), a); err != nil {
		return false, err
	}
	return true, nil
}
