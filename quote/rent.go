package quote

import (
	"context"
	"math/big"

	"github.com/intentd/intentd/fees"
	"github.com/intentd/intentd/intent"
)

// The rent of a fill's destination (issue 36, point 4). A chain that charges rent for its
// accounts (a Solana-type chain) makes a fill cost more than its fee when the fill must create an
// account for the recipient: an SPL token paid to a wallet with no associated token account of
// the mint creates it, and the solver pays its rent-exempt minimum (about 0.002 SOL). The quote
// asks the destination's family (chains.Steps.RecipientRent, read fresh for the request's
// recipient and output currency), converts the lamports to USD at the native currency's price
// and that to the input currency, rounding up (integers only: intent.FromUSD), and charges it as
// the spec's "rent" fee component: it is in feeSponsorship.components.rent, sponsorable by
// sponsoredFeeComponents ("rent") or subsidizeFees, and, since the spec's other breakdowns have
// no rent key, counted with the destination's cost in fees.relayerGas (the spec: "relayerGas pays
// destination gas to the solver"), in details.expandedPriceImpact.execution and in the record's
// fees.quoted.execution.
//
// INSUFFICIENT_FUNDS_FOR_RENT (the spec's failReason, answered at quote time as 400 with
// nothing stored): the output cannot cover the rent, that is the quote's input would cover its
// fees but for the rent the user pays; or a SOL payment would leave a recipient below the
// rent-exempt minimum of an empty account (one that does not exist: the chain refuses such a
// transfer with InsufficientFundsForRent, so the fill could never land).

// CodeInsufficientFundsForRent: the output of a quote to a chain that charges rent cannot cover
// it (rent.go). The spec's failReason of the same name; as a quote answer it is 400.
const CodeInsufficientFundsForRent = "INSUFFICIENT_FUNDS_FOR_RENT"

// destRent is the destination's rent of a quote: its rent component in the input currency's
// smallest unit (zero when the fill creates no account) and the least amount of the output
// currency the recipient may be paid (nil when any).
//
// activation is the destination venue's activation fee for a new recipient account (the perps
// exchange's USD 1), in the input currency's smallest unit, rounded up; zero when none.
func (e *Engine) destRent(ctx context.Context, in, out *leg, currency, recipient string) (rent, activation, minOut *big.Int, qerr *Error) {
	r, err := out.client.RecipientRent(ctx, currency, recipient)
	if err != nil {
		return nil, nil, nil, unavailable(err, "chain %d is unavailable", out.chain.ID)
	}
	inInput := func(v *big.Int) (*big.Int, *Error) {
		if v == nil || v.Sign() <= 0 {
			return new(big.Int), nil
		}
		native, qerr := e.leg(ctx, out.chain.ID, "destinationChainId", out.chain.Currency.Address)
		if qerr != nil {
			return nil, qerr
		}
		return intent.FromUSD(native.usd(v), in.currency.Decimals, in.price), nil
	}
	if rent, qerr = inInput(r.Rent); qerr != nil {
		return nil, nil, nil, qerr
	}
	if activation, qerr = inInput(r.ActivationFee); qerr != nil {
		return nil, nil, nil, qerr
	}
	return rent, activation, r.MinPayment, nil
}

// rentError is INSUFFICIENT_FUNDS_FOR_RENT when b cannot pay the destination's rent: the rent the
// user pays leaves nothing of the input though the other fees would, or the output is below
// minOut, the least the chain lets the recipient be paid. Nil otherwise.
func rentError(b *breakdown, in, out side, minOut *big.Int) *Error {
	userRent := b.sponsor.Components[fees.ComponentRent].UserPays
	if userRent != nil && userRent.Sign() > 0 && (b.net.Sign() <= 0 || b.amountOut.Sign() <= 0) &&
		new(big.Int).Add(b.net, userRent).Sign() > 0 {
		return invalid(CodeInsufficientFundsForRent, "amount %s %s does not cover the rent of the recipient's new %s token account (%s %s) after the other fees",
			intent.FormatUnits(b.amountIn, in.currency.Decimals), in.currency.Symbol, out.currency.Symbol,
			intent.FormatUnits(userRent, in.currency.Decimals), in.currency.Symbol)
	}
	if minOut != nil && b.amountOut.Sign() > 0 && b.amountOut.Cmp(minOut) < 0 {
		return invalid(CodeInsufficientFundsForRent, "an output of %s %s is below the %s %s the recipient must hold to exist on chain %d (its rent-exempt minimum)",
			intent.FormatUnits(b.amountOut, out.currency.Decimals), out.currency.Symbol,
			intent.FormatUnits(minOut, out.currency.Decimals), out.currency.Symbol, out.currency.ChainID)
	}
	return nil
}
