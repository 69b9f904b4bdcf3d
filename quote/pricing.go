package quote

import (
	"math/big"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/fees"
	"github.com/intentd/intentd/intent"
)

// FlatExecutionFeeUSD is the fee model's flat execution fee, charged on every request.
var FlatExecutionFeeUSD = decimal.RequireFromString("0.02")

// DefaultSwapCostBps is the swap cost of a cross-asset route filled from the solver's
// inventory: the solver's rebalancing cost, charged as the fee model's swap component.
const DefaultSwapCostBps = 10

// side is one currency of a quote with its USD price.
type side struct {
	currency intent.Currency
	price    decimal.Decimal // USD per whole unit
}

func (s side) usd(amount *big.Int) decimal.Decimal {
	return intent.USDValue(amount, s.currency.Decimals, s.price)
}

func (s side) amountObject(amount, minimum *big.Int) intent.AmountObject {
	return intent.NewAmountObject(s.currency, amount, minimum, s.price)
}

func (s side) amount(a *big.Int) intent.Amount {
	return intent.Amount{Amount: a.String(), AmountFormatted: intent.FormatUnits(a, s.currency.Decimals),
		AmountUsd: s.usd(a).StringFixed(6), MinimumAmount: a.String()}
}

// pricing holds what fixes a quote's numbers once the route is known: the two sides, the
// pair's class, the destination gas cost in the input currency and the request's fee options.
// All fee amounts are in the smallest unit of the input currency, which is the fee currency.
type pricing struct {
	in, out     side
	class       fees.Class
	execGas     *big.Int // destination fill gas, in input units
	execFlat    *big.Int // the flat execution fee, in input units
	originGas   *big.Int // what the engine pays on the origin (a sweep, a gasless relay), in input units
	rent        *big.Int // the rent of an account the fill creates for the recipient, in input units (rent.go); nil is none
	activation  *big.Int // the destination venue's activation fee for a new recipient account, passed through in the swap cost, in input units; nil is none
	swapCostBps int64
	integrator  fees.Integrator
	appFees     []fees.AppFee
	sponsorship fees.Sponsorship
}

// breakdown is every number of a priced quote.
type breakdown struct {
	amountIn   *big.Int // what the user deposits
	net        *big.Int // amountIn less what the user pays in fees
	amountOut  *big.Int // what the solver pays the recipient
	swap       *big.Int
	platform   fees.PlatformSplit
	appAmounts []*big.Int
	app        *big.Int
	sponsor    fees.Result
}

// userFees is what the user pays: every component less what the sponsor covers.
func (b *breakdown) userFees() *big.Int { return b.sponsor.UserPaysTotal }

// at prices an input amount: the fee components, the sponsor's share, and the output.
func (p *pricing) at(amountIn *big.Int) *breakdown {
	b := &breakdown{amountIn: amountIn, swap: new(big.Int)}
	if p.class != fees.ClassBridge && p.class != fees.ClassWrap {
		b.swap = bpsCeil(amountIn, p.swapCostBps)
	}
	if p.activation != nil && p.activation.Sign() > 0 {
		// Spec, Fee model: the perps exchange's activation fee on new deposits is passed through
		// in the swap cost, whatever the route's class.
		b.swap = new(big.Int).Add(b.swap, p.activation)
	}
	b.platform = fees.Platform(p.class, amountIn, p.integrator)
	b.appAmounts, b.app = fees.AppFees(amountIn, p.appFees)
	b.sponsor = p.sponsorship.Apply(map[fees.Component]*big.Int{
		fees.ComponentExecution: p.executionCost(),
		fees.ComponentSwap:      b.swap,
		fees.ComponentPlatform:  b.platform.Total,
		fees.ComponentApp:       b.app,
		fees.ComponentRent:      p.rentCost(),
	})
	b.net = new(big.Int).Sub(amountIn, b.userFees())
	if b.net.Sign() > 0 {
		b.amountOut = p.convert(b.net)
	} else {
		b.amountOut = new(big.Int)
	}
	return b
}

// executionCost is the fee model's execution component: the destination fill's gas, the flat
// fee and the gas the engine pays on the origin: a deposit address's sweep, a gasless quote's
// relayed origin transaction (originGasOverhead).
func (p *pricing) executionCost() *big.Int {
	c := new(big.Int).Add(p.execGas, p.execFlat)
	if p.originGas != nil {
		c.Add(c, p.originGas)
	}
	return c
}

// rentCost is the fee model's rent component: the rent of the account the fill creates for the
// recipient (a Solana token account), zero when it creates none.
func (p *pricing) rentCost() *big.Int {
	if p.rent == nil {
		return new(big.Int)
	}
	return new(big.Int).Set(p.rent)
}

// forOutput finds the smallest input whose output is at least want (EXPECTED_OUTPUT). Fees grow
// with the input, so it starts from the fee-free input and adds the shortfall until the output
// covers want; the fixed fees make the first step land within a few units.
func (p *pricing) forOutput(want *big.Int) *breakdown {
	b := p.at(p.convertBack(want))
	for i := 0; i < 64 && b.amountOut.Cmp(want) < 0; i++ {
		// Add the output's shortfall, converted back; when the fees exceed the input, cover
		// them first. Percentage fees on the extra input make a second step rarely needed.
		short := p.convertBack(new(big.Int).Sub(want, b.amountOut))
		if b.net.Sign() <= 0 {
			short.Add(short, new(big.Int).Neg(b.net))
		}
		if short.Sign() <= 0 {
			short.SetInt64(1)
		}
		b = p.at(new(big.Int).Add(b.amountIn, short))
	}
	if b.amountOut.Cmp(want) < 0 {
		return b
	}
	// The steps above round up, and one unit of output can be worth many units of input (a
	// micro-USDC is hundreds of millions of wei), so the input can overshoot by up to about two
	// units of output. Search that window for the smallest input that still reaches want.
	lo := new(big.Int).Sub(b.amountIn, p.convertBack(big.NewInt(2)))
	lo.Sub(lo, big.NewInt(16))
	if lo.Sign() < 0 {
		lo.SetInt64(0)
	}
	hi := new(big.Int).Set(b.amountIn) // reaches want
	for new(big.Int).Sub(hi, lo).Cmp(big.NewInt(1)) > 0 {
		mid := new(big.Int).Add(lo, hi)
		mid.Rsh(mid, 1)
		if m := p.at(mid); m.amountOut.Cmp(want) >= 0 {
			hi, b = mid, m
		} else {
			lo = mid
		}
	}
	return b
}

// convert moves an input amount into the output currency at the two USD prices, rounding down:
// the user is never promised more than the solver pays. A bridge of one asset is 1:1.
func (p *pricing) convert(amount *big.Int) *big.Int {
	if p.in.currency.Symbol == p.out.currency.Symbol && p.in.currency.Decimals == p.out.currency.Decimals {
		return new(big.Int).Set(amount)
	}
	return p.in.usd(amount).Div(p.out.price).Shift(int32(p.out.currency.Decimals)).Floor().BigInt()
}

// convertBack is convert's inverse, rounding up.
func (p *pricing) convertBack(amount *big.Int) *big.Int {
	if p.in.currency.Symbol == p.out.currency.Symbol && p.in.currency.Decimals == p.out.currency.Decimals {
		return new(big.Int).Set(amount)
	}
	return p.out.usd(amount).Div(p.in.price).Shift(int32(p.in.currency.Decimals)).Ceil().BigInt()
}

// bpsCeil is amount x bps / 10000, rounded up: a fee never undercharges.
func bpsCeil(amount *big.Int, bps int64) *big.Int {
	if amount == nil || amount.Sign() <= 0 || bps <= 0 {
		return new(big.Int)
	}
	n := new(big.Int).Mul(amount, big.NewInt(bps))
	n.Add(n, big.NewInt(fees.MaxBps-1))
	return n.Quo(n, big.NewInt(fees.MaxBps))
}

// minimumOut applies slippage to the expected output, rounding down.
func minimumOut(expected *big.Int, slippageBps int64) *big.Int {
	n := new(big.Int).Mul(expected, big.NewInt(fees.MaxBps-slippageBps))
	return n.Quo(n, big.NewInt(fees.MaxBps))
}
