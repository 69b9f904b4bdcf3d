package perps_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/perps"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/devnet/exchange"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// payoutRig is the local exchange behind a proxy that can refuse POST /exchange (an exchange
// that does not answer), the family's clients and two payouts (two workers) over one Postgres.
type payoutRig struct {
	ex       *exchange.Server
	down     atomic.Bool
	st       *store.Store
	payouts  [2]*perps.Payout
	requests func(t *testing.T) string
}

func newPayoutRig(t *testing.T) *payoutRig {
	t.Helper()
	ctx := context.Background()
	r := &payoutRig{}
	ex, err := devnet.StartExchange(ctx, exchange.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ex.Close() })
	r.ex = ex
	u, _ := url.Parse(ex.URL())
	rp := httputil.NewSingleHostReverseProxy(u)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if r.down.Load() && req.URL.Path == "/exchange" {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		rp.ServeHTTP(w, req)
	}))
	t.Cleanup(proxy.Close)
	reg, err := chains.NewRegistry([]chains.Chain{devnet.ExchangeChainConfig(proxy.URL)})
	if err != nil {
		t.Fatal(err)
	}
	pool := testenv.Pool(t)
	r.st = store.New(pool)
	for i := range r.payouts {
		r.payouts[i] = perps.NewPayout(chains.NewClients(reg, perps.VM(r.st)), r.st, devnet.SolverKey())
	}
	n := 0
	r.requests = func(t *testing.T) string {
		n++
		id := fmt.Sprintf("0x%064x", n)
		if _, err := pool.Exec(ctx, `INSERT INTO requests (id, status, "user", recipient, origin_chain_id, destination_chain_id, order_id, record)
			VALUES ($1, 'pending', '0xu', '0xr', 31337, 1337, $1, '{}')`, id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	return r
}

func (r *payoutRig) fill(requestID string, recipient string, amount int64) chains.Payment {
	return chains.Payment{RequestID: requestID, Kind: intent.TxKindFill, ChainID: devnet.ExchangeChainID, Currency: perps.PerpsUSDC,
		Recipient: recipient, Amount: big.NewInt(amount), OrderID: requestID}
}

// A fill is paid once (chains.Payout: "each payment of a request and kind is made at most
// once"): two workers paying the same fill at once, and each again, leave one transfer from the
// solver to the recipient, and every answer names the one kept action.
func TestTwoWorkersPayingOneFillOnTheExchangePayItOnce(t *testing.T) {
	r := newPayoutRig(t)
	ctx := context.Background()
	id := r.requests(t)
	key, _ := crypto.GenerateKey()
	recipient := crypto.PubkeyToAddress(key.PublicKey)
	var wg sync.WaitGroup
	hashes := make([]string, 4)
	for i := range hashes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sent, err := r.payouts[i%2].Pay(ctx, r.fill(id, recipient.Hex(), 123_456_789))
			if err != nil {
				t.Error(err)
				return
			}
			hashes[i] = sent.TxHash
		}()
	}
	wg.Wait()
	for _, h := range hashes[1:] {
		if h != hashes[0] {
			t.Fatalf("the payments answered %v: one kept action, one id", hashes)
		}
	}
	if got := r.ex.PerpsBalance(recipient); got.Int64() != 123_456_789 {
		t.Fatalf("the recipient holds %s, want 123456789 once", got)
	}
	if n := len(r.ex.Transfers(recipient)); n != 1 {
		t.Fatalf("%d transfers to the recipient, want 1", n)
	}
	inc, err := r.payouts[1].Watch(chains.WatchPayment{RequestID: id, Kind: intent.TxKindFill, ChainID: devnet.ExchangeChainID}).Check(ctx)
	if err != nil || inc == nil || !inc.Success || inc.Hash != hashes[0] || inc.Fee != "100000000" {
		t.Fatalf("the watch answered %+v (%v): want the kept action included, its activation fee 100000000", inc, err)
	}
}

// A fill kept but not posted (the exchange did not answer) is posted as kept by the retry,
// never signed again: one transfer, the kept action's nonce.
func TestAFillKeptWhileTheExchangeIsDownIsPostedAsKept(t *testing.T) {
	r := newPayoutRig(t)
	ctx := context.Background()
	id := r.requests(t)
	recipient := devnet.TestAddresses()[1]
	before := r.ex.PerpsBalance(recipient)
	r.down.Store(true)
	if _, err := r.payouts[0].Pay(ctx, r.fill(id, recipient.Hex(), 5_000_000)); err == nil {
		t.Fatal("a post the exchange did not answer succeeded")
	}
	kept, err := r.st.PerpsPayment(ctx, id, intent.TxKindFill)
	if err != nil {
		t.Fatalf("nothing kept before the post: %v", err)
	}
	if got := r.ex.PerpsBalance(recipient); got.Cmp(before) != 0 {
		t.Fatal("the recipient was paid though the exchange never took the action")
	}
	r.down.Store(false)
	sent, err := r.payouts[1].Pay(ctx, r.fill(id, recipient.Hex(), 5_000_000))
	if err != nil || sent.TxHash != kept.TxHash {
		t.Fatalf("the retry answered %+v (%v), want the kept %s", sent, err, kept.TxHash)
	}
	if got := new(big.Int).Sub(r.ex.PerpsBalance(recipient), before); got.Int64() != 5_000_000 {
		t.Fatalf("the recipient received %s, want 5000000 once", got)
	}
	var n int
	for _, x := range r.ex.Transfers(recipient) {
		if x.User == devnet.SolverAddress() {
			n++
			if x.Nonce != kept.Nonce {
				t.Fatalf("the transfer's nonce %d is not the kept action's %d", x.Nonce, kept.Nonce)
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d transfers from the solver, want 1", n)
	}
}

// A fill the solver's account cannot pay is refused before anything is kept.
func TestAFillTheSolverCannotPayIsRefusedAndNothingIsKept(t *testing.T) {
	r := newPayoutRig(t)
	ctx := context.Background()
	id := r.requests(t)
	_, err := r.payouts[0].Pay(ctx, r.fill(id, devnet.TestAddresses()[1].Hex(), devnet.ExchangeSolverUSDC+1))
	if !errors.Is(err, chains.ErrInsufficientFunds) {
		t.Fatalf("got %v, want chains.ErrInsufficientFunds", err)
	}
	if _, err := r.st.PerpsPayment(ctx, id, intent.TxKindFill); err == nil {
		t.Fatal("a refused fill was kept")
	}
}
