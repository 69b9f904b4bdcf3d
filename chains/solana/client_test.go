package solana_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"os"
	"testing"
	"time"

	solanago "github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/solana"
	"github.com/intentd/intentd/devnet/svm"
)

// The tests share one local chain (devnet/svm), started by TestMain with a short slot so that
// confirmations take tens of milliseconds; each test uses test keypairs and vaults of its own, so
// they do not see each other's balances.
const testSlotTime = 50 * time.Millisecond

var localnet *svm.Chain

func TestMain(m *testing.M) {
	ctx, cancel := context.WithCancel(context.Background())
	c, err := svm.Start(ctx, svm.Options{SlotTime: testSlotTime})
	if err != nil {
		fmt.Fprintln(os.Stderr, "chains/solana tests: start the local chain:", err)
		cancel()
		os.Exit(1)
	}
	localnet = c
	code := m.Run()
	_ = c.Close()
	cancel()
	os.Exit(code)
}

// testChain is a registry entry of the local chain whose vault is vault and whose one SPL
// currency is its USDC.
func testChain(vault solanago.PublicKey) *chains.Chain {
	return &chains.Chain{ID: solana.ChainID, Name: "solana", VMType: chains.VMTypeSVM, HTTPRPCURL: localnet.RPCURL,
		Depository: vault.String(), Confirmations: 1,
		Currency: chains.Currency{ID: "sol", Symbol: "SOL", Address: solana.NativeAddress, Decimals: solana.NativeDecimals},
		ERC20:    []chains.Currency{{ID: "usdc", Symbol: "USDC", Address: svm.USDCMint.String(), Decimals: svm.USDCDecimals}}}
}

// dial opens the family's client of the local chain through its VM, as chains.Clients does.
func dial(t *testing.T, vault solanago.PublicKey) *solana.Client {
	t.Helper()
	cl, err := solana.VM().Open(testChain(vault))
	if err != nil {
		t.Fatal(err)
	}
	c := cl.(*solana.Client)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func newKey(t *testing.T) solanago.PrivateKey {
	t.Helper()
	k, err := solanago.NewRandomPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestHeadAdvances(t *testing.T) {
	c := dial(t, newKey(t).PublicKey())
	h1, err := c.Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(6 * testSlotTime)
	h2, err := c.Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if h2 <= h1 {
		t.Fatalf("head did not advance: %d then %d", h1, h2)
	}
	t.Logf("head %d, %d after %s", h1, h2, 6*testSlotTime)

	genesis, err := c.BlockHash(t.Context(), 0)
	if err != nil || genesis != localnet.GenesisHash.String() {
		t.Fatalf("BlockHash(0) = %q, %v; want the genesis hash %s", genesis, err, localnet.GenesisHash)
	}
	// A slot's block hash (getBlock): the same when read again, another slot's another, and a
	// slot not produced yet not found.
	b1, err := c.BlockHash(t.Context(), h1)
	if err != nil || b1 == "" {
		t.Fatalf("BlockHash(%d) = %q, %v", h1, b1, err)
	}
	if again, err := c.BlockHash(t.Context(), h1); err != nil || again != b1 {
		t.Fatalf("BlockHash(%d) read again = %q, %v; want %s", h1, again, err, b1)
	}
	if b2, err := c.BlockHash(t.Context(), h2); err != nil || b2 == b1 {
		t.Fatalf("BlockHash(%d) = %q, %v; want another hash than slot %d's", h2, b2, err, h1)
	}
	if _, err := c.BlockHash(t.Context(), h2+1_000_000); err == nil || errors.Is(err, chains.ErrUnavailable) {
		t.Fatalf("BlockHash of a slot not produced: %v, want a refusal that is not \"try again\"", err)
	}
}

func TestUnavailableIsClassified(t *testing.T) {
	ch := testChain(newKey(t).PublicKey())
	ch.HTTPRPCURL = "http://127.0.0.1:1" // nothing listens
	cl, err := solana.VM().Open(ch)
	if err != nil {
		t.Fatal(err)
	}
	_, err = cl.(chains.HeadReader).Head(t.Context())
	var ce *chains.Error
	if !errors.Is(err, chains.ErrUnavailable) || !errors.As(err, &ce) || ce.ChainID != solana.ChainID || ce.Op != "get slot" {
		t.Fatalf("Head of a chain nobody serves: %v, want a *chains.Error of kind ErrUnavailable", err)
	}
}

func TestBalances(t *testing.T) {
	c := dial(t, newKey(t).PublicKey())
	owner := svm.TestAddresses()[9] // untouched by the other tests
	usdc := svm.USDCMint.String()
	want := map[string]*big.Int{
		solana.NativeAddress: new(big.Int).Mul(big.NewInt(svm.TestAccountSOL), big.NewInt(svm.LamportsPerSOL)),
		usdc:                 big.NewInt(svm.TestAccountUSDC),
	}
	for currency, w := range want {
		got, err := c.BalanceNow(t.Context(), currency, owner.String())
		if err != nil || got.Cmp(w) != 0 {
			t.Errorf("BalanceNow(%s) = %v, %v; want %s", currency, got, err, w)
		}
		cached, err := c.Balance(t.Context(), currency, owner.String())
		if err != nil || cached.Cmp(w) != 0 {
			t.Errorf("Balance(%s) = %v, %v; want %s", currency, cached, err, w)
		}
	}
	// An account the chain has never seen: no lamports, no token account, 0 of both.
	nobody := newKey(t).PublicKey().String()
	for _, currency := range []string{solana.NativeAddress, usdc} {
		got, err := c.BalanceNow(t.Context(), currency, nobody)
		if err != nil || got.Sign() != 0 {
			t.Errorf("BalanceNow(%s) of a new account = %v, %v; want 0", currency, got, err)
		}
	}
	// A second token account of the same mint counts too.
	second := addTokenAccount(t, svm.TestAccounts()[8], 250_000)
	got, err := c.BalanceNow(t.Context(), usdc, svm.TestAddresses()[8].String())
	if w := big.NewInt(svm.TestAccountUSDC); err != nil || got.Cmp(w) != 0 {
		t.Errorf("BalanceNow(USDC) with a second token account %s = %v, %v; want %s (the sum)", second, got, err, w)
	}
}

func TestGasPriceAndFillCost(t *testing.T) {
	c := dial(t, newKey(t).PublicKey())
	// The local chain reports no priority fees: a fill pays the base fee of its one signature.
	p, err := c.GasPrice(t.Context())
	if err != nil || p.Cmp(big.NewInt(solana.LamportsPerSignature)) != 0 {
		t.Fatalf("GasPrice = %v, %v; want %d lamports", p, err, solana.LamportsPerSignature)
	}
	for _, currency := range []string{solana.NativeAddress, svm.USDCMint.String()} {
		f, err := c.FillCost(t.Context(), currency)
		if err != nil || f.Cmp(big.NewInt(solana.FillSignatures*solana.LamportsPerSignature)) != 0 {
			t.Errorf("FillCost(%s) = %v, %v; want %d", currency, f, err, solana.FillSignatures*solana.LamportsPerSignature)
		}
	}
}

// --- helpers shared by the tests of this package ---

// rpcClient is a solana-go client of the local chain, closed with the test.
func rpcClient(t *testing.T) *rpc.Client {
	t.Helper()
	cl := localnet.Client()
	t.Cleanup(func() { _ = cl.Close() })
	return cl
}

// sendAndConfirm signs tx's message with keys, sends it and waits until it is confirmed.
func sendAndConfirm(t *testing.T, tx *solanago.Transaction, keys ...solanago.PrivateKey) solanago.Signature {
	t.Helper()
	cl := rpcClient(t)
	tx.Signatures = nil
	if _, err := tx.Sign(func(pub solanago.PublicKey) *solanago.PrivateKey {
		for _, k := range keys {
			if k.PublicKey().Equals(pub) {
				return &k
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sig, err := cl.SendTransactionWithOpts(t.Context(), tx, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentConfirmed})
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := cl.GetSignatureStatuses(t.Context(), false, sig)
		if err != nil {
			t.Fatal(err)
		}
		if s := st.Value[0]; s != nil && s.ConfirmationStatus != rpc.ConfirmationStatusProcessed {
			if s.Err != nil {
				t.Fatalf("%s failed: %v", sig, s.Err)
			}
			return sig
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not confirmed in 10 s", sig)
		}
		time.Sleep(testSlotTime)
	}
}

// latestBlockhash is the chain's latest confirmed blockhash.
func latestBlockhash(t *testing.T) solanago.Hash {
	t.Helper()
	bh, err := rpcClient(t).GetLatestBlockhash(t.Context(), rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	return bh.Value.Blockhash
}
