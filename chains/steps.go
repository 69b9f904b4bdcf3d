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
	// RecipientRent returns what paying recipient in currency on this chain needs beyond the
	// fill's fee (FillCost), read fresh (RecipientRent): the rent of an account the fill must
	// create for the recipient, which the quote charges as the spec's "rent" fee component, and
	// the smallest payment the chain accepts to a recipient that does not hold its rent-exempt
	// minimum yet. EVM chains charge no rent: zero and no minimum. ErrUnavailable when the
	// chain could not be read.
	RecipientRent(ctx context.Context, currency, recipient string) (RecipientRent, error)
	// SimulateFill checks that solver could pay recipient in currency on this chain: a
	// *RevertError when the fill would fail (a blocked recipient, a recipient contract refusing
	// the asset), ErrUnavailable when the chain could not be asked. Outcomes are reused for a
	// few seconds.
	SimulateFill(ctx context.Context, solver, currency, recipient string) error
	// DepositAddressSteps returns the deposit address of o's order and depositor on this chain
	// and the steps that pay o to it with a plain transfer, for a wallet or an exchange that
	// cannot send calldata (issue 35; docs/deposit-addresses.md). The address is computed
	// offline (EVM: the CREATE2 address under the chain's DepositAddressFactory, the same on
	// every chain of the family where the factory sits at one address); nothing is read from the
	// chain. The last step is the one that pays, and carries the address. ErrUnsupported when
	// the chain has no deposit addresses (no factory in its chain file).
	DepositAddressSteps(o FundingOrder, depositor string) (address string, steps []intent.Step, err error)
	// SweepCost returns what moving a deposit address's balance of currency into this chain's
	// depository costs the solver now, in the smallest unit of the chain's native currency: the
	// part of a deposit-address quote's execution cost that is paid on the origin (EVM: the
	// sweep's gas, a constant per currency kind, at the chain's gas price).
	SweepCost(ctx context.Context, currency string) (*big.Int, error)
}

// RecipientRent is what a chain that charges rent for its accounts (Solana) needs of a fill's
// payment to one recipient in one currency, beyond the fill's fee (issue 36, point 4).
type RecipientRent struct {
	// Rent is what the fill puts into an account it creates for the recipient, in the smallest
	// unit of the chain's native currency: on Solana the rent-exempt minimum of the recipient's
	// associated token account of an SPL token when it has none yet (about 0.002 SOL); zero when
	// the fill creates no account. The solver pays it and the quote charges it as "rent".
	Rent *big.Int
	// MinPayment is the smallest amount of the currency, in its smallest unit, a payment to the
	// recipient may be: on Solana a SOL payment to an account holding less than the rent-exempt
	// minimum of an empty account (one that does not exist holds nothing) must bring it to that
	// minimum, or the chain refuses the transfer (InsufficientFundsForRent). Nil when any
	// positive amount may be paid.
	MinPayment *big.Int
	// ActivationFee is what the venue charges the payer for the recipient's first credit, in
	// the smallest unit of the chain's native currency: the perps exchange's USD 1 activation fee
	// on a new account's first deposit (spec, Fee model: "passed through" in the swap cost).
	// The solver pays it with the fill; the quote charges it in the swap component. Nil or zero
	// when the recipient's account exists.
	ActivationFee *big.Int
}

// FundingOrder is what a request's funding steps pay: the order, who pays it, and how much of
// which currency, on the chain asked for the steps.
type FundingOrder struct {
	RequestID string
	// OrderID is the protocol order's id (0x and 64 hex digits, intent.OrderData.ID).
	OrderID string
	// User is who pays, as the chain's notation wrote it (the quote's user; for a deposit
	// address, the wallet the quote was made for, while anyone may send the transfer).
	User string
	// Currency is what is paid; Amount how much, in its smallest unit.
	Currency intent.Currency
	Amount   *big.Int
}
