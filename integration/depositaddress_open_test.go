package integration

import (
	"context"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/records"
	"github.com/intentd/intentd/testkit/e2e"
)

// openAddress is an open deposit address quoted through POST /quote/v2 on the stack.
type openAddress struct {
	q       *quote.Response
	id      string         // depositAddressId
	addr    common.Address // the address
	orderID common.Hash    // the address's order (its salt), the quote-time request's order
}

// quoteOpenAddress quotes native ETH from 31337 to 31338 for amount through an open deposit
// address, with refundTo a fresh address of its own, and returns the address and its refundTo.
func (s *stack) quoteOpenAddress(t *testing.T, ctx context.Context, c *e2e.Client, user, recipient common.Address,
	amount string) (openAddress, common.Address) {
	t.Helper()
	refundTo := freshAddress(t)
	q, err := c.Quote(ctx, map[string]any{"user": user.Hex(), "recipient": recipient.Hex(), "originChainId": 31337,
		"destinationChainId": 31338, "originCurrency": common.Address{}.Hex(), "destinationCurrency": common.Address{}.Hex(),
		"amount": amount, "tradeType": "EXACT_INPUT", "includeProtocolData": true, "useDepositAddress": true,
		"refundTo": refundTo.Hex()})
	if err != nil {
		t.Fatal(err)
	}
	step := q.Steps[len(q.Steps)-1]
	return openAddress{q: q, id: step.DepositAddressID, addr: common.HexToAddress(step.DepositAddress),
		orderID: common.HexToHash(q.Protocol.V2.OrderID)}, refundTo
}

// payAddress sends amount wei to the address by a plain send and returns the payment's hash.
func payAddress(t *testing.T, ctx context.Context, w *e2e.Wallet, a openAddress, amount *big.Int) string {
	t.Helper()
	r, err := w.SendTx(ctx, quote.TxData{ChainID: 31337, To: a.addr.Hex(), Data: "0x", Value: amount.String()})
	if err != nil {
		t.Fatal(err)
	}
	return r.TxHash.Hex()
}

// routedTo waits for the scanner to route the payment txHash at the address and returns the
// request it funds.
func (s *stack) routedTo(t *testing.T, ctx context.Context, a openAddress, txHash string) string {
	t.Helper()
	for {
		history, err := s.Sys.Store.DepositAddressTransfers(ctx, a.id)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range history {
			if common.HexToHash(x.TxHash) == common.HexToHash(txHash) && x.RequestID != "" {
				return x.RequestID
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("payment %s at %s not routed: %+v", txHash, a.addr, history)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// requestIDs lists the ids GET /requests/v3 answers for query, asked with c's key.
func requestIDs(t *testing.T, ctx context.Context, c *e2e.Client, query url.Values) []string {
	t.Helper()
	var out struct {
		Requests []struct {
			ID string `json:"id"`
		} `json:"requests"`
	}
	if code, err := c.Do(ctx, http.MethodGet, "/requests/v3?"+query.Encode(), nil, &out); err != nil || code != http.StatusOK {
		t.Fatalf("GET /requests/v3?%s: %d %v", query.Encode(), code, err)
	}
	var ids []string
	for _, r := range out.Requests {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	return ids
}

// filledOnce checks that request id reached success, its order was filled once on 31338 and the
// recipient holds at least its minimum; it returns the request's order id.
func (s *stack) filledOnce(t *testing.T, ctx context.Context, id string, recipient common.Address, before *big.Int) common.Hash {
	t.Helper()
	final, seen, err := s.API.WaitStatus(ctx, id, "success", "failure", "refund")
	if err != nil {
		t.Fatal(err)
	}
	if final.Status != "success" {
		t.Fatalf("request %s: final status %+v (seen %v)", id, final, seen)
	}
	stored, err := s.Sys.Store.QuoteByRequestID(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	orderID := common.HexToHash(stored.OrderID)
	if n := s.fills(t, 31338, orderID); n != 1 {
		t.Fatalf("fills of request %s's order: %d, want 1", id, n)
	}
	minOut, _ := new(big.Int).SetString(stored.Execution.MinAmountOut, 10)
	if got := new(big.Int).Sub(s.balance(t, 31338, common.Address{}, recipient), before); got.Cmp(minOut) < 0 {
		t.Fatalf("recipient received %s, request %s's minimum %s", got, id, minOut)
	}
	return orderID
}

// sweeps counts the factory's Swept events of the address's order on 31337.
func (s *stack) sweeps(t *testing.T, a openAddress) int {
	t.Helper()
	return s.Events(t, 31337, devnet.DepositAddressFactoryAddress, evm.DepositAddressFactoryABI.GetABI().Events["Swept"].ID)[a.orderID]
}

// Issue 35, point 3: "more than quoted (open: requote and fill ...), less (open: requote if it
// still covers fees, else refund ...), reuse (open: each deposit a fresh quote and fill ...)"
// and point 4: "a regenerated quote runs under a new requestId; the original names it in
// `supersededByRequestId` and may stay `waiting`; `/requests/v3?depositAddress=` and
// `includeChildRequests` return every related request". An open deposit address quoted through
// POST /quote/v2 is paid by a plain send on the devnet: the exact amount fills the quote-time
// request; more, or less that still covers the fees, is quoted again and filled under a new
// request (the original superseded and waiting); less than the fees is refunded to refundTo by
// the quote-time request. Every request is filled once and every payment swept once.
func TestAnOpenDepositAddressIsRequotedForWhatWasPaid(t *testing.T) {
	s := startStack(t)
	c, _ := newKey(t, s, auth.Integrator{Name: "open deposit addresses"})
	const quoted = "400000000000000000" // 0.4 ETH
	q400, _ := new(big.Int).SetString(quoted, 10)
	cases := []struct {
		name   string
		amount *big.Int // paid
		// requoted: the payment funds a new request, which supersedes the quote-time one
		requoted bool
		refunded bool
	}{
		{"exact amount fills the quote-time request", nil, false, false},
		{"more than quoted is requoted and filled", new(big.Int).Add(q400, big.NewInt(100000000000000000)), true, false},
		{"less but covering the fees is requoted and filled", new(big.Int).Div(q400, big.NewInt(2)), true, false},
		{"less than the fees is refunded to refundTo", big.NewInt(-2), false, true}, // 2/3 of the quote's fees
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
			defer cancel()
			acct, recipient := devnet.TestAccounts()[4+i], freshAddress(t)
			wallet := &e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}
			if tc.refunded {
				// On the devnet a refund costs more gas (about 331,000: docs/operations.md) than the
				// quote's fees at the flat USD 0.02, so a payment below the fees would never be worth
				// refunding (AMOUNT_TOO_LOW_TO_REFUND). A flat fee of USD 5 for this quote and its
				// requote makes a payment below the fees that is worth its refund.
				flat := quote.FlatExecutionFeeUSD
				quote.FlatExecutionFeeUSD = decimal.NewFromInt(5)
				t.Cleanup(func() { quote.FlatExecutionFeeUSD = flat })
			}
			a, refundTo := s.quoteOpenAddress(t, ctx, c, acct.Address, recipient, quoted)
			amountIn, _ := new(big.Int).SetString(a.q.Details.CurrencyIn.Amount, 10)
			pay := tc.amount
			switch {
			case pay == nil:
				pay = amountIn
			case pay.Sign() < 0:
				// Less than the fees: the quote's input less its output (ETH to ETH, one for one)
				// is what it charges.
				amountOut, _ := new(big.Int).SetString(a.q.Details.CurrencyOut.Amount, 10)
				pay = new(big.Int).Div(new(big.Int).Mul(new(big.Int).Sub(amountIn, amountOut), big.NewInt(2)), big.NewInt(3))
			}
			paid := payAddress(t, ctx, wallet, a, pay)
			routed := s.routedTo(t, ctx, a, paid)
			if got := routed != a.q.RequestID; got != tc.requoted {
				t.Fatalf("payment of %s (quoted %s) routed to %s, the quote-time request %s: requoted %v, want %v", pay, amountIn,
					routed, a.q.RequestID, got, tc.requoted)
			}
			original, err := s.Sys.Store.Record(ctx, a.q.RequestID)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.refunded:
				final, seen, err := s.API.WaitStatus(ctx, a.q.RequestID, "success", "failure", "refund")
				if err != nil {
					t.Fatal(err)
				}
				if final.Status != "refund" || final.FailReason != string(intent.FailReasonDepositedAmountTooLowToFill) {
					t.Fatalf("final status %+v (seen %v), want refund with DEPOSITED_AMOUNT_TOO_LOW_TO_FILL", final, seen)
				}
				if n := s.fills(t, 31338, a.orderID); n != 0 {
					t.Fatalf("fills of the order: %d, want 0", n)
				}
				if n := s.Refunds(t, 31337, a.q.RequestID); n != 1 {
					t.Fatalf("refunds of the request: %d, want 1", n)
				}
				if got := s.balance(t, 31337, common.Address{}, refundTo); got.Sign() <= 0 || got.Cmp(pay) > 0 {
					t.Fatalf("refundTo received %s of the %s paid", got, pay)
				}
				if original.SupersededByRequestID != nil {
					t.Fatalf("supersededByRequestId %q on a request that kept its payment", *original.SupersededByRequestID)
				}
			case !tc.requoted:
				s.filledOnce(t, ctx, a.q.RequestID, recipient, big.NewInt(0))
				if original.SupersededByRequestID != nil {
					t.Fatalf("supersededByRequestId %q on a request that kept its payment", *original.SupersededByRequestID)
				}
			default:
				order := s.filledOnce(t, ctx, routed, recipient, big.NewInt(0))
				if order == a.orderID {
					t.Fatalf("the requote fills the address's order %s", order)
				}
				if n := s.fills(t, 31338, a.orderID); n != 0 {
					t.Fatalf("fills of the quote-time order: %d, want 0", n)
				}
				successor, err := s.Sys.Store.QuoteByRequestID(ctx, routed)
				if err != nil {
					t.Fatal(err)
				}
				if successor.Execution.AmountIn != pay.String() {
					t.Fatalf("the requote's amountIn %s, paid %s", successor.Execution.AmountIn, pay)
				}
				// The original stays waiting and names its successor (v3 root, v2 data.).
				if original.SupersededByRequestID == nil || *original.SupersededByRequestID != routed {
					t.Fatalf("the quote-time request's supersededByRequestId %v, want %s", original.SupersededByRequestID, routed)
				}
				if st, _, err := s.API.Status(ctx, a.q.RequestID); err != nil || st.Status != "waiting" {
					t.Fatalf("the quote-time request's status %+v %v, want waiting", st, err)
				}
				// The v2 record (GET /requests/v2 is past its sunset on this stack) names it in data.
				var stored []byte
				if err := s.Sys.Pool.QueryRow(ctx, `SELECT record FROM requests WHERE id = $1`, a.q.RequestID).Scan(&stored); err != nil {
					t.Fatal(err)
				}
				v2, err := records.V2(stored, nil)
				if err != nil || v2.Data.SupersededByRequestID == nil || *v2.Data.SupersededByRequestID != routed {
					t.Fatalf("the v2 record's data.supersededByRequestId: %+v %v, want %s", v2, err, routed)
				}
				want := []string{a.q.RequestID, routed}
				slices.Sort(want)
				if got := requestIDs(t, ctx, c, url.Values{"depositAddress": {a.addr.Hex()}}); !slices.Equal(got, want) {
					t.Fatalf("GET /requests/v3?depositAddress=: %v, want %v", got, want)
				}
				if got := requestIDs(t, ctx, c, url.Values{"id": {a.q.RequestID}, "includeChildRequests": {"true"}}); !slices.Equal(got, want) {
					t.Fatalf("GET /requests/v3?id=&includeChildRequests=true: %v, want %v", got, want)
				}
				if got := requestIDs(t, ctx, c, url.Values{"id": {a.q.RequestID}}); !slices.Equal(got, []string{a.q.RequestID}) {
					t.Fatalf("GET /requests/v3?id=: %v, want the original alone", got)
				}
			}
			if n := s.sweeps(t, a); n != 1 {
				t.Fatalf("sweeps of the address: %d, want 1", n)
			}
			if b := s.balance(t, 31337, common.Address{}, a.addr); b.Sign() != 0 {
				t.Fatalf("left at the address: %s", b)
			}
		})
	}
}

// Issue 35, point 3: "reuse (open: each deposit a fresh quote and fill ...)". An open address
// is paid twice on the devnet: the first payment, of the quoted amount, fills the quote-time
// request; the second, of another amount, is quoted afresh and filled under its own request,
// which supersedes nothing (the quote-time request kept its payment). Each request is filled
// once, each payment swept once (two sweeps of the address's order), and both requests are
// listed by the address.
func TestAnOpenDepositAddressIsReusedEachPaymentItsOwnRequest(t *testing.T) {
	s := startStack(t)
	c, _ := newKey(t, s, auth.Integrator{Name: "open deposit addresses"})
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	acct, recipient := devnet.TestAccounts()[8], freshAddress(t)
	wallet := &e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}
	a, _ := s.quoteOpenAddress(t, ctx, c, acct.Address, recipient, "300000000000000000")
	amountIn, _ := new(big.Int).SetString(a.q.Details.CurrencyIn.Amount, 10)

	first := payAddress(t, ctx, wallet, a, amountIn)
	if routed := s.routedTo(t, ctx, a, first); routed != a.q.RequestID {
		t.Fatalf("the first payment of the quoted amount routed to %s, want the quote-time request %s", routed, a.q.RequestID)
	}
	s.filledOnce(t, ctx, a.q.RequestID, recipient, big.NewInt(0))
	afterFirst := s.balance(t, 31338, common.Address{}, recipient)

	second := payAddress(t, ctx, wallet, a, big.NewInt(250000000000000000))
	routed := s.routedTo(t, ctx, a, second)
	if routed == a.q.RequestID {
		t.Fatal("the second payment funds the quote-time request again")
	}
	order := s.filledOnce(t, ctx, routed, recipient, afterFirst)
	if order == a.orderID {
		t.Fatalf("the second payment's request fills the address's order %s", order)
	}
	if n := s.fills(t, 31338, a.orderID); n != 1 {
		t.Fatalf("fills of the quote-time order: %d, want 1", n)
	}
	if n := s.sweeps(t, a); n != 2 {
		t.Fatalf("sweeps of the address: %d, want 2 (one per payment)", n)
	}
	original, err := s.Sys.Store.Record(ctx, a.q.RequestID)
	if err != nil {
		t.Fatal(err)
	}
	if original.Status != intent.StatusSuccess || original.SupersededByRequestID != nil {
		t.Fatalf("the quote-time request: status %s, supersededByRequestId %v; want success, none", original.Status,
			original.SupersededByRequestID)
	}
	want := []string{a.q.RequestID, routed}
	slices.Sort(want)
	if got := requestIDs(t, ctx, c, url.Values{"depositAddress": {a.addr.Hex()}}); !slices.Equal(got, want) {
		t.Fatalf("GET /requests/v3?depositAddress=: %v, want %v", got, want)
	}
	if got := requestIDs(t, ctx, c, url.Values{"id": {a.q.RequestID}, "includeChildRequests": {"true"}}); !slices.Equal(got, want) {
		t.Fatalf("GET /requests/v3?id=&includeChildRequests=true: %v, want %v", got, want)
	}
	if b := s.balance(t, 31337, common.Address{}, a.addr); b.Sign() != 0 {
		t.Fatalf("left at the address: %s", b)
	}
}

// Issue 35, point 3: at an open address, "wrong token, solver currency: requote + fill" (the
// public behaviour's open column), and a later payment that cannot be quoted again "else refund
// to refundTo". An open address quoted for 0.3 ETH is paid 600 USDC (another listed currency):
// the payment is quoted again as USDC to ETH and filled under its own request, which supersedes
// the quote-time request. A later payment of 1 wei cannot be quoted (less than the fees) and is
// worth less than its sweep and refund would cost the solver: it is left at the address,
// recorded and routed to no request, and nothing is swept for it. A later payment below the fees
// (here with a flat fee of USD 5) that is worth its sweep and refund is refunded as a leg of its
// own with DEPOSITED_AMOUNT_TOO_LOW_TO_FILL, to refundTo, less the leg's fee (legFee).
func TestAnOpenDepositAddressRequotesAnotherCurrencyAndRefundsALaterPaymentItCannotQuote(t *testing.T) {
	s := startStack(t)
	c, _ := newKey(t, s, auth.Integrator{Name: "open deposit addresses"})
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	acct, recipient := devnet.TestAccounts()[9], freshAddress(t)
	wallet := &e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}
	a, refundTo := s.quoteOpenAddress(t, ctx, c, acct.Address, recipient, "300000000000000000")

	usdc := big.NewInt(600_000_000)
	r, err := wallet.SendTx(ctx, quote.TxData{ChainID: 31337, To: devnet.USDCAddress.Hex(), Value: "0",
		Data: hexutil.Encode(evm.ERC20ABI.PackTransfer(a.addr, usdc))})
	if err != nil {
		t.Fatal(err)
	}
	routed := s.routedTo(t, ctx, a, r.TxHash.Hex())
	if routed == a.q.RequestID {
		t.Fatal("a payment in another currency funds the quote-time request")
	}
	s.filledOnce(t, ctx, routed, recipient, big.NewInt(0))
	successor, err := s.Sys.Store.QuoteByRequestID(ctx, routed)
	if err != nil {
		t.Fatal(err)
	}
	if successor.Execution.AmountIn != usdc.String() || !strings.EqualFold(successor.Execution.CurrencyIn.Address, devnet.USDCAddress.Hex()) {
		t.Fatalf("the requote's input %s of %s, want %s USDC", successor.Execution.AmountIn, successor.Execution.CurrencyIn.Address, usdc)
	}
	original, err := s.Sys.Store.Record(ctx, a.q.RequestID)
	if err != nil {
		t.Fatal(err)
	}
	if original.SupersededByRequestID == nil || *original.SupersededByRequestID != routed {
		t.Fatalf("the quote-time request's supersededByRequestId %v, want %s", original.SupersededByRequestID, routed)
	}
	if b := s.balance(t, 31337, devnet.USDCAddress, a.addr); b.Sign() != 0 {
		t.Fatalf("USDC left at the address: %s", b)
	}

	dust := payAddress(t, ctx, wallet, a, big.NewInt(1))
	for {
		history, err := s.Sys.Store.DepositAddressTransfers(ctx, a.id)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(history, func(x intent.DepositAddressTransfer) bool {
			return common.HexToHash(x.TxHash) == common.HexToHash(dust)
		})
		if i >= 0 {
			if history[i].RequestID != "" {
				t.Fatalf("1 wei routed to %s", history[i].RequestID)
			}
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the 1 wei payment was not recorded")
		case <-time.After(200 * time.Millisecond):
		}
	}

	// Below the fees but worth its refund: a flat fee of USD 5 (the devnet's ETH is USD 3,000)
	// makes 0.0015 ETH (USD 4.50) too little to quote; its sweep and refund cost about USD 2.
	flat := quote.FlatExecutionFeeUSD
	quote.FlatExecutionFeeUSD = decimal.NewFromInt(5)
	t.Cleanup(func() { quote.FlatExecutionFeeUSD = flat })
	low := big.NewInt(1_500_000_000_000_000)
	lowTx := payAddress(t, ctx, wallet, a, low)
	legID := intent.DepositRefundRequestID(31337, lowTx, 0)
	if got := s.routedTo(t, ctx, a, lowTx); got != legID {
		t.Fatalf("the payment below the fees routed to %s, want its refund request %s", got, legID)
	}
	final, seen, err := s.API.WaitStatus(ctx, legID, "refund", "failure", "success")
	if err != nil {
		t.Fatal(err)
	}
	if final.Status != "refund" || final.FailReason != string(intent.FailReasonDepositedAmountTooLowToFill) {
		t.Fatalf("the refund leg: %+v (seen %v), want refund with DEPOSITED_AMOUNT_TOO_LOW_TO_FILL", final, seen)
	}
	s.legFee(t, ctx, legID, 31337, common.Address{}, refundTo, low)
	if n := s.sweeps(t, a); n != 2 {
		t.Fatalf("sweeps of the address: %d, want 2 (the USDC and the refunded payment; the 1 wei none)", n)
	}
	if b := s.balance(t, 31337, common.Address{}, a.addr); b.Cmp(big.NewInt(1)) != 0 {
		t.Fatalf("ETH left at the address: %s, want the 1 wei", b)
	}
}
