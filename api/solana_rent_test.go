package api

import (
	"context"
	"encoding/json"
	"log/slog"
	"math/big"
	"net/http"
	"strings"
	"testing"

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

// Issue 36, point 4 (the rent of the quote's destination leg): an engine over the EVM devnet's
// 31338 and the local Solana chain, quoting ETH to the Solana chain. A recipient with no USDC
// account is charged the account's rent as the spec's "rent" fee component (lamports at SOL's
// price, in wei, rounded up), sponsorable through sponsoredFeeComponents; an output that cannot
// cover the rent, or a SOL output below a new account's rent-exempt minimum, is 400
// INSUFFICIENT_FUNDS_FOR_RENT and nothing is stored.

// sponsoringQuotes is memQuotes whose every integrator has a sponsorship balance of USD 1,000.
type sponsoringQuotes struct{ memQuotes }

func (s *sponsoringQuotes) SponsorAccount(_ context.Context, id string) (intent.SponsorAccount, error) {
	return intent.SponsorAccount{IntegratorID: id, Wallet: devnet.TestAccounts()[5].Address.Hex(), ChainID: 31338,
		BalanceUSD: decimal.NewFromInt(1000)}, nil
}

// rentRig is the engine and its API: 31338 to the Solana chain, ETH at USD 3,000, SOL at 150.
type rentRig struct {
	engine *quote.Engine
	h      http.Handler
	store  *sponsoringQuotes
	rpc    *rpc.Client
}

func newRentRig(t *testing.T) *rentRig {
	t.Helper()
	local, d := originChains(t)
	list := devnet.ChainConfigs(map[uint64]string{31337: deadRPC, 31338: d.Chain(31338).RPCURL})
	list = append(list, chains.Chain{ID: solana.ChainID, Name: "solana", DisplayName: "Solana", VMType: chains.VMTypeSVM,
		HTTPRPCURL: local.RPCURL, DepositEnabled: true, Depository: svm.SolverAddress().String(),
		Currency: chains.Currency{ID: "sol", Symbol: "SOL", Name: "Solana", Decimals: solana.NativeDecimals},
		ERC20:    []chains.Currency{{ID: "usdc", Symbol: "USDC", Name: "USD Coin", Address: svm.USDCMint.String(), Decimals: svm.USDCDecimals}}})
	reg, err := chains.NewRegistry(list)
	if err != nil {
		t.Fatal(err)
	}
	st := &sponsoringQuotes{}
	engine := &quote.Engine{Chains: chains.NewClients(reg, evm.VM(), solana.VM()), Store: st, Solver: devnet.SolverAddress().Hex(),
		Solvers: map[chains.VMType]string{chains.VMTypeSVM: svm.SolverAddress().String()},
		Prices:  prices.Table{"ETH": decimal.NewFromInt(3000), "USDC": decimal.NewFromInt(1), "SOL": decimal.NewFromInt(150)}}
	s := &Server{Chains: reg, Quotes: engine, Logger: slog.New(slog.DiscardHandler)}
	return &rentRig{engine: engine, h: s.Handler(), store: st, rpc: rpc.New(local.RPCURL)}
}

// toSolana is a quote body from ETH on 31338 to currency on the Solana chain for recipient.
func toSolana(currency, recipient, amount string) map[string]any {
	return map[string]any{"user": devnet.TestAccounts()[0].Address.Hex(), "originChainId": 31338, "originCurrency": chains.NativeAddress,
		"destinationChainId": solana.ChainID, "destinationCurrency": currency, "recipient": recipient,
		"amount": amount, "tradeType": "EXACT_INPUT"}
}

// freshWallet is a Solana address the chain has never seen.
func freshWallet(t *testing.T) string {
	t.Helper()
	k, err := solanago.NewRandomPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k.PublicKey().String()
}

// rentIn is lamports of rent in wei at the rig's prices (SOL 150, ETH 3,000), rounded up.
func rentIn(lamports uint64) *big.Int {
	return decimal.NewFromInt(int64(lamports)).Shift(-9).Mul(decimal.NewFromInt(150)).Div(decimal.NewFromInt(3000)).Shift(18).Ceil().BigInt()
}

// lastRent is the rent component of the last quote stored.
func (r *rentRig) lastRent(t *testing.T) intent.SponsoredComponent {
	t.Helper()
	stored := r.store.stored()
	if len(stored) == 0 {
		t.Fatal("no quote stored")
	}
	fs := stored[len(stored)-1].Record.Data.FeeSponsorship
	if fs == nil || fs.Quoted == nil {
		t.Fatal("the stored record has no feeSponsorship.quoted")
	}
	c, ok := fs.Quoted.Components["rent"]
	if !ok {
		t.Fatalf("feeSponsorship.quoted.components has no rent: %v", fs.Quoted.Components)
	}
	return c
}

func amountAt(t *testing.T, body map[string]any, path ...string) *big.Int {
	t.Helper()
	var v any = body
	for _, p := range path {
		m, _ := v.(map[string]any)
		v = m[p]
	}
	s, _ := v.(string)
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		t.Fatalf("%s = %v, not an integer string", strings.Join(path, "."), v)
	}
	return n
}

// Issue 36, point 4: a USDC output to a recipient without a token account charges the account's
// rent (getMinimumBalanceForRentExemption(165) lamports, in wei) as the rent component, user-paid
// and in fees.relayerGas; a recipient that has one is charged no rent. Selected in
// sponsoredFeeComponents, the sponsor pays it and the user receives more.
func TestAQuoteToASolanaRecipientWithoutATokenAccountChargesItsRent(t *testing.T) {
	rig := newRentRig(t)
	lamports, err := rig.rpc.GetMinimumBalanceForRentExemption(t.Context(), solana.TokenAccountSize, rpc.CommitmentConfirmed)
	if err != nil {
		t.Fatal(err)
	}
	want := rentIn(lamports)
	const amount = "10000000000000000" // 0.01 ETH, USD 30

	fresh := freshWallet(t)
	status, body := postQuote(t, rig.h, "/quote/v2", "", toSolana(svm.USDCMint.String(), fresh, amount))
	if status != http.StatusOK {
		t.Fatalf("a recipient without a USDC account: %d %v", status, body)
	}
	rent := rig.lastRent(t)
	if rent.Total.Amount != want.String() || rent.UserPays.Amount != want.String() || rent.Sponsored.Amount != "0" || rent.Selected {
		t.Errorf("rent component %+v, want %s wei (%d lamports) paid by the user", rent, want, lamports)
	}
	gasFresh, outFresh := amountAt(t, body, "fees", "relayerGas", "amount"), amountAt(t, body, "details", "currencyOut", "amount")

	// The first test keypair holds USDC: no account to create, no rent.
	holder := svm.TestAccounts()[1].PublicKey.String()
	status, body = postQuote(t, rig.h, "/quote/v2", "", toSolana(svm.USDCMint.String(), holder, amount))
	if status != http.StatusOK {
		t.Fatalf("a recipient with a USDC account: %d %v", status, body)
	}
	if rent := rig.lastRent(t); rent.Total.Amount != "0" {
		t.Errorf("a recipient with a USDC account is charged rent %+v", rent)
	}
	gasHeld, outHeld := amountAt(t, body, "fees", "relayerGas", "amount"), amountAt(t, body, "details", "currencyOut", "amount")
	if d := new(big.Int).Sub(gasFresh, gasHeld); d.Cmp(want) != 0 {
		t.Errorf("relayerGas %s with rent, %s without: differs by %s, want the rent %s", gasFresh, gasHeld, d, want)
	}
	if outFresh.Cmp(outHeld) >= 0 {
		t.Errorf("output %s with rent, %s without: the user does not pay the rent", outFresh, outHeld)
	}

	// Sponsored: "rent" in sponsoredFeeComponents, the integrator's sponsor pays it.
	req := toSolana(svm.USDCMint.String(), freshWallet(t), amount)
	req["subsidizeFees"], req["sponsoredFeeComponents"] = true, []string{"rent"}
	status, body = postQuote(t, rig.h, "/quote/v2", "", req)
	if status != http.StatusUnauthorized {
		t.Errorf("sponsorship without a key: %d %v, want 401", status, body)
	}
	resp := engineQuote(t, rig.engine, req, quote.Caller{APIKeyID: "key", IntegratorID: "integrator"})
	rent = rig.lastRent(t)
	if !rent.Selected || rent.Sponsored.Amount != want.String() || rent.UserPays.Amount != "0" {
		t.Errorf("sponsored rent component %+v, want all %s wei sponsored", rent, want)
	}
	if resp.Fees.Subsidized.Amount != want.String() {
		t.Errorf("fees.subsidized %s, want the rent %s", resp.Fees.Subsidized.Amount, want)
	}
	if out, _ := new(big.Int).SetString(resp.Details.CurrencyOut.Amount, 10); out == nil || out.Cmp(outHeld) != 0 {
		t.Errorf("sponsored rent: output %s, want %s as without rent", resp.Details.CurrencyOut.Amount, outHeld)
	}
}

// engineQuote runs body through the engine as caller (/quote/v2).
func engineQuote(t *testing.T, e *quote.Engine, body map[string]any, caller quote.Caller) *quote.Response {
	t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, derr := quote.Decode(strings.NewReader(string(raw)))
	if derr != nil {
		t.Fatal(derr)
	}
	resp, qerr := e.Quote(t.Context(), req, caller, quote.ModeQuoteV2)
	if qerr != nil {
		t.Fatalf("quote: %v", qerr)
	}
	return resp
}

// Issue 36, point 4: INSUFFICIENT_FUNDS_FOR_RENT, 400 {message, errorCode} on /quote/v2, /quote
// and /price, nothing stored: a USDC output whose input covers the other fees but not the new
// token account's rent (USD 0.10 against about USD 0.31 of rent), and a SOL output to an address
// that does not exist below an empty account's rent-exempt minimum (the chain refuses such a
// transfer: InsufficientFundsForRent). The same SOL output to a wallet that exists is quoted.
func TestAQuoteWhoseOutputCannotCoverSolanaRentIs400InsufficientFundsForRent(t *testing.T) {
	rig := newRentRig(t)
	const tenCents = "33333333333333" // wei, USD 0.10
	for _, c := range []struct{ name, currency string }{
		{"USDC to a recipient without a token account", svm.USDCMint.String()},
		{"SOL below the rent-exempt minimum to a new address", solana.NativeAddress},
	} {
		for _, path := range []string{"/quote/v2", "/quote", "/price"} {
			before := len(rig.store.stored())
			status, body := postQuote(t, rig.h, path, "", toSolana(c.currency, freshWallet(t), tenCents))
			if status != http.StatusBadRequest || body["errorCode"] != quote.CodeInsufficientFundsForRent || body["message"] == "" {
				t.Errorf("%s %s: %d %v, want 400 %s", path, c.name, status, body, quote.CodeInsufficientFundsForRent)
			}
			if n := len(rig.store.stored()); n != before {
				t.Errorf("%s %s: %d quotes stored, want %d", path, c.name, n, before)
			}
		}
	}
	holder := svm.TestAccounts()[1].PublicKey.String()
	if status, body := postQuote(t, rig.h, "/quote/v2", "", toSolana(solana.NativeAddress, holder, tenCents)); status != http.StatusOK {
		t.Errorf("SOL to a wallet that exists: %d %v, want 200", status, body)
	}
}
