package evm

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
)

// The EVM family's sweep of deposit addresses (chains.Sweeper): the solver calls the chain's
// DepositAddressFactory.sweep(orderId, depositor, currency, amount), which deploys the address's
// clone when needed and deposits exactly the payment's amount into the depository for the
// order, in the depositor's name; only the solver (the factory's sweeper) may send it, so every
// sweep deposit on chain is one that a request's kept sweep transaction made. It is a solver
// transaction of kind sweep, signed and kept like a fill (payout_sign.go: a nonce allocated in
// Postgres, kept before its broadcast, the broadcast rounds in nonce order), committing the
// solver's gas only: the depository, not the solver, receives what is swept.

var _ chains.Sweeper = (*Payout)(nil)

// Sweep signs the request's sweep once, keeps it and broadcasts it; a retry finds it kept and
// broadcasts the same bytes again. The address must be the factory's for the sweep's order and
// depositor (computed offline): the factory can only ever deposit an address's funds under the
// order and depositor the address was derived from, and a sweep naming another pair would move
// another address's funds, so it is refused before anything is signed, as is an amount that is
// not a positive integer.
func (p *Payout) Sweep(ctx context.Context, s chains.Sweep) (*chains.PayoutSent, error) {
	c, err := p.chain(s.ChainID)
	if err != nil {
		return nil, err
	}
	factory, err := factoryOf(c.Chain())
	if err != nil {
		return nil, err
	}
	orderID, depositor := common.HexToHash(s.OrderID), common.HexToAddress(s.Depositor)
	if want := DepositAddress(factory, DepositAddressImplementation(factory), orderID, depositor); want != common.HexToAddress(s.Address) {
		return nil, fmt.Errorf("%w: %s is not the deposit address of order %s and depositor %s (%s is)", chains.ErrPayoutRefused,
			s.Address, s.OrderID, s.Depositor, want.Hex())
	}
	amount, ok := new(big.Int).SetString(s.Amount, 10)
	if !ok || amount.Sign() <= 0 {
		return nil, fmt.Errorf("%w: sweep of %q %s from %s", chains.ErrPayoutRefused, s.Amount, s.Currency, s.Address)
	}
	call := solverCall{requestID: s.RequestID, kind: intent.TxKindSweep, to: factory, value: new(big.Int),
		data: PackSweep(orderID, depositor, common.HexToAddress(s.Currency), amount)}
	stored, err := p.send(ctx, c, call)
	if err != nil {
		return nil, err
	}
	return &chains.PayoutSent{TxHash: stored.Hash}, nil
}

// factoryOf is the chain's deposit-address factory; a chain without one sweeps nothing.
func factoryOf(ch *chains.Chain) (common.Address, error) {
	if ch.DepositAddressFactory == "" {
		return common.Address{}, fmt.Errorf("%w: chain %d has no deposit-address factory", chains.ErrUnsupported, ch.ID)
	}
	return common.HexToAddress(ch.DepositAddressFactory), nil
}

// sweepReader is what reading a sweep's deposit needs of a chain.
type sweepReader interface {
	chains.Client
	TxReader
}

// SweptDeposit returns the depository's deposit that the mined sweep tx made: its Deposit
// event of the sweep's address, currency and amount. Only the solver sweeps and each of its
// sweeps is one request's, so no other transaction can have made this request's deposit: a sweep
// that reverted (the address held less than the payment) or a cancellation mined in its place
// made none, chains.ErrNotFound, and the payment stays where it was.
func (p *Payout) SweptDeposit(ctx context.Context, s chains.Sweep, tx string) (*intent.Deposit, error) {
	c, err := chains.Capability[sweepReader](p.clients, s.ChainID)
	if err != nil {
		return nil, err
	}
	r, err := c.Receipt(ctx, common.HexToHash(tx))
	if err != nil {
		return nil, err
	}
	ch := c.Chain()
	factory, err := factoryOf(ch)
	if err != nil {
		return nil, err
	}
	for _, d := range ParseDeposits(ch.ID, common.HexToAddress(ch.Depository), factory, receiptLogs(r)) {
		if strings.EqualFold(d.SweptFrom, s.Address) && strings.EqualFold(d.Currency, s.Currency) && d.Amount == s.Amount &&
			strings.EqualFold(d.OrderID, s.OrderID) {
			return &d, nil
		}
	}
	return nil, fmt.Errorf("%w: sweep %s moved no %s %s from %s into the depository", chains.ErrNotFound, tx, s.Amount, s.Currency, s.Address)
}
