package door

import (
	"context"
	"math/big"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/workflows"
)

// RefundDepositAddressPayment starts, once, the refund request of a payment at a deposit address
// that no request fills, a refund leg (deposits/watch_legs.go; workflows/depositrefund_strict.go):
// a strict address's later payment (DOUBLE_SPEND), the excess of its first over the quote
// (INCORRECT_PAYMENT), an open address's later payment that cannot be quoted. arrival is the
// payment as the watcher delivers it (intent.DepositAddressTransfer.ArrivalDeposit, naming the
// refund request: its RefundRequestID), a the address, reason the refund's failReason. The refund
// request sweeps the payment into the depository and refunds it to the address's refundTo (the
// zero address: the payment's sender; none, at an open address: held for an operator), linked to
// the address's quote-time request as a duplicate deposit of it. Its workflow id derives from the
// payment, so the same payment seen again (a rescan, a reindex) finds it started. fee is the
// leg's own cost (its sweep and refund gas, in the payment's currency): the refund is the
// payment less it; nil refunds the payment in full.
func (d *Door) RefundDepositAddressPayment(ctx context.Context, arrival intent.Deposit, a intent.DepositAddress, reason intent.FailReason,
	fee *big.Int) error {
	depositor, tx := a.Depositor, arrival.TxHash
	rec := intent.RecordDepositAddress{Address: a.Address, Type: a.Type, Depositor: &depositor, DepositTxHash: &tx}
	if a.RecoveryAddress != "" {
		recovery := a.RecoveryAddress
		rec.RecoveryAddress = &recovery
	}
	addr := intent.ExecutionDepositAddress{ID: a.ID, Address: a.Address, Type: a.Type, OrderID: a.OrderID, Depositor: a.Depositor}
	d.logger().Warn("a payment at a deposit address no request fills: refunding it", "address", a.Address, "parent", a.RequestID,
		"chainId", arrival.ChainID, "tx", arrival.TxHash, "reason", reason)
	in := workflows.NewDepositAddressRefund(arrival, a.RequestID, a.RefundTo, addr, rec, reason, d.Policy)
	if fee != nil && fee.Sign() > 0 {
		in.LegFee = fee.String()
	}
	return d.startRefund(ctx, in)
}
