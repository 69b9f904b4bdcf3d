package quote

import (
	"context"
	"encoding/json"
	"math/big"
	"time"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/fees"
	"github.com/intentd/intentd/intent"
)

// Routers named in a route: deposits go to the depository; the solver pays out of its own
// inventory on the destination, converting at the quoted rate when the assets differ.
const (
	routerOrigin      = "depository"
	routerDestination = "solver-inventory"
)

func (q *quoted) operation() string {
	switch q.p.class {
	case fees.ClassBridge:
		return "bridge"
	case fees.ClassWrap:
		if q.in.currency.Metadata.IsNative {
			return "wrap"
		}
		return "unwrap"
	default:
		return "swap"
	}
}

func (q *quoted) userPays(c fees.Component) *big.Int { return q.b.sponsor.Components[c].UserPays }

// userPaysExecution is what the user pays of the destination's execution: the execution
// component and the rent component, which the spec's breakdowns without a rent key
// (expandedPriceImpact, v3 fees) count as execution (rent.go).
func (q *quoted) userPaysExecution() *big.Int {
	return new(big.Int).Add(q.userPays(fees.ComponentExecution), q.userPays(fees.ComponentRent))
}

func negUSD(d decimal.Decimal) string { return d.Neg().StringFixed(6) }

// response builds what every quote endpoint answers from the priced numbers.
func (e *Engine) response(ctx context.Context, q *quoted) *Response {
	in, out, b := q.in, q.out, q.b
	currencyIn := in.amountObject(b.amountIn, nil)
	currencyOut := out.amountObject(b.amountOut, q.minOut)
	inUSD, outUSD := in.usd(b.amountIn), out.usd(b.amountOut)
	total := outUSD.Sub(inUSD)
	// The rent of an account the fill creates for the recipient is a destination cost the solver
	// pays, as its gas is: relayerGas carries both (rent.go).
	relayerGas, originGas := new(big.Int).Add(q.p.execGas, q.p.rentCost()), new(big.Int)
	if q.p.originGas != nil {
		originGas = q.p.originGas
	}
	relayerService := new(big.Int).Add(q.p.execFlat, b.swap)
	relayerService.Add(relayerService, b.platform.Total)
	balance := ""
	if bal, err := in.client.Balance(ctx, q.v.OriginCurrency, q.v.User); err == nil {
		balance = bal.String()
	}
	slipValue := new(big.Int).Sub(b.amountOut, q.minOut)
	return &Response{
		Fees: Fees{
			Gas:            in.amountObject(originGas, nil),
			Relayer:        in.amountObject(new(big.Int).Add(relayerGas, relayerService), nil),
			RelayerGas:     in.amountObject(relayerGas, nil),
			RelayerService: in.amountObject(relayerService, nil),
			App:            in.amountObject(b.app, nil),
			Subsidized:     in.amountObject(b.sponsor.SponsoredTotal, nil),
		},
		Details: Details{
			Operation: q.operation(), Sender: q.v.User, Recipient: q.v.Recipient,
			CurrencyIn: currencyIn, CurrencyOut: currencyOut, RefundCurrency: currencyIn,
			TotalImpact: Impact{USD: total.StringFixed(6), Percent: percent(total, inUSD)},
			SwapImpact:  Impact{USD: negUSD(in.usd(q.userPays(fees.ComponentSwap))), Percent: percent(in.usd(q.userPays(fees.ComponentSwap)).Neg(), inUSD)},
			ExpandedPriceImpact: ExpandedPriceImpact{
				Swap:      USD{negUSD(in.usd(q.userPays(fees.ComponentSwap)))},
				Execution: USD{negUSD(in.usd(q.userPaysExecution()))},
				Service:   USD{negUSD(in.usd(q.userPays(fees.ComponentPlatform)))},
				App:       USD{negUSD(in.usd(q.userPays(fees.ComponentApp)))},
			},
			// rate is the effective rate, output per unit of input after fees; the market rate
			// the quote was made at is recorded as quoteOraclePrice.
			Rate: rate(b.amountIn, b.amountOut, in.side, out.side),
			SlippageTolerance: SlippageTolerance{
				Origin:      Slippage{USD: "0.000000", Value: "0", Percent: "0"},
				Destination: Slippage{USD: out.usd(slipValue).StringFixed(6), Value: slipValue.String(), Percent: decimal.New(q.slippageBps, -2).String()},
			},
			TimeEstimate: int64(in.chain.Confirmations*2 + 6),
			UserBalance:  balance,
			IsFixedRate:  true,
			Route:        q.route(),
		},
	}
}

func (q *quoted) route() intent.RouteLegs {
	currencyIn := q.in.amountObject(q.b.amountIn, nil)
	net := q.in.amountObject(q.b.net, nil)
	return intent.RouteLegs{
		Origin:      intent.RouteLeg{InputCurrency: currencyIn, OutputCurrency: net, Router: routerOrigin},
		Destination: intent.RouteLeg{InputCurrency: net, OutputCurrency: q.out.amountObject(q.b.amountOut, q.minOut), Router: routerDestination},
	}
}

func percent(part, whole decimal.Decimal) string {
	if whole.IsZero() {
		return "0"
	}
	return part.Div(whole).Shift(2).StringFixed(4)
}

func rate(amountIn, amountOut *big.Int, in, out side) string {
	a := decimal.NewFromBigInt(amountIn, -int32(in.currency.Decimals))
	b := decimal.NewFromBigInt(amountOut, -int32(out.currency.Decimals))
	if a.IsZero() {
		return "0"
	}
	return b.DivRound(a, 18).String()
}

// record builds the request record stored with the quote: the fee numbers the quote was made
// with (fees.quoted, feeSponsorship.quoted, platformFee, appFees.quoted) are kept so the fill
// can later be compared with them.
func (e *Engine) record(q *quoted, resp *Response, requestID, orderID string, order intent.OrderData) intent.Record {
	in, b := q.in, q.b
	feeAmount := func(a *big.Int) intent.FeeAmount {
		return intent.FeeAmount{USD: in.usd(a).StringFixed(6), Amount: a.String(), AmountFormatted: intent.FormatUnits(a, in.currency.Decimals)}
	}
	comp := func(c fees.Component) *big.Int { return b.sponsor.Components[c].Total }
	currencyIn, currencyOut := resp.Details.CurrencyIn, resp.Details.CurrencyOut
	now := q.now.UTC().Format(time.RFC3339Nano)
	appQuoted := make([]intent.AppFeeAmount, 0, len(q.v.AppFees))
	for i, f := range q.v.AppFees {
		appQuoted = append(appQuoted, intent.AppFeeAmount{Recipient: f.Recipient, Bps: decimal.NewFromInt(f.Bps).String(),
			Amount: b.appAmounts[i].String(), AmountFormatted: intent.FormatUnits(b.appAmounts[i], in.currency.Decimals)})
	}
	route := resp.Details.Route
	return intent.Record{
		ID: requestID, Status: intent.StatusWaiting, User: q.v.User, Recipient: q.v.Recipient, Sender: q.v.User,
		RefundTo: q.v.RefundTo, RequestType: "intent", Features: []string{}, CreatedAt: now, UpdatedAt: now,
		Data: intent.RecordData{
			SlippageTolerance: decimal.NewFromInt(q.slippageBps).String(),
			FailReason:        intent.FailReasonNA, RefundFailReason: intent.RefundFailReasonNA,
			TimeEstimate: resp.Details.TimeEstimate, InTxs: []intent.TxItem{}, OutTxs: []intent.TxItem{},
			Referrer: q.v.Referrer, CurrencyIn: &currencyIn, CurrencyOut: &currencyOut, RefundCurrency: &currencyIn,
			Fees: &intent.QuotedFees{Currency: in.currency, Quoted: intent.FeeComponents{
				Swap: feeAmount(comp(fees.ComponentSwap)), Execution: feeAmount(new(big.Int).Add(comp(fees.ComponentExecution), comp(fees.ComponentRent))),
				Platform: feeAmount(comp(fees.ComponentPlatform)), App: feeAmount(comp(fees.ComponentApp)),
				Sponsored: feeAmount(b.sponsor.SponsoredTotal)}},
			FeeSponsorship: &intent.FeeSponsorship{Quoted: q.sponsorshipPhase(), Currency: in.currency},
			PlatformFee:    q.platformFee(),
			AppFees:        &intent.AppFees{Quoted: appQuoted, Actual: []intent.AppFeeAmount{}, Currency: in.currency},
			Route:          &intent.Route{Quoted: &route},
			QuoteOraclePrice: &intent.OraclePrice{Rate: q.in.price.DivRound(q.out.price, 18).String(), ObservedAt: now,
				InputCurrency: q.in.amountObject(pow10(in.currency.Decimals), nil), OutputCurrency: q.out.amountObject(pow10(q.out.currency.Decimals), nil)},
		},
		Protocol: intent.Protocol{OrderID: orderID, HubType: "onchain", Solver: intent.ProtocolSolver{
			Address: e.SolverFor(q.out.chain), ProtocolChainID: order.SolverChainID, ChainID: q.out.chain.ID}},
	}
}

func pow10(d uint8) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d)), nil) }

func (q *quoted) sponsorshipPhase() *intent.SponsorshipPhase {
	r, in := q.b.sponsor, q.in
	ph := &intent.SponsorshipPhase{SelectedComponents: []string{}, CapHit: r.CapHit, Components: map[string]intent.SponsoredComponent{},
		SponsoredTotal: in.amount(r.SponsoredTotal), UserPaysTotal: in.amount(r.UserPaysTotal), SubsidizationBps: q.v.Sponsorship.Bps}
	for _, c := range r.SelectedComponents {
		ph.SelectedComponents = append(ph.SelectedComponents, string(c))
	}
	for _, c := range fees.Components {
		cr := r.Components[c]
		ph.Components[string(c)] = intent.SponsoredComponent{Selected: cr.Selected, Total: in.amount(cr.Total),
			Sponsored: in.amount(cr.Sponsored), UserPays: in.amount(cr.UserPays)}
	}
	if q.v.Sponsorship.Max != nil {
		ph.MaxSubsidizationAmount = q.v.Sponsorship.Max.String()
	}
	return ph
}

func (q *quoted) platformFee() *intent.PlatformFee {
	pf, in := q.b.platform, q.in
	return &intent.PlatformFee{Bucket: string(pf.Bucket), RuleID: pf.RuleID,
		ServiceFeeBps: json.Number(pf.ServiceBps.String()), IntegratorFeeBps: json.Number(pf.IntegratorBps.String()),
		TotalFeeBps: json.Number(pf.TotalBps.String()), ServiceFee: in.amountObject(pf.Service, nil),
		IntegratorFee: in.amountObject(pf.Integrator, nil), TotalPlatformFee: in.amountObject(pf.Total, nil),
		IntegratorFeeRecipient: pf.IntegratorRecipient}
}
