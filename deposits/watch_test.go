package deposits

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"log/slog"
	"math/big"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/faultproxy"
	"github.com/intentd/intentd/testkit/testenv"
)

// deliveries records every deposit the scanner delivers, in order.
type deliveries struct {
	mu  sync.Mutex
	got []intent.Deposit
}

func (r *deliveries) Deliver(_ context.Context, d intent.Deposit) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, d)
	return nil
}

func (r *deliveries) all() []intent.Deposit {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]intent.Deposit(nil), r.got...)
}

// wallet sends transactions from one devnet account on a chain that seals blocks when told.
type wallet struct {
	t     *testing.T
	c     *ethclient.Client
	key   *ecdsa.PrivateKey
	chain *devnet.Chain
}

// send sends a transaction and seals it in a block of its own, which it returns.
func (w *wallet) send(to common.Address, value *big.Int, data []byte) *types.Receipt {
	w.t.Helper()
	ctx := context.Background()
	from := crypto.PubkeyToAddress(w.key.PublicKey)
	nonce, err := w.c.PendingNonceAt(ctx, from)
	require.NoError(w.t, err)
	head, err := w.c.HeaderByNumber(ctx, nil)
	require.NoError(w.t, err)
	tip := big.NewInt(params.GWei)
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip)
	id := big.NewInt(int64(w.chain.ID))
	gas := uint64(21_000)
	if len(data) > 0 {
		gas = 500_000
	}
	tx, err := types.SignNewTx(w.key, types.LatestSignerForChainID(id), &types.DynamicFeeTx{ChainID: id, Nonce: nonce,
		GasTipCap: tip, GasFeeCap: feeCap, Gas: gas, To: &to, Value: value, Data: data})
	require.NoError(w.t, err)
	require.NoError(w.t, w.c.SendTransaction(ctx, tx))
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if n, err := w.c.PendingNonceAt(ctx, from); err == nil && n > nonce {
			break // in the pool's pending set: the next block takes it
		}
	}
	w.chain.Mine()
	r, err := w.c.TransactionReceipt(ctx, tx.Hash())
	require.NoError(w.t, err)
	require.Equal(w.t, types.ReceiptStatusSuccessful, r.Status, "transaction to %s", to.Hex())
	return r
}

// Issue 35, point 3: "the engine sees native and ERC-20 arrivals at every issued address", and
// point 6: "a sweep happens once whatever crashes": the sweep's Deposit event, which the
// depository's scan sees under the address's order id, must never reach the request as a second
// deposit (its workflow would refund it as a duplicate). On a devnet chain with Postgres, the
// scanner delivers the first payment at an issued deposit address (a plain ETH transfer) to the
// address's quote-time request as a deposit naming it, from its sender; a later payment at the
// address (USDC) is recorded, not routed; a sweep of the address, by anyone, is not delivered
// but recorded on the payment it moved, while a deposit made to the depository directly is
// routed as always; a rescan of the same blocks routes nothing new.
func TestTheScannerDeliversTheFirstPaymentAtADepositAddressAndNoSweep(t *testing.T) {
	ctx := context.Background()
	d, err := devnet.Start(ctx, devnet.Options{Chains: []devnet.ChainOptions{{ID: 31337}}, BlockTime: time.Hour, FeedHeartbeat: -1,
		Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	reg, err := d.Registry()
	require.NoError(t, err)
	cs := chains.NewClients(reg, evm.VM())
	st := store.New(testenv.Pool(t))
	chain := d.Chain(31337)
	c, err := chain.Dial(ctx)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	accounts := devnet.TestAccounts()
	payer := &wallet{t: t, c: c, key: accounts[1].Key, chain: chain}
	other := &wallet{t: t, c: c, key: accounts[2].Key, chain: chain}

	// The scanner starts with the chain as it is, the address issued after.
	router := &deliveries{}
	s := &Scanner{Chains: cs, Store: st, Router: router, Addresses: NewAddressWatch(st), Logger: slog.New(slog.DiscardHandler)}
	require.NoError(t, s.ScanOnce(ctx, 31337))
	order, depositor := crypto.Keccak256Hash([]byte("deposit address order")), accounts[9].Address
	addr := evm.DepositAddress(devnet.DepositAddressFactoryAddress, devnet.DepositAddressImplementationAddress, order, depositor)
	requestID := crypto.Keccak256Hash([]byte("quote-time request")).Hex()
	require.NoError(t, st.InsertDepositAddress(ctx, intent.DepositAddress{ID: "0xda01", Address: addr.Hex(), ChainID: 31337,
		Type: intent.DepositAddressStrict, OrderID: order.Hex(), Depositor: depositor.Hex(), RequestID: requestID,
		Currency: chains.NativeAddress, RefundTo: accounts[1].Address.Hex(), Route: []byte(`{}`), CreatedAt: time.Now()}))

	first := payer.send(addr, big.NewInt(params.Ether/10), nil)
	second := other.send(devnet.USDCAddress, new(big.Int), evm.ERC20ABI.PackTransfer(addr, big.NewInt(3_000_000)))
	solver := &wallet{t: t, c: c, key: devnet.SolverKey(), chain: chain}
	sweep := solver.send(devnet.DepositAddressFactoryAddress, new(big.Int),
		evm.PackSweep(order, depositor, common.Address{}, big.NewInt(params.Ether/10)))
	directOrder := crypto.Keccak256Hash([]byte("a depository deposit"))
	direct := payer.send(devnet.DepositoryAddress, big.NewInt(7), evm.DepositoryABI.PackDepositNative(directOrder))
	require.NoError(t, s.ScanOnce(ctx, 31337))

	// A range's depository deposits are routed first, then its payments at addresses.
	got := router.all()
	require.Len(t, got, 2, "deliveries: %+v", got)
	arrival := got[1]
	require.Equal(t, intent.Deposit{ChainID: 31337, TxHash: first.TxHash.Hex(), LogIndex: 0, BlockNumber: first.BlockNumber.Uint64(),
		OrderID: order.Hex(), Depositor: accounts[1].Address.Hex(), Currency: common.Address{}.Hex(), Amount: "100000000000000000",
		RequestID: requestID, Family: "evm"}, arrival)
	require.Equal(t, direct.TxHash.Hex(), got[0].TxHash, "the depository's own deposit is routed as always")
	require.Equal(t, directOrder.Hex(), got[0].OrderID)
	for _, g := range got {
		require.NotEqual(t, sweep.TxHash.Hex(), g.TxHash, "the sweep's deposit is delivered")
	}

	history, err := st.DepositAddressTransfers(ctx, "0xda01")
	require.NoError(t, err)
	require.Len(t, history, 2)
	byTx := map[string]intent.DepositAddressTransfer{}
	for _, h := range history {
		byTx[h.TxHash] = h
	}
	paid := byTx[strings.ToLower(first.TxHash.Hex())]
	require.Equal(t, requestID, paid.RequestID, "the first payment funds the quote-time request")
	require.Equal(t, strings.ToLower(sweep.TxHash.Hex()), paid.SweepTx, "the sweep is recorded on the payment it moved")
	later := byTx[strings.ToLower(second.TxHash.Hex())]
	require.Equal(t, "3000000", later.Amount)
	require.Empty(t, later.RequestID, "a later payment at a strict address funds no request in this slice")

	// A rescan (a reorg, a crash before the cursor moved) records nothing twice and routes no
	// second payment: the first is delivered again, which the door does not signal again.
	require.NoError(t, st.SetCursor(ctx, store.Cursor{ChainID: 31337, GenesisHash: mustHash(t, c, 0), Block: 0, BlockHash: mustHash(t, c, 0)}))
	require.NoError(t, s.ScanOnce(ctx, 31337))
	again := router.all()[2:]
	require.Len(t, again, 2, "deliveries of the rescan: %+v", again)
	require.Equal(t, direct.TxHash.Hex(), again[0].TxHash)
	require.Equal(t, arrival, again[1])
	history, err = st.DepositAddressTransfers(ctx, "0xda01")
	require.NoError(t, err)
	require.Len(t, history, 2)
}

// mustHash is the hash of block n.
func mustHash(t *testing.T, c *ethclient.Client, n int64) string {
	t.Helper()
	h, err := c.HeaderByNumber(context.Background(), big.NewInt(n))
	require.NoError(t, err)
	return h.Hash().Hex()
}

// The watch loads the issued addresses once and then, before each pass, those issued since:
// an address whose row commits after a later one's (its quote's clock ran a moment ahead) is
// watched all the same, and a disabled address stops being watched at the next full load.
func TestTheWatchFollowsTheAddressesAsTheyAreIssuedAndDisabled(t *testing.T) {
	ctx := context.Background()
	st := store.New(testenv.Pool(t))
	issue := func(id, address string, at time.Time) {
		t.Helper()
		require.NoError(t, st.InsertDepositAddress(ctx, intent.DepositAddress{ID: id, Address: address, ChainID: 31337,
			Type: intent.DepositAddressStrict, OrderID: "0x" + id, Depositor: "0xuser", RequestID: "0xr" + id, Currency: chains.NativeAddress,
			Route: []byte(`{}`), CreatedAt: at}))
	}
	now := time.Now()
	issue("a1", "0x00000000000000000000000000000000000000A1", now.Add(-10*time.Second))
	w := NewAddressWatch(st)
	require.NoError(t, w.refresh(ctx, time.Now()))
	require.Equal(t, 1, w.Len())
	if id, ok := w.Watched("0x00000000000000000000000000000000000000a1"); !ok || id != "a1" {
		t.Fatalf("the issued address is not watched: %q %v", id, ok)
	}

	issue("a2", "0x00000000000000000000000000000000000000a2", now.Add(-15*time.Second))
	require.NoError(t, w.refresh(ctx, time.Now()))
	require.Equal(t, 2, w.Len(), "an address created before the newest loaded, committed after it")
	a2, ok := w.address("a2")
	require.True(t, ok)
	require.Equal(t, "0xra2", a2.RequestID)

	_, err := st.DisableDepositAddress(ctx, "a1", time.Now())
	require.NoError(t, err)
	require.NoError(t, w.refresh(ctx, time.Now()))
	require.Equal(t, 2, w.Len(), "a disabled address stays until the next full load")
	w.mu.Lock()
	w.full = w.full.Add(-watchFullReload)
	w.mu.Unlock()
	require.NoError(t, w.refresh(ctx, time.Now()))
	_, ok = w.Watched("0x00000000000000000000000000000000000000a1")
	require.False(t, ok, "the disabled address is still watched")
	require.Equal(t, 1, w.Len())
}

// Issue 35, point 3: "measure it with 10,000 issued addresses". A scanner whose store holds
// 10,000 issued deposit addresses scans one block per iteration: 40 unrelated transfers (20 ETH,
// 20 USDC) and 3 payments at issued addresses (one ETH, two USDC). The figures per pass (one
// block) are its time (ns/op: the cursor and lock, the load of the addresses issued since, the
// depository's logs, the payments' reads, recording and routing the three) and the JSON-RPC
// calls and HTTP requests it makes, counted by a proxy in front of the chain. The first pass,
// which loads the 10,000 addresses and scans the devnet's first blocks, is reported apart
// (first-pass-ms).
func BenchmarkScanPassWithTenThousandAddresses(b *testing.B) {
	b.Run("watching", func(b *testing.B) { benchmarkScanPass(b, true) })
	// The same blocks scanned for the depository's deposits only: what watching adds.
	b.Run("depository only", func(b *testing.B) { benchmarkScanPass(b, false) })
}

func benchmarkScanPass(b *testing.B, watch bool) {
	ctx := context.Background()
	d, err := devnet.Start(ctx, devnet.Options{Chains: []devnet.ChainOptions{{ID: 31337}}, BlockTime: time.Hour, FeedHeartbeat: -1,
		Logger: slog.New(slog.DiscardHandler)})
	require.NoError(b, err)
	b.Cleanup(d.Close)
	chain := d.Chain(31337)
	counter, err := faultproxy.New(faultproxy.Config{Target: chain.RPCURL}) // no faults: it counts
	require.NoError(b, err)
	proxy := httptest.NewServer(counter)
	b.Cleanup(proxy.Close)
	reg, err := chains.NewRegistry(devnet.ChainConfigs(map[uint64]string{31337: proxy.URL}))
	require.NoError(b, err)
	pool := testenv.Pool(b)
	st := store.New(pool)
	accounts := devnet.TestAccounts()
	const issued = 10_000
	// Issued in one statement over the last hour (one every 0.3 s): the addresses are any 20 bytes.
	_, err = pool.Exec(ctx, `INSERT INTO deposit_addresses (id, address, chain_id, type, order_id, depositor, request_id, currency, route, created_at)
		SELECT 'id' || i, '0xdd' || lpad(to_hex(i), 38, '0'), 31337, 'strict', '0x' || lpad(to_hex(i), 64, '0'), '0xuser', 'r' || i,
			'0x0000000000000000000000000000000000000000', '{}', now() - interval '1 hour' + i * interval '300 milliseconds'
		FROM generate_series(1, $1) i`, issued)
	require.NoError(b, err)
	// The address of the issued address number i (1 to issued).
	issuedAddress := func(i int) common.Address { return common.HexToAddress(fmt.Sprintf("0xdd%038x", i)) }
	c, err := chain.Dial(ctx)
	require.NoError(b, err)
	b.Cleanup(c.Close)
	router := &deliveries{}
	s := &Scanner{Chains: chains.NewClients(reg, evm.VM()), Store: st, Router: router, Logger: slog.New(slog.DiscardHandler)}
	if watch {
		s.Addresses = NewAddressWatch(st)
	}
	started := time.Now()
	require.NoError(b, s.ScanOnce(ctx, 31337))
	fullLoad := time.Since(started)
	if watch {
		require.Equal(b, issued, s.Addresses.Len())
	}
	nonces := make([]uint64, len(accounts))
	for i, a := range accounts {
		nonces[i], err = c.PendingNonceAt(ctx, a.Address)
		require.NoError(b, err)
	}
	send := func(i int, to common.Address, value *big.Int, data []byte, gas uint64) {
		head, err := c.HeaderByNumber(ctx, nil)
		require.NoError(b, err)
		tip := big.NewInt(params.GWei)
		tx, err := types.SignNewTx(accounts[i].Key, types.LatestSignerForChainID(big.NewInt(31337)), &types.DynamicFeeTx{ChainID: big.NewInt(31337),
			Nonce: nonces[i], GasTipCap: tip, GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip), Gas: gas, To: &to,
			Value: value, Data: data})
		require.NoError(b, err)
		require.NoError(b, c.SendTransaction(ctx, tx))
		nonces[i]++
	}
	var calls, requests int64
	b.ResetTimer()
	for n := range b.N {
		b.StopTimer()
		for k := range 20 {
			from, to := k%len(accounts), accounts[(k+1)%len(accounts)].Address
			send(from, to, big.NewInt(int64(1000+k)), nil, 21_000)
			send(from, devnet.USDCAddress, new(big.Int), evm.ERC20ABI.PackTransfer(to, big.NewInt(int64(1+k))), 150_000)
		}
		// Three addresses paid for the first time: each payment is recorded and routed.
		send(0, issuedAddress(3*n+1), big.NewInt(1_000), nil, 21_000)
		send(1, devnet.USDCAddress, new(big.Int), evm.ERC20ABI.PackTransfer(issuedAddress(3*n+2), big.NewInt(2_000)), 400_000)
		send(2, devnet.USDCAddress, new(big.Int), evm.ERC20ABI.PackTransfer(issuedAddress(3*n+3), big.NewInt(3_000)), 400_000)
		for i, a := range accounts {
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
				if p, err := c.PendingNonceAt(ctx, a.Address); err == nil && p >= nonces[i] {
					break
				}
			}
		}
		chain.Mine()
		before, beforeReq, delivered := counter.Stats().Calls, counter.Stats().Requests, len(router.all())
		b.StartTimer()
		err := s.ScanOnce(ctx, 31337)
		b.StopTimer()
		require.NoError(b, err)
		if watch {
			require.Equal(b, delivered+3, len(router.all()), "payments routed in the block")
		}
		calls += counter.Stats().Calls - before
		requests += counter.Stats().Requests - beforeReq
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(calls)/float64(b.N), "rpc-calls/pass")
	b.ReportMetric(float64(requests)/float64(b.N), "http-requests/pass")
	if watch {
		b.ReportMetric(float64(fullLoad.Milliseconds()), "first-pass-ms")
	}
}
