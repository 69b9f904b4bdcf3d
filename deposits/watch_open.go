package deposits

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/intentd/intentd/intent"
)

// Payments at open deposit addresses (docs/deposit-addresses.md, "Requotes and superseded
// requests"; the public behaviour's open column). The first payment of the quoted amount in the
// quoted currency funds the address's quote-time request, as at a strict address. Any other
// payment (the first one of another amount or in another listed currency, and every later one:
// an open address is reused on its route) is quoted again for the amount and currency paid
// (Requoter) and funds the new request, which runs the deposit-address lifecycle with the
// payment as its arrival: it sweeps the payment under the address's order and fills its own
// order. When the first payment is requoted, the quote-time request names the new one in
// supersededByRequestId and stays waiting. A first payment that cannot be quoted (less than the
// fees, a currency with no route) funds the quote-time request all the same, whose checks
// refund it (to refundTo, or an operator's refund without one: workflows/refund.go); a later
// one is refunded as a leg of its own (watch_legs.go).

// Requoter quotes a payment at an open deposit address again (quote.Engine.Requote): the new
// request's rows to store, or the quote's failure; an error wrapping intent.ErrUnavailable is
// "not now" (the pass is routed again).
type Requoter interface {
	Requote(ctx context.Context, a intent.DepositAddress, apiKeyID, currency string, amount *big.Int) (*intent.NewQuote, error)
}

// routeOpen decides which request a recorded payment t at open address a funds, and returns it,
// or "" and the reason of the refund leg of a later payment that cannot be quoted.
func (s *Scanner) routeOpen(ctx context.Context, a intent.DepositAddress, t intent.DepositAddressTransfer) (string, intent.FailReason, error) {
	o, err := s.Store.OpenDepositAddressTransfer(ctx, t.ChainID, t.TxHash, t.LogIndex)
	if err != nil || o.Routed != "" {
		return o.Routed, "", err
	}
	amount, ok := new(big.Int).SetString(t.Amount, 10)
	if !ok {
		return "", "", fmt.Errorf("payment %s at deposit address %s: amount %q", t.TxHash, a.ID, t.Amount)
	}
	quotedCurrency := intent.SameAddress(t.Currency, o.QuotedCurrency)
	if o.First && quotedCurrency && t.Amount == o.QuotedAmount {
		id, err := s.Store.RouteFirstDepositAddressTransfer(ctx, t.ChainID, t.TxHash, t.LogIndex)
		if id != "" || err != nil {
			return id, "", err
		}
		// Another payment was routed first meanwhile: this one is a later payment.
	}
	nq, err := s.Requotes.Requote(ctx, a, o.APIKeyID, t.Currency, amount)
	if errors.Is(err, intent.ErrUnavailable) {
		return "", "", fmt.Errorf("requote of payment %s at deposit address %s: %w", t.TxHash, a.ID, err)
	}
	if err != nil {
		// Not quotable (less than the fees, a currency with no route, above the pair's maximum,
		// a fill that would fail): the address's first payment funds the quote-time request,
		// which refunds it; a later one is refunded as a leg.
		id, rerr := s.Store.RouteFirstDepositAddressTransfer(ctx, t.ChainID, t.TxHash, t.LogIndex)
		s.Logger.Warn("payment at an open deposit address not quoted again", "chainId", t.ChainID, "address", a.Address,
			"addressId", a.ID, "tx", t.TxHash, "currency", t.Currency, "amount", t.Amount, "requestId", id, "error", err)
		return id, unquotedReason(err, quotedCurrency), rerr
	}
	routed, superseded, err := s.Store.RouteRequotedDepositAddressTransfer(ctx, t.ChainID, t.TxHash, t.LogIndex, *nq)
	if err != nil {
		return "", "", err
	}
	if routed == nq.Record.ID {
		s.Logger.Info("payment at an open deposit address quoted again", "chainId", t.ChainID, "address", a.Address,
			"addressId", a.ID, "tx", t.TxHash, "currency", t.Currency, "amount", t.Amount, "requestId", routed, "supersedes", superseded)
	}
	return routed, "", nil
}

// unquotedReason is the failReason of the refund leg of a payment whose requote failed with err:
// less than the fees, DEPOSITED_AMOUNT_TOO_LOW_TO_FILL; in another currency than quoted (one
// with no route), INCORRECT_DEPOSIT_CURRENCY; otherwise NO_QUOTES.
func unquotedReason(err error, quotedCurrency bool) intent.FailReason {
	var qe interface{ ErrorCode() string }
	switch {
	case errors.As(err, &qe) && qe.ErrorCode() == "AMOUNT_TOO_LOW":
		return intent.FailReasonDepositedAmountTooLowToFill
	case !quotedCurrency:
		return intent.FailReasonIncorrectDepositCurrency
	default:
		return intent.FailReasonNoQuotes
	}
}
