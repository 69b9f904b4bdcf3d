package evm

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
)

// The EVM family's sweep of deposit addresses (chains.Sweeper): the solver calls the chain's
// DepositAddressFactory.sweep(orderId, depositor, [currency]), which deploys the address's clone
// when needed and deposits the address's whole balance of the currency into the depository for
// the order, in the depositor's name. It is a solver transaction of kind sweep, signed and kept
// like a fill (payout_sign.go: a nonce allocated in Postgres, kept before its broadcast, the
// broadcast rounds in nonce order), committing the solver's gas only: the depository, not the
// solver, receives what is swept.

var _ chains.Sweeper = (*Payout)(nil)

// Sweep signs the request's sweep once, keeps it and broadcasts it; a retry finds it kept and
// broadcasts the same bytes again. The address must be the factory's for the sweep's order and
// depositor (computed offline): the factory can only ever deposit an address's funds under the
// order and depositor the address was derived from, and a sweep naming another pair would move
// another address's funds, so it is refused before anything is signed.
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
	call := solverCall{requestID: s.RequestID, kind: intent.TxKindSweep, to: factory, value: new(big.Int),
		data: DepositAddressFactoryABI.PackSweep(orderID, depositor, []common.Address{common.HexToAddress(s.Currency)})}
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
	sweptDeposits(ctx context.Context, orderID common.Hash, depositor common.Address, from, to uint64) ([]intent.Deposit, error)
}

// SweptDeposit returns the depository's deposit of the sweep's currency that a sweep of its
// address made: the one in the mined transaction tx, else (another party swept the address
// first: anyone may call sweep) the first one from the block the payment arrived in up to tx's
// block. chains.ErrNotFound when no sweep moved anything of the currency from the address.
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
	if d := sweptOf(ParseDeposits(ch.ID, common.HexToAddress(ch.Depository), factory, receiptLogs(r)), s); d != nil {
		return d, nil
	}
	deps, err := c.sweptDeposits(ctx, common.HexToHash(s.OrderID), common.HexToAddress(s.Depositor), min(s.FromBlock, r.BlockNumber.Uint64()),
		r.BlockNumber.Uint64())
	if err != nil {
		return nil, err
	}
	if d := sweptOf(deps, s); d != nil {
		chains.LoggerFrom(ctx).Info("the deposit address was swept by another transaction", "requestId", s.RequestID,
			"address", s.Address, "sweep", tx, "swept", d.TxHash)
		return d, nil
	}
	return nil, fmt.Errorf("%w: no sweep of %s moved %s from %s into the depository", chains.ErrNotFound, s.Address, s.Currency, s.Address)
}

// sweptOf is the first of deps that a sweep of s's address made in s's currency.
func sweptOf(deps []intent.Deposit, s chains.Sweep) *intent.Deposit {
	for _, d := range deps {
		if strings.EqualFold(d.SweptFrom, s.Address) && strings.EqualFold(d.Currency, s.Currency) {
			return &d
		}
	}
	return nil
}

// sweptDeposits returns the deposits in blocks [from, to] under orderID in depositor's name,
// with the factory's Swept events that say which are sweeps: one eth_getLogs (both events index
// the order id and the depositor first).
func (c *Client) sweptDeposits(ctx context.Context, orderID common.Hash, depositor common.Address, from, to uint64) ([]intent.Deposit, error) {
	factory, err := factoryOf(c.chain)
	if err != nil {
		return nil, err
	}
	depository := common.HexToAddress(c.chain.Depository)
	logs, err := c.eth.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: new(big.Int).SetUint64(from), ToBlock: new(big.Int).SetUint64(to),
		Addresses: []common.Address{depository, factory},
		Topics:    [][]common.Hash{{depositEventID, sweptEventID}, {orderID}, {common.BytesToHash(depositor.Bytes())}}})
	if err != nil {
		return nil, c.classify("filter logs", err)
	}
	return ParseDeposits(c.chain.ID, depository, factory, logs), nil
}
