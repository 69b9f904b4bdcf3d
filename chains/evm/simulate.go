package evm

import (
	"context"
	"errors"
	"math/big"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/intentd/intentd/chains"
)

// A fill simulation's outcome is reused for fillSimFresh, then re-run in the background while
// the old outcome is served, up to fillSimMaxAge. Whether a token lets the solver pay a
// recipient changes rarely (a blocklist update), and a quote that slips past such a change is
// still caught at fill time, so the reuse keeps simulations off the hot path without weakening
// what is checked.
const (
	fillSimFresh  = 20 * time.Second
	fillSimMaxAge = time.Minute
)

// fillSimKey names one simulated fill: who pays, in what, to whom.
type fillSimKey struct{ solver, currency, recipient common.Address }

// SimulateFill (chains.Steps) runs the fill of one base unit of currency from solver to
// recipient with eth_call against the latest block, and returns a *chains.RevertError when the
// chain would revert it (a blocked recipient, a recipient contract refusing the native asset) or a
// *chains.Error of kind chains.ErrUnavailable when the chain could not be asked. Outcomes are
// reused for fillSimFresh. The amount is nominal on purpose: this checks that the recipient can
// be paid at all; whether the solver holds enough is an inventory question answered at fill
// time.
func (c *Client) SimulateFill(ctx context.Context, solver, currency, recipient string) error {
	revert, err := c.fillSims.Get(ctx, fillSimKey{common.HexToAddress(solver), common.HexToAddress(currency), common.HexToAddress(recipient)})
	if err != nil {
		return err
	}
	return revert
}

// simulateFill returns the simulated outcome first (nil or a *chains.RevertError) and a
// failure to simulate second.
func (c *Client) simulateFill(ctx context.Context, k fillSimKey) (error, error) { //nolint:staticcheck // two errors on purpose, see above
	settler := common.HexToAddress(c.chain.OutputSettler)
	data, value := FillCalldata(common.Hash{}, k.currency, k.recipient, big.NewInt(1))
	_, err := c.CallContract(ctx, ethereum.CallMsg{From: k.solver, To: &settler, Data: data, Value: value})
	var r *chains.RevertError
	if errors.As(err, &r) {
		return r, nil
	}
	return nil, err
}
