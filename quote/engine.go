// Package quote turns a quote request into priced, executable steps: it validates the request
// against the chain registry (each address by its chain's family, chains.Notation), prices the
// fee model's components (execution, swap, platform, app fees, the rent of a recipient's new
// account on a chain that charges rent, and sponsorship), builds the protocol order and its id,
// asks the destination chain's family what the fill costs and whether it would succeed and the
// origin's for the steps that fund the order (chains.Steps), and returns the spec's quote
// response. It builds no transaction of any chain family, stores the quote through a narrow
// interface and knows nothing about HTTP.
package quote

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/fees"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/refresh"
	"github.com/intentd/intentd/prices"
	"github.com/intentd/intentd/screening"
)

// PriceSource gives the USD price of one whole unit of a currency, by symbol.
type PriceSource interface {
	USDPrice(ctx context.Context, symbol string) (decimal.Decimal, error)
}

// Store is what the engine needs from persistence (store.Store is the real one). An error that
// means the database could not be reached wraps intent.ErrUnavailable; the engine knows no
// database driver.
type Store interface {
	InsertQuote(ctx context.Context, q intent.NewQuote) error
	// InsertDepositAddressQuote stores a deposit-address quote and its address at once: the
	// request (its deposit address written), the order and the issued address.
	InsertDepositAddressQuote(ctx context.Context, q intent.NewQuote, a intent.DepositAddress) error
	IntegratorVolume30d(ctx context.Context, integratorID string) (decimal.Decimal, error)
	// SponsorAccount reads an integrator's sponsorship account, fresh on every sponsored quote
	// (intent.ErrNotFound when it has none).
	SponsorAccount(ctx context.Context, integratorID string) (intent.SponsorAccount, error)
}

// Mode selects the endpoint a quote is made for.
type Mode int

// Quote modes.
const (
	ModeQuoteV2     Mode = iota // POST /quote/v2: steps, optional protocol data, stored
	ModeQuoteLegacy             // POST /quote: steps, stored; protocol data is a v2 feature
	ModePrice                   // POST /price: indicative, no steps, stores nothing
)

// Caller is who asks for the quote: the API key (if any) and its integrator's profile.
type Caller struct {
	APIKeyID string
	// APIKeyName is the key's label now, kept on the record as data.apiKeyName.
	APIKeyName string
	// IntegratorID is the key's integrator, whose sponsorship balance pays what the quote
	// sponsors; "" when there is none, and then nothing may be sponsored.
	IntegratorID     string
	BusinessVerified bool
	PayoutAddress    string
}

// CallerOf is the caller a resolved API key stands for; nil (no key) is the anonymous caller.
func CallerOf(k *auth.Key) Caller {
	if k == nil {
		return Caller{}
	}
	return Caller{APIKeyID: k.ID, APIKeyName: k.Label, IntegratorID: k.Integrator.ID, BusinessVerified: k.Integrator.BusinessVerified,
		PayoutAddress: k.Integrator.PayoutAddress}
}

// Engine prices quotes. Construct it once; it is safe for concurrent use.
type Engine struct {
	Chains *chains.Clients
	Prices PriceSource
	Store  Store
	Solver string // the solver's address, canonical (EVM: checksummed): the order's solver
	// Solvers are the solver's addresses on the chain families where it has one of another
	// kind than Solver's (svm: its base58 public key), by family: a route to such a chain names
	// it as the order's solver and simulates the fill from it (SolverFor).
	Solvers     map[chains.VMType]string
	TTL         time.Duration    // how long a quote can be executed; 0 means 10 minutes
	Limits      PairLimits       // per-pair maximum input; none means no maximum
	SwapCostBps int64            // swap cost of cross-asset routes; 0 means DefaultSwapCostBps
	Now         func() time.Time // injectable clock
	// Screening is the blocklist a quote's user, recipient and refundTo must not be on
	// (SANCTIONED_WALLET_ADDRESS); nil screens nothing.
	Screening *screening.List

	volumesOnce sync.Once
	volumes     *refresh.Cache[string, decimal.Decimal]
}

// volumeCache is the trailing-volume cache, made on first use.
func (e *Engine) volumeCache() *refresh.Cache[string, decimal.Decimal] {
	e.volumesOnce.Do(func() {
		e.volumes = refresh.New(e.Store.IntegratorVolume30d, refresh.Options{Fresh: time.Minute, MaxAge: 10 * time.Minute, ErrorTTL: 5 * time.Second})
	})
	return e.volumes
}

type leg struct {
	chain  *chains.Chain
	client legChain
	side
}

// legChain is what a quote reads on each leg's chain: its family's side of a quote and the
// user's balance.
type legChain interface {
	chains.Steps
	chains.BalanceReader
}

// leg resolves one side of a quote: the chain, its client and the currency at addr (as the
// request's validation wrote it, in the chain family's canonical form), with its price.
func (e *Engine) leg(ctx context.Context, chainID uint64, field string, addr string) (*leg, *Error) {
	ch, err := e.Chains.Registry().Get(chainID)
	if err != nil || ch.Disabled {
		return nil, invalid(CodeUnsupportedChain, "%s %d is not a supported chain", field, chainID)
	}
	cur, ok := ch.FindCurrency(addr)
	if !ok {
		return nil, invalid(CodeUnsupportedCurr, "currency %s is not supported on chain %d", addr, chainID)
	}
	client, cerr := chains.Capability[legChain](e.Chains, chainID)
	if errors.Is(cerr, chains.ErrUnsupported) {
		// A listed chain whose family is not linked into this process (no client: the
		// binaries link the EVM and Solana families) is offered no route. That is the
		// request's answer, not a failure of the chain a client would retry.
		return nil, failure(CodeUnsupportedChain, cerr, "%s routes are not offered yet: chain %d (vmType %s) is listed, but no route to or from it can be quoted",
			chainLabel(ch), chainID, ch.VMType)
	}
	if cerr != nil {
		return nil, unavailable(cerr, "chain %d is unavailable", chainID)
	}
	price, perr := e.Prices.USDPrice(ctx, cur.Symbol)
	switch {
	case errors.Is(perr, prices.ErrNoSource):
		// Listed but never priced (no table entry, no feed): the pair cannot be priced until
		// the configuration changes, so this is the spec's UNSUPPORTED_CURRENCY, not a 503 a
		// client would retry forever.
		return nil, failure(CodeUnsupportedCurr, perr, "%s on chain %d cannot be priced, so the pair is not supported", cur.Symbol, chainID)
	case perr != nil:
		return nil, failure(CodePriceFetchFailed, perr, "the price of %s is unavailable; retry shortly", cur.Symbol)
	}
	return &leg{chain: ch, client: client, side: side{price: price, currency: intent.Currency{
		ChainID: chainID, Address: canonical(ch, cur.Address), Symbol: cur.Symbol, Name: cur.Name,
		Decimals: cur.Decimals, Metadata: intent.CurrencyMetadata{LogoURI: cur.LogoURI, Verified: true, IsNative: cur.IsNative()},
	}}}, nil
}

// chainLabel names a chain for a client: its display name, else its name, else its id.
func chainLabel(ch *chains.Chain) string {
	switch {
	case ch.DisplayName != "":
		return ch.DisplayName
	case ch.Name != "":
		return ch.Name
	}
	return "chain " + strconv.FormatUint(ch.ID, 10)
}

// quoted is a priced quote before it is turned into a response.
type quoted struct {
	v           *Validated
	in, out     *leg
	p           *pricing
	b           *breakdown
	minOut      *big.Int
	slippageBps int64
	now         time.Time
	sponsor     *intent.Sponsor // what the caller's integrator pays; nil when nothing is sponsored
}

// Quote validates and prices a request. For the quote modes it also builds the steps, checks
// that the fill would succeed and stores the quote; ModePrice stops after pricing.
func (e *Engine) Quote(ctx context.Context, req *Request, caller Caller, mode Mode) (*Response, *Error) {
	q, qerr := e.price(ctx, req, caller)
	if qerr != nil {
		return nil, qerr
	}
	resp := e.response(ctx, q)
	if mode == ModePrice {
		// /price hands out no steps, but a route whose deposit could not be sent is refused
		// as /quote refuses it (solana_origin.go).
		if qerr := e.measureDeposit(ctx, q); qerr != nil {
			return nil, qerr
		}
		return resp, nil
	}
	v := q.v
	if qerr := e.simulateFill(ctx, q); qerr != nil {
		return nil, qerr
	}

	requestID, err := NewRequestID()
	if err != nil {
		return nil, unknown(err, "could not create a request id")
	}
	deadline := q.now.Add(e.ttl())
	order, orderID, err := e.order(q, deadline)
	if err != nil {
		return nil, unknown(err, "could not build the order")
	}
	var steps []Step
	var da *intent.DepositAddress
	if v.UseDepositAddress {
		steps, da, qerr = e.depositAddressSteps(q, req, requestID, orderID)
	} else {
		steps, qerr = e.fundingSteps(ctx, q, requestID, orderID)
	}
	if qerr != nil {
		return nil, qerr
	}
	pays := steps[len(steps)-1].Items
	for i := range pays {
		pays[i].Check = &StepCheck{Endpoint: StatusEndpoint(requestID), Method: "GET"}
	}
	resp.RequestID, resp.Steps = requestID, steps
	if v.IncludeProtocolData && mode == ModeQuoteV2 {
		resp.Protocol = &Protocol{V2: ProtocolV2{OrderID: orderID, OrderData: order, PaymentDetails: PaymentDetails{
			ChainID: strconv.FormatUint(q.in.chain.ID, 10), Depository: canonical(q.in.chain, q.in.chain.Depository),
			Currency: q.in.currency.Address, Amount: q.b.amountIn.String()}}}
	}
	exec := e.execution(q, requestID, orderID, deadline, resp.Details.TimeEstimate, intent.FundingDepository)
	rec := e.record(q, resp, requestID, orderID, order)
	if caller.APIKeyName != "" {
		name := caller.APIKeyName
		rec.Data.APIKeyName = &name
	}
	if da != nil {
		exec.Funding.Strategy = intent.FundingDepositAddress
		exec.DepositAddress = &intent.ExecutionDepositAddress{ID: da.ID, Address: da.Address, Type: da.Type, OrderID: da.OrderID,
			Depositor: da.Depositor}
		depositor := da.Depositor
		rec.DepositAddress = &intent.RecordDepositAddress{Address: da.Address, Type: da.Type, Depositor: &depositor}
		if da.RecoveryAddress != "" {
			recovery := da.RecoveryAddress
			rec.DepositAddress.RecoveryAddress = &recovery
		}
		rec.Features = append(rec.Features, intent.FeatureDepositAddress)
	}
	nq := intent.NewQuote{Record: rec, OrderID: orderID, OrderData: order, Execution: exec,
		APIKeyID: caller.APIKeyID, ExpiresAt: deadline, Origin: q.in.chain.ID, Dest: q.out.chain.ID,
		VolumeUSD: q.in.usd(q.b.amountIn)}
	if da != nil {
		err = e.Store.InsertDepositAddressQuote(ctx, nq, *da)
	} else {
		err = e.Store.InsertQuote(ctx, nq)
	}
	if err != nil {
		return nil, storeError(err)
	}
	return resp, nil
}

// price validates the request and computes every number of the quote.
func (e *Engine) price(ctx context.Context, req *Request, caller Caller) (*quoted, *Error) {
	v, verr := req.Validate(e.Chains.Registry())
	if verr != nil {
		return nil, verr
	}
	if v.Referrer != "" && caller.APIKeyID == "" {
		return nil, &Error{Code: CodeUnauthorizedQuote, Message: "referrer requires a valid x-api-key"}
	}
	if f := sponsorshipFields(v.Sponsorship); len(f) > 0 && caller.APIKeyID == "" {
		// The key's integrator is the sponsor: without a key nobody would pay but the solver.
		return nil, &Error{Code: CodeUnauthorizedQuote, Message: fmt.Sprintf(
			"%s: fee sponsorship requires a valid x-api-key (the key's integrator is the sponsor)", strings.Join(f, ", "))}
	}
	in, verr := e.leg(ctx, v.OriginChainID, "originChainId", v.OriginCurrency)
	if verr != nil {
		return nil, verr
	}
	out, verr := e.leg(ctx, v.DestChainID, "destinationChainId", v.DestCurrency)
	if verr != nil {
		return nil, verr
	}
	if solver := e.SolverFor(out.chain); solver != "" {
		if _, ok := out.chain.Notation().CanonicalAddress(solver); !ok {
			// No solver of the destination's family is configured (the Solana solver's
			// address): nobody could fill the order there.
			return nil, invalid(CodeUnsupportedChain, "%s routes are not offered: the solver has no address on chain %d (vmType %s)",
				chainLabel(out.chain), out.chain.ID, out.chain.VMType)
		}
	}
	if qerr := e.screen(v, in.chain, out.chain); qerr != nil {
		return nil, qerr
	}
	if !in.chain.DepositEnabled {
		return nil, invalid(CodeUnsupportedChain, "deposits are not enabled on chain %d", in.chain.ID)
	}
	if isContractOf(in.chain, v.Recipient) || isContractOf(out.chain, v.Recipient) {
		return nil, invalid(CodeInvalidRecipient, "recipient %s is a token or protocol contract; send to a wallet", v.Recipient)
	}
	class := fees.Classify(fees.Leg{ChainID: in.chain.ID, Symbol: in.currency.Symbol, Native: in.currency.Metadata.IsNative},
		fees.Leg{ChainID: out.chain.ID, Symbol: out.currency.Symbol, Native: out.currency.Metadata.IsNative})
	flow := fees.FlowSwap
	switch {
	case v.UseDepositAddress:
		flow = fees.FlowDepositAddress
	case class == fees.ClassBridge:
		flow = fees.FlowBridge
	}
	if err := v.Sponsorship.Validate(flow); err != nil {
		return nil, invalid(CodeInvalidInput, "%v", err)
	}
	if v.UseDepositAddress && in.chain.DepositAddressFactory == "" {
		return nil, invalid(CodeUnsupportedChain, "chain %d offers no deposit addresses", in.chain.ID)
	}

	execGas, execFlat, verr := e.executionFee(ctx, in, out, v.DestCurrency)
	if verr != nil {
		return nil, verr
	}
	// A deposit address's sweep is paid by the solver on the origin: its gas is the quote's too.
	originGas := new(big.Int)
	if v.UseDepositAddress {
		if originGas, verr = e.sweepFee(ctx, in, v.OriginCurrency); verr != nil {
			return nil, verr
		}
	}
	// A gasless execution's relayed origin transaction is paid by the relayer: its gas is the
	// quote's too, as a sweep's is (a request has one or the other, never both: Validate).
	if v.OriginGasOverhead > 0 {
		if in.chain.VMType != chains.VMTypeEVM { // Validate refuses it already, given the registry
			return nil, invalid(CodeInvalidInput, "originGasOverhead is only for EVM origin chains: chain %d (vmType %s) has no gasless execution",
				in.chain.ID, in.chain.VMType)
		}
		relayGas, verr := e.originGasFee(ctx, in, v.OriginGasOverhead)
		if verr != nil {
			return nil, verr
		}
		originGas = new(big.Int).Add(originGas, relayGas)
	}
	// A fill to a chain that charges rent may create the recipient's account (rent.go).
	rent, activation, rentMinOut, verr := e.destRent(ctx, in, out, v.DestCurrency, v.Recipient)
	if verr != nil {
		return nil, verr
	}
	p := &pricing{
		in: in.side, out: out.side, class: class, execGas: execGas, execFlat: execFlat, originGas: originGas, rent: rent,
		activation:  activation,
		swapCostBps: e.swapCostBps(), appFees: v.AppFees, sponsorship: v.Sponsorship,
		integrator: e.integrator(ctx, caller),
	}
	var b *breakdown
	if v.TradeType == TradeExpectedOutput {
		b = p.forOutput(v.Amount)
	} else {
		b = p.at(v.Amount)
	}
	if v.TradeType == TradeExpectedOutput && b.amountOut.Cmp(v.Amount) < 0 {
		return nil, invalid(CodeAmountTooLow, "no input reaches an output of %s %s after fees", intent.FormatUnits(v.Amount, out.currency.Decimals), out.currency.Symbol)
	}
	if verr := rentError(b, in.side, out.side, rentMinOut); verr != nil {
		return nil, verr
	}
	if b.net.Sign() <= 0 || b.amountOut.Sign() <= 0 {
		return nil, invalid(CodeAmountTooLow, "amount %s %s does not cover the fees of %s %s", intent.FormatUnits(b.amountIn, in.currency.Decimals),
			in.currency.Symbol, intent.FormatUnits(b.userFees(), in.currency.Decimals), in.currency.Symbol)
	}
	if max, ok := e.Limits.Max(in.currency.Symbol, out.currency.Symbol); ok && in.usd(b.amountIn).GreaterThan(max) {
		return nil, invalid(CodeAmountTooHigh, "amount %s %s (USD %s) is above the maximum of USD %s for %s to %s", intent.FormatUnits(b.amountIn, in.currency.Decimals),
			in.currency.Symbol, in.usd(b.amountIn).StringFixed(2), max.String(), in.currency.Symbol, out.currency.Symbol)
	}
	slip := int64(0)
	if class != fees.ClassBridge && class != fees.ClassWrap {
		slip = defaultSwapSlipp
	}
	if v.SlippageBps != nil {
		slip = *v.SlippageBps
	}
	sponsor, verr := e.sponsor(ctx, v, caller, in.side, b)
	if verr != nil {
		return nil, verr
	}
	return &quoted{v: v, in: in, out: out, p: p, b: b, minOut: minimumOut(b.amountOut, slip), slippageBps: slip, now: e.now(),
		sponsor: sponsor}, nil
}

// executionFee is the fee model's execution cost of a route, in the input currency's smallest
// unit: what the destination fill costs at the destination's current prices (its family's
// FillCost: gas at the gas price on EVM chains), and the flat fee.
func (e *Engine) executionFee(ctx context.Context, in, out *leg, destCurrency string) (gas, flat *big.Int, qerr *Error) {
	cost, err := out.client.FillCost(ctx, destCurrency)
	if err != nil {
		return nil, nil, unavailable(err, "chain %d is unavailable", out.chain.ID)
	}
	nativeOut, qerr := e.leg(ctx, out.chain.ID, "destinationChainId", out.chain.Currency.Address)
	if qerr != nil {
		return nil, nil, qerr
	}
	return intent.FromUSD(nativeOut.usd(cost), in.currency.Decimals, in.price),
		intent.FromUSD(FlatExecutionFeeUSD, in.currency.Decimals, in.price), nil
}

// sponsor checks that the caller's integrator can pay what the quote sponsors, and says what the
// fill will reserve from it. Only an integrator with a sponsorship wallet and a balance covering
// the sponsored amount's USD value may sponsor (SPONSOR_BALANCE_TOO_LOW otherwise): anyone else's
// sponsorship would be paid by the solver. The check is up front only; the fill reserves the
// amount again, and a balance spent in between ends the request in a refund.
func (e *Engine) sponsor(ctx context.Context, v *Validated, c Caller, in side, b *breakdown) (*intent.Sponsor, *Error) {
	if !v.Sponsorship.Subsidize {
		return nil, nil
	}
	if c.IntegratorID == "" {
		return nil, invalid(CodeSponsorBalanceTooLow, "sponsoring fees needs an x-api-key whose integrator has a sponsorship wallet with a balance")
	}
	acct, err := e.Store.SponsorAccount(ctx, c.IntegratorID)
	switch {
	case errors.Is(err, intent.ErrNotFound):
	case errors.Is(err, intent.ErrUnavailable):
		return nil, unavailable(err, "the sponsorship balance could not be read; retry shortly")
	case err != nil:
		return nil, unknown(err, "the sponsorship balance could not be read")
	}
	if !acct.CanSponsor() {
		return nil, invalid(CodeSponsorBalanceTooLow, "the key's integrator has no sponsorship wallet with a balance, so it cannot sponsor fees")
	}
	// Rounded up to the micro-dollar: a positive sponsored amount always costs the sponsor
	// something, never the solver.
	usd := in.usd(b.sponsor.SponsoredTotal).RoundCeil(6)
	if usd.GreaterThan(acct.BalanceUSD) {
		return nil, invalid(CodeSponsorBalanceTooLow, "the sponsored fees (USD %s) are more than the integrator's sponsorship balance", usd.StringFixed(6))
	}
	if !usd.IsPositive() {
		return nil, nil
	}
	return &intent.Sponsor{IntegratorID: c.IntegratorID, AmountUSD: usd, Amount: b.sponsor.SponsoredTotal.String()}, nil
}

// integrator resolves the caller's revenue-share profile. The trailing volume is read only for
// keys that could be eligible, and cached; a failed read counts as no volume (no revenue
// share), never as an error for the user.
func (e *Engine) integrator(ctx context.Context, c Caller) fees.Integrator {
	in := fees.Integrator{HasAPIKey: c.APIKeyID != "", BusinessVerified: c.BusinessVerified, PayoutAddress: c.PayoutAddress}
	if in.HasAPIKey && in.BusinessVerified && in.PayoutAddress != "" {
		if vol, err := e.volumeCache().Get(ctx, c.IntegratorID); err == nil {
			in.Volume30dUSD = vol
		}
	}
	return in
}

// execution is what the request's workflow runs: the quote's order, its amounts and who pays and
// is paid, its funding (the origin's family and the strategy) and the destination's family.
func (e *Engine) execution(q *quoted, requestID, orderID string, deadline time.Time, timeEstimate int64,
	strategy intent.FundingStrategy) intent.Execution {
	v, out := q.v, q.out
	return intent.Execution{
		RequestID: requestID, OrderID: orderID, User: v.User, Recipient: v.Recipient,
		RefundTo: v.RefundTo, OriginChainID: q.in.chain.ID, DestinationChainID: out.chain.ID,
		CurrencyIn: q.in.currency, CurrencyOut: out.currency, AmountIn: q.b.amountIn.String(), AmountOut: q.b.amountOut.String(),
		MinAmountOut: q.minOut.String(), Deadline: deadline.Unix(), TimeEstimate: timeEstimate, Solver: e.SolverFor(out.chain),
		Sponsor: q.sponsor, Funding: intent.Funding{Family: string(q.in.chain.VMType), Strategy: strategy},
		PayoutFamily: string(out.chain.VMType), OriginGasOverhead: v.OriginGasOverhead,
	}
}

// isContractOf reports whether a is one of the chain's protocol contracts or a token it lists
// (the native currency's zero address aside), compared as the chain's family compares addresses.
func isContractOf(ch *chains.Chain, a string) bool {
	n := ch.Notation()
	for _, s := range []string{ch.Depository, ch.OutputSettler, ch.DepositAddressFactory} {
		if s != "" && n.SameAddress(s, a) {
			return true
		}
	}
	_, ok := ch.FindCurrency(a)
	return ok && !n.IsZeroAddress(a)
}

// canonical is a, an address of the chain file, in the chain's family's canonical form (EVM:
// checksummed). The registry has read it, so it is one.
func canonical(ch *chains.Chain, a string) string {
	c, _ := ch.Notation().CanonicalAddress(a)
	return c
}

// SolverFor is the solver's address on ch: its family's entry of Solvers, else Solver.
func (e *Engine) SolverFor(ch *chains.Chain) string {
	if a, ok := e.Solvers[ch.VMType]; ok && a != "" {
		return a
	}
	return e.Solver
}

func (e *Engine) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

func (e *Engine) ttl() time.Duration {
	if e.TTL > 0 {
		return e.TTL
	}
	return 10 * time.Minute
}

func (e *Engine) swapCostBps() int64 {
	if e.SwapCostBps > 0 {
		return e.SwapCostBps
	}
	return DefaultSwapCostBps
}

// storeError maps a failed write: a database that could not be reached (the store wraps
// intent.ErrUnavailable) is SERVICE_UNAVAILABLE, worth a retry; anything else, a write the
// server refused, is a bug or a schema problem (UNKNOWN_ERROR).
func storeError(err error) *Error {
	if errors.Is(err, intent.ErrUnavailable) {
		return unavailable(err, "the quote could not be stored; retry shortly")
	}
	return unknown(err, "the quote could not be stored")
}

// order builds the protocol order of a priced quote and its id (0x-hex).
func (e *Engine) order(q *quoted, deadline time.Time) (intent.OrderData, string, error) {
	var salt [32]byte
	if _, err := rand.Read(salt[:]); err != nil {
		return intent.OrderData{}, "", err
	}
	v, in, out := q.v, q.in, q.out
	dl := uint32(deadline.Unix())
	inChain := strconv.FormatUint(in.chain.ID, 10)
	// The origin's addresses as written (a Solana origin's base58 keys too: the order's bytes
	// fields hash the 32 bytes a base58 key names, intent.OrderData), as the output's are.
	inCurrency, refundTo := in.currency.Address, v.RefundTo
	orderFees := make([]intent.OrderFee, 0, len(v.AppFees))
	for i, f := range v.AppFees {
		orderFees = append(orderFees, intent.OrderFee{RecipientChainID: inChain, Recipient: f.Recipient,
			CurrencyChainID: inChain, Currency: inCurrency, Amount: q.b.appAmounts[i].String()})
	}
	o := intent.OrderData{
		Version: "v1", SolverChainID: strconv.FormatUint(out.chain.ID, 10), Solver: e.SolverFor(out.chain),
		Salt: "0x" + hex.EncodeToString(salt[:]),
		Inputs: []intent.OrderInput{{
			Payment: intent.InputPayment{ChainID: inChain, Currency: inCurrency, Amount: q.b.amountIn.String(), Weight: "1"},
			Refunds: []intent.InputRefund{{ChainID: inChain, Recipient: refundTo,
				Currency: inCurrency, MinimumAmount: "0", Deadline: dl, ExtraData: "0x"}},
		}},
		Output: intent.OrderOutput{ChainID: strconv.FormatUint(out.chain.ID, 10), Deadline: dl, Calls: []string{}, ExtraData: "0x",
			Payments: []intent.OutputPayment{{Recipient: v.Recipient, Currency: out.currency.Address,
				MinimumAmount: q.minOut.String(), ExpectedAmount: q.b.amountOut.String()}}},
		Fees: orderFees,
	}
	id, err := o.ID()
	return o, id.Hex(), err
}

// fundingSteps are what the origin chain's family says the user sends to fund the order
// through the depository; the last of them is the one that pays, which Quote gives the status
// check.
func (e *Engine) fundingSteps(ctx context.Context, q *quoted, requestID, orderID string) ([]Step, *Error) {
	steps, err := q.in.client.FundingSteps(ctx, chains.FundingOrder{RequestID: requestID, OrderID: orderID, User: q.v.User,
		Currency: q.in.currency, Amount: q.b.amountIn})
	if err != nil {
		return nil, fundingError(q.in.chain, err)
	}
	if len(steps) == 0 {
		return nil, unknown(errors.New("no funding steps"), "chain %d gave no steps to fund the order", q.in.chain.ID)
	}
	return steps, nil
}

// simulateFill simulates q's destination fill before anything is promised (a quote, a
// requote): a token that blocks the recipient, or a recipient contract that refuses the asset,
// fails here and not after the user has paid.
func (e *Engine) simulateFill(ctx context.Context, q *quoted) *Error {
	v, out := q.v, q.out
	err := out.client.SimulateFill(ctx, e.SolverFor(out.chain), v.DestCurrency, v.Recipient)
	if err == nil {
		return nil
	}
	var rev *chains.RevertError
	if errors.As(err, &rev) {
		msg := fmt.Sprintf("the fill on chain %d would fail: %s", out.chain.ID, rev.Reason)
		if rev.Blocked {
			msg = fmt.Sprintf("the %s token contract on chain %d blocks the recipient %s", out.currency.Symbol, out.chain.ID, v.Recipient)
		}
		return &Error{Code: CodeDestinationTxFailed, Message: msg}
	}
	return unavailable(err, "chain %d is unavailable", out.chain.ID)
}
