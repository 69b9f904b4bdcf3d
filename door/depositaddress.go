package door

import (
	"context"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/workflows"
)

// RefundDepositAddressPayment starts, once, the refund request of a later payment at a strict
// deposit address (issue 35: "strict: a second deposit is refunded, DOUBLE_SPEND";
// workflows/depositrefund_strict.go). arrival is the payment as the watcher delivers it
// (intent.DepositAddressTransfer.ArrivalDeposit, naming the refund request: its RefundRequestID),
// a the address. The refund request sweeps the payment into the depository and refunds it to the
// address's refundTo (the zero address: the payment's sender), linked to the address's quote-time
// request as a duplicate deposit of it. Its workflow id derives from the payment, so the same
// payment seen again (a rescan, a reindex) finds it started.
func (d *Door) RefundDepositAddressPayment(ctx context.Context, arrival intent.Deposit, a intent.DepositAddress) error {
	depositor, tx := a.Depositor, arrival.TxHash
	rec := intent.RecordDepositAddress{Address: a.Address, Type: a.Type, Depositor: &depositor, DepositTxHash: &tx}
	if a.RecoveryAddress != "" {
		recovery := a.RecoveryAddress
		rec.RecoveryAddress = &recovery
	}
	addr := intent.ExecutionDepositAddress{ID: a.ID, Address: a.Address, Type: a.Type, OrderID: a.OrderID, Depositor: a.Depositor}
	d.logger().Warn("a later payment at a strict deposit address: refunding it", "address", a.Address, "parent", a.RequestID,
		"chainId", arrival.ChainID, "tx", arrival.TxHash)
	return d.startRefund(ctx, workflows.NewDepositAddressRefund(arrival, a.RequestID, a.RefundTo, addr, rec, d.Policy))
}
