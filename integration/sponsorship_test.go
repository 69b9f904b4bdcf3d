package integration

import (
	"context"
	"math/big"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/e2e"
)

// sponsorWallet is the wallet the test integrators' sponsorship balances are funded from.
var sponsorWallet = devnet.TestAccounts()[7].Address

// integratorIDs maps the test integrators' names (unique to their subtests) to their ids.
var integratorIDs sync.Map

func integratorID(t *testing.T, name string) string {
	t.Helper()
	id, ok := integratorIDs.Load(name)
	if !ok {
		t.Fatalf("no integrator %q", name)
	}
	return id.(string)
}

// testActor is who the tests' audited changes are made by.
var testActor = store.Actor{Name: "test", Via: store.ViaCLI, Reason: "test"}

// sponsorKey makes integrator (by name) and an API key of it, whose sponsorship wallet holds
// balance USD (no wallet at all when balance is ""), and returns a client that sends the key.
func (s *stack) sponsorKey(t *testing.T, integrator, balance string) *e2e.Client {
	t.Helper()
	ctx := context.Background()
	in, err := s.Sys.Store.CreateIntegrator(ctx, auth.Integrator{Name: integrator}, testActor)
	if err != nil {
		t.Fatal(err)
	}
	integratorIDs.Store(integrator, in.ID)
	plain, _, err := s.Sys.Store.CreateAPIKey(ctx, store.NewKey{IntegratorID: in.ID, Label: integrator}, testActor)
	if err != nil {
		t.Fatal(err)
	}
	if balance != "" {
		wallet, chain := sponsorWallet.Hex(), uint64(31337)
		if _, err := s.Sys.Store.UpdateIntegrator(ctx, in.ID, store.IntegratorUpdate{SponsorWallet: &wallet, SponsorChainID: &chain},
			testActor); err != nil {
			t.Fatal(err)
		}
		s.setSponsorBalance(t, integrator, decimal.RequireFromString(balance))
	}
	return &e2e.Client{BaseURL: s.API.BaseURL, APIKey: plain}
}

// setSponsorBalance tops up or drains an integrator's sponsorship balance to exactly usd.
func (s *stack) setSponsorBalance(t *testing.T, integrator string, usd decimal.Decimal) {
	t.Helper()
	delta := usd.Sub(s.sponsorBalance(t, integrator))
	if delta.IsZero() {
		return
	}
	if _, err := s.Sys.Store.AdjustSponsorBalance(context.Background(), integratorID(t, integrator), delta, testActor); err != nil {
		t.Fatal(err)
	}
}

func (s *stack) sponsorBalance(t *testing.T, integrator string) decimal.Decimal {
	t.Helper()
	a, err := s.Sys.Store.SponsorAccount(context.Background(), integratorID(t, integrator))
	if err != nil {
		t.Fatal(err)
	}
	return a.BalanceUSD
}

// ledger reads the sponsorship ledger's kinds for a request, and the sum of an integrator's
// deltas (which must equal its balance).
func (s *stack) ledger(t *testing.T, requestID, integrator string) (kinds []string, sum decimal.Decimal) {
	t.Helper()
	ctx := context.Background()
	rows, err := s.Sys.Pool.Query(ctx, `SELECT kind FROM sponsorship_ledger WHERE request_id = $1 ORDER BY id`, requestID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, k)
	}
	if err := s.Sys.Pool.QueryRow(ctx, `SELECT COALESCE(sum(delta_usd), 0)::text FROM sponsorship_ledger WHERE integrator_id = $1`,
		integratorID(t, integrator)).Scan(&sum); err != nil {
		t.Fatal(err)
	}
	return kinds, sum
}

// sponsoredUSD is what a quote sponsors in USD, worked out from the quote alone: the sponsored
// wei (fees.subsidized) at the devnet's ETH price, rounded up to the micro-dollar.
func sponsoredUSD(t *testing.T, q *quote.Response) decimal.Decimal {
	t.Helper()
	wei, ok := new(big.Int).SetString(q.Fees.Subsidized.Amount, 10)
	if !ok || wei.Sign() <= 0 {
		t.Fatalf("fees.subsidized %q", q.Fees.Subsidized.Amount)
	}
	return decimal.NewFromBigInt(wei, -18).Mul(decimal.NewFromInt(devnet.ETHUSDPrice)).RoundCeil(6)
}

// sponsoredBridge is a sponsored ETH bridge (31337 to 31338) of 0.01 ETH from acct, refunds to
// refundTo; extra fields are added to the body.
func sponsoredBridge(user, refundTo common.Address, extra obj) obj {
	b := obj{"user": user.Hex(), "recipient": devnet.TestAccounts()[8].Address.Hex(), "refundTo": refundTo.Hex(),
		"originChainId": 31337, "destinationChainId": 31338, "originCurrency": nativeAddr, "destinationCurrency": nativeAddr,
		"amount": "10000000000000000", "tradeType": "EXACT_INPUT", "includeProtocolData": true, "subsidizeFees": true}
	for k, v := range extra {
		b[k] = v
	}
	return b
}

func mustSponsoredQuote(t *testing.T, ctx context.Context, c *e2e.Client, body obj) *quote.Response {
	t.Helper()
	q, err := c.Quote(ctx, body)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// execute pays a quote from acct and waits for its request to end, recording its history as
// history; it fails unless the request ends in status with failReason.
func (s *stack) execute(t *testing.T, ctx context.Context, acct devnet.Account, q *quote.Response, history, status, failReason string) *e2e.Status {
	t.Helper()
	if _, err := (&e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}).ExecuteSteps(ctx, q); err != nil {
		t.Fatal(err)
	}
	final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
	if err != nil {
		t.Fatal(err)
	}
	s.recordHistory(t, q.RequestID, history)
	if final.Status != status || final.FailReason != failReason {
		t.Fatalf("final %+v (seen %v), want %s with failReason %s", final, seen, status, failReason)
	}
	return final
}

// txFee is what a mined transaction cost its sender in gas.
func (s *stack) txFee(t *testing.T, chainID uint64, hash string) *big.Int {
	t.Helper()
	c, err := s.Devnet.Chain(chainID).Dial(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r, err := c.TransactionReceipt(context.Background(), common.HexToHash(hash))
	if err != nil {
		t.Fatal(err)
	}
	return new(big.Int).Mul(new(big.Int).SetUint64(r.GasUsed), r.EffectiveGasPrice)
}

// The integrator pays what it sponsors (issue 13, Deliver 3), end to end on the devnet: a key
// whose integrator cannot pay is refused at quote time; a sponsored fill charges exactly the
// sponsored USD; a balance spent between quote and fill refunds the request before anything is
// paid; concurrent fills never overdraw a balance.
func TestSponsorshipIsPaidByTheIntegrator(t *testing.T) {
	s := startStack(t)
	user := devnet.TestAccounts()[1]

	t.Run("a key whose integrator cannot pay gets SPONSOR_BALANCE_TOO_LOW at quote time", func(t *testing.T) {
		rich := s.sponsorKey(t, "rich-quotes", "100")
		rows := countRows(t, s)
		for name, c := range map[string]*e2e.Client{
			"an integrator with no wallet":   s.sponsorKey(t, "no-wallet", ""),
			"an integrator with no balance":  s.sponsorKey(t, "broke", "0"),
			"a balance below the sponsoring": s.sponsorKey(t, "poor", "0.000001"),
		} {
			for _, path := range []string{"/quote/v2", "/quote", "/price"} {
				code, out := post(t, c, path, sponsoredBridge(user.Address, user.Address, nil))
				if code != http.StatusBadRequest || out["errorCode"] != quote.CodeSponsorBalanceTooLow {
					t.Fatalf("%s, %s: %d %v, want 400 %s", name, path, code, out, quote.CodeSponsorBalanceTooLow)
				}
			}
		}
		if n := countRows(t, s); n != rows {
			t.Fatalf("refused quotes stored %d rows", n-rows)
		}
		// The same body is quoted for an integrator that can pay, and unsponsored for anyone.
		mustQuote(t, rich, "/quote/v2", sponsoredBridge(user.Address, user.Address, nil))
		mustQuote(t, s.API, "/quote/v2", sponsoredBridge(user.Address, user.Address, obj{"subsidizeFees": nil}))
	})

	t.Run("a sponsored fill charges exactly the sponsored USD and owes the app fee the user paid", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		const integrator = "sponsor-success"
		keyed := s.sponsorKey(t, integrator, "5")
		appRecipient := devnet.TestAccounts()[6].Address
		q := mustSponsoredQuote(t, ctx, keyed, sponsoredBridge(user.Address, user.Address, obj{
			"appFees": []obj{{"recipient": appRecipient.Hex(), "fee": "25"}}, "sponsoredFeeComponents": []string{"execution"}}))
		want := sponsoredUSD(t, q)
		before := s.sponsorBalance(t, integrator)
		s.execute(t, ctx, user, q, "success-sponsored-eth-bridge", "success", "N/A")
		if n := s.fills(t, 31338, common.HexToHash(q.Protocol.V2.OrderID)); n != 1 {
			t.Fatalf("filled %d times", n)
		}
		if charged := before.Sub(s.sponsorBalance(t, integrator)); !charged.Equal(want) {
			t.Fatalf("the integrator was charged USD %s, want the sponsored USD %s", charged, want)
		}
		kinds, sum := s.ledger(t, q.RequestID, integrator)
		if len(kinds) != 2 || kinds[0] != "reserve" || kinds[1] != "charge" || !sum.Equal(s.sponsorBalance(t, integrator)) {
			t.Fatalf("ledger %v, deltas %s, balance %s", kinds, sum, s.sponsorBalance(t, integrator))
		}
		rec := storedRecord(t, s, q.RequestID)
		pay := get(t, rec, "data.feeSponsorship.actual.sponsorPayment")
		if str(t, pay, "amount") != intent.USDMicros(want).String() || !common.IsHexAddress(str(t, pay, "address")) ||
			common.HexToAddress(str(t, pay, "address")) != sponsorWallet || get(t, pay, "chainId") != float64(31337) {
			t.Fatalf("sponsorPayment %v, want %s micro-USD from %s on 31337", pay, intent.USDMicros(want), sponsorWallet.Hex())
		}
		// The app fee was not sponsored: the user paid it out of the deposit, and exactly that
		// is owed to its recipient.
		owed, err := s.Sys.Store.AppFeesOwed(ctx, q.RequestID)
		if err != nil {
			t.Fatal(err)
		}
		userPaid, _ := new(big.Int).SetString(q.Fees.App.Amount, 10)
		if len(owed) != 1 || owed[0].Amount.Cmp(userPaid) != 0 || owed[0].Recipient != appRecipient.Hex() || userPaid.Sign() <= 0 {
			t.Fatalf("app fees owed %+v, want the %s the user paid, to %s", owed, userPaid, appRecipient.Hex())
		}
		if a := get(t, rec, "data.appFees.actual").([]any); len(a) != 1 || str(t, a[0], "amount") != userPaid.String() {
			t.Fatalf("appFees.actual %v", a)
		}
	})

	t.Run("a balance drained between quote and fill ends SPONSOR_BALANCE_TOO_LOW, refunded, never filled", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		const integrator = "sponsor-drained"
		keyed := s.sponsorKey(t, integrator, "5")
		refundTo := freshAddress(t)
		q := mustSponsoredQuote(t, ctx, keyed, sponsoredBridge(user.Address, refundTo, nil))
		s.setSponsorBalance(t, integrator, sponsoredUSD(t, q).Sub(decimal.New(1, -6)))
		solverOrigin := s.balance(t, 31337, common.Address{}, devnet.SolverAddress())
		solverDest := s.balance(t, 31338, common.Address{}, devnet.SolverAddress())
		balance := s.sponsorBalance(t, integrator)
		final := s.execute(t, ctx, user, q, "sponsor-balance-too-low-refunded", "refund", string(intent.FailReasonSponsorBalanceTooLow))
		if len(final.TxHashes) != 1 {
			t.Fatalf("txHashes %v, want the refund", final.TxHashes)
		}
		if n := s.fills(t, 31338, common.HexToHash(q.Protocol.V2.OrderID)); n != 0 {
			t.Fatalf("filled %d times", n)
		}
		if got := s.balance(t, 31337, common.Address{}, refundTo); got.String() != q.Details.CurrencyIn.Amount {
			t.Fatalf("refundTo received %s, want the deposit %s", got, q.Details.CurrencyIn.Amount)
		}
		// The solver paid nothing on the destination, and on the origin only the refund's gas.
		if got := s.balance(t, 31338, common.Address{}, devnet.SolverAddress()); got.Cmp(solverDest) != 0 {
			t.Fatalf("the solver's destination balance moved from %s to %s", solverDest, got)
		}
		spent := new(big.Int).Sub(solverOrigin, s.balance(t, 31337, common.Address{}, devnet.SolverAddress()))
		if fee := s.txFee(t, 31337, final.TxHashes[0]); spent.Cmp(fee) != 0 {
			t.Fatalf("the solver spent %s wei on the origin, want only the refund's gas %s", spent, fee)
		}
		if got := s.sponsorBalance(t, integrator); !got.Equal(balance) {
			t.Fatalf("the sponsor's balance moved from %s to %s", balance, got)
		}
		if kinds, _ := s.ledger(t, q.RequestID, integrator); len(kinds) != 0 {
			t.Fatalf("ledger rows %v for a declined reservation", kinds)
		}
	})

	t.Run("concurrent sponsored fills never overdraw the balance", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		defer cancel()
		const integrator = "sponsor-race"
		keyed := s.sponsorKey(t, integrator, "5")
		accts := []devnet.Account{devnet.TestAccounts()[2], devnet.TestAccounts()[3]}
		qs := make([]*quote.Response, len(accts))
		for i, a := range accts {
			qs[i] = mustSponsoredQuote(t, ctx, keyed, sponsoredBridge(a.Address, a.Address, nil))
		}
		// Enough for either fill, not for both.
		start := decimal.Max(sponsoredUSD(t, qs[0]), sponsoredUSD(t, qs[1]))
		s.setSponsorBalance(t, integrator, start)
		finals := make([]*e2e.Status, len(accts))
		var wg sync.WaitGroup
		for i, a := range accts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := (&e2e.Wallet{Key: a.Key, RPCs: s.RPCs}).ExecuteSteps(ctx, qs[i]); err != nil {
					t.Error(err)
					return
				}
				f, _, err := s.API.WaitStatus(ctx, qs[i].RequestID, "success", "failure", "refund")
				if err != nil {
					t.Error(err)
				}
				finals[i] = f
			}()
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		ends := make([]string, len(finals))
		for i, f := range finals {
			ends[i] = f.Status + " " + f.FailReason
		}
		won := -1
		for i, f := range finals {
			switch {
			case f.Status == "success" && won == -1:
				won = i
			case f.Status == "refund" && f.FailReason == string(intent.FailReasonSponsorBalanceTooLow):
			default:
				t.Fatalf("request %d ended %v; want one success and one refund with SPONSOR_BALANCE_TOO_LOW", i, ends)
			}
		}
		if won == -1 {
			t.Fatalf("no request filled: %v", ends)
		}
		for i, q := range qs {
			want := 0
			if i == won {
				want = 1
			}
			if n := s.fills(t, 31338, common.HexToHash(q.Protocol.V2.OrderID)); n != want {
				t.Fatalf("request %d filled %d times, want %d", i, n, want)
			}
		}
		left := s.sponsorBalance(t, integrator)
		if want := start.Sub(sponsoredUSD(t, qs[won])); !left.Equal(want) || left.IsNegative() {
			t.Fatalf("balance %s after the race, want %s", left, want)
		}
		if _, sum := s.ledger(t, qs[won].RequestID, integrator); !sum.Equal(left) {
			t.Fatalf("ledger deltas add up to %s, balance %s", sum, left)
		}
	})
}
