// Package integration runs the whole engine in-process on real parts: Temporal (temporaltest),
// Postgres, the devnet chains over HTTP JSON-RPC, the oracle over HTTP, the worker and the API,
// composed by package app exactly as the binary composes them.
package integration

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

// testAdminToken is the admin bearer token of the test stacks; the engine is configured with
// its SHA-256 only.
const testAdminToken = "test-admin-token"

var adminTokenHash = sha256.Sum256([]byte(testAdminToken))

type stack struct {
	API    *e2e.Client
	Devnet *devnet.Devnet
	Sys    *app.System
	RPCs   map[uint64]string

	ctx context.Context // the stack's, ended when the test ends
	// stopWorker stops the worker started last (gracefully, as on a deploy).
	stopWorker func()
}

// stackBlockTime is how often the stack's devnet chains seal a block.
const stackBlockTime = 250 * time.Millisecond

func lookup(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// startStack runs the engine on a fresh devnet. env overrides or adds configuration
// variables (for example a short FILL_BUMP_AFTER).
func startStack(t *testing.T, env ...map[string]string) *stack {
	t.Helper()
	vars := map[string]string{}
	for _, e := range env {
		maps.Copy(vars, e)
	}
	return startStackWith(t, stackOptions{env: vars})
}

// stackOptions configure startStackWith.
type stackOptions struct {
	env map[string]string
	// rpc, when set, gives the URL the engine reaches a chain at (a proxy in front of it);
	// tests and wallets keep using the chain directly.
	rpc func(chainID uint64, url string) string
	// logger, when set, receives every log record of the stack: the devnet, the oracle, the
	// engine and the Temporal SDK (which app.Open wires from the same logger). Default: WARN and
	// above to stderr.
	logger *slog.Logger
}

func startStackWith(t *testing.T, o stackOptions) *stack {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	logger := o.logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}

	dn, err := devnet.Start(ctx, devnet.Options{Chains: []devnet.ChainOptions{{ID: 31337}, {ID: 31338}},
		BlockTime: stackBlockTime, Logger: logger,
		// No heartbeat: tests that make a feed stale must not see it refreshed under them; the
		// feeds set at start stay within the staleness bound for the length of a test.
		FeedHeartbeat: -1})
	if err != nil {
		t.Fatalf("devnet: %v", err)
	}
	t.Cleanup(dn.Close)
	rpcs, engineRPCs := map[uint64]string{}, map[uint64]string{}
	for _, c := range dn.Chains() {
		rpcs[c.ID], engineRPCs[c.ID] = c.RPCURL, c.RPCURL
		if o.rpc != nil {
			engineRPCs[c.ID] = o.rpc(c.ID, c.RPCURL)
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

	vars := map[string]string{
		"TEMPORAL_ADDRESS": ts.GetFrontendHostPort(), "TEMPORAL_NAMESPACE": ts.GetDefaultNamespace(),
		"ORACLE_URL": oracleHTTP.URL, "SCAN_INTERVAL": "200ms",
		"ADMIN_TOKEN_SHA256": hex.EncodeToString(adminTokenHash[:]),
	}
	maps.Copy(vars, o.env)
	cfg, err := app.Load(lookup(vars), app.DevDefaults(testenv.DatabaseURL(t), oracleAPIKey))
	if err != nil {
		t.Fatal(err)
	}
	sys, err := app.Open(ctx, cfg, registry, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sys.Close)
	st := &stack{Devnet: dn, Sys: sys, RPCs: rpcs, ctx: ctx}
	st.startWorker(t)
	t.Cleanup(cancel) // before the worker's cleanup, as ever: the stack stops as one
	api := httptest.NewServer(sys.APIServer(ctx).Handler())
	t.Cleanup(api.Close)
	st.API = &e2e.Client{BaseURL: api.URL}
	return st
}

// startWorker runs a worker (and its deposit scanner) of the stack's engine until stopWorker or
// the end of the test.
func (s *stack) startWorker(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(s.ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = worker.Run(ctx, s.Sys.WorkerDeps()) }()
	s.stopWorker = func() { cancel(); <-done }
	t.Cleanup(s.stopWorker)
}

// balance reads a native or ERC-20 balance on a devnet chain.
func (s *stack) balance(t *testing.T, chainID uint64, currency, account common.Address) *big.Int {
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

// fills counts the output settler's Fill events for an order on a chain.
func (s *stack) fills(t *testing.T, chainID uint64, orderID common.Hash) int {
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
