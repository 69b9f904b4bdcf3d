// Package quote turns a quote request into priced, executable steps: it validates the request
// against the chain registry, prices the fee model's components, builds the protocol order and
// its id, and returns the spec's quote response. It stores the quote through a narrow interface
// and knows nothing about HTTP.
package quote

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
)

// FlatExecutionFeeUSD is the fee model's flat execution fee, charged on every request.
var FlatExecutionFeeUSD = decimal.RequireFromString("0.02")

// Store is what the engine needs from persistence.
type Store interface {
	InsertQuote(ctx context.Context, q store.NewQuote) error
}

// Engine prices quotes. Construct it once; it is safe for concurrent use.
type Engine struct {
	Chains *evm.Pool
	Prices PriceSource
	Store  Store
	Solver common.Address
	TTL    time.Duration    // how long a quote can be executed
	Now    func() time.Time // injectable clock
}

// Response is the quote response of POST /quote/v2.
type Response struct {
	Steps     []Step    `json:"steps"`
	Fees      Fees      `json:"fees"`
	Details   Details   `json:"details"`
	Protocol  *Protocol `json:"protocol,omitempty"`
	RequestID string    `json:"requestId"`
}

// Step is one action the client performs, in order.
type Step struct {
	ID             string     `json:"id"`
	Action         string     `json:"action"`
	Description    string     `json:"description"`
	Kind           string     `json:"kind"`
	RequestID      string     `json:"requestId"`
	DepositAddress string     `json:"depositAddress"`
	Items          []StepItem `json:"items"`
}

// StepItem is one transaction or signature of a step.
type StepItem struct {
	Status string      `json:"status"`
	Data   TxData      `json:"data"`
	Check  StepCheck   `json:"check"`
	Post   *StepPostTo `json:"post,omitempty"`
}

// TxData is an EVM transaction for the client's wallet to send.
type TxData struct {
	From    string `json:"from"`
	To      string `json:"to"`
	Data    string `json:"data"`
	Value   string `json:"value"`
	ChainID uint64 `json:"chainId"`
}

// StepCheck is the status poll a client uses after a step.
type StepCheck struct {
	Endpoint string `json:"endpoint"`
	Method   string `json:"method"`
}

// StepPostTo is a call the client makes after signing.
type StepPostTo struct {
	Endpoint string `json:"endpoint"`
	Method   string `json:"method"`
	Body     any    `json:"body"`
}

// Fees is the deprecated fee breakdown of quote responses, in amount objects.
type Fees struct {
	Gas            intent.AmountObject `json:"gas"`
	Relayer        intent.AmountObject `json:"relayer"`
	RelayerGas     intent.AmountObject `json:"relayerGas"`
	RelayerService intent.AmountObject `json:"relayerService"`
	App            intent.AmountObject `json:"app"`
	Subsidized     intent.AmountObject `json:"subsidized"`
}

// Details describes the quoted operation.
type Details struct {
	Operation    string              `json:"operation"`
	Sender       string              `json:"sender"`
	Recipient    string              `json:"recipient"`
	CurrencyIn   intent.AmountObject `json:"currencyIn"`
	CurrencyOut  intent.AmountObject `json:"currencyOut"`
	Rate         string              `json:"rate"`
	TimeEstimate int64               `json:"timeEstimate"`
}

// Protocol carries protocol.v2 when includeProtocolData is set.
type Protocol struct {
	V2 ProtocolV2 `json:"v2"`
}

// ProtocolV2 is the order, its id and what to pay to open it.
type ProtocolV2 struct {
	OrderID        string           `json:"orderId"`
	OrderData      intent.OrderData `json:"orderData"`
	PaymentDetails PaymentDetails   `json:"paymentDetails"`
}

// PaymentDetails says where the deposit goes.
type PaymentDetails struct {
	ChainID    string `json:"chainId"`
	Depository string `json:"depository"`
	Currency   string `json:"currency"`
	Amount     string `json:"amount"`
}

// StatusEndpoint builds the step check endpoint for a request.
func StatusEndpoint(requestID string) string { return "/intents/status/v3?requestId=" + requestID }

// NewRequestID returns a fresh requestId: 32 random bytes, hex with 0x. Never reused.
func NewRequestID() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "0x" + hex.EncodeToString(b[:]), nil
}

type leg struct {
	chain    *chains.Chain
	client   *evm.Client
	currency intent.Currency
	price    decimal.Decimal
}

func (e *Engine) leg(ctx context.Context, chainID uint64, field string, addr common.Address) (*leg, *Error) {
	ch, err := e.Chains.Registry().Get(chainID)
	if err != nil || ch.Disabled {
		return nil, invalid(CodeUnsupportedChain, "%s %d is not a supported chain", field, chainID)
	}
	cur, ok := ch.FindCurrency(addr.Hex())
	if !ok {
		return nil, invalid(CodeUnsupportedCurr, "currency %s is not supported on chain %d", addr.Hex(), chainID)
	}
	client, cerr := e.Chains.Client(chainID)
	if cerr != nil {
		return nil, unavailable("chain %d is unavailable", chainID)
	}
	price, perr := e.Prices.USDPrice(ctx, cur.Symbol)
	if perr != nil {
		return nil, &Error{Status: 503, Code: CodePriceFetchFailed, Message: fmt.Sprintf("price of %s is unavailable", cur.Symbol)}
	}
	return &leg{chain: ch, client: client, price: price, currency: intent.Currency{
		ChainID: chainID, Address: common.HexToAddress(cur.Address).Hex(), Symbol: cur.Symbol, Name: cur.Name,
		Decimals: cur.Decimals, Metadata: intent.CurrencyMetadata{LogoURI: cur.LogoURI, Verified: true, IsNative: cur.IsNative()},
	}}, nil
}

// Quote validates, prices and stores a quote. apiKeyID is the caller's key, recorded as the
// request's owner from the first quote.
func (e *Engine) Quote(ctx context.Context, req *Request, apiKeyID string) (*Response, *Error) {
	v, verr := req.Validate()
	if verr != nil {
		return nil, verr
	}
	in, verr := e.leg(ctx, v.OriginChainID, "originChainId", v.OriginCurrency)
	if verr != nil {
		return nil, verr
	}
	out, verr := e.leg(ctx, v.DestChainID, "destinationChainId", v.DestCurrency)
	if verr != nil {
		return nil, verr
	}
	if !in.chain.DepositEnabled {
		return nil, invalid(CodeUnsupportedChain, "deposits are not enabled on chain %d", in.chain.ID)
	}
	if in.currency.Symbol != out.currency.Symbol {
		return nil, invalid(CodeUnsupportedCurr, "swaps from %s to %s are not supported yet; bridge the same asset", in.currency.Symbol, out.currency.Symbol)
	}
	if _, ok := in.chain.FindCurrency(v.Recipient.Hex()); ok || isContractOf(out.chain, v.Recipient) {
		return nil, invalid(CodeInvalidRecipient, "recipient %s is a token contract", v.Recipient.Hex())
	}

	// Execution cost: the flat fee plus the destination fill's gas at the current gas price,
	// converted into the input currency and taken from the amount.
	gasPrice, err := out.client.GasPrice(ctx)
	if err != nil {
		return nil, unavailable("chain %d is unavailable", out.chain.ID)
	}
	nativeOut, verr := e.leg(ctx, out.chain.ID, "destinationChainId", common.Address{})
	if verr != nil {
		return nil, verr
	}
	gasWei := new(big.Int).Mul(gasPrice, new(big.Int).SetUint64(evm.FillGasEstimate(v.DestCurrency)))
	gasUSD := intent.USDValue(gasWei, nativeOut.currency.Decimals, nativeOut.price)
	relayerGas := intent.FromUSD(gasUSD, in.currency.Decimals, in.price)
	relayerService := intent.FromUSD(FlatExecutionFeeUSD, in.currency.Decimals, in.price)
	relayer := new(big.Int).Add(relayerGas, relayerService)
	net := new(big.Int).Sub(v.Amount, relayer)
	if net.Sign() <= 0 {
		return nil, invalid(CodeAmountTooLow, "amount %s %s does not cover the fees of %s %s", intent.FormatUnits(v.Amount, in.currency.Decimals),
			in.currency.Symbol, intent.FormatUnits(relayer, in.currency.Decimals), in.currency.Symbol)
	}
	amountOut := convert(net, in, out)
	if amountOut.Sign() <= 0 {
		return nil, invalid(CodeAmountTooLow, "amount is too low to fill")
	}

	requestID, err := NewRequestID()
	if err != nil {
		return nil, &Error{Status: 500, Code: CodeUnknownError, Message: "could not create a request id"}
	}
	now := e.now()
	deadline := now.Add(e.ttl())
	order, orderID, err := e.order(v, in, out, amountOut, deadline)
	if err != nil {
		return nil, &Error{Status: 500, Code: CodeUnknownError, Message: "could not build the order"}
	}
	steps, verr := e.steps(ctx, v, in, requestID, orderID)
	if verr != nil {
		return nil, verr
	}
	timeEstimate := int64(in.chain.Confirmations*2 + 6)

	currencyIn := intent.NewAmountObject(in.currency, v.Amount, v.Amount, in.price)
	currencyOut := intent.NewAmountObject(out.currency, amountOut, amountOut, out.price)
	zeroIn := intent.NewAmountObject(in.currency, new(big.Int), nil, in.price)
	resp := &Response{
		RequestID: requestID,
		Steps:     steps,
		Fees: Fees{
			Gas:            intent.NewAmountObject(in.currency, new(big.Int), nil, in.price),
			Relayer:        intent.NewAmountObject(in.currency, relayer, nil, in.price),
			RelayerGas:     intent.NewAmountObject(in.currency, relayerGas, nil, in.price),
			RelayerService: intent.NewAmountObject(in.currency, relayerService, nil, in.price),
			App:            zeroIn,
			Subsidized:     zeroIn,
		},
		Details: Details{
			Operation: "bridge", Sender: v.User.Hex(), Recipient: v.Recipient.Hex(),
			CurrencyIn: currencyIn, CurrencyOut: currencyOut, Rate: rate(v.Amount, amountOut, in, out),
			TimeEstimate: timeEstimate,
		},
	}
	if v.IncludeProtocolData {
		resp.Protocol = &Protocol{V2: ProtocolV2{OrderID: orderID.Hex(), OrderData: order, PaymentDetails: PaymentDetails{
			ChainID: strconv.FormatUint(in.chain.ID, 10), Depository: common.HexToAddress(in.chain.Depository).Hex(),
			Currency: in.currency.Address, Amount: v.Amount.String()}}}
	}

	exec := intent.Execution{
		RequestID: requestID, OrderID: orderID.Hex(), User: v.User.Hex(), Recipient: v.Recipient.Hex(),
		RefundTo: v.RefundTo.Hex(), OriginChainID: in.chain.ID, DestinationChainID: out.chain.ID,
		CurrencyIn: in.currency, CurrencyOut: out.currency, AmountIn: v.Amount.String(), AmountOut: amountOut.String(),
		MinAmountOut: amountOut.String(), Deadline: deadline.Unix(), TimeEstimate: timeEstimate, Solver: e.Solver.Hex(),
	}
	feeUSD := func(a *big.Int) intent.FeeAmount {
		return intent.FeeAmount{USD: intent.USDValue(a, in.currency.Decimals, in.price).StringFixed(6), Amount: a.String(),
			AmountFormatted: intent.FormatUnits(a, in.currency.Decimals)}
	}
	zero := feeUSD(new(big.Int))
	rec := intent.Record{
		ID: requestID, Status: intent.StatusWaiting, User: v.User.Hex(), Recipient: v.Recipient.Hex(), Sender: v.User.Hex(),
		RefundTo: v.RefundTo.Hex(), RequestType: "intent", Features: []string{},
		CreatedAt: now.UTC().Format(time.RFC3339Nano), UpdatedAt: now.UTC().Format(time.RFC3339Nano),
		Data: intent.RecordData{
			SlippageTolerance: "0", FailReason: intent.FailReasonNA, RefundFailReason: intent.RefundFailReasonNA,
			TimeEstimate: timeEstimate, InTxs: []intent.TxItem{}, OutTxs: []intent.TxItem{},
			CurrencyIn: &currencyIn, CurrencyOut: &currencyOut,
			Fees: &intent.QuotedFees{Currency: in.currency, Quoted: intent.FeeComponents{
				Swap: zero, Execution: feeUSD(relayer), Platform: zero, App: zero, Sponsored: zero}},
		},
		Protocol: intent.Protocol{OrderID: orderID.Hex(), HubType: "onchain", Solver: intent.ProtocolSolver{
			Address: e.Solver.Hex(), ProtocolChainID: order.SolverChainID, ChainID: out.chain.ID}},
	}
	if err := e.Store.InsertQuote(ctx, store.NewQuote{Record: rec, OrderID: orderID.Hex(), OrderData: order, Quote: exec,
		APIKeyID: apiKeyID, ExpiresAt: deadline, Origin: in.chain.ID, Dest: out.chain.ID}); err != nil {
		return nil, unavailable("could not store the quote")
	}
	return resp, nil
}

func isContractOf(ch *chains.Chain, a common.Address) bool {
	for _, s := range []string{ch.Depository, ch.OutputSettler} {
		if s != "" && common.HexToAddress(s) == a {
			return true
		}
	}
	_, ok := ch.FindCurrency(a.Hex())
	return ok && a != common.Address{}
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

// convert moves an amount between currencies at their USD prices, rounding down (the user is
// never promised more than the solver will pay).
func convert(amount *big.Int, in, out *leg) *big.Int {
	if in.currency.Symbol == out.currency.Symbol && in.currency.Decimals == out.currency.Decimals {
		return new(big.Int).Set(amount)
	}
	usd := intent.USDValue(amount, in.currency.Decimals, in.price)
	return usd.Div(out.price).Shift(int32(out.currency.Decimals)).Floor().BigInt()
}

func rate(amountIn, amountOut *big.Int, in, out *leg) string {
	a := decimal.NewFromBigInt(amountIn, -int32(in.currency.Decimals))
	b := decimal.NewFromBigInt(amountOut, -int32(out.currency.Decimals))
	if a.IsZero() {
		return "0"
	}
	return b.DivRound(a, 18).String()
}

func (e *Engine) order(v *Validated, in, out *leg, amountOut *big.Int, deadline time.Time) (intent.OrderData, common.Hash, error) {
	var salt [32]byte
	if _, err := rand.Read(salt[:]); err != nil {
		return intent.OrderData{}, common.Hash{}, err
	}
	dl := uint32(deadline.Unix())
	o := intent.OrderData{
		Version: "v1", SolverChainID: strconv.FormatUint(out.chain.ID, 10), Solver: e.Solver.Hex(),
		Salt: hexutil.Encode(salt[:]),
		Inputs: []intent.OrderInput{{
			Payment: intent.InputPayment{ChainID: strconv.FormatUint(in.chain.ID, 10), Currency: in.currency.Address,
				Amount: v.Amount.String(), Weight: "1"},
			Refunds: []intent.InputRefund{{ChainID: strconv.FormatUint(in.chain.ID, 10), Recipient: v.RefundTo.Hex(),
				Currency: in.currency.Address, MinimumAmount: "0", Deadline: dl, ExtraData: "0x"}},
		}},
		Output: intent.OrderOutput{ChainID: strconv.FormatUint(out.chain.ID, 10), Deadline: dl, Calls: []string{}, ExtraData: "0x",
			Payments: []intent.OutputPayment{{Recipient: v.Recipient.Hex(), Currency: out.currency.Address,
				MinimumAmount: amountOut.String(), ExpectedAmount: amountOut.String()}}},
		Fees: []intent.OrderFee{},
	}
	id, err := o.ID()
	return o, id, err
}

func (e *Engine) steps(ctx context.Context, v *Validated, in *leg, requestID string, orderID common.Hash) ([]Step, *Error) {
	depository := common.HexToAddress(in.chain.Depository)
	check := StepCheck{Endpoint: StatusEndpoint(requestID), Method: "GET"}
	var steps []Step
	var deposit TxData
	if v.OriginCurrency == (common.Address{}) {
		deposit = TxData{From: v.User.Hex(), To: depository.Hex(), Data: hexutil.Encode(evm.DepositoryABI.PackDepositNative(orderID)),
			Value: v.Amount.String(), ChainID: in.chain.ID}
	} else {
		allowance, err := in.client.Allowance(ctx, v.OriginCurrency, v.User, depository)
		if err != nil {
			if errors.Is(err, evm.ErrUnavailable) {
				return nil, unavailable("chain %d is unavailable", in.chain.ID)
			}
			return nil, &Error{Status: 500, Code: CodeUnknownError, Message: "could not read the allowance"}
		}
		if allowance.Cmp(v.Amount) < 0 {
			steps = append(steps, Step{ID: "approve", Action: "Approve", Kind: "transaction", RequestID: requestID,
				Description: fmt.Sprintf("Allow the depository to take %s %s", intent.FormatUnits(v.Amount, in.currency.Decimals), in.currency.Symbol),
				Items: []StepItem{{Status: "incomplete", Check: check, Data: TxData{From: v.User.Hex(), To: v.OriginCurrency.Hex(),
					Data: hexutil.Encode(evm.ERC20ABI.PackApprove(depository, v.Amount)), Value: "0", ChainID: in.chain.ID}}}})
		}
		deposit = TxData{From: v.User.Hex(), To: depository.Hex(), Value: "0", ChainID: in.chain.ID,
			Data: hexutil.Encode(evm.DepositoryABI.PackDepositErc20(orderID, v.OriginCurrency, v.Amount))}
	}
	steps = append(steps, Step{ID: "deposit", Action: "Confirm transaction in your wallet", Kind: "transaction", RequestID: requestID,
		Description: fmt.Sprintf("Deposit %s %s", intent.FormatUnits(v.Amount, in.currency.Decimals), in.currency.Symbol),
		Items:       []StepItem{{Status: "incomplete", Data: deposit, Check: check}}})
	return steps, nil
}
