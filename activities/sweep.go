package activities

import (
	"context"
	"errors"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
)

// The sweep of a deposit address (intent.FundingDepositAddress, workflows/sweep.go): a payment
// that arrived at a request's deposit address is moved into the origin chain's depository by its
// family (chains.Sweeper, a capability of the family's payout), signed by the solver once per
// request like a fill and kept before it is broadcast, so a retry, or a worker that died between
// the keeping and the broadcast, sends the kept sweep again and never signs a second one. The
// sweep's Deposit event is the request's deposit from then on.

// SweepInput names the sweep of a request's deposit address: the address and its salt (the
// order id and depositor its sweeps deposit under), and the currency and amount of the payment.
type SweepInput struct {
	RequestID string
	ChainID   uint64
	// Family is the family the payment was found by (the arrival's Deposit.Family).
	Family    chains.VMType `json:",omitempty"`
	Address   string
	OrderID   string
	Depositor string
	Currency  string
	// Amount is the payment's amount (base units): what the sweep moves.
	Amount string
}

func (in SweepInput) sweep() chains.Sweep {
	return chains.Sweep{RequestID: in.RequestID, ChainID: in.ChainID, Address: in.Address, OrderID: in.OrderID,
		Depositor: in.Depositor, Currency: in.Currency, Amount: in.Amount}
}

// SweepSent is the sweep as signed, kept and broadcast.
type SweepSent struct {
	TxHash string
}

// SweepDepositAddress has the family sweep the request's deposit address once (signed and kept
// before it is broadcast) and broadcast it; a retry broadcasts the kept sweep again. A sweep the
// family refuses for good (an address that is not its order's and depositor's, a kept sweep that
// does not decode) fails with UNKNOWN, one that would revert with TRANSACTION_REVERTED, both
// before anything is signed; anything else is retried. The solver pays the sweep's gas, which
// the quote's fee covers.
func (a *ChainActivities) SweepDepositAddress(ctx context.Context, in SweepInput) (*SweepSent, error) {
	s, err := a.Families.Sweeper(in.Family, in.ChainID)
	if err != nil {
		return nil, err
	}
	sent, err := s.Sweep(chains.WithLogger(ctx, logger(ctx)), in.sweep())
	var r *chains.RevertError
	switch {
	case err == nil:
		logger(ctx).Info("sweep sent", "requestId", in.RequestID, "chainId", in.ChainID, "address", in.Address,
			"currency", in.Currency, "tx", sent.TxHash)
		return &SweepSent{TxHash: sent.TxHash}, nil
	case errors.As(err, &r):
		return nil, failure(intent.FailReasonTransactionReverted, "the sweep would revert: "+r.Reason, r)
	case errors.Is(err, chains.ErrPayoutRefused), errors.Is(err, chains.ErrStoredCorrupt):
		return nil, failure(intent.FailReasonUnknown, "the sweep is refused: "+err.Error(), err)
	}
	return nil, err
}

// AwaitSweepInput names a broadcast sweep to wait for.
type AwaitSweepInput struct {
	Sweep  SweepInput
	TxHash string
}

// Swept is the mined attempt of a sweep and the depository's deposit it made; Deposit is nil when
// nothing was swept of the currency (the attempt reverted, was a cancellation or was voided by
// the chain's reset, or the address held nothing: a payment a reorg removed).
type Swept struct {
	Included TxIncluded
	Deposit  *intent.Deposit `json:",omitempty"`
}

// AwaitSweep waits, as AwaitTx does, until one attempt of the request's sweep is mined, then
// reads the deposit it made (chains.Sweeper.SweptDeposit: the sweep's own, or, when another party
// swept the address first, the one that sweep made).
func (a *ChainActivities) AwaitSweep(ctx context.Context, in AwaitSweepInput) (*Swept, error) {
	s, err := a.Families.Sweeper(in.Sweep.Family, in.Sweep.ChainID)
	if err != nil {
		return nil, err
	}
	inc, err := a.AwaitTx(ctx, AwaitTxInput{RequestID: in.Sweep.RequestID, Kind: intent.TxKindSweep, ChainID: in.Sweep.ChainID,
		TxHash: in.TxHash, Family: in.Sweep.Family})
	if err != nil {
		return nil, err
	}
	out := &Swept{Included: *inc}
	if inc.Voided || inc.Cancel || !inc.Success {
		return out, nil
	}
	dep, err := s.SweptDeposit(chains.WithLogger(ctx, logger(ctx)), in.Sweep.sweep(), inc.Hash)
	if errors.Is(err, chains.ErrNotFound) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	out.Deposit = dep
	return out, nil
}
