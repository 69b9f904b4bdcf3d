package evm_test

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"math/big"
	"strings"
	"testing"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
)

// The EVM family's side of a quote (issue 34, point 1: the steps port, "what the user signs or
// sends for a quote"), on a real chain: the spec's steps (`approve`, `deposit`; kind transaction;
// "a step item starts with status incomplete") whose calldata, sent as it is, makes the
// depository's deposit for the order; an approve only while the user's allowance falls short,
// read fresh; the fill's cost its gas estimate at the chain's gas price.
func TestFundingStepsAreTheCallsThatDepositTheOrder(t *testing.T) {
	chain, c := startChain(t)
	ctx := context.Background()
	user := devnet.TestAccounts()[4]
	usdc := intent.Currency{ChainID: 31337, Address: devnet.USDCAddress.Hex(), Symbol: "USDC", Decimals: 6}
	eth := intent.Currency{ChainID: 31337, Address: chains.NativeAddress, Symbol: "ETH", Decimals: 18, Metadata: intent.CurrencyMetadata{IsNative: true}}
	order := func(b byte) string { return common.BytesToHash([]byte{b}).Hex() }
	steps := func(cur intent.Currency, orderID string, amount int64) []intent.Step {
		t.Helper()
		s, err := c.FundingSteps(ctx, chains.FundingOrder{RequestID: "0xreq", OrderID: orderID, User: user.Address.Hex(), Currency: cur,
			Amount: big.NewInt(amount)})
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range s {
			if st.Kind != "transaction" || st.RequestID != "0xreq" || len(st.Items) != 1 || st.Items[0].Status != "incomplete" ||
				st.Items[0].Check != nil || st.Items[0].Data.ChainID != 31337 || st.Items[0].Data.From != user.Address.Hex() {
				t.Fatalf("step %+v", st)
			}
		}
		return s
	}
	ids := func(s []intent.Step) string {
		var out []string
		for _, st := range s {
			out = append(out, st.ID)
		}
		return strings.Join(out, ",")
	}

	native := steps(eth, order(1), params.Ether)
	if ids(native) != "deposit" || native[0].Items[0].Data.Value != "1000000000000000000" ||
		native[0].Items[0].Data.To != devnet.DepositoryAddress.Hex() || native[0].Description != "Deposit 1 ETH" {
		t.Fatalf("native steps %+v", native)
	}
	nativeTx := send(t, chain, c, user.Key, native[0].Items[0].Data)

	const amount = 25_000_000
	first := steps(usdc, order(2), amount)
	if ids(first) != "approve,deposit" || first[0].Items[0].Data.To != devnet.USDCAddress.Hex() || first[1].Items[0].Data.Value != "0" ||
		first[0].Description != "Allow the depository to take 25 USDC" {
		t.Fatalf("steps of a user without allowance %+v", first)
	}
	send(t, chain, c, user.Key, first[0].Items[0].Data)
	if again := steps(usdc, order(2), amount); ids(again) != "deposit" || again[0].Items[0].Data != first[1].Items[0].Data {
		t.Fatalf("steps once the allowance covers the amount %+v, want the same deposit alone", again)
	}
	if more := steps(usdc, order(3), amount+1); ids(more) != "approve,deposit" {
		t.Fatalf("steps of an amount above the allowance %+v", more)
	}
	usdcTx := send(t, chain, c, user.Key, first[1].Items[0].Data)

	// What the steps send is the depository's deposit of the order, as the engine reads it.
	for _, want := range []intent.Deposit{
		{TxHash: nativeTx.TxHash.Hex(), OrderID: order(1), Currency: chains.NativeAddress, Amount: "1000000000000000000"},
		{TxHash: usdcTx.TxHash.Hex(), OrderID: order(2), Currency: devnet.USDCAddress.Hex(), Amount: "25000000"},
	} {
		deps, err := c.DepositsInTx(ctx, want.TxHash)
		if err != nil || len(deps) != 1 || deps[0].OrderID != want.OrderID || deps[0].Currency != want.Currency ||
			deps[0].Amount != want.Amount || deps[0].Depositor != user.Address.Hex() {
			t.Fatalf("deposits of the deposit step's transaction = %+v, %v, want %+v", deps, err, want)
		}
	}

	price, err := c.GasPrice(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for cur, gas := range map[string]int64{chains.NativeAddress: 60_000, devnet.USDCAddress.Hex(): 90_000} {
		if cost, err := c.FillCost(ctx, cur); err != nil || cost.Cmp(new(big.Int).Mul(price, big.NewInt(gas))) != 0 {
			t.Errorf("fill cost of %s = %v, %v, want %d gas at %s", cur, cost, err, gas, price)
		}
	}
}

// send signs d from key as the user's wallet would, mines it and requires it to succeed.
func send(t *testing.T, chain *devnet.Chain, c *evm.Client, key *ecdsa.PrivateKey, d intent.TxData) *types.Receipt {
	t.Helper()
	ctx := context.Background()
	from, to := common.HexToAddress(d.From), common.HexToAddress(d.To)
	data := hexutil.MustDecode(d.Data)
	value, _ := new(big.Int).SetString(d.Value, 10)
	nonce, err := c.NonceAt(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	gas, err := c.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &to, Data: data, Value: value})
	if err != nil {
		t.Fatal(err)
	}
	fees, err := c.SuggestFees(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tip := big.NewInt(params.GWei)
	id := new(big.Int).SetUint64(d.ChainID)
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(id), &types.DynamicFeeTx{ChainID: id, Nonce: nonce,
		GasTipCap: tip, GasFeeCap: fees.FeeCap(tip), Gas: gas, To: &to, Value: value, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	chain.Mine()
	r, err := c.Receipt(ctx, tx.Hash())
	if err != nil || r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("receipt of %s = %+v, %v", d.Data[:10], r, err)
	}
	return r
}

// Issue 35, point 2: "the `deposit` step's item sends to the address (native: `data.to` = the
// address, `data.data` = `0x`; ERC-20: a `transfer` to it), `depositAddress` on the step". The
// family computes the address offline, and it is the one the chain's DepositAddressFactory
// computes; what the step sends, sent as it is by any wallet, lands at the address, and the
// factory's sweep of it is the depository's deposit for the order in the depositor's name. A
// chain without a factory has no deposit addresses; the sweep's cost is its gas constant at the
// chain's gas price.
func TestDepositAddressStepsPayTheFactorysAddressOfTheOrderWithAPlainTransfer(t *testing.T) {
	chain, c := startChain(t)
	ctx := context.Background()
	user, payer := devnet.TestAccounts()[5], devnet.TestAccounts()[6]
	usdc := intent.Currency{ChainID: 31337, Address: devnet.USDCAddress.Hex(), Symbol: "USDC", Decimals: 6}
	eth := intent.Currency{ChainID: 31337, Address: chains.NativeAddress, Symbol: "ETH", Decimals: 18, Metadata: intent.CurrencyMetadata{IsNative: true}}
	factory := evm.DepositAddressFactoryABI
	steps := func(cur intent.Currency, orderID common.Hash, amount int64) (common.Address, intent.TxData) {
		t.Helper()
		addr, s, err := c.DepositAddressSteps(chains.FundingOrder{RequestID: "0xreq", OrderID: orderID.Hex(), User: user.Address.Hex(),
			Currency: cur, Amount: big.NewInt(amount)}, user.Address.Hex())
		if err != nil {
			t.Fatal(err)
		}
		if len(s) != 1 || s[0].ID != "deposit" || s[0].Kind != "transaction" || s[0].RequestID != "0xreq" || s[0].DepositAddress != addr ||
			len(s[0].Items) != 1 || s[0].Items[0].Status != "incomplete" || s[0].Items[0].Data.ChainID != 31337 {
			t.Fatalf("deposit-address steps %+v: want one deposit step, no approve, carrying the address", s)
		}
		out, err := c.CallContract(ctx, ethereum.CallMsg{To: &devnet.DepositAddressFactoryAddress,
			Data: factory.PackComputeDepositAddress(orderID, user.Address)})
		if err != nil {
			t.Fatal(err)
		}
		onChain, err := factory.UnpackComputeDepositAddress(out)
		if err != nil || onChain.Hex() != addr {
			t.Fatalf("address %s, the factory's computeDepositAddress %s (%v)", addr, onChain.Hex(), err)
		}
		return onChain, s[0].Items[0].Data
	}
	balance := func(cur intent.Currency, of common.Address) *big.Int {
		t.Helper()
		b, err := c.BalanceNow(ctx, cur.Address, of.Hex())
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	nativeOrder, usdcOrder := common.BytesToHash([]byte("native order")), common.BytesToHash([]byte("usdc order"))
	nativeAddr, native := steps(eth, nativeOrder, params.Ether)
	if native.To != nativeAddr.Hex() || native.Data != "0x" || native.Value != "1000000000000000000" {
		t.Fatalf("native item %+v: want to the address, data 0x, the amount as value", native)
	}
	usdcAddr, transfer := steps(usdc, usdcOrder, 25_000_000)
	if transfer.To != devnet.USDCAddress.Hex() || transfer.Value != "0" ||
		transfer.Data != hexutil.Encode(evm.ERC20ABI.PackTransfer(usdcAddr, big.NewInt(25_000_000))) {
		t.Fatalf("ERC-20 item %+v: want transfer(address, amount) on the token, value 0", transfer)
	}
	if nativeAddr == usdcAddr {
		t.Fatal("two orders share a deposit address")
	}

	// Sent as they are, by a wallet that is not the user's: the funds land at the addresses.
	native.From, transfer.From = payer.Address.Hex(), payer.Address.Hex()
	send(t, chain, c, payer.Key, native)
	send(t, chain, c, payer.Key, transfer)
	if b := balance(eth, nativeAddr); b.Cmp(big.NewInt(params.Ether)) != 0 {
		t.Fatalf("ETH at the deposit address %s", b)
	}
	if b := balance(usdc, usdcAddr); b.Cmp(big.NewInt(25_000_000)) != 0 {
		t.Fatalf("USDC at the deposit address %s", b)
	}
	// The sweep (the solver's) is the depository's deposit for the order, in the name of the
	// depositor the address was derived from.
	cfg := c.Chain()
	solver := devnet.SolverKey()
	for _, sw := range []struct {
		order    common.Hash
		currency string
		amount   string
	}{{nativeOrder, chains.NativeAddress, "1000000000000000000"}, {usdcOrder, devnet.USDCAddress.Hex(), "25000000"}} {
		amount, _ := new(big.Int).SetString(sw.amount, 10)
		r := send(t, chain, c, solver, intent.TxData{From: crypto.PubkeyToAddress(solver.PublicKey).Hex(), To: devnet.DepositAddressFactoryAddress.Hex(),
			Value: "0", ChainID: 31337, Data: hexutil.Encode(evm.PackSweep(sw.order, user.Address, common.HexToAddress(sw.currency), amount))})
		deps, err := c.DepositsInTx(ctx, r.TxHash.Hex())
		if err != nil || len(deps) != 1 || deps[0].OrderID != sw.order.Hex() || deps[0].Currency != sw.currency || deps[0].Amount != sw.amount ||
			deps[0].Depositor != user.Address.Hex() {
			t.Fatalf("deposits of the sweep = %+v, %v, want %s of %s for order %s by %s", deps, err, sw.amount, sw.currency, sw.order.Hex(), user.Address.Hex())
		}
	}

	price, err := c.GasPrice(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for cur, gas := range map[string]int64{chains.NativeAddress: 72_000, devnet.USDCAddress.Hex(): 95_000} {
		if cost, err := c.SweepCost(ctx, cur); err != nil || cost.Cmp(new(big.Int).Mul(price, big.NewInt(gas))) != 0 {
			t.Errorf("sweep cost of %s = %v, %v, want %d gas at %s", cur, cost, err, gas, price)
		}
	}

	// A chain whose file names no factory offers no deposit addresses.
	bare := *cfg
	bare.DepositAddressFactory = ""
	noFactory, err := evm.Dial(&bare)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := noFactory.DepositAddressSteps(chains.FundingOrder{OrderID: nativeOrder.Hex(), User: user.Address.Hex(), Currency: eth,
		Amount: big.NewInt(1)}, user.Address.Hex()); !errors.Is(err, chains.ErrUnsupported) {
		t.Fatalf("steps on a chain without a factory: %v, want ErrUnsupported", err)
	}
}
