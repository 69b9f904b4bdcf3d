// Package testkit builds the engine's test stack on real parts: Temporal (temporaltest), Postgres,
// two devnet chains over HTTP JSON-RPC, the oracle over HTTP, the worker and the API, composed by
// package app exactly as the binaries compose them. Every test tier starts its stack here: the
// integration tests and the SDK suite (e2e/) with the defaults, the reliability tests with the
// worker as a separate `intentd worker` process, a private Postgres they crash and fault proxies
// in front of the chains, and the engine-share benchmark with a proxy of its own.
//
// Its subpackages are the rigs the stack is made of and that tests use directly: testenv (a fresh
// Postgres database per test), e2e (the client: HTTP API and wallet), faultproxy (a JSON-RPC proxy
// that fails and delays calls) and process (building and supervising the worker process).
package testkit

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"go.temporal.io/api/operatorservice/v1"

	"github.com/intentd/intentd/api"
	"github.com/intentd/intentd/app"
	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/solana"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/devnet/exchange"
	"github.com/intentd/intentd/devnet/svm"
	"github.com/intentd/intentd/devstack"
	"github.com/intentd/intentd/internal/process"
	"github.com/intentd/intentd/oracle"
	"github.com/intentd/intentd/testkit/e2e"
	"github.com/intentd/intentd/testkit/faultproxy"
	"github.com/intentd/intentd/testkit/testenv"
	"github.com/intentd/intentd/workflows"
)

// AdminToken is the admin bearer token of the test stacks (ADMIN_TOKEN): random, so strong
// enough for the engine to start with it.
const AdminToken = "ia_test_9c41e07b2a5f83d61e4b0c97a2d58f3e6b1c04a79d2e85f30b6a1c4d7e92f058"

// OracleAPIKey is the worker's key at the stack's oracle (a secret of the stack: tests check it
// never reaches a log); at least oracle.MinAPIKeyLength characters, as the oracle requires.
const OracleAPIKey = "test-oracle-key-5f1c9e27a3b84d0e6c1a92f7"

// Options configure Start; the zero value is a default stack: a fresh database on the tests'
// Postgres, the worker in the test process, logs at WARN and above to stderr.
type Options struct {
	// Env overrides or adds configuration variables (for example a short FILL_BUMP_AFTER).
	Env map[string]string
	// RPC, when set, gives the URL the engine (API and worker) reaches a chain at: a proxy in
	// front of url, the local Solana chain's too (Solana). The oracle, the tests and their
	// wallets keep using the chain directly.
	RPC func(chainID uint64, url string) string
	// Faults, when set, puts a fault proxy in front of each chain (the local Solana chain's too)
	// for the worker and the oracle (not the API, the tests or their wallets): Target is set per chain and Seed offset by the
	// chain id. Stack.Proxies are the proxies.
	Faults *faultproxy.Config
	// Logger receives the logs of the stack's parts in the test process (devnet, oracle, API,
	// worker, Temporal SDK); default: WARN and above to stderr.
	Logger *slog.Logger
	// OnBlock is called after each block a devnet chain seals (devnet.Options.OnBlock).
	OnBlock func(chainID, number uint64, at time.Time)
	// PrivatePostgres runs the engine on a Postgres cluster of the stack's own, on a free port,
	// that Stack.RestartPostgres crashes or stops and starts again; default: a fresh database on
	// the tests' Postgres (testenv).
	PrivatePostgres bool
	// WorkerBinary, when set, is an intentd binary (process.BuildIntentd): the worker runs as
	// `intentd worker`, a process of its own configured through its environment only, supervised
	// by Stack.WorkerProcess. Default: the worker runs in the test process.
	WorkerBinary string
	// OracleBinary, when set, is an intentd binary (process.BuildIntentd): the stack's three
	// oracles run as `intentd oracle` processes of their own, configured through their
	// environment only, supervised by Stack.OracleProcesses. Default: they run in the test
	// process.
	OracleBinary string
	// LogDir receives the worker process's log files and its chain file; default: a temporary
	// directory.
	LogDir string
	// ProcessMetrics gives every process the stack starts (worker, oracle, API and dispatcher
	// processes) a metrics port of its own (METRICS_ADDR on a free loopback port), listed in
	// Stack.MetricsURLs by process name.
	ProcessMetrics bool
	// Chain, when set, edits each devnet chain's entry of the chain file the stack's in-process
	// parts load, the engine and the oracles alike (say, confirmationTiers and an
	// exposureCapUsd), as an operator edits the shared file. The processes of WorkerBinary and
	// OracleBinary read the devnet's file unedited.
	Chain func(*chains.Chain)
	// Solana runs the local Solana chain (devnet/svm, litesvm behind our JSON-RPC; `make
	// solana-deps` installs it) beside the EVM chains, listed as devnet.SolanaChainConfig in the
	// registry of the stack's in-process parts (engine and oracles): Stack.Solana is the chain,
	// Stack.RPCs[solana.ChainID] its URL. The engine pays its fills with the devnet's Solana
	// solver key (devnet.EngineEnv).
	Solana bool
	// Exchange runs the local perps exchange (devnet/exchange, funded as `intentd-dev devnet`
	// funds it: devnet.StartExchange) and lists it as devnet.ExchangeChainConfig (chain 1337) in
	// the registry of the engine's parts and the oracles': Stack.Exchange is the exchange,
	// Stack.RPCs[1337] its URL.
	Exchange bool
}

// BlockTime is how often the stack's devnet chains seal a block.
const BlockTime = 250 * time.Millisecond

// Stack is a running engine on a fresh devnet; Start stops it when the test ends.
type Stack struct {
	API *e2e.Client
	// Admin is the admin API's client: its own listener (as ADMIN_ADDR serves it), with the
	// stack's AdminToken as its bearer token. The public listener (API) has no /admin/ routes.
	Admin  *e2e.Client
	Devnet *devnet.Devnet
	// Sys is the API's system; its Temporal client and store serve the tests' checks too.
	Sys *app.System
	// APIServer is the API that API and Admin reach. Its usage counts are written by FlushUsage
	// only: the stack does not run `intentd api`'s flush loop, so a test decides when they land.
	APIServer *api.Server
	// RPCs are the chains' JSON-RPC URLs by chain id (direct, never the engine's proxies).
	RPCs map[uint64]string
	// DatabaseURL is the engine's database.
	DatabaseURL string
	// Solana is the local Solana chain of Options.Solana; nil without it.
	Solana *svm.Chain
	// Exchange is the local perps exchange of Options.Exchange; nil without it.
	Exchange *exchange.Server
	// Proxies are the fault proxies of Options.Faults, one per chain.
	Proxies []*faultproxy.Server
	// WorkerProcess supervises the worker process of Options.WorkerBinary; nil when the worker
	// runs in the test process.
	WorkerProcess *process.Supervisor
	// OracleProcesses supervise the oracle processes of Options.OracleBinary, the first the one
	// the worker asks; nil when the oracles run in the test process.
	OracleProcesses []*process.Supervisor

	ctx        context.Context // the stack's, ended when the test ends
	workerSys  *app.System     // the in-process worker's: Sys, or its own when it dials other URLs
	stopWorker func()

	// processEnv, logDir and apiRPCs configure the processes StartAPIProcess starts.
	processEnv     map[string]string
	logDir         string
	apiRPCs        map[uint64]string
	apiProcesses   int
	apiSupervisors []*process.Supervisor
	dispatchers    int

	// MetricsURLs are the metrics ports of the processes (Options.ProcessMetrics), by name:
	// "worker", "oracle1", "api1", "dispatcher1", …
	MetricsURLs    map[string]string
	processMetrics bool
	workers        int
	workerRPCs     map[uint64]string

	// devnetOpts start the stack's devnet again (RestartDevnet).
	devnetOpts devnet.Options

	pgMu   sync.Mutex // guards pg across RestartPostgres
	pg     *devstack.Postgres
	pgOpts devstack.PostgresOptions
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
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	if o.LogDir == "" {
		o.LogDir = t.TempDir()
	}
	s := &Stack{ctx: ctx, processMetrics: o.ProcessMetrics, MetricsURLs: map[string]string{}}
	s.DatabaseURL = s.database(t, o)

	s.devnetOpts = devnet.Options{Chains: []devnet.ChainOptions{{ID: 31337}, {ID: 31338}},
		BlockTime: BlockTime, Logger: o.Logger,
		// No heartbeat: tests that make a feed stale must not see it refreshed under them; the
		// feeds set at start stay within the staleness bound for the length of a test.
		FeedHeartbeat: -1, OnBlock: o.OnBlock}
	dn, err := devnet.Start(ctx, s.devnetOpts)
	if err != nil {
		t.Fatalf("devnet: %v", err)
	}
	t.Cleanup(dn.Close)
	s.Devnet = dn
	if o.Solana {
		sol, err := svm.Start(ctx, svm.Options{Logger: o.Logger})
		if err != nil {
			t.Fatalf("solana: %v", err)
		}
		t.Cleanup(func() { _ = sol.Close() })
		s.Solana = sol
	}
	if o.Exchange {
		ex, err := devnet.StartExchange(ctx, exchange.Options{Logger: o.Logger})
		if err != nil {
			t.Fatalf("exchange: %v", err)
		}
		t.Cleanup(func() { _ = ex.Close() })
		s.Exchange = ex
	}
	u := s.chainURLs(t, o)
	s.RPCs = u.direct

	ts := testenv.TemporalServer(t)
	if _, err := ts.GetDefaultClient().OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace: ts.GetDefaultNamespace(), SearchAttributes: workflows.SearchAttributeTypes()}); err != nil {
		t.Fatalf("search attributes: %v", err)
	}
	var oracleURL string
	if o.OracleBinary != "" {
		oracleURL = s.startOracleProcesses(t, o, u.oracle)
	} else {
		oracleURL = startOracle(t, registry(t, u.oracle, o.Chain), o.Logger)
	}

	vars := map[string]string{
		"TEMPORAL_ADDRESS": ts.GetFrontendHostPort(), "TEMPORAL_NAMESPACE": ts.GetDefaultNamespace(),
		"ORACLE_URL": oracleURL, "SCAN_INTERVAL": "200ms",
		"ADMIN_TOKEN": AdminToken,
		// The tests' clients (and the SDK suite) send no key, all from 127.0.0.1, and poll
		// status ten times a second: per-IP limits would refuse them. The limits have tests of
		// their own (api, ratelimit); Options.Env may turn these back on.
		"RATE_LIMITS_ANONYMOUS": "off",
		"WEBHOOK_SECRETS_KEY":   WebhookSecretsKey,
	}
	maps.Copy(vars, o.Env)
	defaults := devnet.EngineEnv(s.DatabaseURL, OracleAPIKey)
	cfg, err := app.Load(lookup(vars), defaults)
	if err != nil {
		t.Fatal(err)
	}
	s.Sys = open(t, ctx, cfg, registry(t, u.api, o.Chain), o.Logger)
	if o.PrivatePostgres {
		if _, err := s.Sys.Migrate(ctx); err != nil {
			t.Fatalf("migrate: %v", err)
		}
	}

	s.processEnv, s.logDir, s.apiRPCs = environment(defaults, vars), o.LogDir, u.api
	if o.WorkerBinary != "" {
		s.startWorkerProcess(t, o, u.worker, environment(defaults, vars))
	} else {
		s.workerSys = s.Sys
		if !maps.Equal(u.worker, u.api) {
			s.workerSys = open(t, ctx, cfg, registry(t, u.worker, o.Chain), o.Logger)
		}
		s.StartWorker(t)
	}
	t.Cleanup(cancel) // before the worker's cleanup, as ever: the stack stops as one
	// The API is served as `intentd api` serves it: with its connection timeouts and limits, the
	// admin API on a listener of its own.
	srv := s.Sys.APIServer(ctx)
	api, admin := httptest.NewUnstartedServer(nil), httptest.NewUnstartedServer(nil)
	api.Config, admin.Config = srv.HTTPServer(""), srv.AdminHTTPServer("")
	api.Start()
	admin.Start()
	t.Cleanup(api.Close)
	t.Cleanup(admin.Close)
	s.API = &e2e.Client{BaseURL: api.URL}
	s.Admin = &e2e.Client{BaseURL: admin.URL, Bearer: AdminToken}
	s.APIServer = srv
	return s
}

// FlushUsage writes the usage counts the API has recorded so far (GET /metrics/usage and the
// dashboard's observability read them), as `intentd api` does every few seconds.
func (s *Stack) FlushUsage(ctx context.Context) error { return s.APIServer.Usage.FlushAll(ctx) }

// urls are the chains' JSON-RPC URLs as each part of the stack dials them.
type urls struct{ direct, api, worker, oracle map[uint64]string }

// chainURLs starts the fault proxies and applies Options.RPC.
func (s *Stack) chainURLs(t *testing.T, o Options) urls {
	u := urls{direct: map[uint64]string{}, api: map[uint64]string{}, worker: map[uint64]string{}, oracle: map[uint64]string{}}
	for _, c := range s.Devnet.Chains() {
		u.direct[c.ID], u.api[c.ID], u.worker[c.ID], u.oracle[c.ID] = c.RPCURL, c.RPCURL, c.RPCURL, c.RPCURL
		if o.Faults != nil {
			fc := *o.Faults
			fc.Target, fc.Seed = c.RPCURL, o.Faults.Seed+int64(c.ID)
			p, err := faultproxy.Start("127.0.0.1:0", fc)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			s.Proxies = append(s.Proxies, p)
			u.worker[c.ID], u.oracle[c.ID] = p.URL, p.URL
		}
		if o.RPC != nil {
			u.api[c.ID] = o.RPC(c.ID, u.api[c.ID])
			u.worker[c.ID] = o.RPC(c.ID, u.worker[c.ID])
		}
	}
	if s.Solana != nil {
		for _, m := range []map[uint64]string{u.direct, u.api, u.worker, u.oracle} {
			m[solana.ChainID] = s.Solana.RPCURL
		}
		// The local Solana chain speaks JSON-RPC over HTTP as the EVM nodes do (no websocket):
		// the same proxy sits in front of it for the worker and the oracle.
		if o.Faults != nil {
			fc := *o.Faults
			fc.Target, fc.Seed = s.Solana.RPCURL, o.Faults.Seed+int64(solana.ChainID)
			p, err := faultproxy.Start("127.0.0.1:0", fc)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			s.Proxies = append(s.Proxies, p)
			u.worker[solana.ChainID], u.oracle[solana.ChainID] = p.URL, p.URL
		}
		if o.RPC != nil {
			u.api[solana.ChainID] = o.RPC(solana.ChainID, u.api[solana.ChainID])
			u.worker[solana.ChainID] = o.RPC(solana.ChainID, u.worker[solana.ChainID])
		}
	}
	if s.Exchange != nil {
		for _, m := range []map[uint64]string{u.direct, u.api, u.worker, u.oracle} {
			m[devnet.ExchangeChainID] = s.Exchange.URL()
		}
		if o.RPC != nil {
			u.api[devnet.ExchangeChainID] = o.RPC(devnet.ExchangeChainID, u.api[devnet.ExchangeChainID])
			u.worker[devnet.ExchangeChainID] = o.RPC(devnet.ExchangeChainID, u.worker[devnet.ExchangeChainID])
		}
	}
	return u
}

// chainConfigs are the registry entries of the chains at rpcs: the local Solana chain's
// (devnet.SolanaChainConfig) for solana.ChainID, the local perps exchange's
// (devnet.ExchangeChainConfig) for its chain, the devnet's EVM chains' for the others.
func chainConfigs(rpcs map[uint64]string) []chains.Chain {
	evm := maps.Clone(rpcs)
	sol, ok := evm[solana.ChainID]
	delete(evm, solana.ChainID)
	ex, exOK := evm[devnet.ExchangeChainID]
	delete(evm, devnet.ExchangeChainID)
	list := devnet.ChainConfigs(evm)
	if ok {
		list = append(list, devnet.SolanaChainConfig(sol))
	}
	if exOK {
		list = append(list, devnet.ExchangeChainConfig(ex))
	}
	return list
}

// registry is the devnet chains' registry at rpcs, each entry edited by edit when set.
func registry(t *testing.T, rpcs map[uint64]string, edit func(*chains.Chain)) *chains.Registry {
	list := chainConfigs(rpcs)
	for i := range list {
		if edit != nil {
			edit(&list[i])
		}
	}
	r, err := chains.NewRegistry(list)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// open opens an engine system on the chains of reg, closed when the test ends.
func open(t *testing.T, ctx context.Context, cfg app.Config, reg *chains.Registry, logger *slog.Logger) *app.System {
	sys, err := app.Open(ctx, cfg, reg, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sys.Close)
	return sys
}

// startOracle serves the devnet.OracleCount oracles, each a service of its own on a loopback
// listener with its devnet key, peers of each other at 2-of-3 as `make run` runs them; it
// returns the first one's URL, the worker's ORACLE_URL (the first asks the others).
func startOracle(t *testing.T, reg *chains.Registry, logger *slog.Logger) string {
	servers := make([]*httptest.Server, devnet.OracleCount)
	for i := range servers {
		servers[i] = httptest.NewUnstartedServer(nil)
		t.Cleanup(servers[i].Close)
	}
	url := func(i int) string { return "http://" + servers[i].Listener.Addr().String() }
	for i, hs := range servers {
		var peers []string
		for j := range servers {
			if j != i {
				peers = append(peers, url(j))
			}
		}
		ocfg, err := oracle.ConfigFromEnv(devnet.OracleEnv(lookup(map[string]string{"VAULT_SECRETS_DIR": t.TempDir()}), i, "3000",
			OracleAPIKey, peers))
		if err != nil {
			t.Fatal(err)
		}
		osrv, err := oracle.NewServer(ocfg, reg, logger.With("oracle", i+1))
		if err != nil {
			t.Fatal(err)
		}
		hs.Config.Handler = osrv.Handler()
		hs.Start()
	}
	return url(0)
}

// withMetrics gives process name a metrics port (Options.ProcessMetrics).
func (s *Stack) withMetrics(t *testing.T, name string, vars map[string]string) {
	if !s.processMetrics {
		return
	}
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	vars["METRICS_ADDR"] = addr
	s.MetricsURLs[name] = "http://" + addr
}

// startOracleProcesses runs the devnet.OracleCount oracles as `intentd oracle` processes from
// o.OracleBinary, peers of each other at 2-of-3 on free loopback ports, reading the chains at
// rpcs; it returns the first one's URL once every one answers.
func (s *Stack) startOracleProcesses(t *testing.T, o Options, rpcs map[uint64]string) string {
	urls := make([]string, devnet.OracleCount)
	ports := make([]int, devnet.OracleCount)
	for i := range urls {
		ports[i] = freePort(t)
		urls[i] = fmt.Sprintf("http://127.0.0.1:%d", ports[i])
	}
	for i := range urls {
		var peers []string
		for j, u := range urls {
			if j != i {
				peers = append(peers, u)
			}
		}
		vars := devnet.OracleVars(i, strconv.Itoa(ports[i]), OracleAPIKey, peers)
		vars["VAULT_SECRETS_DIR"] = t.TempDir()
		name := fmt.Sprintf("oracle%d", i+1)
		s.withMetrics(t, name, vars)
		s.OracleProcesses = append(s.OracleProcesses, startProcess(t, o.OracleBinary, name, filepath.Join(o.LogDir, name), rpcs, vars))
	}
	deadline := time.Now().Add(60 * time.Second)
	for i, u := range urls {
		for {
			resp, err := http.Get(u + "/lives/v1")
			if err == nil {
				_ = resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					break
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("oracle %d did not answer on %s: %v (logs in %s)", i+1, u, err, o.LogDir)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return urls[0]
}

// RestartDevnet stops the stack's chains and starts them again on the same ports, as `make run`
// does after Ctrl-C: new chains (a new genesis) with the contracts at the same addresses and the
// balances of a fresh start, none of what was sent to the old ones. The engine keeps running and
// reaches them at the same URLs.
func (s *Stack) RestartDevnet(t testing.TB) {
	t.Helper()
	o := s.devnetOpts
	o.Chains = nil
	for _, c := range s.Devnet.Chains() {
		u, err := url.Parse(c.RPCURL)
		if err != nil {
			t.Fatal(err)
		}
		port, err := strconv.Atoi(u.Port())
		if err != nil {
			t.Fatalf("the port of %s: %v", c.RPCURL, err)
		}
		o.Chains = append(o.Chains, devnet.ChainOptions{ID: c.ID, Port: port})
	}
	s.Devnet.Close()
	dn, err := devnet.Start(s.ctx, o)
	if err != nil {
		t.Fatalf("devnet restart: %v", err)
	}
	t.Cleanup(dn.Close)
	s.Devnet = dn
}
