package perps_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/perps"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/devnet/exchange"
	"github.com/intentd/intentd/intent"
)

// xyzUSDC is USDC on the DEX xyz, as public-api-notes §7.1 writes it: "HIP-3 DEX tokens: spot
// address + hex(DEX name), e.g. 0x6d1e7cde53ba9467b783cb7c530ce05478797a for USDC on xyz".
const xyzUSDC = "0x6d1e7cde53ba9467b783cb7c530ce05478797a"

// "HIP-3 DEX tokens: spot address + hex(DEX name)": the notation reads a DEX-suffixed currency as
// its 16-byte token id and the DEX's name, and refuses a malformed one with its reason.
func TestTheNotationReadsDexTokensAsSpotAddressAndHexOfTheDexName(t *testing.T) {
	n := perps.Notation()
	id, dex, err := perps.SplitCurrency(xyzUSDC)
	if err != nil || id != spotUSDC || dex != "xyz" {
		t.Fatalf("SplitCurrency(%s) = %q, %q, %v; want spot USDC's id and xyz", xyzUSDC, id, dex, err)
	}
	if id, dex, err := perps.SplitCurrency(spotUSDC); err != nil || id != spotUSDC || dex != "" {
		t.Fatalf("SplitCurrency(spot USDC) = %q, %q, %v", id, dex, err)
	}
	if got := perps.DexCurrency(spotUSDC, "xyz"); got != xyzUSDC {
		t.Errorf("DexCurrency(spot USDC, xyz) = %s, want %s", got, xyzUSDC)
	}
	if got := perps.DexCurrency(spotUSDC, perps.SpotDex); got != spotUSDC {
		t.Errorf("DexCurrency(spot USDC, spot) = %s", got)
	}
	if got, err := n.ParseAddress("0x" + strings.ToUpper(xyzUSDC[2:])); err != nil || got != xyzUSDC {
		t.Errorf("ParseAddress(upper case) = %q, %v; want %s", got, err, xyzUSDC)
	}
	if got, ok := n.CanonicalAddress(xyzUSDC); !ok || got != xyzUSDC {
		t.Errorf("CanonicalAddress = %q, %v", got, ok)
	}
	for _, tc := range []struct{ in, why string }{
		{spotUSDC + "ff", "not ASCII letters and digits"},
		{spotUSDC + "78792d7a", "20 bytes"}, // "xy-z": 4 bytes, an account's length
		{spotUSDC + "782d", "not ASCII letters and digits"},
		{spotUSDC + strings.Repeat("61", 33), "longer than"},
	} {
		_, _, err := perps.SplitCurrency(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("SplitCurrency(%s): %v, want an error saying %q", tc.in, err, tc.why)
		}
		if tc.why != "20 bytes" {
			if _, err := n.ParseAddress(tc.in); err == nil || !strings.Contains(err.Error(), tc.why) {
				t.Errorf("ParseAddress(%s): %v, want an error saying %q", tc.in, err, tc.why)
			}
			if _, ok := n.CanonicalAddress(tc.in); ok {
				t.Errorf("CanonicalAddress(%s) accepted it", tc.in)
			}
		}
	}
	// 20 bytes are an account, whatever their last four bytes.
	if got, err := n.ParseAddress(spotUSDC + "78797a7a"); err != nil || len(got) != 42 || got == strings.ToLower(got) {
		t.Errorf("ParseAddress of 20 bytes = %q, %v; want an EIP-55 account", got, err)
	}
	if _, err := n.ParseAddress(spotUSDC + "787"); err == nil {
		t.Error("an odd number of hex digits was accepted")
	}
}

// A fill in a DEX's token names "token" "NAME:0x<16-byte id>" and the DEX in sourceDex and
// destinationDex, as the exchange expects: the recipient's xyz USDC grows by exactly the amount,
// out of the solver's xyz USDC, and the activation fee of a new account out of its perps USDC.
func TestAFillInADexTokenIsASendAssetBetweenTheDexBalances(t *testing.T) {
	r := newPayoutRig(t)
	ctx := context.Background()
	id := r.requests(t)
	key, _ := crypto.GenerateKey()
	recipient := crypto.PubkeyToAddress(key.PublicKey)
	usdc := r.ex.SpotUSDC().ID
	solver := devnet.SolverAddress()
	dexBefore, perpsBefore := r.ex.DexBalance(solver, devnet.ExchangeDex, usdc), r.ex.PerpsBalance(solver)
	pay := r.fill(id, recipient.Hex(), 250_000_000)
	pay.Currency = devnet.ExchangeDexUSDCAddress
	if _, err := r.payouts[0].Pay(ctx, pay); err != nil {
		t.Fatal(err)
	}
	if got := r.ex.DexBalance(recipient, devnet.ExchangeDex, usdc); got.Int64() != 250_000_000 {
		t.Fatalf("the recipient's xyz USDC is %s, want 250000000", got)
	}
	if got := r.ex.SpotBalance(recipient, usdc); got.Sign() != 0 {
		t.Fatalf("the recipient's spot USDC moved: %s", got)
	}
	if paid := new(big.Int).Sub(dexBefore, r.ex.DexBalance(solver, devnet.ExchangeDex, usdc)); paid.Int64() != 250_000_000 {
		t.Fatalf("the solver paid %s of xyz USDC, want 250000000", paid)
	}
	if fee := new(big.Int).Sub(perpsBefore, r.ex.PerpsBalance(solver)); fee.Cmp(perps.ActivationFee) != 0 {
		t.Fatalf("the solver's perps USDC moved by %s, want the activation fee", fee)
	}
	tr := r.ex.Transfers(recipient)
	if len(tr) != 1 || tr[0].Token != "USDC:"+spotUSDC || tr[0].SourceDex != "xyz" || tr[0].DestinationDex != "xyz" {
		t.Fatalf("the transfer %+v, want token USDC:%s between the xyz balances", tr, spotUSDC)
	}
	ch := devnet.ExchangeChainConfig(r.ex.URL())
	c, err := perps.Dial(&ch)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := c.BalanceNow(ctx, devnet.ExchangeDexUSDCAddress, recipient.Hex()); err != nil || got.Int64() != 250_000_000 {
		t.Fatalf("BalanceNow(xyz USDC) = %v, %v", got, err)
	}
}

// A withdrawal's deposit step in a DEX's token sends it out of the user's DEX balance into the
// depository's, and the depository's ledger reads that transfer as a deposit of the
// DEX-suffixed currency.
func TestADepositToTheDepositoryFromADexIsReadAsTheDexCurrency(t *testing.T) {
	ex, err := devnet.StartExchange(t.Context(), exchange.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ex.Close() })
	ch := devnet.ExchangeChainConfig(ex.URL())
	c, err := perps.Dial(&ch)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	user := devnet.TestAccounts()[1]
	if err := ex.CreditDex(user.Address, devnet.ExchangeDex, ex.SpotUSDC().ID, big.NewInt(900_000_000)); err != nil {
		t.Fatal(err)
	}
	cur, _ := ch.FindCurrency(devnet.ExchangeDexUSDCAddress)
	steps, err := c.FundingSteps(ctx, chains.FundingOrder{RequestID: "0x01", OrderID: "0x" + strings.Repeat("ab", 32), User: user.Address.Hex(),
		Currency: intent.Currency{ChainID: devnet.ExchangeChainID, Address: cur.Address, Decimals: cur.Decimals}, Amount: big.NewInt(400_000_000)})
	if err != nil {
		t.Fatal(err)
	}
	var data struct {
		Action struct {
			Parameters map[string]any `json:"parameters"`
		} `json:"action"`
	}
	raw, _ := json.Marshal(steps[1].Items[0].Data)
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	p := data.Action.Parameters
	if p["token"] != "USDC:"+spotUSDC || p["sourceDex"] != "xyz" || p["destinationDex"] != "xyz" || p["amount"] != "4.000000" {
		t.Fatalf("the deposit step's parameters %v, want 4 USDC:%s between the xyz balances", p, spotUSDC)
	}
	a := exchange.SendAsset{SignatureChainID: "0x1", ExchangeChain: "Mainnet", Destination: p["destination"].(string),
		SourceDex: "xyz", DestinationDex: "xyz", Token: p["token"].(string), Amount: p["amount"].(string), Nonce: uint64(p["nonce"].(float64))}
	sig, err := exchange.Sign(user.Key, ex.Name(), a)
	if err != nil {
		t.Fatal(err)
	}
	var reply struct {
		Status string `json:"status"`
	}
	if err := postJSON(ex.URL()+"/exchange", map[string]any{"action": exchange.Action(ex.Name(), a), "nonce": a.Nonce, "signature": sig}, &reply); err != nil || reply.Status != "ok" {
		t.Fatalf("POST /exchange: %+v %v", reply, err)
	}
	now := uint64(time.Now().Unix())
	deps, err := c.Deposits(ctx, now-60, now+60)
	if err != nil {
		t.Fatal(err)
	}
	if len(deps) != 1 || deps[0].Currency != devnet.ExchangeDexUSDCAddress || deps[0].Amount != "400000000" ||
		!strings.EqualFold(deps[0].Depositor, user.Address.Hex()) {
		t.Fatalf("deposits %+v, want one of 400000000 %s from %s", deps, devnet.ExchangeDexUSDCAddress, user.Address.Hex())
	}
}

// postJSON POSTs body as JSON to url and decodes the answer into out.
func postJSON(url string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(out)
}
