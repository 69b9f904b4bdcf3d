package oracle

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/oracle/oracleapi"
)

// Test secrets: distinctive so the no-secret tests can search every output for them.
const (
	testOracleKeyHex = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
	testAPIKey       = "sk_test_do_not_log_me_7f3a9c2e51b0d84a"
	testChainID      = 31337
)

func TestMain(m *testing.M) {
	gin.SetMode(gin.TestMode)
	os.Exit(m.Run())
}

func testOracleKey(t testing.TB) *ecdsa.PrivateKey {
	k, err := crypto.HexToECDSA(testOracleKeyHex)
	require.NoError(t, err)
	return k
}

func testOracleAddress(t testing.TB) common.Address {
	return crypto.PubkeyToAddress(testOracleKey(t).PublicKey)
}

// env is a lookup over a map, the test stand-in for os.LookupEnv.
func env(kv map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := kv[k]; return v, ok }
}

// baseEnv is the smallest valid configuration; tests add or override entries.
func baseEnv(extra map[string]string) map[string]string {
	m := map[string]string{
		EnvEnvironment: "test",
		EnvPrivateKey:  "0x" + testOracleKeyHex,
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

func mustConfig(t testing.TB, extra map[string]string) Config {
	t.Helper()
	cfg, err := ConfigFromEnv(env(baseEnv(extra)))
	require.NoError(t, err)
	return cfg
}

// syncBuffer collects log output written from handler goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func debugLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// testChain is a real EVM chain: a devnet chain (go-ethereum's simulated backend serving
// JSON-RPC over HTTP on a loopback port, with the project's contracts deployed) that seals a
// block only when a test commits one, and a funded test account as the user.
type testChain struct {
	chain      *devnet.Chain
	rpcURL     string
	client     *ethclient.Client
	chainID    *big.Int
	user       *ecdsa.PrivateKey
	depository common.Address
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	return port
}

func startChain(t testing.TB, chainID uint64) *testChain {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	// A block time of an hour leaves block production to the tests' commits.
	dn, err := devnet.Start(ctx, devnet.Options{Chains: []devnet.ChainOptions{{ID: chainID}}, BlockTime: time.Hour,
		FeedHeartbeat: -1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	t.Cleanup(dn.Close)
	c := dn.Chain(chainID)
	tc := &testChain{chain: c, rpcURL: c.RPCURL, chainID: new(big.Int).SetUint64(chainID),
		user: devnet.TestAccounts()[0].Key, depository: devnet.DepositoryAddress}
	tc.client, err = c.Dial(ctx)
	require.NoError(t, err)
	t.Cleanup(tc.client.Close)

	// A fresh node answers "transaction indexing is in progress" for unknown hashes until its
	// indexer has caught up; the tests want the settled node's answers.
	var lastErr error
	require.Eventually(t, func() bool {
		_, lastErr = tc.client.TransactionReceipt(context.Background(), common.HexToHash("0x01"))
		return errors.Is(lastErr, ethereum.NotFound)
	}, 10*time.Second, 5*time.Millisecond, "last answer: %v", lastErr)
	return tc
}

func (tc *testChain) opts(value *big.Int) *bind.TransactOpts {
	o := bind.NewKeyedTransactor(tc.user, tc.chainID)
	o.Value = value
	return o
}

// solverCall sends data to contract from the devnet's solver (the depository's owner, which
// also fills through the output settler) with value, mines it and returns its hash.
func (tc *testChain) solverCall(t testing.TB, contract common.Address, abi interface {
	Instance(bind.ContractBackend, common.Address) *bind.BoundContract
}, data []byte, value *big.Int) common.Hash {
	t.Helper()
	o := bind.NewKeyedTransactor(devnet.SolverKey(), tc.chainID)
	o.Value = value
	tx, err := bind.Transact(abi.Instance(tc.client, contract), o, data)
	require.NoError(t, err)
	tc.commit(1)
	tc.requireStatus(t, tx.Hash(), types.ReceiptStatusSuccessful)
	return tx.Hash()
}

func (tc *testChain) requireStatus(t testing.TB, h common.Hash, status uint64) {
	t.Helper()
	r, err := tc.client.TransactionReceipt(context.Background(), h)
	require.NoError(t, err)
	require.Equal(t, status, r.Status)
}

// depositNative sends depositNative(orderID) with amount; the caller decides when to Commit.
func (tc *testChain) depositNative(t testing.TB, orderID common.Hash, amount *big.Int) common.Hash {
	t.Helper()
	return tc.depositNativeAt(t, orderID, amount, nil)
}

// depositNativeAt is depositNative with the user's nonce, for deposits sent in a row: the node's
// pending nonce may not count the one sent just before yet (its pool promotes transactions in the
// background), and a nonce read twice would replace the first deposit.
func (tc *testChain) depositNativeAt(t testing.TB, orderID common.Hash, amount *big.Int, nonce *big.Int) common.Hash {
	t.Helper()
	o := tc.opts(amount)
	o.Nonce = nonce
	if amount.Sign() == 0 {
		o.GasLimit = 200_000 // the call reverts; skip estimation, which would refuse it
	}
	tx, err := bind.Transact(depositoryABI.Instance(tc.client, tc.depository), o, depositoryABI.PackDepositNative(orderID))
	require.NoError(t, err)
	return tx.Hash()
}

// transfer sends plain ether: a successful transaction without any Deposit event.
func (tc *testChain) transfer(t testing.TB, to common.Address, amount *big.Int) common.Hash {
	t.Helper()
	ctx := context.Background()
	from := crypto.PubkeyToAddress(tc.user.PublicKey)
	nonce, err := tc.client.PendingNonceAt(ctx, from)
	require.NoError(t, err)
	tip, err := tc.client.SuggestGasTipCap(ctx)
	require.NoError(t, err)
	head, err := tc.client.HeaderByNumber(ctx, nil)
	require.NoError(t, err)
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip)
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: tc.chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: 21000, To: &to, Value: amount})
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(tc.chainID), tc.user)
	require.NoError(t, err)
	require.NoError(t, tc.client.SendTransaction(ctx, signed))
	return signed.Hash()
}

func (tc *testChain) commit(n int) {
	for range n {
		tc.chain.Mine()
	}
}

func (tc *testChain) chainConfig(confirmations uint64) chains.Chain {
	return chains.Chain{
		ID: tc.chainID.Uint64(), Name: "devnet", VMType: chains.VMTypeEVM, HTTPRPCURL: tc.rpcURL,
		Confirmations: confirmations, Depository: tc.depository.Hex(), OutputSettler: devnet.OutputSettlerAddress.Hex(),
		Currency: chains.Currency{ID: "eth", Symbol: "ETH", Name: "Ether", Decimals: 18},
	}
}

func registry(t testing.TB, list ...chains.Chain) *chains.Registry {
	t.Helper()
	r, err := chains.NewRegistry(list)
	require.NoError(t, err)
	return r
}

// newTestServer serves the oracle on an httptest server and returns both.
func newTestServer(t testing.TB, cfg Config, reg *chains.Registry, logger *slog.Logger) (*Server, *httptest.Server) {
	t.Helper()
	srv, err := NewServer(cfg, reg, logger)
	require.NoError(t, err)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return srv, hs
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) errorBody(t testing.TB) oracleapi.Error {
	t.Helper()
	var e oracleapi.Error
	require.NoError(t, json.Unmarshal(r.body, &e), string(r.body))
	return e
}

func do(t testing.TB, method, url, body string, header map[string]string) response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

func attestBody(chainID uint64, tx common.Hash) string {
	return `{"chainId":` + strconv.FormatUint(chainID, 10) + `,"transactionId":"` + tx.Hex() + `"}`
}

// newHTTPServer serves srv on a loopback httptest server and returns its URL.
func newHTTPServer(t testing.TB, srv *Server) string {
	t.Helper()
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return hs.URL
}

// decodeAttestation reads a deposit attestation whose signatures verify.
func decodeAttestation(t testing.TB, body []byte) *oracleapi.DepositAttestation {
	t.Helper()
	var att oracleapi.DepositAttestation
	require.NoError(t, json.Unmarshal(body, &att), string(body))
	require.NoError(t, oracleapi.VerifyAttestation(&att))
	return &att
}
