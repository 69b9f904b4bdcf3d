package api

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	solanago "github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/chains/solana"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/devnet/svm"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/prices"
	"github.com/intentd/intentd/quote"
)

// Issue 36, point 3 (the quote's origin leg): with the Solana family linked into a test engine
// (chains.NewClients(reg, evm.VM(), solana.VM())) over the local Solana chain (devnet/svm) and an
// EVM devnet chain (31338), a Solana-origin quote on /quote/v2, /quote and /price is answered
// with the family's deposit transaction, compiled and measured; one over 1232 bytes is 400
// SOLANA_TX_TOO_LARGE with the measured size and the bytes over.

// memQuotes is a quote store in memory: what the engine stored, nothing else (no sponsorship
// account, no trailing volume).
type memQuotes struct {
	mu     sync.Mutex
	quotes []intent.NewQuote
}

func (m *memQuotes) InsertQuote(_ context.Context, q intent.NewQuote) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.quotes = append(m.quotes, q)
	return nil
}

func (m *memQuotes) InsertDepositAddressQuote(context.Context, intent.NewQuote, intent.DepositAddress) error {
	return intent.ErrUnavailable
}

func (m *memQuotes) IntegratorVolume30d(context.Context, string) (decimal.Decimal, error) {
	return decimal.Zero, nil
}

func (m *memQuotes) SponsorAccount(context.Context, string) (intent.SponsorAccount, error) {
	return intent.SponsorAccount{}, intent.ErrNotFound
}

func (m *memQuotes) stored() []intent.NewQuote {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]intent.NewQuote(nil), m.quotes...)
}

// routedClient is the Solana family's client with an origin swap route in every deposit: hops
// instructions, each of a program of its own reading accounts of its own, as an aggregator's
// route adds them. This build puts no route in a deposit (quote/solana_origin.go), and no input
// of a quote makes the plain deposit exceed the limit on the local chain, so this is how a test
// makes the deposit too large: the real deposit's instructions and the route's, compiled and
// measured by the family (solana.CompileAndMeasure).
type routedClient struct {
	*solana.Client
	hops int
}

func (c routedClient) FundingSteps(ctx context.Context, o chains.FundingOrder) ([]intent.Step, error) {
	user, err := solanago.PublicKeyFromBase58(o.User)
	if err != nil {
		return nil, err
	}
	ixs, err := c.DepositInstructions(ctx, user, o)
	if err != nil {
		return nil, err
	}
	for range c.hops {
		var keys solanago.AccountMetaSlice
		for range 8 {
			k, _ := solanago.NewRandomPrivateKey()
			keys = append(keys, solanago.Meta(k.PublicKey()).WRITE())
		}
		program, _ := solanago.NewRandomPrivateKey()
		ixs = append(ixs, solanago.NewInstruction(program.PublicKey(), keys, make([]byte, 24)))
	}
	if _, _, err := solana.CompileAndMeasure(ixs, user, solanago.Hash{}); err != nil {
		return nil, err
	}
	return c.Client.FundingSteps(ctx, o)
}

// solanaOriginRig is an API whose engine quotes from the local Solana chain (vault a fresh key,
// so that its USDC account does not exist yet) to the EVM devnet's 31338; hops > 0 opens the
// Solana chain as a routedClient.
type solanaOriginRig struct {
	h     http.Handler
	store *memQuotes
	vault solanago.PublicKey
}

var (
	originChainsOnce sync.Once
	originSVM        *svm.Chain
	originDevnet     *devnet.Devnet
	originErr        error
)

// originChains starts the local Solana chain and one EVM devnet chain, once for the package's
// tests (they run until the test binary exits).
func originChains(t *testing.T) (*svm.Chain, *devnet.Devnet) {
	t.Helper()
	originChainsOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		originSVM, originErr = svm.Start(context.Background(), svm.Options{SlotTime: 100 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
		if originErr != nil {
			return
		}
		originDevnet, originErr = devnet.Start(ctx, devnet.Options{Chains: []devnet.ChainOptions{{ID: 31338}}, BlockTime: time.Hour,
			FeedHeartbeat: -1, Logger: slog.New(slog.DiscardHandler)})
	})
	if originErr != nil {
		t.Fatal(originErr)
	}
	return originSVM, originDevnet
}

func newSolanaOriginRig(t *testing.T, hops int) *solanaOriginRig {
	t.Helper()
	local, d := originChains(t)
	vaultKey, err := solanago.NewRandomPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	vault := vaultKey.PublicKey()
	list := devnet.ChainConfigs(map[uint64]string{31337: deadRPC, 31338: d.Chain(31338).RPCURL})
	list = append(list, chains.Chain{ID: solana.ChainID, Name: "solana", DisplayName: "Solana", VMType: chains.VMTypeSVM,
		HTTPRPCURL: local.RPCURL, DepositEnabled: true, Depository: vault.String(),
		Currency: chains.Currency{ID: "sol", Symbol: "SOL", Name: "Solana", Decimals: solana.NativeDecimals},
		ERC20:    []chains.Currency{{ID: "usdc", Symbol: "USDC", Name: "USD Coin", Address: svm.USDCMint.String(), Decimals: svm.USDCDecimals}}})
	reg, err := chains.NewRegistry(list)
	if err != nil {
		t.Fatal(err)
	}
	family := solana.VM()
	if hops > 0 {
		open := family.Open
		family.Open = func(ch *chains.Chain) (chains.Client, error) {
			c, err := open(ch)
			if err != nil {
				return nil, err
			}
			return routedClient{Client: c.(*solana.Client), hops: hops}, nil
		}
	}
	pool := chains.NewClients(reg, evm.VM(), family)
	st := &memQuotes{}
	engine := &quote.Engine{Chains: pool, Store: st, Solver: devnet.SolverAddress().Hex(),
		Solvers: map[chains.VMType]string{chains.VMTypeSVM: svm.SolverAddress().String()},
		Prices:  prices.Table{"ETH": decimal.NewFromInt(3000), "USDC": decimal.NewFromInt(1), "SOL": decimal.NewFromInt(150)}}
	s := &Server{Chains: reg, Quotes: engine, Logger: slog.New(slog.DiscardHandler)}
	return &solanaOriginRig{h: s.Handler(), store: st, vault: vault}
}

// fromSolanaTo31338 is a quote body from the Solana chain's currency to ETH on 31338, paid by the
// first test keypair of the local chain, with overrides.
func fromSolanaTo31338(currency, amount string, over map[string]any) map[string]any {
	b := map[string]any{"user": svm.TestAccounts()[0].PublicKey.String(), "originChainId": solana.ChainID, "originCurrency": currency,
		"destinationChainId": 31338, "destinationCurrency": chains.NativeAddress, "recipient": devnet.TestAccounts()[1].Address.Hex(),
		"amount": amount, "tradeType": "EXACT_INPUT"}
	for k, v := range over {
		b[k] = v
	}
	return b
}

// depositOf is the one deposit step's Solana transaction of a quote answer: its instructions'
// programs, the memo's text, and the item's from and to.
func depositOf(t *testing.T, what string, body map[string]any) (programs []string, memo, from, to string) {
	t.Helper()
	steps, _ := body["steps"].([]any)
	if len(steps) != 1 {
		t.Fatalf("%s: steps %v, want the one deposit", what, body["steps"])
	}
	step := steps[0].(map[string]any)
	items, _ := step["items"].([]any)
	if step["id"] != "deposit" || step["kind"] != "transaction" || len(items) != 1 {
		t.Fatalf("%s: step %v", what, step)
	}
	data := items[0].(map[string]any)["data"].(map[string]any)
	ixs, _ := data["instructions"].([]any)
	if luts, ok := data["addressLookupTableAddresses"].([]any); !ok || len(luts) != 0 {
		t.Errorf("%s: addressLookupTableAddresses %v, want []", what, data["addressLookupTableAddresses"])
	}
	for _, ix := range ixs {
		m := ix.(map[string]any)
		programs = append(programs, m["programId"].(string))
		if m["programId"] == solanago.MemoProgramID.String() {
			memo = hexText(t, m["data"].(string))
		}
	}
	from, _ = data["from"].(string)
	to, _ = data["to"].(string)
	return programs, memo, from, to
}

// hexText is the text whose bytes s writes in hex.
func hexText(t *testing.T, s string) string {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("data %q is not hex", s)
	}
	return string(b)
}

// sendDeposit signs the deposit step of a quote answer as the user's wallet would (its
// instructions as given, the user paying the fee, a recent blockhash) and sends it to the local
// chain: a quote's deposit must be one the chain takes as handed out. It returns once the
// transaction is confirmed, and fails the test if the chain refuses it.
func sendDeposit(t *testing.T, body map[string]any, key solanago.PrivateKey) {
	t.Helper()
	raw, _ := json.Marshal(body["steps"].([]any)[0].(map[string]any)["items"].([]any)[0].(map[string]any)["data"])
	var tx intent.SVMTx
	if err := json.Unmarshal(raw, &tx); err != nil {
		t.Fatal(err)
	}
	var ixs []solanago.Instruction
	for _, ix := range tx.Instructions {
		var metas solanago.AccountMetaSlice
		for _, k := range ix.Keys {
			metas = append(metas, &solanago.AccountMeta{PublicKey: solanago.MustPublicKeyFromBase58(k.Pubkey), IsSigner: k.IsSigner, IsWritable: k.IsWritable})
		}
		data, err := hex.DecodeString(ix.Data)
		if err != nil {
			t.Fatal(err)
		}
		ixs = append(ixs, solanago.NewInstruction(solanago.MustPublicKeyFromBase58(ix.ProgramID), metas, data))
	}
	local, _ := originChains(t)
	cl := local.Client()
	bh, err := cl.GetLatestBlockhash(t.Context(), rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	signed, size, err := solana.CompileAndMeasure(ixs, key.PublicKey(), bh.Value.Blockhash)
	if err != nil {
		t.Fatal(err)
	}
	signed.Signatures = nil
	if _, err := signed.Sign(func(pub solanago.PublicKey) *solanago.PrivateKey {
		if pub.Equals(key.PublicKey()) {
			return &key
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if wire, _ := signed.MarshalBinary(); len(wire) != size || size > solana.MaxTransactionSize {
		t.Errorf("signed, the deposit is %d bytes; measured %d", len(wire), size)
	}
	sig, err := cl.SendTransactionWithOpts(t.Context(), signed, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentConfirmed})
	if err != nil {
		t.Fatalf("send the deposit: %v", err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		st, err := cl.GetSignatureStatuses(t.Context(), false, sig)
		if err != nil {
			t.Fatal(err)
		}
		if s := st.Value[0]; s != nil && s.ConfirmationStatus != rpc.ConfirmationStatusProcessed {
			if s.Err != nil {
				t.Fatalf("the deposit %s failed: %v", sig, s.Err)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the deposit %s was not confirmed in 10 s", sig)
		}
	}
}

// sameChain turns a fromSolanaTo31338 body into a same-chain one: to USDC on the Solana chain,
// paid to the second test keypair.
func sameChain(b map[string]any) map[string]any {
	b["destinationChainId"], b["destinationCurrency"], b["recipient"] = solana.ChainID, svm.USDCMint.String(), svm.TestAccounts()[1].PublicKey.String()
	return b
}

func TestASolanaOriginQuoteReturnsTheFamilysDepositTransaction(t *testing.T) {
	rig := newSolanaOriginRig(t, 0)
	user := svm.TestAccounts()[0].PublicKey.String()
	for _, c := range []struct {
		name, currency, amount string
		programs               []string
	}{
		{"SOL", solana.NativeAddress, "1000000000", []string{solanago.SystemProgramID.String(), solanago.MemoProgramID.String()}},
		// The vault has no USDC account yet: the first deposit creates it (idempotently) first;
		// once that deposit is on the chain, the next quote's deposit leaves the creation out.
		{"USDC", svm.USDCMint.String(), "100000000", []string{solanago.SPLAssociatedTokenAccountProgramID.String(),
			solanago.TokenProgramID.String(), solanago.MemoProgramID.String()}},
	} {
		for i, path := range []string{"/quote/v2", "/quote"} {
			if i > 0 && c.programs[0] == solanago.SPLAssociatedTokenAccountProgramID.String() {
				c.programs = c.programs[1:]
			}
			before := len(rig.store.stored())
			status, body := postQuote(t, rig.h, path, "", fromSolanaTo31338(c.currency, c.amount, map[string]any{"includeProtocolData": true}))
			if status != http.StatusOK {
				t.Fatalf("%s %s: %d %v", path, c.name, status, body)
			}
			programs, memo, from, to := depositOf(t, path+" "+c.name, body)
			if strings.Join(programs, ",") != strings.Join(c.programs, ",") || from != user || to != rig.vault.String() {
				t.Errorf("%s %s: programs %v from %s to %s, want %v from the user to the vault", path, c.name, programs, from, to, c.programs)
			}
			stored := rig.store.stored()
			if len(stored) != before+1 {
				t.Fatalf("%s %s: %d quotes stored, want one more than %d", path, c.name, len(stored), before)
			}
			q := stored[len(stored)-1]
			if memo != q.OrderID || q.Origin != solana.ChainID || q.Execution.CurrencyIn.Address != c.currency || q.Execution.User != user {
				t.Errorf("%s %s: memo %q, stored order %s from %d in %s by %s", path, c.name, memo, q.OrderID, q.Origin,
					q.Execution.CurrencyIn.Address, q.Execution.User)
			}
			// The order writes the Solana origin's addresses as written (base58), as it writes a
			// Solana destination's: its id hashes the 32 bytes they name.
			key := svm.TestAccounts()[0].PublicKey
			if in := q.OrderData.Inputs[0]; in.Refunds[0].Recipient != key.String() || in.Payment.Currency != c.currency {
				t.Errorf("%s %s: the order's input %+v, want the user's key and the currency in base58", path, c.name, in)
			}
			if p, _ := body["protocol"].(map[string]any); (path == "/quote/v2") != (p != nil) {
				t.Errorf("%s %s: protocol %v", path, c.name, body["protocol"])
			}
			// The user's wallet signs and sends it as handed out, and the chain takes it.
			sendDeposit(t, body, svm.TestAccounts()[0].PrivateKey)
		}
		// /price measures the same deposit, and returns no steps and stores nothing.
		before := len(rig.store.stored())
		status, body := postQuote(t, rig.h, "/price", "", fromSolanaTo31338(c.currency, c.amount, nil))
		if status != http.StatusOK || body["steps"] != nil || len(rig.store.stored()) != before {
			t.Errorf("/price %s: %d steps %v, %d stored (was %d)", c.name, status, body["steps"], len(rig.store.stored()), before)
		}
	}
	// Same-chain, SOL to USDC on the Solana chain: /price measures the deposit too. (/quote's
	// same-chain answer also simulates the fill on Solana, by a Solana solver: the destination
	// leg, not this test's.)
	if status, body := postQuote(t, rig.h, "/price", "", sameChain(fromSolanaTo31338(solana.NativeAddress, "1000000000", nil))); status != http.StatusOK {
		t.Errorf("/price same-chain: %d %v", status, body)
	}
}

func TestASolanaOriginQuoteOver1232BytesIs400SolanaTxTooLarge(t *testing.T) {
	// Four hops of nine accounts each put the SOL deposit (about 300 bytes) well over the limit.
	rig := newSolanaOriginRig(t, 4)
	for _, path := range []string{"/quote/v2", "/quote", "/price"} {
		for _, currency := range []string{solana.NativeAddress, svm.USDCMint.String()} {
			status, body := postQuote(t, rig.h, path, "", fromSolanaTo31338(currency, "100000000", map[string]any{"maxRouteLength": 4}))
			checkError(t, path, status, body, quote.CodeSolanaTxTooLarge)
			msg, _ := body["message"].(string)
			var size, over int
			if n, err := fmt.Sscanf(msg, "Generated Solana transaction is %d bytes, %d over", &size, &over); n != 2 || err != nil || status != http.StatusBadRequest ||
				size <= solana.MaxTransactionSize || over != size-solana.MaxTransactionSize ||
				!strings.HasSuffix(msg, "over Solana's 1232 byte limit, so it cannot be signed or broadcast.") {
				t.Errorf("%s %s: %d %q, want 400 with the measured size and the bytes over", path, currency, status, msg)
			}
		}
	}
	status, body := postQuote(t, rig.h, "/price", "", sameChain(fromSolanaTo31338(solana.NativeAddress, "1000000000", nil)))
	checkError(t, "/price same-chain", status, body, quote.CodeSolanaTxTooLarge)
	if n := len(rig.store.stored()); n != 0 {
		t.Errorf("%d quotes stored, want none", n)
	}
	// Two hops fit: the same route is quoted.
	rig = newSolanaOriginRig(t, 2)
	if status, body := postQuote(t, rig.h, "/quote/v2", "", fromSolanaTo31338(solana.NativeAddress, "1000000000", nil)); status != http.StatusOK {
		t.Errorf("two hops: %d %v, want the quote", status, body)
	}
}
