package solana_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	solanago "github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/solana"
	"github.com/intentd/intentd/devnet/svm"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// payoutSlotTime is the payout tests' slot: a blockhash (150 slots) lives six seconds, long
// enough for a signing on a loaded machine to land, short enough to wait out in the expiry test.
const payoutSlotTime = 40 * time.Millisecond

// payoutEnv is a local Solana chain and a Postgres database with the schema, and a payout of
// the chain keeping its payments there.
type payoutEnv struct {
	chain  *svm.Chain
	rpc    *rpc.Client
	pool   *pgxpool.Pool
	store  *store.Store
	cs     *chains.Clients
	payout *solana.Payout
	vault  solanago.PrivateKey
	next   atomic.Int64
}

func newPayoutEnv(t *testing.T) *payoutEnv {
	t.Helper()
	c, err := svm.Start(t.Context(), svm.Options{SlotTime: payoutSlotTime})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	cl := c.Client()
	t.Cleanup(func() { _ = cl.Close() })
	reg, err := chains.NewRegistry([]chains.Chain{{ID: solana.ChainID, Name: "solana-local", VMType: chains.VMTypeSVM,
		HTTPRPCURL: c.RPCURL, Currency: chains.Currency{Symbol: "SOL", Name: "Solana", Decimals: solana.NativeDecimals},
		ERC20: []chains.Currency{{Symbol: "USDC", Name: "USD Coin", Address: svm.USDCMint.String(), Decimals: svm.USDCDecimals},
			{Symbol: "WSOL", Name: "Wrapped SOL", Address: svm.WSOLMint.String(), Decimals: svm.WSOLDecimals}}}})
	if err != nil {
		t.Fatal(err)
	}
	pool := testenv.Pool(t)
	e := &payoutEnv{chain: c, rpc: cl, pool: pool, store: store.New(pool), cs: chains.NewClients(reg, solana.VM()), vault: svm.TestAccounts()[9].PrivateKey}
	e.payout = solana.NewPayout(e.cs, e.store, svm.SolverKey(), e.vault)
	return e
}

// request stores a request for a payment to refer to and returns its id.
func (e *payoutEnv) request(t *testing.T) string {
	t.Helper()
	id := fmt.Sprintf("0x%064x", e.next.Add(1))
	if _, err := e.pool.Exec(t.Context(), `INSERT INTO requests (id, status, "user", recipient, origin_chain_id,
		destination_chain_id, order_id, record) VALUES ($1, 'submitted', '0xu', 'r', 31337, $2, $1, '{}')`, id, solana.ChainID); err != nil {
		t.Fatal(err)
	}
	return id
}

// restarted is another worker's payout: a new process's clients and pool on the same database.
func (e *payoutEnv) restarted(t *testing.T) *solana.Payout {
	t.Helper()
	return solana.NewPayout(chains.NewClients(e.cs.Registry(), solana.VM()), store.New(testenv.PoolOn(t, e.pool, 0)), svm.SolverKey(), e.vault)
}

func freshWallet(t *testing.T) solanago.PublicKey {
	t.Helper()
	k, err := solanago.NewRandomPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k.PublicKey()
}

func fill(id, currency string, to solanago.PublicKey, amount int64) chains.Payment {
	return chains.Payment{RequestID: id, Kind: intent.TxKindFill, ChainID: solana.ChainID, Currency: currency,
		Recipient: to.String(), Amount: big.NewInt(amount), OrderID: id}
}

// await checks the payment's watch until an attempt is included.
func (e *payoutEnv) await(t *testing.T, p *solana.Payout, id string, kind intent.TxKind, hash string) *chains.Included {
	t.Helper()
	w := p.Watch(chains.WatchPayment{RequestID: id, Kind: kind, ChainID: solana.ChainID, TxHash: hash})
	deadline := time.Now().Add(30 * time.Second)
	for {
		inc, err := w.Check(t.Context())
		if err != nil {
			t.Logf("check: %v", err)
		}
		if inc != nil {
			return inc
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s %s: no attempt included in 30 s", kind, id)
		}
		time.Sleep(payoutSlotTime)
	}
}

func (e *payoutEnv) lamports(t *testing.T, who solanago.PublicKey) uint64 {
	t.Helper()
	b, err := e.rpc.GetBalance(t.Context(), who, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	return b.Value
}

func (e *payoutEnv) usdc(t *testing.T, owner solanago.PublicKey) string {
	t.Helper()
	b, err := e.rpc.GetTokenAccountBalance(t.Context(), svm.USDCAccount(owner), rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	return b.Value.Amount
}

// status is the chain's status of sig, nil when it has not seen it.
func (e *payoutEnv) status(t *testing.T, sig string) *rpc.SignatureStatusesResult {
	t.Helper()
	st, err := e.rpc.GetSignatureStatuses(t.Context(), true, solanago.MustSignatureFromBase58(sig))
	if err != nil {
		t.Fatal(err)
	}
	return st.Value[0]
}

// payThrice pays p from the payout, again from it, and from a restarted worker's, and checks
// that all three answer with one signature.
func (e *payoutEnv) payThrice(t *testing.T, p chains.Payment) string {
	t.Helper()
	first, err := e.payout.Pay(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	again, err := e.payout.Pay(t.Context(), p)
	if err != nil || again.TxHash != first.TxHash {
		t.Fatalf("Pay again: %+v, %v; want %s", again, err, first.TxHash)
	}
	other, err := e.restarted(t).Pay(t.Context(), p)
	if err != nil || other.TxHash != first.TxHash {
		t.Fatalf("Pay from a restarted worker: %+v, %v; want %s", other, err, first.TxHash)
	}
	if kept, err := e.payout.Stored(t.Context(), p.RequestID, p.Kind); err != nil || kept.TxHash != first.TxHash {
		t.Fatalf("Stored: %+v, %v; want %s", kept, err, first.TxHash)
	}
	return first.TxHash
}

// crashingStore keeps a payment and then ends the worker's context, as a worker that died right
// after the keep: nothing is broadcast.
type crashingStore struct {
	*store.Store
	crash context.CancelFunc
}

func (s crashingStore) KeepSolanaPayment(ctx context.Context, p store.SolanaPayment) (*store.SolanaPayment, bool, error) {
	if _, _, err := s.Store.KeepSolanaPayment(ctx, p); err != nil {
		return nil, false, err
	}
	s.crash()
	return nil, false, context.Canceled
}

// keepOnly signs and keeps p's first attempt with a worker that dies before broadcasting it,
// and returns the kept attempt, which the chain has not seen.
func (e *payoutEnv) keepOnly(t *testing.T, p chains.Payment) *store.SolanaPayment {
	t.Helper()
	ctx, crash := context.WithCancel(t.Context())
	defer crash()
	dying := solana.NewPayout(chains.NewClients(e.cs.Registry(), solana.VM()), crashingStore{Store: e.store, crash: crash}, svm.SolverKey(), e.vault)
	if sent, err := dying.Pay(ctx, p); err == nil {
		t.Fatalf("the dying worker's Pay answered %+v", sent)
	}
	kept, err := e.store.SolanaPayment(t.Context(), p.RequestID, p.Kind)
	if err != nil {
		t.Fatalf("nothing kept by the dying worker: %v", err)
	}
	if st := e.status(t, kept.Signature); st != nil {
		t.Fatalf("the attempt the worker kept and died before sending is on chain: %+v", st)
	}
	return kept
}

// Issue 36, point 4: fills of SOL and of USDC (an SPL token, the recipient's associated token
// account created by the fill, its rent paid by the solver) are paid exactly once: Pay twice and
// from a restarted worker answer with one signature, kept in Postgres before its broadcast, and
// the recipient holds exactly the amount. A kept attempt that was never broadcast (the worker
// died) is sent by the retry; an attempt whose blockhash expired without landing is replaced,
// but only then, and the replacement lands, the recipient paid once. On the real local chain
// and the real Postgres.
func TestSolanaPayoutPaysExactlyOnce(t *testing.T) {
	e := newPayoutEnv(t)
	ctx := t.Context()

	t.Run("SOL fill", func(t *testing.T) {
		to, id := freshWallet(t), e.request(t)
		p := fill(id, solana.NativeAddress, to, 50_000_000)
		var maxFee *big.Int
		p.Check = func(_ context.Context, fee *big.Int) error { maxFee = fee; return nil }
		sig := e.payThrice(t, p)
		if maxFee == nil || maxFee.Int64() != solana.LamportsPerSignature {
			t.Errorf("Check was given %v, want the fee of one signature (%d)", maxFee, solana.LamportsPerSignature)
		}
		inc := e.await(t, e.payout, id, intent.TxKindFill, sig)
		if !inc.Success || inc.Hash != sig || inc.Block == 0 || inc.Fee != "5000" || len(inc.Attempts) != 1 || inc.Timestamp == 0 {
			t.Errorf("included: %+v", inc)
		}
		if got := e.lamports(t, to); got != 50_000_000 {
			t.Errorf("the recipient holds %d lamports, want 50000000", got)
		}
		// The fill's memo is the order id as written (the oracle's fill attestation compares it
		// exactly; the RPC writes a memo as "[length] text").
		sigs, err := e.rpc.GetSignaturesForAddressWithOpts(ctx, to, &rpc.GetSignaturesForAddressOpts{Commitment: rpc.CommitmentConfirmed})
		if err != nil || len(sigs) != 1 || sigs[0].Signature.String() != sig || sigs[0].Memo == nil ||
			*sigs[0].Memo != id && !strings.HasSuffix(*sigs[0].Memo, "] "+id) {
			t.Errorf("the recipient's transactions: %+v, %v; want the fill, its memo the order id", sigs, err)
		}
	})

	t.Run("USDC fill to a recipient without a token account", func(t *testing.T) {
		to, id := freshWallet(t), e.request(t)
		rent, err := e.rpc.GetMinimumBalanceForRentExemption(ctx, solana.TokenAccountSize, rpc.CommitmentConfirmed)
		if err != nil {
			t.Fatal(err)
		}
		p := fill(id, svm.USDCMint.String(), to, 12_345_678)
		var maxFee *big.Int
		p.Check = func(_ context.Context, fee *big.Int) error { maxFee = fee; return nil }
		solverBefore := e.usdc(t, svm.SolverAddress())
		sig := e.payThrice(t, p)
		if want := int64(solana.LamportsPerSignature) + int64(rent); maxFee == nil || maxFee.Int64() != want {
			t.Errorf("Check was given %v, want the fee and the token account's rent (%d)", maxFee, want)
		}
		inc := e.await(t, e.payout, id, intent.TxKindFill, sig)
		if !inc.Success || inc.Hash != sig {
			t.Fatalf("included: %+v", inc)
		}
		if got := e.usdc(t, to); got != "12345678" {
			t.Errorf("the recipient holds %s USDC base units, want 12345678", got)
		}
		before, _ := new(big.Int).SetString(solverBefore, 10)
		if got := e.usdc(t, svm.SolverAddress()); got != new(big.Int).Sub(before, big.NewInt(12_345_678)).String() {
			t.Errorf("the solver holds %s USDC base units, had %s: want 12345678 less", got, solverBefore)
		}
		// A second fill to the same recipient finds the account: no rent this time.
		id2 := e.request(t)
		p2 := fill(id2, svm.USDCMint.String(), to, 1)
		p2.Check = func(_ context.Context, fee *big.Int) error { maxFee = fee; return nil }
		sig2 := e.payThrice(t, p2)
		if maxFee.Int64() != solana.LamportsPerSignature {
			t.Errorf("Check was given %v for an existing token account, want the fee alone", maxFee)
		}
		if inc := e.await(t, e.payout, id2, intent.TxKindFill, sig2); !inc.Success {
			t.Fatalf("the second fill: %+v", inc)
		}
		if got := e.usdc(t, to); got != "12345679" {
			t.Errorf("the recipient holds %s USDC base units, want 12345679", got)
		}
	})

	t.Run("workers paying one fill at once", func(t *testing.T) {
		to, id := freshWallet(t), e.request(t)
		p := fill(id, svm.USDCMint.String(), to, 4_000_000)
		payouts := []*solana.Payout{e.payout, e.restarted(t), e.restarted(t), e.payout}
		sigs := make([]string, len(payouts))
		errs := make([]error, len(payouts))
		var wg sync.WaitGroup
		for i, po := range payouts {
			wg.Go(func() {
				sent, err := po.Pay(ctx, p)
				if err == nil {
					sigs[i] = sent.TxHash
				}
				errs[i] = err
			})
		}
		wg.Wait()
		for i := range payouts {
			if errs[i] != nil || sigs[i] != sigs[0] {
				t.Fatalf("worker %d: %s, %v; worker 0 sent %s", i, sigs[i], errs[i], sigs[0])
			}
		}
		if inc := e.await(t, e.payout, id, intent.TxKindFill, sigs[0]); !inc.Success || len(inc.Attempts) != 1 {
			t.Fatalf("included: %+v", inc)
		}
		if got := e.usdc(t, to); got != "4000000" {
			t.Errorf("the recipient holds %s USDC base units, want 4000000 (paid once)", got)
		}
	})

	t.Run("a kept attempt never broadcast is sent by the retry", func(t *testing.T) {
		to, id := freshWallet(t), e.request(t)
		p := fill(id, solana.NativeAddress, to, 20_000_000)
		kept := e.keepOnly(t, p)
		time.Sleep(10 * payoutSlotTime)
		if st := e.status(t, kept.Signature); st != nil {
			t.Fatalf("a kept attempt landed without a broadcast: %+v", st)
		}
		sent, err := e.restarted(t).Pay(ctx, p)
		if err != nil || sent.TxHash != kept.Signature {
			t.Fatalf("the retry: %+v, %v; want the kept %s", sent, err, kept.Signature)
		}
		if inc := e.await(t, e.payout, id, intent.TxKindFill, sent.TxHash); !inc.Success || inc.Hash != kept.Signature {
			t.Fatalf("included: %+v", inc)
		}
		if got := e.lamports(t, to); got != 20_000_000 {
			t.Errorf("the recipient holds %d lamports, want 20000000", got)
		}
	})

	t.Run("an expired attempt is replaced, and only then", func(t *testing.T) {
		to, id := freshWallet(t), e.request(t)
		p := fill(id, svm.USDCMint.String(), to, 7_000_000)
		kept := e.keepOnly(t, p)
		rep := chains.Replacement{RequestID: id, Kind: intent.TxKindFill, ChainID: solana.ChainID, After: 0, MaxBumps: 3}

		// While the first attempt could still land, Replace signs nothing: it answers with that
		// attempt and sends it, and it lands.
		got, err := e.payout.Replace(ctx, rep)
		if err != nil || got.Attempt != 0 || got.TxHash != kept.Signature || got.Final {
			t.Fatalf("Replace while the attempt can land: %+v, %v; want attempt 0 unchanged", got, err)
		}
		if inc := e.await(t, e.payout, id, intent.TxKindFill, kept.Signature); !inc.Success || inc.Hash != kept.Signature {
			t.Fatalf("the attempt Replace refused to replace, sent by it: %+v", inc)
		}
		if got := e.usdc(t, to); got != "7000000" {
			t.Errorf("the recipient holds %s USDC base units, want 7000000", got)
		}

		// Another payment kept and never sent waits out its blockhash: then it is replaced.
		to2, id2 := freshWallet(t), e.request(t)
		p2 := fill(id2, svm.USDCMint.String(), to2, 7_000_000)
		kept2 := e.keepOnly(t, p2)
		e.waitExpired(t, kept2)
		rep2 := rep
		rep2.RequestID = id2
		next, err := e.payout.Replace(ctx, rep2)
		if err != nil || next.Attempt != 1 || next.TxHash == kept2.Signature || next.Final {
			t.Fatalf("Replace of the expired attempt: %+v, %v; want attempt 1", next, err)
		}
		again, err := e.restarted(t).Replace(ctx, rep2)
		if err != nil || again.Attempt != 1 || again.TxHash != next.TxHash {
			t.Fatalf("Replace retried: %+v, %v; want the kept attempt 1 %s", again, err, next.TxHash)
		}
		if sent, err := e.payout.Pay(ctx, p2); err != nil || sent.TxHash != next.TxHash {
			t.Fatalf("Pay retried after the replacement: %+v, %v; want attempt 1 %s", sent, err, next.TxHash)
		}
		// The expired attempt's bytes sent again are dropped: its blockhash is gone.
		if _, err := e.rpc.SendRawTransactionWithOpts(ctx, kept2.Raw, rpc.TransactionOpts{SkipPreflight: true}); err != nil {
			t.Fatal(err)
		}
		inc := e.await(t, e.payout, id2, intent.TxKindFill, next.TxHash)
		if !inc.Success || inc.Hash != next.TxHash || len(inc.Attempts) != 2 || inc.Attempts[0] != kept2.Signature {
			t.Fatalf("included: %+v", inc)
		}
		time.Sleep(5 * payoutSlotTime)
		if st := e.status(t, kept2.Signature); st != nil {
			t.Fatalf("the expired attempt landed too: %+v", st)
		}
		if got := e.usdc(t, to2); got != "7000000" {
			t.Errorf("the recipient holds %s USDC base units, want 7000000 (paid once)", got)
		}
		// Once an attempt has landed, Replace replaces nothing.
		rep2.After = 1
		if got, err := e.payout.Replace(ctx, rep2); err != nil || got.Attempt != 1 || got.TxHash != next.TxHash {
			t.Fatalf("Replace of the landed attempt: %+v, %v; want it unchanged", got, err)
		}
	})

	t.Run("refunds out of the vault", func(t *testing.T) {
		to, id := freshWallet(t), e.request(t)
		p := chains.Payment{RequestID: id, Kind: intent.TxKindRefund, ChainID: solana.ChainID, Currency: svm.USDCMint.String(),
			Recipient: to.String(), Amount: big.NewInt(3_000_000)}
		vaultBefore := e.usdc(t, e.vault.PublicKey())
		sig := e.payThrice(t, p)
		if inc := e.await(t, e.payout, id, intent.TxKindRefund, sig); !inc.Success {
			t.Fatalf("included: %+v", inc)
		}
		if got := e.usdc(t, to); got != "3000000" {
			t.Errorf("the recipient holds %s, want 3000000", got)
		}
		before, _ := new(big.Int).SetString(vaultBefore, 10)
		if got := e.usdc(t, e.vault.PublicKey()); got != new(big.Int).Sub(before, big.NewInt(3_000_000)).String() {
			t.Errorf("the vault holds %s, had %s: want 3000000 less", got, vaultBefore)
		}
		p.Kind = intent.TxKindManualRefund
		if _, err := e.payout.Pay(ctx, p); !errors.Is(err, chains.ErrPayoutRefused) {
			t.Fatalf("a manual refund beside the kept refund: %v, want ErrPayoutRefused", err)
		}
	})

	t.Run("a fill the solver cannot pay is refused and nothing is kept", func(t *testing.T) {
		id := e.request(t)
		p := fill(id, svm.USDCMint.String(), freshWallet(t), svm.SolverUSDC*2)
		if _, err := e.payout.Pay(ctx, p); !errors.Is(err, chains.ErrInsufficientFunds) {
			t.Fatalf("Pay: %v, want ErrInsufficientFunds", err)
		}
		if _, err := e.payout.Stored(ctx, id, intent.TxKindFill); !errors.Is(err, intent.ErrNotFound) {
			t.Fatalf("Stored after the refusal: %v, want intent.ErrNotFound", err)
		}
	})
}

// waitExpired waits until the chain's finalized block height is past the attempt's
// lastValidBlockHeight: from then on it can never land.
func (e *payoutEnv) waitExpired(t *testing.T, a *store.SolanaPayment) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		h, err := e.rpc.GetBlockHeight(t.Context(), rpc.CommitmentFinalized)
		if err != nil {
			t.Fatal(err)
		}
		if h > a.LastValidBlockHeight {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("block height %d, still not past %d", h, a.LastValidBlockHeight)
		}
		time.Sleep(5 * payoutSlotTime)
	}
}

// Issue 36 point 4 (TRANSACTION_TOO_LARGE): a payment whose signed transaction is over Solana's
// 1232-byte wire limit (here a fill whose memo, the order id, is 1,300 bytes) is refused with a
// *chains.TxTooLargeError carrying its size, before it is signed into solana_payments: nothing is
// kept, so no attempt can ever be broadcast.
func TestSolanaPayoutRefusesATransactionOverTheWireLimit(t *testing.T) {
	e := newPayoutEnv(t)
	id := e.request(t)
	p := fill(id, solana.NativeAddress, freshWallet(t), 1_000_000)
	p.OrderID = strings.Repeat("a", 1_300)
	_, err := e.payout.Pay(t.Context(), p)
	var large *chains.TxTooLargeError
	if !errors.As(err, &large) || large.Limit != solana.MaxTransactionSize || large.Size <= solana.MaxTransactionSize {
		t.Fatalf("an oversized fill: %v, want a *chains.TxTooLargeError over %d bytes", err, solana.MaxTransactionSize)
	}
	if _, err := e.store.SolanaPayment(t.Context(), id, intent.TxKindFill); !errors.Is(err, intent.ErrNotFound) {
		t.Fatalf("the refused fill is kept: %v", err)
	}
	var n int
	if err := e.pool.QueryRow(t.Context(), `SELECT count(*) FROM solana_payments WHERE request_id = $1`, id).Scan(&n); err != nil || n != 0 {
		t.Fatalf("solana_payments holds %d rows of the request (%v), want none", n, err)
	}
	// The same payment with an order id of the usual size is paid.
	p.OrderID = id
	if _, err := e.payout.Pay(t.Context(), p); err != nil {
		t.Fatalf("the fill of the usual size: %v", err)
	}
}

// Issue 36 point 2 (SOL and wSOL 9 decimals): the local chain's genesis gives the solver wSOL in
// its associated token account of the native mint (rent + amount lamports), and a wSOL fill to a
// fresh recipient takes the family's SPL path: the recipient's token account of the native mint
// created (its rent in Check's cost), transferChecked with 9 decimals, the recipient holding the
// wSOL and the solver that much less.
func TestSolanaPayoutPaysAWSOLFillToAFreshRecipient(t *testing.T) {
	e := newPayoutEnv(t)
	ctx := t.Context()
	balance := func(owner solanago.PublicKey) (string, uint8) {
		t.Helper()
		b, err := e.rpc.GetTokenAccountBalance(ctx, svm.WSOLAccount(owner), rpc.CommitmentConfirmed)
		if err != nil {
			t.Fatal(err)
		}
		return b.Value.Amount, b.Value.Decimals
	}
	if got, dec := balance(svm.SolverAddress()); got != fmt.Sprint(svm.SolverWSOL) || dec != svm.WSOLDecimals {
		t.Fatalf("the solver's genesis wSOL is %s (%d decimals), want %d (9)", got, dec, svm.SolverWSOL)
	}
	rent, err := e.rpc.GetMinimumBalanceForRentExemption(ctx, solana.TokenAccountSize, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.lamports(t, svm.WSOLAccount(svm.SolverAddress())); got != rent+svm.SolverWSOL {
		t.Errorf("the solver's wSOL account holds %d lamports, want rent + amount = %d", got, rent+svm.SolverWSOL)
	}
	to, id := freshWallet(t), e.request(t)
	p := fill(id, svm.WSOLMint.String(), to, 1_234_567_890)
	var maxFee *big.Int
	p.Check = func(_ context.Context, fee *big.Int) error { maxFee = fee; return nil }
	sig := e.payThrice(t, p)
	if want := int64(solana.LamportsPerSignature) + int64(rent); maxFee == nil || maxFee.Int64() != want {
		t.Errorf("Check was given %v, want the fee and the token account's rent (%d)", maxFee, want)
	}
	if inc := e.await(t, e.payout, id, intent.TxKindFill, sig); !inc.Success || inc.Hash != sig {
		t.Fatalf("included: %+v", inc)
	}
	if got, dec := balance(to); got != "1234567890" || dec != svm.WSOLDecimals {
		t.Errorf("the recipient holds %s wSOL base units (%d decimals), want 1234567890 (9)", got, dec)
	}
	if got, _ := balance(svm.SolverAddress()); got != fmt.Sprint(svm.SolverWSOL-1_234_567_890) {
		t.Errorf("the solver holds %s wSOL base units, want %d", got, svm.SolverWSOL-1_234_567_890)
	}
}
