// Package testkit builds the engine's in-process test stack on real parts: Temporal
// (temporaltest), a fresh Postgres database, two devnet chains over HTTP JSON-RPC, the oracle
// over HTTP, the worker and the API, composed by package app exactly as the binaries compose
// them. The integration tests and the SDK suite (e2e/) start their stacks here.
package testkit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"maps"
	"math/big"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/gin-gonic/gin"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/server/temporaltest"

	"github.com/intentd/intentd/app"
	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/internal/e2e"
	"github.com/intentd/intentd/internal/testenv"
	"github.com/intentd/intentd/oracle"
	"github.com/intentd/intentd/worker"
	"github.com/intentd/intentd/workflows"
)

// AdminToken is the admin bearer token of the test stacks; the engine is configured with its
// SHA-256 only.
const AdminToken = "test-admin-token"

// Options configure Start; the zero value is a default stack.
type Options struct {
	// Env overrides or adds configuration variables (for example a short FILL_BUMP_AFTER).
	Env map[string]string
	// RPC, when set, gives the URL the engine reaches a chain at (a proxy in front of it);
	// tests and wallets keep using the chain directly.
	RPC func(chainID uint64, url string) string
	// Logger receives the engine's logs (API, worker, Temporal SDK, oracle); default: WARN and
	// above to stderr.
	Logger *slog.Logger
	// OnBlock is called after each block a devnet chain seals (devnet.Options.OnBlock).
	OnBlock func(chainID, number uint64, at time.Time)
}

// BlockTime is how often the stack's devnet chains seal a block.
const BlockTime = 250 * time.Millisecond

// Stack is a running engine on a fresh devnet; Start stops it when the test ends.
type Stack struct {
	API    *e2e.Client
	Devnet *devnet.Devnet
	Sys    *app.System
	// RPCs are the chains' JSON-RPC URLs by chain id (direct, never the engine's proxies).
	RPCs map[uint64]string

	ctx        context.Context // the stack's, ended when the test ends
	stopWorker func()
}

func lookup(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// Start runs the engine on a fresh devnet (250 ms blocks).
func Start(t *testing.T, o Options) *Stack {
	t.Helper()
	gin.SetMode(gin.ReleaseMode)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}

	dn, err := devnet.Start(ctx, devnet.Options{Chains: []devnet.ChainOptions{{ID: 31337}, {ID: 31338}},
		BlockTime: BlockTime, Logger: logger,
		// No heartbeat: tests that make a feed stale must not see it refreshed under them; the
		// feeds set at start stay within the staleness bound for the length of a test.
		FeedHeartbeat: -1, OnBlock: o.OnBlock})
	if err != nil {
		t.Fatalf("devnet: %v", err)
	}
	t.Cleanup(dn.Close)
	rpcs, engineRPCs := map[uint64]string{}, map[uint64]string{}
	for _, c := range dn.Chains() {
		rpcs[c.ID], engineRPCs[c.ID] = c.RPCURL, c.RPCURL
		if o.RPC != nil {
			engineRPCs[c.ID] = o.RPC(c.ID, c.RPCURL)
		}
	}
	registry, err := chains.NewRegistry(devnet.ChainConfigs(engineRPCs))
	if err != nil {
		t.Fatal(err)
	}

	ts := temporaltest.NewServer(temporaltest.WithT(t))
	if _, err := ts.GetDefaultClient().OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace: ts.GetDefaultNamespace(), SearchAttributes: workflows.SearchAttributeTypes()}); err != nil {
		t.Fatalf("search attributes: %v", err)
	}

	oracleAPIKey := "test-oracle-key"
	ocfg, err := oracle.ConfigFromEnv(lookup(map[string]string{"ENVIRONMENT": "test",
		"ECDSA_PRIVATE_KEY": hex.EncodeToString(crypto.FromECDSA(devnet.OracleKey())), "API_KEYS": oracleAPIKey + ":worker"}))
	if err != nil {
		t.Fatal(err)
	}
	// The oracle is a service of its own: it reaches the chains directly.
	direct, err := dn.Registry()
	if err != nil {
		t.Fatal(err)
	}
	osrv, err := oracle.NewServer(ocfg, direct, logger)
	if err != nil {
		t.Fatal(err)
	}
	oracleHTTP := httptest.NewServer(osrv.Handler())
	t.Cleanup(oracleHTTP.Close)

	adminTokenHash := sha256.Sum256([]byte(AdminToken))
	vars := map[string]string{
		"TEMPORAL_ADDRESS": ts.GetFrontendHostPort(), "TEMPORAL_NAMESPACE": ts.GetDefaultNamespace(),
		"ORACLE_URL": oracleHTTP.URL, "SCAN_INTERVAL": "200ms",
		"ADMIN_TOKEN_SHA256": hex.EncodeToString(adminTokenHash[:]),
	}
	maps.Copy(vars, o.Env)
	cfg, err := app.Load(lookup(vars), devnet.EngineEnv(testenv.DatabaseURL(t), oracleAPIKey))
	if err != nil {
		t.Fatal(err)
	}
	sys, err := app.Open(ctx, cfg, registry, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sys.Close)
	st := &Stack{Devnet: dn, Sys: sys, RPCs: rpcs, ctx: ctx}
	st.StartWorker(t)
	t.Cleanup(cancel) // before the worker's cleanup, as ever: the stack stops as one
	api := httptest.NewServer(sys.APIServer(ctx).Handler())
	t.Cleanup(api.Close)
	st.API = &e2e.Client{BaseURL: api.URL}
	return st
}

// StartWorker runs a worker (and its deposit scanner) of the stack's engine until StopWorker or
// the end of the test.
func (s *Stack) StartWorker(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithCancel(s.ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = worker.Run(ctx, s.Sys.WorkerDeps()) }()
	s.stopWorker = func() { cancel(); <-done }
	t.Cleanup(s.stopWorker)
}

// StopWorker stops the worker started last, gracefully, as on a deploy.
func (s *Stack) StopWorker() { s.stopWorker() }

// Balance reads a native or ERC-20 balance on a devnet chain.
func (s *Stack) Balance(t testing.TB, chainID uint64, currency, account common.Address) *big.Int {
	t.Helper()
	c, err := s.Devnet.Chain(chainID).Dial(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if currency == (common.Address{}) {
		b, err := c.BalanceAt(context.Background(), account, nil)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	out, err := c.CallContract(context.Background(), ethereum.CallMsg{To: &currency, Data: evm.ERC20ABI.PackBalanceOf(account)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := evm.ERC20ABI.UnpackBalanceOf(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Fills counts the output settler's Fill events for an order on a chain.
func (s *Stack) Fills(t testing.TB, chainID uint64, orderID common.Hash) int {
	t.Helper()
	c, err := s.Devnet.Chain(chainID).Dial(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	settler := devnet.OutputSettlerAddress
	logs, err := c.FilterLogs(context.Background(), ethereum.FilterQuery{FromBlock: big.NewInt(0), Addresses: []common.Address{settler},
		Topics: [][]common.Hash{{evm.OutputSettlerABI.GetABI().Events["Fill"].ID}, {orderID}}})
	if err != nil {
		t.Fatal(err)
	}
	return len(logs)
}
