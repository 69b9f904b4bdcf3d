package e2e

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit"
	kit "github.com/intentd/intentd/testkit/e2e"
)

// TestViemClientExecutesGaslessly is issue 37, point 6 (docs/gasless.md): gasless.test.mjs, a
// viem client whose wallet holds USDC on 31337 and no ETH, bridges it to 31338 through POST
// /execute (an EIP-7702 authorization for the devnet's BatchExecutor, the quote's approve and
// deposit signed as one EIP-712 batch), a batch signed by another key is refused with 400
// INVALID_SIGNATURE, and the public SDK's executeGaslessBatch does the same with an executor
// config for our BatchExecutor. Here, on chain: each recipient holds exactly the quoted output,
// the users still hold no ETH, and the integrator's sponsorship balance fell by exactly the
// relayed transactions' gas (each at devnet.ETHUSDPrice, rounded up to the micro-dollar).
func TestViemClientExecutesGaslessly(t *testing.T) {
	node := nodeFor(t, "viem")
	s := testkit.Start(t, testkit.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	// The integrator: a key, a sponsorship wallet (test account 7, as the integration tests') and
	// a balance of 5 USD that pays the relayed gas.
	st, by := s.Sys.Store, store.Actor{Name: "e2e", Via: store.ViaCLI, Reason: "the gasless e2e case"}
	in, err := st.CreateIntegrator(ctx, auth.Integrator{Name: "gasless app"}, by)
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := st.CreateAPIKey(ctx, store.NewKey{IntegratorID: in.ID, Label: "gasless app"}, by)
	if err != nil {
		t.Fatal(err)
	}
	wallet, chain := devnet.TestAccounts()[7].Address.Hex(), uint64(31337)
	if _, err := st.UpdateIntegrator(ctx, in.ID, store.IntegratorUpdate{SponsorWallet: &wallet, SponsorChainID: &chain}, by); err != nil {
		t.Fatal(err)
	}
	if _, err := st.TopUpSponsorBalance(ctx, in.ID, decimal.RequireFromString("5"), by); err != nil {
		t.Fatal(err)
	}
	sponsorBalance := func() decimal.Decimal {
		a, err := st.SponsorAccount(ctx, in.ID)
		if err != nil {
			t.Fatal(err)
		}
		return a.BalanceUSD
	}
	before := sponsorBalance()

	// Two fresh wallets (the viem client's and the SDK's), each funded with USDC only by test
	// account 9 (an ERC-20 transfer), and a fresh recipient for each.
	amount := big.NewInt(50_000_000)
	funder := &kit.Wallet{Key: devnet.TestAccounts()[9].Key, RPCs: s.RPCs}
	users, recipients := map[string]*ecdsa.PrivateKey{}, map[string]common.Address{}
	for _, c := range []string{"viem", "sdk"} {
		k, err := crypto.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		users[c] = k
		r, err := crypto.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		recipients[c] = crypto.PubkeyToAddress(r.PublicKey)
		if _, err := funder.SendTx(ctx, quote.TxData{ChainID: 31337, To: devnet.USDCAddress.Hex(),
			Data: hexutil.Encode(evm.ERC20ABI.PackTransfer(crypto.PubkeyToAddress(k.PublicKey), amount)), Value: "0"}); err != nil {
			t.Fatal(err)
		}
	}
	results := t.TempDir()

	runNode(t, ctx, node, "gasless.test.mjs", []string{"--test", "--test-reporter=spec", "gasless.test.mjs"},
		"INTENTD_API_URL="+s.API.BaseURL,
		"INTENTD_API_KEY="+key,
		"INTENTD_RPC_31337="+s.RPCs[31337],
		"INTENTD_EXECUTOR="+devnet.BatchExecutorAddress().Hex(),
		"INTENTD_USDC="+devnet.USDCAddress.Hex(),
		"INTENTD_GASLESS_AMOUNT="+amount.String(),
		"INTENTD_GASLESS_KEY="+hexutil.Encode(crypto.FromECDSA(users["viem"])),
		"INTENTD_GASLESS_RECIPIENT="+recipients["viem"].Hex(),
		"INTENTD_GASLESS_SDK_KEY="+hexutil.Encode(crypto.FromECDSA(users["sdk"])),
		"INTENTD_GASLESS_SDK_RECIPIENT="+recipients["sdk"].Hex(),
		"INTENTD_RESULT_DIR="+results,
	)

	ec, err := s.Devnet.Chain(31337).Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	want := decimal.Zero
	for _, c := range []string{"viem", "sdk"} {
		raw, err := os.ReadFile(filepath.Join(results, c+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			RequestID   string   `json:"requestId"`
			User        string   `json:"user"`
			CurrencyOut string   `json:"currencyOut"`
			Seen        []string `json:"seen"`
		}
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatal(err)
		}
		user := crypto.PubkeyToAddress(users[c].PublicKey)
		if !strings.EqualFold(out.User, user.Hex()) {
			t.Fatalf("%s: the client executed for %s, not %s", c, out.User, user.Hex())
		}
		stored, err := st.QuoteByRequestID(ctx, out.RequestID)
		if err != nil {
			t.Fatal(err)
		}
		if out.CurrencyOut != stored.Execution.AmountOut {
			t.Errorf("%s: the client read currencyOut %s, the stored quote says %s", c, out.CurrencyOut, stored.Execution.AmountOut)
		}
		if got := s.Balance(t, 31338, devnet.USDCAddress, recipients[c]); got.String() != stored.Execution.AmountOut {
			t.Errorf("%s: the recipient holds %s USDC units, quoted %s", c, got, stored.Execution.AmountOut)
		}
		if eth := s.Balance(t, 31337, common.Address{}, user); eth.Sign() != 0 {
			t.Errorf("%s: the user holds %s wei: it paid no gas and received none", c, eth)
		}
		// The relayed transaction (solver_transactions kind 'relay'), sent by the relayer.
		var relayTx, from string
		if err := s.Sys.Pool.QueryRow(ctx, `SELECT tx_hash, from_address FROM solver_transactions WHERE request_id = $1 AND kind = 'relay'
			ORDER BY attempt DESC LIMIT 1`, out.RequestID).Scan(&relayTx, &from); err != nil {
			t.Fatalf("%s: the relayed transaction of %s: %v", c, out.RequestID, err)
		}
		if !strings.EqualFold(from, devnet.RelayerAddress().Hex()) {
			t.Errorf("%s: the relayed call was signed by %s, want the relayer %s", c, from, devnet.RelayerAddress().Hex())
		}
		r, err := ec.TransactionReceipt(ctx, common.HexToHash(relayTx))
		if err != nil {
			t.Fatal(err)
		}
		gas := new(big.Int).Mul(new(big.Int).SetUint64(r.GasUsed), r.EffectiveGasPrice)
		usd := decimal.NewFromBigInt(gas, -18).Mul(decimal.NewFromInt(devnet.ETHUSDPrice)).RoundCeil(6)
		want = want.Add(usd)
		t.Logf("%s: request %s (statuses %v) relayed in %s: gas %s wei = USD %s", c, out.RequestID, out.Seen, relayTx, gas, usd)
	}
	if charged := before.Sub(sponsorBalance()); !charged.Equal(want) {
		t.Errorf("the integrator paid USD %s, want exactly the relayed gas, USD %s", charged, want)
	}
}
