package quote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
)

// Deposit-address quotes (issue 35; docs/deposit-addresses.md). With useDepositAddress the
// deposit step pays a counterfactual address of the order with a plain transfer, which the
// engine sees, sweeps into the depository and runs; the rules a request must meet to get one
// are the public service's (public-api-notes §5.1), each refused with 400 before anything is
// priced or stored.

// DepositAddressOptions is what a request asks of its deposit address.
type DepositAddressOptions struct {
	// Type is strict (strict: true: bound to this quote, one deposit) or open (reusable on the
	// route, each deposit quoted afresh).
	Type intent.DepositAddressType
	// RecoveryAddress is the integrator's origin address for a withdrawal when the engine can
	// neither fill nor refund; never paid a refund. Empty when not given.
	RecoveryAddress string
}

// depositAddress reads the deposit-address rules of a request with useDepositAddress. refundTo
// (read with the other addresses) is required for strict and optional for open; the zero
// address is allowed there and refunds whoever paid the address.
func (r *Request) depositAddress(origin notation) (*DepositAddressOptions, *Error) {
	strict, err := strictOf(r.Strict)
	if err != nil {
		return nil, err
	}
	o := &DepositAddressOptions{Type: intent.DepositAddressOpen}
	if strict {
		o.Type = intent.DepositAddressStrict
	}
	if strict && r.RefundTo == "" {
		return nil, invalid(CodeInvalidInput, "refundTo is required for a strict deposit address (the zero address refunds whoever paid the address)")
	}
	if !strict && r.TradeType == tradeExactOutput {
		return nil, invalid(CodeInvalidInput, "tradeType EXACT_OUTPUT needs a strict deposit address (strict: true); an open one takes EXACT_INPUT or EXPECTED_OUTPUT")
	}
	if hasCalls(r.Txs) {
		return nil, invalid(CodeInvalidInput, "txs: calls on the destination are not supported with a deposit address")
	}
	if r.RecoveryAddress != "" {
		a, err := origin.address("recoveryAddress", r.RecoveryAddress)
		if err != nil {
			return nil, err
		}
		if origin.zero(a) {
			return nil, invalid(CodeInvalidAddress, "recoveryAddress must not be the native currency's address (the zero address)")
		}
		o.RecoveryAddress = a
	}
	return o, nil
}

// strictOf reads strict: absent or null is false (open), else true or false.
func strictOf(raw json.RawMessage) (bool, *Error) {
	if isNull(raw) {
		return false, nil
	}
	var b bool
	if err := json.Unmarshal(raw, &b); err != nil {
		return false, invalid(CodeInvalidInput, "strict must be true or false")
	}
	return b, nil
}

// hasCalls reports whether txs names any call: absent, null and [] name none; anything else,
// an array with an element or a value that is no array, is a request for calls.
func hasCalls(raw json.RawMessage) bool {
	if isNull(raw) {
		return false
	}
	var calls []json.RawMessage
	return json.Unmarshal(raw, &calls) != nil || len(calls) > 0
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// depositAddressSteps are the steps that pay the quote to its deposit address, built by the
// origin chain's family, and the address as it is stored. The address's salt is the order id
// and the depositor, the quote's user: the wallet the quote was made for, in whose name every
// sweep of the address deposits (docs/deposit-addresses.md, "The address").
func (e *Engine) depositAddressSteps(q *quoted, req *Request, requestID, orderID string) ([]Step, *intent.DepositAddress, *Error) {
	v := q.v
	addr, steps, err := q.in.client.DepositAddressSteps(chains.FundingOrder{RequestID: requestID, OrderID: orderID, User: v.User,
		Currency: q.in.currency, Amount: q.b.amountIn}, v.User)
	switch {
	case errors.Is(err, chains.ErrUnsupported):
		return nil, nil, invalid(CodeUnsupportedChain, "chain %d offers no deposit addresses", q.in.chain.ID)
	case err != nil:
		return nil, nil, unknown(err, "chain %d gave no deposit address", q.in.chain.ID)
	case len(steps) == 0:
		return nil, nil, unknown(errors.New("no funding steps"), "chain %d gave no steps to fund the order", q.in.chain.ID)
	}
	id, err := NewRequestID()
	if err != nil {
		return nil, nil, unknown(err, "could not create a deposit address id")
	}
	// The route a later deposit is quoted again with: the request as the engine read it.
	route, err := json.Marshal(req)
	if err != nil {
		return nil, nil, unknown(err, "could not keep the deposit address's route")
	}
	steps[len(steps)-1].DepositAddressID = id
	return steps, &intent.DepositAddress{ID: id, Address: addr, ChainID: q.in.chain.ID, Type: v.DepositAddress.Type, OrderID: orderID,
		Depositor: v.User, RequestID: requestID, Currency: q.in.currency.Address, RefundTo: v.RefundTo,
		RecoveryAddress: v.DepositAddress.RecoveryAddress, Route: route, CreatedAt: q.now}, nil
}

// sweepFee is what a deposit-address quote charges for its sweep, in the input currency's
// smallest unit: the origin family's SweepCost in the origin's native currency, converted at
// the two prices.
func (e *Engine) sweepFee(ctx context.Context, in *leg, currency string) (*big.Int, *Error) {
	cost, err := in.client.SweepCost(ctx, currency)
	if err != nil {
		return nil, unavailable(err, "chain %d is unavailable", in.chain.ID)
	}
	nativeIn, qerr := e.leg(ctx, in.chain.ID, "originChainId", in.chain.Currency.Address)
	if qerr != nil {
		return nil, qerr
	}
	return intent.FromUSD(nativeIn.usd(cost), in.currency.Decimals, in.price), nil
}

// originGasFee is what a gasless quote charges for its relayed origin transaction, in the input
// currency's smallest unit (rounded up): gas (the request's originGasOverhead) at the origin's
// gas price, in the origin's native currency converted at the two prices, as sweepFee does.
func (e *Engine) originGasFee(ctx context.Context, in *leg, gas uint64) (*big.Int, *Error) {
	pricer, err := chains.Capability[chains.GasPricer](e.Chains, in.chain.ID)
	if err != nil {
		return nil, invalid(CodeUnsupportedChain, "chain %d has no gas price, so it offers no gasless execution", in.chain.ID)
	}
	gasPrice, err := pricer.GasPrice(ctx)
	if err != nil {
		return nil, unavailable(err, "chain %d is unavailable", in.chain.ID)
	}
	nativeIn, qerr := e.leg(ctx, in.chain.ID, "originChainId", in.chain.Currency.Address)
	if qerr != nil {
		return nil, qerr
	}
	cost := new(big.Int).Mul(gasPrice, new(big.Int).SetUint64(gas))
	return intent.FromUSD(nativeIn.usd(cost), in.currency.Decimals, in.price), nil
}

// RefundLegFee is what refunding a payment of currency at a deposit address on chainID as a leg
// of its own costs the solver, in the currency's smallest unit (rounded up): its sweep (the
// quote's sweep gas) and its refund (refundGas, the refund's gas ceiling), both at the chain's gas
// price, in the chain's native currency converted at the two prices. No quote's fee pays for a
// leg, so the leg pays for itself: its refund is the payment less this fee (the public service
// refunds "minus gas"), and a payment worth no more than it is not swept at all
// (deposits.Scanner leaves it at the address): the solver pays for nothing it does not owe. An
// error wraps intent.ErrUnavailable when the chain or a price cannot be read now.
func (e *Engine) RefundLegFee(ctx context.Context, chainID uint64, currency string, refundGas uint64) (*big.Int, error) {
	in, qerr := e.leg(ctx, chainID, "chainId", currency)
	if qerr != nil {
		if qerr.Code == CodeServiceUnavailable || qerr.Code == CodePriceFetchFailed {
			return nil, fmt.Errorf("%w: %w", intent.ErrUnavailable, qerr)
		}
		return nil, qerr
	}
	sweep, err := in.client.SweepCost(ctx, currency)
	if err != nil {
		return nil, fmt.Errorf("%w: sweep cost on chain %d: %w", intent.ErrUnavailable, chainID, err)
	}
	pricer, err := chains.Capability[chains.GasPricer](e.Chains, chainID)
	if err != nil {
		return nil, err
	}
	gasPrice, err := pricer.GasPrice(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: gas price on chain %d: %w", intent.ErrUnavailable, chainID, err)
	}
	cost := new(big.Int).Add(sweep, new(big.Int).Mul(gasPrice, new(big.Int).SetUint64(refundGas)))
	native, qerr := e.leg(ctx, chainID, "chainId", in.chain.Currency.Address)
	if qerr != nil {
		return nil, fmt.Errorf("%w: %w", intent.ErrUnavailable, qerr)
	}
	return intent.FromUSD(native.usd(cost), in.currency.Decimals, in.price), nil
}
