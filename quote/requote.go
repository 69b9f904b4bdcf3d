package quote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	"github.com/intentd/intentd/intent"
)

// Requotes of open deposit addresses (docs/deposit-addresses.md, "Requotes and superseded
// requests"). A payment at an open address that is not the quoted amount, and every payment
// after the address's first, is quoted afresh on the address's route (the quote request the
// engine read when it issued the address, deposit_addresses.route) for the amount actually
// paid, as an EXACT_INPUT quote: a new request with its own requestId and order id, funded by
// the same address. Its execution keeps the address's salt (intent.ExecutionDepositAddress: the
// address's order id and depositor), so its sweep deposits under the address's order, the
// order the payment's deposit is attested in; its fill pays the new order.

// Requote prices the route of open address a again for amount of currency (the payment's, in
// its smallest unit) and returns the new request as a quote to store: its record (status
// waiting, the address's depositAddress and feature) and its execution, funded by the address.
// apiKeyID is the key the address was quoted with (the new request is that key's). Nothing is
// stored. An error is the quote's failure (*Error: a payment below the fees is AMOUNT_TOO_LOW),
// or wraps intent.ErrUnavailable when a chain, a price or the route's sponsor could not be read
// now, worth another try.
func (e *Engine) Requote(ctx context.Context, a intent.DepositAddress, apiKeyID, currency string, amount *big.Int) (*intent.NewQuote, error) {
	nq, qerr := e.requote(ctx, a, apiKeyID, currency, amount)
	if qerr == nil {
		return nq, nil
	}
	if qerr.Code == CodeServiceUnavailable || qerr.Code == CodePriceFetchFailed {
		return nil, fmt.Errorf("%w: %w", intent.ErrUnavailable, qerr)
	}
	return nil, qerr
}

func (e *Engine) requote(ctx context.Context, a intent.DepositAddress, apiKeyID, currency string, amount *big.Int) (*intent.NewQuote, *Error) {
	if a.Type != intent.DepositAddressOpen {
		return nil, invalid(CodeInvalidInput, "deposit address %s is %s: only an open address is requoted", a.ID, a.Type)
	}
	if amount == nil || amount.Sign() <= 0 {
		return nil, invalid(CodeAmountTooLow, "nothing was paid")
	}
	var req Request
	if err := json.Unmarshal(a.Route, &req); err != nil || !req.UseDepositAddress {
		return nil, unknown(errors.Join(err, errors.New("no deposit-address route")), "deposit address %s has no route to quote again", a.ID)
	}
	// The payment is the input: what was paid, in the currency paid, whatever the route's trade
	// type asked for at first.
	req.Amount, req.TradeType, req.OriginCurrency = amount.String(), TradeExactInput, currency
	caller := Caller{APIKeyID: apiKeyID}
	q, qerr := e.price(ctx, &req, caller)
	if qerr != nil {
		return nil, qerr
	}
	if qerr := e.simulateFill(ctx, q); qerr != nil {
		return nil, qerr
	}
	requestID, err := NewRequestID()
	if err != nil {
		return nil, unknown(err, "could not create a request id")
	}
	deadline := q.now.Add(e.ttl())
	order, orderID, err := e.order(q, deadline)
	if err != nil {
		return nil, unknown(err, "could not build the order")
	}
	resp := e.response(ctx, q)
	resp.RequestID = requestID
	exec := e.execution(q, requestID, orderID, deadline, resp.Details.TimeEstimate, intent.FundingDepositAddress)
	// The address's salt, not the new order's: the sweep deposits under the address's order.
	exec.DepositAddress = &intent.ExecutionDepositAddress{ID: a.ID, Address: a.Address, Type: a.Type, OrderID: a.OrderID,
		Depositor: a.Depositor}
	rec := e.record(q, resp, requestID, orderID, order)
	depositor := a.Depositor
	rec.DepositAddress = &intent.RecordDepositAddress{Address: a.Address, Type: a.Type, Depositor: &depositor}
	if a.RecoveryAddress != "" {
		recovery := a.RecoveryAddress
		rec.DepositAddress.RecoveryAddress = &recovery
	}
	rec.Features = append(rec.Features, intent.FeatureDepositAddress)
	return &intent.NewQuote{Record: rec, OrderID: orderID, OrderData: order, Execution: exec, APIKeyID: apiKeyID,
		ExpiresAt: deadline, Origin: q.in.chain.ID, Dest: q.out.chain.ID, VolumeUSD: q.in.usd(q.b.amountIn)}, nil
}
