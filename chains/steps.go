package chains

import (
	"context"
	"math/big"

	"github.com/intentd/intentd/intent"
)

// Steps is a chain family's side of a quote, in the domain's terms: what the user signs or sends
// on the origin chain to fund an order, and on the destination what the solver's fill costs and
// whether it could be paid at all. The quote engine asks each leg's chain for it
// (Capability[Steps]) and builds no transaction, calldata or gas figure of its own, so a new
// family quotes by implementing this port (chains/evm: approve and deposit calls, fills in gas).
type Steps interface {
	// FundingSteps returns the steps that fund o from this chain, in order: for EVM chains an
	// approve of the depository when the user's allowance falls short (read fresh: a stale
	// "enough" would leave out an approve the deposit needs), then the deposit. The last step is
	// the one that pays, and the quote adds its status check to it. ErrUnavailable when the
	// chain could not be read.
	FundingSteps(ctx context.Context, o FundingOrder) ([]intent.Step, error)
	// FillCost returns what a fill paying out currency on this chain costs the solver now, in
	// the smallest unit of the chain's native currency: the execution cost the quote charges
	// (EVM: the fill's gas estimate at the chain's gas price, served from a refresh-ahead cache).
	FillCost(ctx context.Context, currency string) (*big.Int, error)
	// SimulateFill checks that solver could pay recipient in currency on this chain: a
	// *RevertError when the fill would fail (a blocked recipient, a recipient contract refusing
	// the asset), ErrUnavailable when the chain could not be asked. Outcomes are reused for a
	// few seconds.
	SimulateFill(ctx context.Context, solver, currency, recipient string) error
}

// FundingOrder is what a request's funding steps pay: the order, who pays it, and how much of
// which currency, on the chain asked for the steps.
type FundingOrder struct {
	RequestID string
	// OrderID is the protocol order's id (0x and 64 hex digits, intent.OrderData.ID).
	OrderID string
	// User is who pays, as the chain's notation wrote it (the quote's user).
	User string
	// Currency is what is paid; Amount how much, in its smallest unit.
	Currency intent.Currency
	Amount   *big.Int
}
