package evm_test

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/testkit/faultproxy"
)

// sender signs and sends transactions of one devnet account, its nonces counted locally so that
// several go into one block.
type sender struct {
	t     testing.TB
	c     *evm.Client
	key   *ecdsa.PrivateKey
	nonce uint64
}

func newSender(t testing.TB, c *evm.Client, key *ecdsa.PrivateKey) *sender {
	t.Helper()
	n, err := c.PendingNonceAt(context.Background(), crypto.PubkeyToAddress(key.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	return &sender{t: t, c: c, key: key, nonce: n}
}

// send sends a transaction to `to` with value and data and gas, and returns it.
func (s *sender) send(to common.Address, value *big.Int, data []byte, gas uint64) *types.Transaction {
	s.t.Helper()
	fees, err := s.c.SuggestFees(context.Background())
	if err != nil {
		s.t.Fatal(err)
	}
	tip := big.NewInt(params.GWei)
	id := new(big.Int).SetUint64(s.c.Chain().ID)
	tx, err := types.SignNewTx(s.key, types.LatestSignerForChainID(id), &types.DynamicFeeTx{ChainID: id, Nonce: s.nonce,
		GasTipCap: tip, GasFeeCap: fees.FeeCap(tip), Gas: gas, To: &to, Value: value, Data: data})
	if err != nil {
		s.t.Fatal(err)
	}
	if err := s.c.SendTransaction(context.Background(), tx); err != nil {
		s.t.Fatal(err)
	}
	s.nonce++
	return tx
}

// pay sends a plain native transfer (21,000 gas, as a wallet's plain send).
func (s *sender) pay(to common.Address, wei *big.Int) *types.Transaction {
	return s.send(to, wei, nil, 21_000)
}

// payUSDC sends a USDC transfer.
func (s *sender) payUSDC(to common.Address, amount *big.Int) *types.Transaction {
	return s.send(devnet.USDCAddress, new(big.Int), evm.ERC20ABI.PackTransfer(to, amount), 400_000)
}

// depositAddressOf is the devnet factory's deposit address of orderID and depositor.
func depositAddressOf(orderID common.Hash, depositor common.Address) common.Address {
	return evm.DepositAddress(devnet.DepositAddressFactoryAddress, devnet.DepositAddressImplementationAddress, orderID, depositor)
}

// watchedKey is an address as the watched set keys it (the store's lower case).
func watchedKey(a common.Address) string { return strings.ToLower(a.Hex()) }

// mined mines the pending transactions and returns the block's number.
func mined(t testing.TB, chain *devnet.Chain, c *evm.Client) uint64 {
	t.Helper()
	chain.Mine()
	n, err := c.Head(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Issue 35, point 3: "the engine sees native and ERC-20 arrivals at every issued address without
// polling each address every block (one log filter per block for transfers, balance reads only
// where a native transfer may have landed)". In one block among unrelated transfers, a plain ETH
// transfer and a USDC transfer to a watched address are its payments, in the chain's order,
// each with its sender, currency and amount; a transfer to an address not watched, a USDC
// transfer between other accounts, and a native transfer to a watched address that failed (a
// deployed address's clone needs more than 21,000 gas) are not.
func TestPaymentsAtWatchedAddressesAreFoundInTheBlocksTheyLandIn(t *testing.T) {
	chain, c := startChain(t)
	accounts := devnet.TestAccounts()
	alice, bob, carol := newSender(t, c, accounts[1].Key), newSender(t, c, accounts[2].Key), newSender(t, c, accounts[3].Key)
	order := crypto.Keccak256Hash([]byte("watched order"))
	da := depositAddressOf(order, accounts[1].Address)
	deployed := depositAddressOf(crypto.Keccak256Hash([]byte("deployed order")), accounts[4].Address)
	unwatched := depositAddressOf(crypto.Keccak256Hash([]byte("unwatched order")), accounts[1].Address)
	watched := chains.AddressSet{watchedKey(da): "0xda", watchedKey(deployed): "0xdeployed"}

	// The second address gets code: the solver's sweep of a first payment deploys its clone.
	sweeper, first := newSender(t, c, devnet.SolverKey()), newSender(t, c, accounts[4].Key)
	first.pay(deployed, big.NewInt(1))
	first.promoted()
	mined(t, chain, c)
	sweeper.send(devnet.DepositAddressFactoryAddress, new(big.Int),
		evm.PackSweep(crypto.Keccak256Hash([]byte("deployed order")), accounts[4].Address, common.Address{}, big.NewInt(1)), 300_000)
	sweeper.promoted()
	mined(t, chain, c)

	ether := big.NewInt(params.Ether)
	bob.pay(carol.address(), ether)                 // unrelated
	native := alice.pay(da, big.NewInt(12345))      // a payment
	carol.payUSDC(bob.address(), big.NewInt(777))   // unrelated
	token := bob.payUSDC(da, big.NewInt(5_000_000)) // a payment
	failed := carol.pay(deployed, big.NewInt(1))    // fails: the clone needs more gas
	alice.pay(unwatched, big.NewInt(99))            // not watched
	alice.promoted()
	bob.promoted()
	carol.promoted()
	block := mined(t, chain, c)
	if r, err := c.Receipt(context.Background(), failed.Hash()); err != nil || r.Status != types.ReceiptStatusFailed {
		t.Fatalf("the 21,000-gas transfer to a deployed address: receipt %v, %v; want it mined and failed", r, err)
	}

	got, err := c.DepositAddressTransfers(context.Background(), block-1, block, watched)
	if err != nil {
		t.Fatal(err)
	}
	want := []intent.DepositAddressTransfer{
		{ChainID: 31337, TxHash: native.Hash().Hex(), LogIndex: intent.NativeTransferLogIndex, AddressID: "0xda", BlockNumber: block,
			Sender: accounts[1].Address.Hex(), Currency: common.Address{}.Hex(), Amount: "12345"},
		{ChainID: 31337, TxHash: token.Hash().Hex(), AddressID: "0xda", BlockNumber: block, Sender: accounts[2].Address.Hex(),
			Currency: devnet.USDCAddress.Hex(), Amount: "5000000"},
	}
	if len(got) != len(want) {
		t.Fatalf("payments = %+v, want %+v", got, want)
	}
	for i := range want {
		want[i].LogIndex = cmpLogIndex(want[i], got[i])
		if got[i] != want[i] {
			t.Errorf("payment %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if none, err := c.DepositAddressTransfers(context.Background(), block-1, block, chains.AddressSet{}); err != nil || len(none) != 0 {
		t.Fatalf("with nothing watched: %v, %v; want nothing, read from nothing", none, err)
	}
}

// cmpLogIndex is the log index want expects of got: a native payment's is fixed, a token
// payment's is the Transfer log's, whatever it is.
func cmpLogIndex(want, got intent.DepositAddressTransfer) int {
	if want.LogIndex == intent.NativeTransferLogIndex {
		return want.LogIndex
	}
	return got.LogIndex
}

func (s *sender) address() common.Address { return crypto.PubkeyToAddress(s.key.PublicKey) }

// promoted waits until the node's pool holds every transaction s sent as ready to be mined: it
// promotes them in the background, and a block sealed before leaves the last ones out.
func (s *sender) promoted() {
	s.t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		n, err := s.c.PendingNonceAt(context.Background(), s.address())
		if err != nil {
			s.t.Fatal(err)
		}
		if n >= s.nonce {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the pool has %s's transactions up to nonce %d, not %d", s.address().Hex(), n, s.nonce)
		}
	}
}

// Issue 35, point 6: "an address's funds are never swept into another order", and the sweep's
// own deposit must not reach the request a second time: a deposit the factory's sweep made is
// marked with the address it came from (SweptFrom), by the scan of a range and by a client's
// hint of the transaction alike, while a deposit made to the depository directly, even in the
// address's order and in the same block, is not.
func TestASweepsDepositNamesTheAddressItCameFrom(t *testing.T) {
	chain, c := startChain(t)
	accounts := devnet.TestAccounts()
	alice, sweeper := newSender(t, c, accounts[1].Key), newSender(t, c, devnet.SolverKey())
	order := crypto.Keccak256Hash([]byte("swept order"))
	da := depositAddressOf(order, accounts[1].Address)
	alice.pay(da, big.NewInt(1_000_000))
	alice.payUSDC(da, big.NewInt(2_000_000))
	alice.promoted()
	mined(t, chain, c)
	sweep := sweeper.send(devnet.DepositAddressFactoryAddress, new(big.Int),
		evm.PackSweep(order, accounts[1].Address, common.Address{}, big.NewInt(1_000_000)), 500_000)
	sweepUSDC := sweeper.send(devnet.DepositAddressFactoryAddress, new(big.Int),
		evm.PackSweep(order, accounts[1].Address, devnet.USDCAddress, big.NewInt(2_000_000)), 500_000)
	direct := alice.send(devnet.DepositoryAddress, big.NewInt(3), evm.DepositoryABI.PackDepositNative(order), 100_000)
	alice.promoted()
	sweeper.promoted()
	block := mined(t, chain, c)

	deps, err := c.Deposits(context.Background(), block, block)
	if err != nil {
		t.Fatal(err)
	}
	var inTx []intent.Deposit
	for _, tx := range []*types.Transaction{sweep, sweepUSDC} {
		got, err := c.DepositsInTx(context.Background(), tx.Hash().Hex())
		if err != nil {
			t.Fatal(err)
		}
		inTx = append(inTx, got...)
	}
	if len(deps) != 3 || len(inTx) != 2 {
		t.Fatalf("deposits of the block: %+v; of the sweeps: %+v; want 3 and 2", deps, inTx)
	}
	for _, d := range append(deps, inTx...) {
		switch {
		case strings.EqualFold(d.TxHash, direct.Hash().Hex()):
			if d.SweptFrom != "" || d.Amount != "3" {
				t.Errorf("the direct deposit %+v is taken for a sweep's", d)
			}
		case d.SweptFrom != da.Hex() || !strings.EqualFold(d.OrderID, order.Hex()) || d.Depositor != accounts[1].Address.Hex():
			t.Errorf("the sweep's deposit %+v does not name %s, its order and its depositor", d, da.Hex())
		}
	}
}

// Issue 35, point 3: "say how and measure it with 10,000 issued addresses". Each iteration seals
// a block of 40 unrelated transfers (20 native, 20 USDC) and 3 payments to watched addresses (one
// native, two USDC), then reads the block's payments among 10,000 watched addresses; the figures
// per block are the JSON-RPC calls and HTTP requests of that read (through a counting proxy) and
// its time (ns/op). A balance read per address would be 10,000 calls a block.
func BenchmarkDepositAddressWatch(b *testing.B) {
	chain, direct := startChain(b)
	counter, err := faultproxy.New(faultproxy.Config{Target: direct.Chain().HTTPRPCURL}) // no faults: it counts
	if err != nil {
		b.Fatal(err)
	}
	proxy := httptest.NewServer(counter)
	b.Cleanup(proxy.Close)
	ch := *direct.Chain()
	ch.HTTPRPCURL = proxy.URL
	c, err := evm.Dial(&ch)
	if err != nil {
		b.Fatal(err)
	}
	accounts := devnet.TestAccounts()
	watched := chains.AddressSet{}
	var payees []common.Address
	for i := range 10_000 {
		a := depositAddressOf(crypto.Keccak256Hash([]byte(fmt.Sprintf("order %d", i))), accounts[i%len(accounts)].Address)
		watched[watchedKey(a)] = fmt.Sprintf("0x%064x", i)
		if i%1000 == 0 {
			payees = append(payees, a)
		}
	}
	senders := make([]*sender, len(accounts))
	for i, a := range accounts {
		senders[i] = newSender(b, direct, a.Key)
	}
	var calls, requests int64
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		for k := range 20 {
			s, to := senders[k%len(senders)], accounts[(k+1)%len(accounts)].Address
			s.pay(to, big.NewInt(int64(1000+k)))
			s.payUSDC(to, big.NewInt(int64(1+k)))
		}
		paid := []*types.Transaction{senders[0].pay(payees[i%len(payees)], big.NewInt(1_000)),
			senders[1].payUSDC(payees[(i+1)%len(payees)], big.NewInt(2_000)),
			senders[2].payUSDC(payees[(i+2)%len(payees)], big.NewInt(3_000))}
		for _, s := range senders {
			s.promoted()
		}
		block := mined(b, chain, direct)
		for _, tx := range paid {
			if r, err := direct.Receipt(context.Background(), tx.Hash()); err != nil || r.Status != types.ReceiptStatusSuccessful || r.BlockNumber.Uint64() != block {
				b.Fatalf("payment %s: receipt %+v, %v; want it successful in block %d", tx.Hash().Hex(), r, err, block)
			}
		}
		before, beforeReq := counter.Stats().Calls, counter.Stats().Requests
		b.StartTimer()
		got, err := c.DepositAddressTransfers(context.Background(), block, block, watched)
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		if len(got) != 3 {
			b.Fatalf("block %d: %d payments found, want 3: %+v", block, len(got), got)
		}
		calls += counter.Stats().Calls - before
		requests += counter.Stats().Requests - beforeReq
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(calls)/float64(b.N), "rpc-calls/block")
	b.ReportMetric(float64(requests)/float64(b.N), "http-requests/block")
}
