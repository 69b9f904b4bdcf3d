package deposits

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/intentd/intentd/intent"
)

// Refund legs: a payment at a deposit address that no request can fill is refunded as a request
// of its own (docs/deposit-addresses.md, "Refund legs"). Its refund request sweeps the payment
// into the depository with the same once-only sweep a request makes and refunds the sweep's
// deposit to the address's refundTo (workflows/depositrefund_strict.go), with the reason of the
// case:
//
//   - a payment after a strict address's first (strict: "no, single use"): DOUBLE_SPEND;
//   - the excess of a strict address's first payment over its quote: the quote's request sweeps
//     and fills the quoted amount, the excess is a leg of its own (INCORRECT_PAYMENT);
//   - a later payment at an open address that cannot be quoted again: DEPOSITED_AMOUNT_TOO_LOW_TO_FILL
//     below the fees, INCORRECT_DEPOSIT_CURRENCY in a currency with no route, NO_QUOTES otherwise.
//
// The payment (or the excess) is recorded as routed to that refund request (the address's
// history names it), and delivered again when seen again: the refund request's workflow id
// derives from the payment, so it starts once.

// DepositAddressRefunder starts the refund request of a payment at a deposit address that no
// request can fill (door.Door). A Router without it leaves such payments recorded and unrouted.
type DepositAddressRefunder interface {
	// fee is the leg's own cost (LegPricer): its refund pays the payment less it; nil: none.
	RefundDepositAddressPayment(ctx context.Context, arrival intent.Deposit, a intent.DepositAddress, reason intent.FailReason, fee *big.Int) error
}

// LegPricer prices a refund leg (quote.Engine.RefundLegFee): what its sweep and its refund
// (refundGas) cost the solver, in the payment's currency. A leg pays for itself: its refund is the
// payment less the fee, and a payment worth no more than the fee is not swept.
type LegPricer interface {
	RefundLegFee(ctx context.Context, chainID uint64, currency string, refundGas uint64) (*big.Int, error)
}

// routeRefundLeg routes t, a payment at the address a that no request fills, to its refund
// request with reason, and reports whether it was delivered. The leg pays for itself: its refund
// is the payment less the leg's fee (LegPricer). A payment worth no more than its sweep and
// refund (Scanner.Legs) is left at the address, recorded and unrouted: judged again each time it
// is seen (a rescan, a reindex), routed once gas costs less than it is worth.
func (s *Scanner) routeRefundLeg(ctx context.Context, t intent.DepositAddressTransfer, a intent.DepositAddress, family string,
	created bool, reason intent.FailReason) (bool, error) {
	refunder, ok := s.Router.(DepositAddressRefunder)
	if !ok {
		return false, nil
	}
	var fee *big.Int
	if pricer, ok := s.Requotes.(LegPricer); ok && s.RefundGas != nil {
		amount, _ := new(big.Int).SetString(t.Amount, 10)
		var err error
		fee, err = pricer.RefundLegFee(ctx, t.ChainID, t.Currency, s.RefundGas(t.ChainID, t.Currency))
		worth := err == nil && amount != nil && amount.Cmp(fee) > 0
		if err != nil && !errors.Is(err, intent.ErrUnavailable) {
			s.Logger.Warn("a payment at a deposit address that no request fills cannot be valued: left at the address", "chainId", t.ChainID,
				"address", a.Address, "tx", t.TxHash, "currency", t.Currency, "amount", t.Amount, "reason", reason, "error", err)
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if !worth {
			if created {
				s.Logger.Warn("a payment at a deposit address that no request fills is worth less than its sweep and refund: left at the address",
					"chainId", t.ChainID, "address", a.Address, "tx", t.TxHash, "currency", t.Currency, "amount", t.Amount, "fee", fee, "reason", reason)
			}
			return false, nil
		}
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
		s.Logger.Warn("a payment at a deposit address no request fills: refunding it", "chainId", t.ChainID, "address", a.Address,
			"refundRequestId", refundID, "reason", reason, "tx", t.TxHash, "currency", t.Currency, "amount", t.Amount, "fee", fee)
	}
	if err := refunder.RefundDepositAddressPayment(ctx, t.ArrivalDeposit(a, refundID, family), a, reason, fee); err != nil {
		return false, err
	}
	return true, nil
}

// ExcessLogIndex is the log index of the excess of a payment over its strict address's quote,
// recorded as a payment of its own (no log, no transaction), ExcessTxHash its transaction hash.
const ExcessLogIndex = -3

// ExcessTxHash is the transaction hash of the excess of the payment (chainID, txHash, logIndex)
// over its quote: sha256 of a domain string and the payment's key, 32 bytes like a
// transaction's and no transaction's, the same each time the payment is seen.
func ExcessTxHash(chainID uint64, txHash string, logIndex int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "intentd:deposit-address-excess:%d:%s:%d", chainID, strings.ToLower(txHash), logIndex))
	return fmt.Sprintf("0x%x", sum)
}

// splitExcess is the strict address a's first payment t, routed to the quote's request: when it
// is in the quoted currency and more than quoted, the quote's request is delivered the quoted
// amount (its sweep moves that and its order is filled as quoted) and the excess is recorded as
// a payment of its own and refunded as a leg (INCORRECT_PAYMENT). It returns the arrival to
// deliver to the quote's request.
func (s *Scanner) splitExcess(ctx context.Context, t intent.DepositAddressTransfer, a intent.DepositAddress, family string,
	created bool) (intent.Deposit, error) {
	arrival := t.ArrivalDeposit(a, a.RequestID, family)
	if t.LogIndex == ExcessLogIndex || !intent.SameAddress(t.Currency, a.Currency) {
		return arrival, nil
	}
	o, err := s.Store.OpenDepositAddressTransfer(ctx, t.ChainID, t.TxHash, t.LogIndex)
	if err != nil {
		return arrival, err
	}
	paid, ok1 := new(big.Int).SetString(t.Amount, 10)
	quoted, ok2 := new(big.Int).SetString(o.QuotedAmount, 10)
	if !ok1 || !ok2 || paid.Cmp(quoted) <= 0 || !intent.SameAddress(o.QuotedCurrency, t.Currency) {
		return arrival, nil
	}
	excess := t
	excess.TxHash, excess.LogIndex = ExcessTxHash(t.ChainID, t.TxHash, t.LogIndex), ExcessLogIndex
	excess.Amount = new(big.Int).Sub(paid, quoted).String()
	excess.RequestID, excess.SweepTx = "", ""
	made, err := s.Store.RecordDepositAddressTransfer(ctx, excess)
	if err != nil {
		return arrival, err
	}
	if _, err := s.routeRefundLeg(ctx, excess, a, family, made || created, intent.FailReasonIncorrectPayment); err != nil {
		return arrival, err
	}
	arrival.Amount = quoted.String()
	return arrival, nil
}
