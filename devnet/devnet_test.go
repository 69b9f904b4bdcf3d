package devnet

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/gagliardetto/solana-go"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm/bindings"
	"github.com/intentd/intentd/devnet/svm"
)

func testOptions() Options {
	return Options{
		Chains:    []ChainOptions{{ID: 31337}, {ID: 31338}},
		BlockTime: 100 * time.Millisecond,
		Logger:    slog.New(slog.DiscardHandler),
	}
}

func TestDevnet(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	start := time.Now()
	d, err := Start(ctx, testOptions())
	require.NoError(t, err)
	t.Logf("started two chains in %s", time.Since(start))
	defer d.Close()

	require.Len(t, d.Chains(), 2)
	a, b := d.Chain(31337), d.Chain(31338)
	require.NotNil(t, a)
	require.NotNil(t, b)
	require.Nil(t, d.Chain(1337))
	require.NotEqual(t, a.RPCURL, b.RPCURL)

	usdc := bindings.NewTestUSDC()
	clients := map[uint64]*ethclient.Client{}
	for _, c := range d.Chains() {
		cl, err := ethclient.DialContext(ctx, c.RPCURL)
		require.NoError(t, err)
		defer cl.Close()
		clients[c.ID] = cl
	}

	t.Run("chain id and contracts over HTTP", func(t *testing.T) {
		for _, c := range d.Chains() {
			cl := clients[c.ID]
			id, err := cl.ChainID(ctx)
			require.NoError(t, err)
			require.Equal(t, c.ID, id.Uint64())
			netID, err := cl.NetworkID(ctx)
			require.NoError(t, err)
			require.Equal(t, c.ID, netID.Uint64())

			for _, addr := range []common.Address{DepositoryAddress, OutputSettlerAddress, USDCAddress, ETHUSDFeedAddress, USDCUSDFeedAddress,
				DepositAddressFactoryAddress, DepositAddressImplementationAddress} {
				code, err := cl.CodeAt(ctx, addr, nil)
				require.NoError(t, err)
				require.NotEmpty(t, code, "no code at %s on %d", addr.Hex(), c.ID)
			}
			owner, err := bindings.NewDepository().UnpackOwner(call(t, ctx, cl, DepositoryAddress, bindings.NewDepository().PackOwner()))
			require.NoError(t, err)
			require.Equal(t, SolverAddress(), owner)
		}
	})

	t.Run("blocks advance without Mine", func(t *testing.T) {
		for _, c := range d.Chains() {
			cl := clients[c.ID]
			n0, err := cl.BlockNumber(ctx)
			require.NoError(t, err)
			require.Eventually(t, func() bool {
				n, err := cl.BlockNumber(ctx)
				return err == nil && n >= n0+2
			}, 5*time.Second, 20*time.Millisecond, "chain %d", c.ID)
		}
	})

	t.Run("balances and allowance", func(t *testing.T) {
		for _, c := range d.Chains() {
			cl := clients[c.ID]
			for _, acct := range TestAddresses() {
				require.Equal(t, big.NewInt(TestAccountUSDC), usdcBalance(t, ctx, cl, acct), "chain %d %s", c.ID, acct.Hex())
				eth, err := cl.BalanceAt(ctx, acct, nil)
				require.NoError(t, err)
				require.Equal(t, new(big.Int).Mul(big.NewInt(GenesisETH), big.NewInt(params.Ether)), eth)
			}
			require.Equal(t, big.NewInt(SolverUSDC), usdcBalance(t, ctx, cl, SolverAddress()))
			allowance, err := usdc.UnpackAllowance(call(t, ctx, cl, USDCAddress, usdc.PackAllowance(SolverAddress(), OutputSettlerAddress)))
			require.NoError(t, err)
			require.Equal(t, math.MaxBig256, allowance)
		}
	})

	t.Run("native deposit over HTTP", func(t *testing.T) {
		cl := clients[a.ID]
		user := TestAccounts()[0]
		orderID := crypto.Keccak256Hash([]byte("native order"))
		amount := big.NewInt(params.Ether / 2)
		// No Mine here: the chain's own block production must pick the transaction up.
		r := transact(t, ctx, cl, nil, user.Key, DepositoryAddress, amount, bindings.NewDepository().PackDepositNative(orderID))
		require.Equal(t, types.ReceiptStatusSuccessful, r.Status)
		ev := findDeposit(t, r)
		require.Equal(t, [32]byte(orderID), ev.OrderId)
		require.Equal(t, user.Address, ev.Depositor)
		require.Equal(t, common.Address{}, ev.Currency)
		require.Equal(t, amount, ev.Amount)
		bal, err := cl.BalanceAt(ctx, DepositoryAddress, nil)
		require.NoError(t, err)
		require.Equal(t, amount, bal)
	})

	t.Run("ERC-20 deposit over HTTP", func(t *testing.T) {
		cl := clients[a.ID]
		user := TestAccounts()[1]
		orderID := crypto.Keccak256Hash([]byte("usdc order"))
		amount := big.NewInt(250 * 1_000_000)
		r := transact(t, ctx, cl, a, user.Key, USDCAddress, nil, usdc.PackApprove(DepositoryAddress, amount))
		require.Equal(t, types.ReceiptStatusSuccessful, r.Status)
		r = transact(t, ctx, cl, a, user.Key, DepositoryAddress, nil, bindings.NewDepository().PackDepositErc20(orderID, USDCAddress, amount))
		require.Equal(t, types.ReceiptStatusSuccessful, r.Status)
		ev := findDeposit(t, r)
		require.Equal(t, [32]byte(orderID), ev.OrderId)
		require.Equal(t, user.Address, ev.Depositor)
		require.Equal(t, USDCAddress, ev.Currency)
		require.Equal(t, amount, ev.Amount)
		require.Equal(t, amount, usdcBalance(t, ctx, cl, DepositoryAddress))
		require.Equal(t, new(big.Int).Sub(big.NewInt(TestAccountUSDC), amount), usdcBalance(t, ctx, cl, user.Address))
	})

	t.Run("fill once over HTTP", func(t *testing.T) {
		cl := clients[b.ID]
		settler := bindings.NewOutputSettler()
		recipient := common.HexToAddress("0x00000000000000000000000000000000000fee11")
		orderID := crypto.Keccak256Hash([]byte("fill order"))
		amount := big.NewInt(100 * 1_000_000)
		fill := settler.PackFillErc20(orderID, USDCAddress, recipient, amount)

		r := transact(t, ctx, cl, b, SolverKey(), OutputSettlerAddress, nil, fill)
		require.Equal(t, types.ReceiptStatusSuccessful, r.Status)
		var found bool
		for _, l := range r.Logs {
			if l.Address != OutputSettlerAddress {
				continue
			}
			ev, err := settler.UnpackFillEvent(l)
			require.NoError(t, err)
			require.Equal(t, [32]byte(orderID), ev.OrderId)
			require.Equal(t, SolverAddress(), ev.Solver)
			require.Equal(t, recipient, ev.Recipient)
			require.Equal(t, amount, ev.Amount)
			found = true
		}
		require.True(t, found, "no Fill event")
		require.Equal(t, amount, usdcBalance(t, ctx, cl, recipient))

		// The second fill of the same order reverts with AlreadyFilled.
		_, err := cl.EstimateGas(ctx, ethereum.CallMsg{From: SolverAddress(), To: &OutputSettlerAddress, Data: fill})
		require.Error(t, err)
		var de rpc.DataError
		require.ErrorAs(t, err, &de)
		data, ok := de.ErrorData().(string)
		require.True(t, ok, "revert data %v", de.ErrorData())
		raw, err := hex.DecodeString(strings.TrimPrefix(data, "0x"))
		require.NoError(t, err)
		decoded, err := settler.UnpackError(raw)
		require.NoError(t, err)
		require.Equal(t, &bindings.OutputSettlerAlreadyFilled{OrderId: orderID}, decoded)
	})

	t.Run("registry", func(t *testing.T) {
		reg, err := d.Registry()
		require.NoError(t, err)
		for _, c := range d.Chains() {
			rc, err := reg.Get(c.ID)
			require.NoError(t, err)
			require.Equal(t, c.RPCURL, rc.HTTPRPCURL)
			cur, ok := rc.FindCurrency(strings.ToLower(USDCAddress.Hex()))
			require.True(t, ok)
			require.Equal(t, uint8(USDCDecimals), cur.Decimals)
		}
	})

	t.Run("browser wallets: CORS and any Host", func(t *testing.T) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.RPCURL,
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", "http://localhost:5173")
		req.Host = "devnet.example:8545"
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
		require.NotEmpty(t, resp.Header.Get("Access-Control-Allow-Origin"))
		require.Contains(t, string(body), `"0x7a69"`) // 31337
	})

	t.Run("in-process client", func(t *testing.T) {
		n0, err := a.Client().BlockNumber(ctx)
		require.NoError(t, err)
		a.Mine()
		n1, err := a.Client().BlockNumber(ctx)
		require.NoError(t, err)
		require.Greater(t, n1, n0)
	})

	d.Close()
	d.Close()
	require.Equal(t, common.Hash{}, a.Mine())
	// HTTP dialing is lazy; the first request must fail once the chain is closed.
	cl, err := a.Dial(ctx)
	require.NoError(t, err)
	defer cl.Close()
	_, err = cl.ChainID(ctx)
	require.Error(t, err, "RPC still served after Close")
}

func TestStartPortInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer func() { _ = l.Close() }()
	o := testOptions()
	o.Chains = []ChainOptions{{ID: 31337, Port: l.Addr().(*net.TCPAddr).Port}}
	d, err := Start(context.Background(), o)
	require.Error(t, err)
	require.Nil(t, d)
	require.Contains(t, err.Error(), "31337")
}

func TestStartRejectsBadChains(t *testing.T) {
	o := testOptions()
	o.Chains = []ChainOptions{{ID: 31337}, {ID: 31337}}
	_, err := Start(context.Background(), o)
	require.ErrorContains(t, err, "twice")
	o.Chains = []ChainOptions{{ID: 0}}
	_, err = Start(context.Background(), o)
	require.Error(t, err)
}

func TestRunPrintsSummary(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := testOptions()
	o.Chains = []ChainOptions{{ID: 31337}}
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, o, out) }()
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "Ctrl-C") }, 20*time.Second, 20*time.Millisecond)
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	s := out.String()
	for _, want := range []string{"31337", DepositoryAddress.Hex(), OutputSettlerAddress.Hex(), USDCAddress.Hex(), ETHUSDFeedAddress.Hex(), USDCUSDFeedAddress.Hex(),
		DepositAddressFactoryAddress.Hex(), DepositAddressImplementationAddress.Hex(), SolverAddress().Hex(), hardhatAccounts[0], hardhatAccounts[9], "mnemonic",
		BatchExecutorAddress().Hex(), RelayerAddress().Hex()} {
		require.Contains(t, s, want)
	}
	for _, a := range TestAccounts() {
		require.NotContains(t, strings.ToLower(s), hex.EncodeToString(crypto.FromECDSA(a.Key)))
	}
	for _, k := range []*ecdsa.PrivateKey{DeployerKey(), SolverKey(), OracleKey(), RelayerKey()} {
		require.NotContains(t, strings.ToLower(s), hex.EncodeToString(crypto.FromECDSA(k)))
	}
	t.Log("\n" + s)
}

// `intentd-dev devnet` with the local Solana chain: its URL, mint and funded addresses in the
// summary, none of its keys, and both kinds of chain stopped with the context.
func TestRunWithSolana(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := testOptions()
	o.Chains = []ChainOptions{{ID: 31337}}
	o.Solana = &svm.Options{SlotTime: 50 * time.Millisecond}
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, o, out) }()
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "Ctrl-C") }, 30*time.Second, 20*time.Millisecond)
	s := out.String()
	for _, want := range []string{"and a local Solana chain", "not a validator", svm.USDCMint.String(), svm.SolverAddress().String(),
		svm.TestAddresses()[0].String(), svm.TestAddresses()[9].String(), "m/44'/501'/i'/0'"} {
		require.Contains(t, s, want)
	}
	for _, k := range []solana.PrivateKey{svm.SolverKey(), svm.DeployerKey(), svm.FaucetKey(), svm.TestAccounts()[0].PrivateKey} {
		require.NotContains(t, s, k.String())
	}
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	t.Log("\n" + s)
}

func TestDevChainsJSONMatchesChainConfigs(t *testing.T) {
	doc, err := os.ReadFile("../configs/chains.dev.json")
	require.NoError(t, err)
	reg, err := chains.ParseRegistry(doc, func(string) (string, bool) { return "", false })
	require.NoError(t, err)
	var got []chains.Chain
	for _, c := range reg.All() {
		got = append(got, *c)
	}
	require.Equal(t, ChainConfigs(map[uint64]string{
		31337: "http://127.0.0.1:8545",
		31338: "http://127.0.0.1:8546",
		999:   "http://127.0.0.1:8547",
	}), got)

	// The defaults point where DefaultOptions listens.
	for _, co := range DefaultOptions().Chains {
		c, err := reg.Get(co.ID)
		require.NoError(t, err)
		require.True(t, strings.HasSuffix(c.HTTPRPCURL, ":"+itoa(co.Port)))
	}
	require.Equal(t, "Exchange EVM (local)", got[0].DisplayName)
	require.Equal(t, "Devnet A", got[1].DisplayName)
	require.Equal(t, "Devnet B", got[2].DisplayName)
}

func itoa(i int) string { return big.NewInt(int64(i)).String() }

// call runs an eth_call against the latest block.
func call(t *testing.T, ctx context.Context, cl *ethclient.Client, to common.Address, data []byte) []byte {
	t.Helper()
	out, err := cl.CallContract(ctx, ethereum.CallMsg{To: &to, Data: data}, nil)
	require.NoError(t, err)
	return out
}

func usdcBalance(t *testing.T, ctx context.Context, cl *ethclient.Client, who common.Address) *big.Int {
	t.Helper()
	usdc := bindings.NewTestUSDC()
	bal, err := usdc.UnpackBalanceOf(call(t, ctx, cl, USDCAddress, usdc.PackBalanceOf(who)))
	require.NoError(t, err)
	return bal
}

// transact signs and sends a transaction over HTTP the way a wallet would (pending nonce,
// estimated gas, suggested fees) and waits for its receipt. With mine set it seals a block
// right away instead of waiting for the next one.
func transact(t *testing.T, ctx context.Context, cl *ethclient.Client, mine *Chain, key *ecdsa.PrivateKey, to common.Address, value *big.Int, data []byte) *types.Receipt {
	t.Helper()
	from := crypto.PubkeyToAddress(key.PublicKey)
	chainID, err := cl.ChainID(ctx)
	require.NoError(t, err)
	nonce, err := cl.PendingNonceAt(ctx, from)
	require.NoError(t, err)
	gas, err := cl.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &to, Value: value, Data: data})
	require.NoError(t, err)
	tip, err := cl.SuggestGasTipCap(ctx)
	require.NoError(t, err)
	head, err := cl.HeaderByNumber(ctx, nil)
	require.NoError(t, err)
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{
		ChainID:   chainID,
		Nonce:     nonce,
		GasTipCap: tip,
		GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip),
		Gas:       gas,
		To:        &to,
		Value:     value,
		Data:      data,
	})
	require.NoError(t, err)
	require.NoError(t, cl.SendTransaction(ctx, tx))
	if mine != nil {
		mine.Mine()
	}
	var r *types.Receipt
	require.Eventually(t, func() bool {
		r, err = cl.TransactionReceipt(ctx, tx.Hash())
		return err == nil
	}, 10*time.Second, 20*time.Millisecond, "no receipt for %s: %v", tx.Hash().Hex(), err)
	return r
}

func findDeposit(t *testing.T, r *types.Receipt) *bindings.DepositoryDeposit {
	t.Helper()
	for _, l := range r.Logs {
		if l.Address == DepositoryAddress {
			ev, err := bindings.NewDepository().UnpackDepositEvent(l)
			require.NoError(t, err)
			return ev
		}
	}
	t.Fatal("no Deposit event in receipt")
	return nil
}

// syncBuffer is a bytes.Buffer safe for one writer and concurrent readers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// The contract addresses are part of the configuration (configs/chains.dev.json, PRICE_FEEDS in
// docs/prices.md): pin them so that a change in setup's deployment order is noticed.
func TestContractAddressesArePinned(t *testing.T) {
	require.Equal(t, "0xB9733560ecF2E4E9C9d8c21B6b34B7A4f25277AA", DepositoryAddress.Hex())
	require.Equal(t, "0x93F90B891e88ED37dECC5FA687E5d510d015AA3e", OutputSettlerAddress.Hex())
	require.Equal(t, "0x3F88d0F5403139753a203e6F36BFaE0CeAE3bF42", USDCAddress.Hex())
	require.Equal(t, "0xb5704cb42a6cFc04fb7F6eF09782f07338EB9AD6", ETHUSDFeedAddress.Hex())
	require.Equal(t, "0x8c19D0C06866bAB258AB6cf5480077FFc8f4E857", USDCUSDFeedAddress.Hex())
	require.Equal(t, "0x5D82FbECe20F7A67540beFe0fB9DB5881E65E95f", DepositAddressFactoryAddress.Hex())
	require.Equal(t, "0xbA9141AAD186f03Be8F9992f0e0Ec04AF83d1Ce6", DepositAddressImplementationAddress.Hex())
	require.Equal(t, "0xBb84D6AE43DFfd484742462cD8857B3f2ebAfD77", SOLUSDFeedAddress.Hex())
	require.Equal(t, "0xDa0cB69Dd38869FEB55598D39ebc5d905b27553A", BatchExecutorAddress().Hex())
	require.Equal(t, "ETH=31337:0xb5704cb42a6cFc04fb7F6eF09782f07338EB9AD6,USDC=31337:0x8c19D0C06866bAB258AB6cf5480077FFc8f4E857,"+
		"SOL=31337:0xBb84D6AE43DFfd484742462cD8857B3f2ebAfD77,WSOL=31337:0xBb84D6AE43DFfd484742462cD8857B3f2ebAfD77", PriceFeedsConfig(31337))
}

func TestPriceFeeds(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	o := testOptions()
	o.Chains = []ChainOptions{{ID: 31337}}
	o.FeedHeartbeat = 300 * time.Millisecond
	d, err := Start(ctx, o)
	require.NoError(t, err)
	defer d.Close()
	c := d.Chain(31337)
	cl, err := c.Dial(ctx)
	require.NoError(t, err)
	defer cl.Close()
	pf := bindings.NewPriceFeed()
	latest := func(feed common.Address) bindings.LatestRoundDataOutput {
		t.Helper()
		r, err := pf.UnpackLatestRoundData(call(t, ctx, cl, feed, pf.PackLatestRoundData()))
		require.NoError(t, err)
		return r
	}
	headTime := func() time.Time {
		t.Helper()
		h, err := cl.HeaderByNumber(ctx, nil)
		require.NoError(t, err)
		return time.Unix(int64(h.Time), 0)
	}

	t.Run("initial rounds", func(t *testing.T) {
		for _, f := range []struct {
			addr   common.Address
			desc   string
			answer int64
		}{{ETHUSDFeedAddress, "ETH / USD", ETHUSDAnswer}, {USDCUSDFeedAddress, "USDC / USD", USDCUSDAnswer}, {SOLUSDFeedAddress, "SOL / USD", SOLUSDAnswer}} {
			dec, err := pf.UnpackDecimals(call(t, ctx, cl, f.addr, pf.PackDecimals()))
			require.NoError(t, err)
			require.Equal(t, uint8(FeedDecimals), dec)
			desc, err := pf.UnpackDescription(call(t, ctx, cl, f.addr, pf.PackDescription()))
			require.NoError(t, err)
			require.Equal(t, f.desc, desc)
			ver, err := pf.UnpackVersion(call(t, ctx, cl, f.addr, pf.PackVersion()))
			require.NoError(t, err)
			require.Equal(t, int64(4), ver.Int64())
			owner, err := pf.UnpackOwner(call(t, ctx, cl, f.addr, pf.PackOwner()))
			require.NoError(t, err)
			require.Equal(t, DeployerAddress(), owner)

			r := latest(f.addr)
			require.Equal(t, big.NewInt(f.answer), r.Answer, f.desc)
			require.Equal(t, r.RoundId, r.AnsweredInRound)
			require.Positive(t, r.RoundId.Sign())
			require.Positive(t, r.UpdatedAt.Sign())
			require.False(t, time.Unix(r.UpdatedAt.Int64(), 0).After(headTime()))
		}
		require.Equal(t, big.NewInt(3000*100_000_000), big.NewInt(ETHUSDAnswer))
		require.Equal(t, big.NewInt(100_000_000), big.NewInt(USDCUSDAnswer))
	})

	t.Run("SetPrice, then the heartbeat refreshes the round", func(t *testing.T) {
		stale := time.Now().Add(-time.Hour).Truncate(time.Second)
		require.NoError(t, c.SetPrice(ctx, ETHUSDFeedAddress, big.NewInt(2500*100_000_000), stale))
		r := latest(ETHUSDFeedAddress)
		// The heartbeat may already have re-posted; either way the answer is the new one.
		require.Equal(t, big.NewInt(2500*100_000_000), r.Answer)
		staleRound := r.RoundId
		if r.UpdatedAt.Int64() == stale.Unix() {
			t.Log("stale round in place before the heartbeat")
		}
		require.Eventually(t, func() bool {
			r := latest(ETHUSDFeedAddress)
			return r.RoundId.Cmp(staleRound) > 0 && r.UpdatedAt.Int64() > stale.Unix()+1800 &&
				r.Answer.Cmp(big.NewInt(2500*100_000_000)) == 0
		}, 10*time.Second, 50*time.Millisecond, "heartbeat did not re-post the answer")
		// The other feed keeps beating with its own answer.
		require.Equal(t, big.NewInt(USDCUSDAnswer), latest(USDCUSDFeedAddress).Answer)
	})

	t.Run("SetPrice with the block timestamp, alongside the heartbeat", func(t *testing.T) {
		require.NoError(t, c.SetPrice(ctx, USDCUSDFeedAddress, big.NewInt(99_990_000), time.Time{}))
		r := latest(USDCUSDFeedAddress)
		require.Equal(t, big.NewInt(99_990_000), r.Answer)
		require.Positive(t, r.UpdatedAt.Sign())

		// The heartbeat runs alongside; SetPrice and it take turns with the deployer's nonce.
		for i := range 5 {
			require.NoError(t, c.SetPrice(ctx, USDCUSDFeedAddress, big.NewInt(int64(100_000_000+i)), time.Time{}))
		}
		require.Equal(t, big.NewInt(100_000_004), latest(USDCUSDFeedAddress).Answer)
		require.Error(t, c.SetPrice(ctx, USDCUSDFeedAddress, big.NewInt(1), time.Unix(-1, 0)))
	})

	t.Run("only the owner posts; missing rounds revert", func(t *testing.T) {
		user := TestAccounts()[0].Address
		_, err := cl.EstimateGas(ctx, ethereum.CallMsg{From: user, To: &ETHUSDFeedAddress, Data: pf.PackSetAnswer(big.NewInt(1))})
		require.ErrorContains(t, err, "revert")
		_, err = cl.CallContract(ctx, ethereum.CallMsg{To: &ETHUSDFeedAddress, Data: pf.PackGetRoundData(big.NewInt(0))}, nil)
		require.Error(t, err)
		r := latest(ETHUSDFeedAddress)
		got, err := pf.UnpackGetRoundData(call(t, ctx, cl, ETHUSDFeedAddress, pf.PackGetRoundData(r.RoundId)))
		require.NoError(t, err)
		require.Equal(t, r.Answer, got.Answer)
	})
}

func TestPriceFeedHeartbeatOff(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	o := testOptions()
	o.Chains = []ChainOptions{{ID: 31338}}
	o.FeedHeartbeat = -1
	d, err := Start(ctx, o)
	require.NoError(t, err)
	defer d.Close()
	c := d.Chain(31338)
	cl, err := c.Dial(ctx)
	require.NoError(t, err)
	defer cl.Close()
	pf := bindings.NewPriceFeed()

	require.NoError(t, c.SetPrice(ctx, ETHUSDFeedAddress, big.NewInt(ETHUSDAnswer), time.Unix(0, 0)))
	r, err := pf.UnpackLatestRoundData(call(t, ctx, cl, ETHUSDFeedAddress, pf.PackLatestRoundData()))
	require.NoError(t, err)
	require.Zero(t, r.UpdatedAt.Sign())
	stale := time.Now().Add(-2 * time.Hour).Truncate(time.Second)
	require.NoError(t, c.SetPrice(ctx, ETHUSDFeedAddress, big.NewInt(ETHUSDAnswer), stale))
	round := r.RoundId
	time.Sleep(500 * time.Millisecond) // blocks keep coming; nothing re-posts
	r, err = pf.UnpackLatestRoundData(call(t, ctx, cl, ETHUSDFeedAddress, pf.PackLatestRoundData()))
	require.NoError(t, err)
	require.Equal(t, stale.Unix(), r.UpdatedAt.Int64())
	require.Equal(t, new(big.Int).Add(round, big.NewInt(1)), r.RoundId)
}

// The chain's RPC port also serves websocket subscriptions: a client follows new heads and the
// transactions entering the pool without polling.
func TestTheRPCPortServesSubscriptions(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, cl := startPaused(t, ctx)
	ws, err := rpc.DialContext(ctx, "ws://"+strings.TrimPrefix(c.RPCURL, "http://"))
	require.NoError(t, err)
	defer ws.Close()
	heads := make(chan *types.Header, 4)
	hs, err := ws.EthSubscribe(ctx, heads, "newHeads")
	require.NoError(t, err)
	defer hs.Unsubscribe()
	pooled := make(chan common.Hash, 4)
	ps, err := ws.EthSubscribe(ctx, pooled, "newPendingTransactions")
	require.NoError(t, err)
	defer ps.Unsubscribe()

	tx := sendTx(t, ctx, cl, TestAccounts()[1].Key, TestAccounts()[2].Address, big.NewInt(1), nil)
	select {
	case h := <-pooled:
		require.Equal(t, tx.Hash(), h)
	case <-ctx.Done():
		t.Fatal("no pool notification")
	}
	r := mineUntil(t, ctx, c, cl, tx.Hash())
	for {
		select {
		case h := <-heads:
			if h.Number.Cmp(r.BlockNumber) == 0 {
				return
			}
		case <-ctx.Done():
			t.Fatalf("no head notification of block %v", r.BlockNumber)
		}
	}
}

// The RPC port serves debug_traceCall with the built-in callTracer, which the simulated backend
// alone does not (devnet/backend.go): a call that reverts comes back as its call frame.
func TestTheRPCPortServesTraceCallWithTheCallTracer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, _ := startPaused(t, ctx)
	rc, err := rpc.DialContext(ctx, c.RPCURL)
	require.NoError(t, err)
	defer rc.Close()
	// A transfer of more USDC than the caller holds: TestUSDC reverts.
	var frame struct {
		Type  string `json:"type"`
		To    string `json:"to"`
		Error string `json:"error"`
	}
	call := map[string]any{
		"from": TestAccounts()[1].Address,
		"to":   USDCAddress,
		"data": hexutil.Encode(append(crypto.Keccak256([]byte("transfer(address,uint256)"))[:4],
			append(common.LeftPadBytes(TestAccounts()[2].Address.Bytes(), 32), common.LeftPadBytes(new(big.Int).Lsh(big.NewInt(1), 200).Bytes(), 32)...)...)),
	}
	require.NoError(t, rc.CallContext(ctx, &frame, "debug_traceCall", call, "latest", map[string]any{"tracer": "callTracer"}))
	require.Equal(t, "CALL", frame.Type)
	require.True(t, strings.EqualFold(USDCAddress.Hex(), frame.To), frame.To)
	require.Equal(t, "execution reverted", frame.Error)
}
