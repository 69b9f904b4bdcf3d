package e2e

import (
	"context"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/testkit"
)

// TestViemClientWithdrawsFromThePerpsExchange is issue 38, point 6 (docs/perps.md): "the public
// SDK's withdrawal flow in e2e/ (it signs both steps itself), pointed at the local exchange if
// its endpoint can be configured, else a viem client doing exactly what the SDK does". The
// SDK's exchange host and signing domain are written in its code, so perps.test.mjs is that viem
// client: a devnet test account quotes perps USDC on 1337 to USDC on 31337 (protocolVersion v2;
// without it the quote is 400), signs the authorize step's NonceMapping and posts it to
// /authorize, signs the sendAsset the deposit step describes on its wallet's chain and posts it
// to the local exchange's /exchange, and polls the step's check to success. Here: the recipient
// holds exactly the quote's currencyOut on 31337, and the amount moved from the wallet's perps
// balance to the depository account's, exactly.
func TestViemClientWithdrawsFromThePerpsExchange(t *testing.T) {
	node := nodeFor(t, "viem")
	s := testkit.Start(t, testkit.Options{Exchange: true})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	// Test account 6 (the integration tests' perps cases use 3 and 5; each stack has its own
	// exchange, distinct keys keep a shared reading unambiguous), funded with
	// devnet.ExchangeTestAccountUSDC of perps USDC; a fresh recipient on 31337.
	acct := devnet.TestAccounts()[6]
	r, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	recipient := crypto.PubkeyToAddress(r.PublicKey)
	amount := big.NewInt(2_500_000_000) // 25 perps USDC (8 decimals)
	depository := devnet.ExchangeDepositoryAddress()
	userBefore, depositoryBefore := s.Exchange.PerpsBalance(acct.Address), s.Exchange.PerpsBalance(depository)
	if userBefore.Cmp(big.NewInt(devnet.ExchangeTestAccountUSDC)) != 0 {
		t.Fatalf("test account 6 holds %s perps USDC units, want the devnet's %d", userBefore, int64(devnet.ExchangeTestAccountUSDC))
	}
	results := t.TempDir()

	runNode(t, ctx, node, "perps.test.mjs", []string{"--test", "--test-reporter=spec", "perps.test.mjs"},
		"INTENTD_API_URL="+s.API.BaseURL,
		"INTENTD_EXCHANGE_URL="+s.Exchange.URL(),
		"INTENTD_RPC_31337="+s.RPCs[31337],
		"INTENTD_USDC="+devnet.USDCAddress.Hex(),
		"INTENTD_PERPS_AMOUNT="+amount.String(),
		"INTENTD_PERPS_KEY="+hexutil.Encode(crypto.FromECDSA(acct.Key)),
		"INTENTD_PERPS_RECIPIENT="+recipient.Hex(),
		"INTENTD_RESULT_DIR="+results,
	)

	raw, err := os.ReadFile(filepath.Join(results, "perps.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		RequestID   string   `json:"requestId"`
		User        string   `json:"user"`
		Destination string   `json:"destination"`
		AmountSent  string   `json:"amountSent"`
		CurrencyIn  string   `json:"currencyIn"`
		CurrencyOut string   `json:"currencyOut"`
		InTxHashes  []string `json:"inTxHashes"`
		Seen        []string `json:"seen"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.EqualFold(out.User, acct.Address.Hex()) {
		t.Fatalf("the client withdrew for %s, not %s", out.User, acct.Address.Hex())
	}
	if !strings.EqualFold(out.Destination, depository.Hex()) {
		t.Errorf("the sendAsset went to %s, want the depository account %s", out.Destination, depository.Hex())
	}
	if out.CurrencyIn != amount.String() {
		t.Errorf("the quote's currencyIn is %s, want the %s asked for", out.CurrencyIn, amount)
	}
	stored, err := s.Sys.Store.QuoteByRequestID(ctx, out.RequestID)
	if err != nil {
		t.Fatal(err)
	}
	if out.CurrencyOut != stored.Execution.AmountOut {
		t.Errorf("the client read currencyOut %s, the stored quote says %s", out.CurrencyOut, stored.Execution.AmountOut)
	}
	if got := s.Balance(t, 31337, devnet.USDCAddress, recipient); got.String() != out.CurrencyOut {
		t.Errorf("the recipient holds %s USDC units on 31337, quoted %s", got, out.CurrencyOut)
	}
	if got := new(big.Int).Sub(s.Exchange.PerpsBalance(depository), depositoryBefore); got.Cmp(amount) != 0 {
		t.Errorf("the depository account received %s perps USDC units, want %s", got, amount)
	}
	// The depository account exists from the devnet's start: no activation fee on the way in.
	if got := new(big.Int).Sub(userBefore, s.Exchange.PerpsBalance(acct.Address)); got.Cmp(amount) != 0 {
		t.Errorf("the wallet's perps balance fell by %s units, want exactly the %s withdrawn", got, amount)
	}
	t.Logf("request %s (statuses %v): transfer %v, the recipient holds %s USDC units", out.RequestID, out.Seen, out.InTxHashes, out.CurrencyOut)
}
