package integration

import (
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	solanago "github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/intentd/intentd/chains/solana"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/devnet/svm"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/metrics"
	"github.com/intentd/intentd/oracle/oracleapi"
	"github.com/intentd/intentd/testkit"
	"github.com/intentd/intentd/testkit/e2e"
)

// Issue 36, point 4 and the first half of "Done when": a bridge from the devnet's 31337 to the
// local Solana chain reaches success through the API. ETH → SOL to a fresh wallet (a system
// transfer creates it), and USDC → USDC(Solana) to a wallet without a USDC account (the fill
// creates its associated token account, the solver paying the rent, which the quote charged the
// user as the rent component): each recipient holds
// exactly the quoted output, the order is filled once (one fill signature, in the status and the
// record), and the base58 recipient and currency keep their case through the quote, the order,
// the status and the record.
func TestBridgeFromTheDevnetToTheLocalSolanaChainReachesSuccess(t *testing.T) {
	s := testkit.Start(t, testkit.Options{Solana: true})
	sol := rpc.New(s.Solana.RPCURL)
	// The worker's inventory gauges read the Solana solver's balances, by its Solana address.
	gauge := func() float64 { return testutil.ToFloat64(metrics.SolverBalance.WithLabelValues("792703809", "USDC")) }
	for end := time.Now().Add(5 * time.Second); gauge() != svm.SolverUSDC/1e6 && time.Now().Before(end); {
		time.Sleep(50 * time.Millisecond)
	}
	if got := gauge(); got != svm.SolverUSDC/1e6 {
		t.Errorf("the solver's USDC on the Solana chain reads %v in the inventory gauge, want %v", got, svm.SolverUSDC/1e6)
	}
	// GET /chains lists the Solana chain with the solver's Solana address and its vault.
	var listed struct {
		Chains []struct {
			ID              uint64   `json:"id"`
			VMType          string   `json:"vmType"`
			SolverAddresses []string `json:"solverAddresses"`
			ERC20           []struct {
				Address  string `json:"address"`
				Decimals int    `json:"decimals"`
			} `json:"erc20Currencies"`
			Protocol struct {
				V2 struct {
					Depository string `json:"depository"`
				} `json:"v2"`
			} `json:"protocol"`
		} `json:"chains"`
	}
	if code, err := s.API.Do(context.Background(), http.MethodGet, "/chains", nil, &listed); err != nil || code != http.StatusOK {
		t.Fatalf("/chains: %d %v", code, err)
	}
	found := false
	for _, ch := range listed.Chains {
		if ch.ID == solana.ChainID {
			found = true
			if ch.VMType != "svm" || len(ch.SolverAddresses) != 1 || ch.SolverAddresses[0] != svm.SolverAddress().String() ||
				ch.Protocol.V2.Depository != svm.VaultAddress().String() {
				t.Errorf("/chains lists the Solana chain as %+v", ch)
			}
			// Issue 36 point 2: wSOL, the native mint, 9 decimals.
			wsol := false
			for _, c := range ch.ERC20 {
				wsol = wsol || c.Address == svm.WSOLMint.String() && c.Decimals == 9
			}
			if !wsol {
				t.Errorf("/chains lists the Solana chain's currencies as %+v, without wSOL", ch.ERC20)
			}
		}
	}
	if !found {
		t.Error("/chains does not list the Solana chain")
	}
	// The catalog lists wSOL on the Solana chain too (issue 36 point 2).
	var catalog []struct {
		Symbol   string `json:"symbol"`
		Address  string `json:"address"`
		Decimals int    `json:"decimals"`
	}
	if code := getJSON(t, s.API, "/currencies/v2?chainIds=792703809&term=WSOL", &catalog); code != http.StatusOK ||
		len(catalog) != 1 || catalog[0].Address != svm.WSOLMint.String() || catalog[0].Decimals != 9 {
		t.Errorf("GET /currencies/v2 of the Solana chain: %d %+v, want wSOL", code, catalog)
	}

	cases := []struct {
		name           string
		origin         common.Address // on 31337
		amount         string
		destCurrency   string
		destDecimals   int
		wantTokenCount int // the recipient's token accounts after the fill
	}{
		{"ETH to SOL", common.Address{}, "10000000000000000" /* 0.01 ETH */, solana.NativeAddress, 9, 0},
		{"USDC to USDC on Solana", devnet.USDCAddress, "25000000" /* 25 USDC */, svm.USDCMint.String(), 6, 1},
		// Issue 36 point 2: wSOL (the native mint, 9 decimals) fills by the SPL path, the
		// recipient's token account of the native mint created.
		{"ETH to wSOL", common.Address{}, "10000000000000000" /* 0.01 ETH */, svm.WSOLMint.String(), 9, 1},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
			defer cancel()
			acct := devnet.TestAccounts()[3+i]
			recipient := solanago.NewWallet().PublicKey() // mixed-case base58, never seen by the chain
			q, err := s.API.Quote(ctx, map[string]any{"user": acct.Address.Hex(), "recipient": recipient.String(),
				"originChainId": 31337, "destinationChainId": solana.ChainID, "originCurrency": tc.origin.Hex(),
				"destinationCurrency": tc.destCurrency, "amount": tc.amount, "tradeType": "EXACT_INPUT", "includeProtocolData": true})
			if err != nil {
				t.Fatal(err)
			}
			out := q.Details.CurrencyOut
			if out.Currency.Address != tc.destCurrency || out.Currency.ChainID != solana.ChainID || q.Details.Recipient != recipient.String() {
				t.Fatalf("quote details: currencyOut %+v, recipient %q: want %s and %s as written", out.Currency, q.Details.Recipient,
					tc.destCurrency, recipient)
			}
			order := q.Protocol.V2.OrderData
			if len(order.Output.Payments) != 1 || order.Output.Payments[0].Recipient != recipient.String() ||
				order.Output.Payments[0].Currency != tc.destCurrency || order.Solver != svm.SolverAddress().String() {
				t.Fatalf("order: solver %q, payments %+v: want the Solana solver and the base58 recipient and currency", order.Solver,
					order.Output.Payments)
			}
			if id, err := order.ID(); err != nil || id.Hex() != q.Protocol.V2.OrderID {
				t.Fatalf("order id %s, recomputed %s (%v)", q.Protocol.V2.OrderID, id.Hex(), err)
			}
			want, ok := new(big.Int).SetString(out.Amount, 10)
			if !ok || want.Sign() <= 0 {
				t.Fatalf("quoted output %q", out.Amount)
			}

			wallet := &e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}
			if _, err := wallet.ExecuteSteps(ctx, q); err != nil {
				t.Fatal(err)
			}
			final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
			if err != nil {
				t.Fatal(err)
			}
			if final.Status != "success" || len(final.TxHashes) != 1 || final.DestinationChainID != solana.ChainID {
				t.Fatalf("final status %+v (seen %v)", final, seen)
			}
			fill := final.TxHashes[0]
			if _, err := solanago.SignatureFromBase58(fill); err != nil {
				t.Fatalf("fill %q is not a Solana signature: %v", fill, err)
			}

			got := solanaBalance(ctx, t, sol, tc.destCurrency, recipient)
			if got.Cmp(want) != 0 {
				t.Fatalf("recipient holds %s, quoted %s exactly", got, want)
			}
			// Issue 36, point 4: the quote's rent component is the rent the chain charged, the
			// lamports the recipient's new token account holds, at the quote's prices in the
			// input's smallest unit (rounded up), and the user paid it: the output is the input
			// less what the user pays of every component, rent included. SOL creates no account:
			// no rent.
			rec, err := s.Sys.Store.Record(ctx, q.RequestID)
			if err != nil {
				t.Fatal(err)
			}
			fs := rec.Data.FeeSponsorship
			if fs == nil || fs.Quoted == nil {
				t.Fatal("the record has no feeSponsorship.quoted")
			}
			rent, ok := fs.Quoted.Components["rent"]
			if !ok {
				t.Fatalf("feeSponsorship.quoted.components has no rent: %+v", fs.Quoted.Components)
			}
			wantRent := "0"
			if tc.destCurrency != solana.NativeAddress {
				acct, err := sol.GetAccountInfoWithOpts(ctx, tokenAccount(recipient, tc.destCurrency), &rpc.GetAccountInfoOpts{Commitment: rpc.CommitmentConfirmed})
				if err != nil {
					t.Fatal(err)
				}
				lamports := acct.Value.Lamports
				if tc.destCurrency == svm.WSOLMint.String() {
					lamports -= want.Uint64() // a native account holds its rent and its wSOL
				}
				solPrice, err := s.Sys.PriceSource().USDPrice(ctx, "SOL")
				if err != nil {
					t.Fatal(err)
				}
				inPrice, err := s.Sys.PriceSource().USDPrice(ctx, q.Details.CurrencyIn.Currency.Symbol)
				if err != nil {
					t.Fatal(err)
				}
				wantRent = intent.FromUSD(intent.USDValue(new(big.Int).SetUint64(lamports), solana.NativeDecimals, solPrice),
					q.Details.CurrencyIn.Currency.Decimals, inPrice).String()
				t.Logf("the recipient's token account holds %d lamports of rent; the quote charged %s %s for it",
					lamports, rent.Total.Amount, q.Details.CurrencyIn.Currency.Symbol)
				if wantRent == "0" {
					t.Fatalf("the recipient's token account holds %d lamports, priced 0", lamports)
				}
				// A USDC bridge is 1:1: the output is the input less every fee the user pays.
				in, _ := new(big.Int).SetString(q.Details.CurrencyIn.Amount, 10)
				userPays, _ := new(big.Int).SetString(fs.Quoted.UserPaysTotal.Amount, 10)
				if tc.destCurrency == svm.USDCMint.String() && (in == nil || userPays == nil || new(big.Int).Sub(in, userPays).Cmp(want) != 0) {
					t.Errorf("input %s less user-paid fees %s is not the output %s", q.Details.CurrencyIn.Amount,
						fs.Quoted.UserPaysTotal.Amount, want)
				}
			}
			if rent.Total.Amount != wantRent || rent.UserPays.Amount != wantRent || rent.Sponsored.Amount != "0" {
				t.Errorf("rent component %+v, want %s paid by the user", rent, wantRent)
			}

			// One fill: the recipient's account was touched by one transaction, the fill.
			touched := recipient
			if tc.destCurrency != solana.NativeAddress {
				touched = tokenAccount(recipient, tc.destCurrency)
			}
			sigs, err := sol.GetSignaturesForAddressWithOpts(ctx, touched, &rpc.GetSignaturesForAddressOpts{Commitment: rpc.CommitmentConfirmed})
			if err != nil {
				t.Fatal(err)
			}
			if len(sigs) != 1 || sigs[0].Signature.String() != fill {
				t.Fatalf("the recipient's account has %d transactions (%v), want the one fill %s", len(sigs), sigs, fill)
			}

			// The oracle attests the fill through its Solana fill route, at the quorum the engine
			// relies on: the recipient paid the quoted output, the memo naming the order.
			oc := oracleapi.NewClient(s.Sys.Config.OracleURL, testkit.OracleAPIKey, nil)
			att, err := oc.AttestSolanaFill(ctx, oracleapi.SolanaSolverFillAttestationRequest{ChainID: solana.ChainID, TransactionID: fill,
				OrderID: common.HexToHash(q.Protocol.V2.OrderID), Recipient: recipient.String(), Currency: tc.destCurrency,
				MinimumAmount: oracleapi.NewAmount(want)})
			if err != nil {
				v := uint64(0)
				res, _ := sol.GetTransaction(ctx, solanago.MustSignatureFromBase58(fill),
					&rpc.GetTransactionOpts{Commitment: rpc.CommitmentConfirmed, MaxSupportedTransactionVersion: &v})
				if res != nil && res.Meta != nil {
					t.Logf("the fill's program logs: %v", res.Meta.LogMessages)
				}
				t.Fatalf("the oracle's attestation of the fill: %v", err)
			}
			if n := len(oracleapi.Quorum(att, devnet.OracleAddresses())); n < devnet.OracleThreshold || len(att.Messages) != 1 ||
				att.Messages[0].Data.Amount.Int().Cmp(want) != 0 || att.Messages[0].Data.Recipient != common.Hash(recipient) {
				t.Fatalf("fill attestation: %d signers, messages %+v", n, att.Messages)
			}

			// The record and the status keep the recipient, the currency and the fill as written.
			if rec, err = s.Sys.Store.Record(ctx, q.RequestID); err != nil {
				t.Fatal(err)
			}
			var status map[string]any
			if code, err := s.API.Do(ctx, http.MethodGet, "/intents/status/v3?requestId="+q.RequestID, nil, &status); err != nil || code != http.StatusOK {
				t.Fatalf("status: %d %v", code, err)
			}
			recJSON, _ := json.Marshal(rec)
			statusJSON, _ := json.Marshal(status)
			for _, want := range []string{recipient.String(), tc.destCurrency, fill} {
				if !strings.Contains(string(recJSON), want) {
					t.Errorf("the record does not carry %s as written: %s", want, recJSON)
				}
			}
			if !strings.Contains(string(statusJSON), fill) {
				t.Errorf("the status does not carry the fill %s as written: %s", fill, statusJSON)
			}
			// So does the success event (webhooks, the websocket stream).
			evs, err := s.Sys.Store.OutboxEventsSince(ctx, time.Now().Add(-time.Minute), 1000)
			if err != nil {
				t.Fatal(err)
			}
			sent := false
			for _, e := range evs {
				if e.RequestID == q.RequestID && e.Event.Status == "success" {
					sent = len(e.Event.TxHashes) == 1 && e.Event.TxHashes[0] == fill
				}
			}
			if !sent {
				t.Errorf("no success event of %s carries the fill %s as written", q.RequestID, fill)
			}
		})
	}
}

// solanaBalance is account's balance of currency on the local Solana chain: lamports for SOL, the
// base units of its associated token account for a mint (0 when it has none).
// tokenAccount is owner's associated token account of the mint currency.
func tokenAccount(owner solanago.PublicKey, currency string) solanago.PublicKey {
	ata, _, err := solanago.FindAssociatedTokenAddress(owner, solanago.MustPublicKeyFromBase58(currency))
	if err != nil {
		panic(err)
	}
	return ata
}

func solanaBalance(ctx context.Context, t *testing.T, cl *rpc.Client, currency string, account solanago.PublicKey) *big.Int {
	t.Helper()
	if currency == solana.NativeAddress {
		b, err := cl.GetBalance(ctx, account, rpc.CommitmentConfirmed)
		if err != nil {
			t.Fatal(err)
		}
		return new(big.Int).SetUint64(b.Value)
	}
	ata, _, err := solanago.FindAssociatedTokenAddress(account, solanago.MustPublicKeyFromBase58(currency))
	if err != nil {
		t.Fatal(err)
	}
	b, err := cl.GetTokenAccountBalance(ctx, ata, rpc.CommitmentConfirmed)
	if err != nil {
		return new(big.Int)
	}
	v, _ := new(big.Int).SetString(b.Value.Amount, 10)
	return v
}
