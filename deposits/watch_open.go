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
// payment in the quoted currency (the first one of another amount, more or less, and every later
// one: an open address is reused on its route) is quoted again for the amount paid (Requoter)
// and funds the new request, which runs the deposit-address lifecycle with the payment as its
// arrival: it sweeps the address under the address's order and fills its own order. When the
// first payment is requoted, the quote-time request names the new one in
// supersededByRequestId and stays waiting. A first payment that cannot be quoted (less than
// the fees) funds the quote-time request all the same, which refunds it (to refundTo, or an
// operator's refund without one: workflows/refund.go); a later one that cannot be quoted is
// recorded and left unrouted (docs/deposit-addresses.md, "Next slice").

// Requoter quotes a payment at an open deposit address again (quote.Engine.Requote): the new
// request's rows to store, or the quote's failure; an error wrapping intent.ErrUnavailable is
// "not now" (the pass is routed again).
type Requoter interface {
	Requote(ctx context.Context, a intent.DepositAddress, apiKeyID, currency string, amount *big.Int) (*intent.NewQuote, error)
}

// routeOpen decides which request a recorded payment t at open address a funds, and returns it
// ("" for none: left unrouted).
func (s *Scanner) routeOpen(ctx context.Context, a intent.DepositAddress, t intent.DepositAddressTransfer) (string, error) {
	o, err := s.Store.OpenDepositAddressTransfer(ctx, t.ChainID, t.TxHash, t.LogIndex)
	if err != nil || o.Routed != "" {
		return o.Routed, err
	}
	if !intent.SameAddress(t.Currency, o.QuotedCurrency) {
		// Another currency than quoted is not requoted here: the first payment funds the
		// quote-time request, whose checks refund it (INCORRECT_DEPOSIT_CURRENCY).
		return s.Store.RouteFirstDepositAddressTransfer(ctx, t.ChainID, t.TxHash, t.LogIndex)
	}
	amount, ok := new(big.Int).SetString(t.Amount, 10)
	if !ok {
		return "", fmt.Errorf("payment %s at deposit address %s: amount %q", t.TxHash, a.ID, t.Amount)
	}
	if o.First && t.Amount == o.QuotedAmount {
		id, err := s.Store.RouteFirstDepositAddressTransfer(ctx, t.ChainID, t.TxHash, t.LogIndex)
		if id != "" || err != nil {
			return id, err
		}
		// Another payment was routed first meanwhile: this one is a later payment.
	}
	nq, err := s.Requotes.Requote(ctx, a, o.APIKeyID, t.Currency, amount)
	if errors.Is(err, intent.ErrUnavailable) {
		return "", fmt.Errorf("requote of payment %s at deposit address %s: %w", t.TxHash, a.ID, err)
	}
	if err != nil {
		// Not quotable (less than the fees, above the pair's maximum, a fill that would fail):
		// the address's first payment funds the quote-time request, which refunds it.
		id, rerr := s.Store.RouteFirstDepositAddressTransfer(ctx, t.ChainID, t.TxHash, t.LogIndex)
		s.Logger.Warn("payment at an open deposit address not quoted again", "chainId", t.ChainID, "address", a.Address,
			"addressId", a.ID, "tx", t.TxHash, "amount", t.Amount, "requestId", id, "error", err)
		return id, rerr
	}
	routed, superseded, err := s.Store.RouteRequotedDepositAddressTransfer(ctx, t.ChainID, t.TxHash, t.LogIndex, *nq)
	if err != nil {
		return "", err
	}
	if routed == nq.Record.ID {
		s.Logger.Info("payment at an open deposit address quoted again", "chainId", t.ChainID, "address", a.Address,
			"addressId", a.ID, "tx", t.TxHash, "amount", t.Amount, "requestId", routed, "supersedes", superseded)
	}
	return routed, nil
}
