package reliability

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/gin-gonic/gin"
	"github.com/jackc/pgx/v5/pgxpool"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/server/temporaltest"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/intentd/intentd/app"
	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/devstack"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/e2e"
	"github.com/intentd/intentd/internal/faultproxy"
	"github.com/intentd/intentd/oracle"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/workflows"
)

// scenario is one reliability run: how many intents, from how many accounts, and what breaks
// while they are in flight.
type scenario struct {
	Name     string
	Seed     int64
	Intents  int // requests in total
	Bad      int // of which underpaid (half the quoted ETH): they must end in refund
	Accounts int // test accounts depositing in parallel, each sequentially
	// Pace is the pause before each of an account's intents, drawn from the range.
	Pace [2]time.Duration
	// HintShare is the fraction of deposits also reported through POST /transactions/index,
	// so the API's router races the worker's scanner.
	HintShare float64

	Kills            int // SIGKILLs of the worker process
	PostgresRestarts int // Postgres crashes (then clean restarts, alternating)
	Gap              [2]time.Duration
	WorkerDown       [2]time.Duration
	PostgresDown     [2]time.Duration

	// FailRate and DelayRate are the fault proxy's rates on the chain RPC of the worker and the
	// oracle; both 0 means no proxy. RPCErrorShare is the share of failures answered with a
	// JSON-RPC error instead of HTTP 503 (RELIABILITY_RPC_ERROR_SHARE replaces it).
	FailRate, DelayRate, RPCErrorShare float64

	// Drain is how long the intents may take to end after the last deposit and the last fault.
	Drain time.Duration
}

// seedFor is the scenario's seed, or RELIABILITY_SEED when set.
func seedFor(t *testing.T, def int64) int64 {
	if s := os.Getenv("RELIABILITY_SEED"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("RELIABILITY_SEED=%q: %v", s, err)
		}
		return v
	}
	return def
}

var (
	binDir    string
	buildOnce sync.Once
	binPath   string
	buildErr  error
	// builtFrom names the source the worker binary was built from: the commit, and "+dirty"
	// when tracked files had uncommitted changes (listed in the test log).
	builtFrom string
)

// sourceState is the commit of the working tree and the tracked source files changed since.
func sourceState() (commit string, dirty []string) {
	out, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "unknown", nil
	}
	commit = strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil {
		for _, l := range strings.Split(strings.TrimSpace(string(st)), "\n") {
			// Only changes that can reach the binary count (tests, this harness included, do not).
			if l = strings.TrimSpace(l); (strings.HasSuffix(l, ".go") && !strings.HasSuffix(l, "_test.go")) ||
				strings.HasSuffix(l, ".sql") || strings.HasSuffix(l, "go.mod") || strings.HasSuffix(l, "go.sum") {
				dirty = append(dirty, l)
			}
		}
	}
	return commit, dirty
}

func TestMain(m *testing.M) {
	gin.SetMode(gin.ReleaseMode)
	dir, err := os.MkdirTemp("", "intentd-reliability-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// rpcErrorShare is the scenario's JSON-RPC error share, or RELIABILITY_RPC_ERROR_SHARE.
func rpcErrorShare(t *testing.T, def float64) float64 {
	if s := os.Getenv("RELIABILITY_RPC_ERROR_SHARE"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v < 0 || v > 1 {
			t.Fatalf("RELIABILITY_RPC_ERROR_SHARE=%q: want a fraction from 0 to 1", s)
		}
		return v
	}
	return def
}

// intentdBinary builds cmd/intentd once per test run.
func intentdBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		start := time.Now()
		commit, dirty := sourceState()
		binPath, buildErr = BuildIntentd(ctx, binDir)
		builtFrom = commit
		if len(dirty) > 0 {
			builtFrom += "+dirty"
		}
		t.Logf("built intentd from %s in %v; uncommitted changes: %v", builtFrom, time.Since(start).Round(time.Millisecond), dirty)
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// rig is the running system of one scenario.
type rig struct {
	t      *testing.T
	sc     scenario
	logDir string
	log    *slog.Logger

	pgOpts devstack.PostgresOptions
	pgMu   sync.Mutex
	pg     *devstack.Postgres

	dn      *devnet.Devnet
	direct  map[uint64]string // chain id -> the devnet's own RPC URL (the test's view)
	proxies []*faultproxy.Server

	sys    *app.System // the API's system: its Temporal client serves the checks too
	api    *e2e.Client
	worker *Supervisor
	pool   *pgxpool.Pool // the checks' own connection pool
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func lookup(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// startRig starts Postgres, the devnet, the fault proxies, Temporal, the oracle, the API and the
// worker process.
func startRig(t *testing.T, sc scenario) *rig {
	t.Helper()
	bin := intentdBinary(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	r := &rig{t: t, sc: sc, logDir: t.TempDir()}
	if d := os.Getenv("RELIABILITY_LOG_DIR"); d != "" {
		r.logDir = filepath.Join(d, fmt.Sprintf("%s-seed%d-%s", sc.Name, sc.Seed, time.Now().Format("20060102-150405")))
		if err := os.MkdirAll(r.logDir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	logFile, err := os.Create(filepath.Join(r.logDir, "stack.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logFile.Close() })
	r.log = slog.New(slog.NewTextHandler(logFile, &slog.HandlerOptions{Level: slog.LevelWarn}))

	r.pgOpts = devstack.PostgresOptions{DataDir: filepath.Join(t.TempDir(), "pg"), Port: freePort(t), Database: "intentd", Logger: r.log}
	pg, err := devstack.EnsurePostgres(ctx, r.pgOpts)
	if err != nil {
		t.Fatalf("postgres: %v", err)
	}
	r.pg = pg
	t.Cleanup(func() {
		r.pgMu.Lock()
		defer r.pgMu.Unlock()
		if err := r.pg.Stop(); err != nil {
			t.Logf("stop postgres: %v", err)
		}
	})

	dn, err := devnet.Start(ctx, devnet.Options{Chains: []devnet.ChainOptions{{ID: 31337}, {ID: 31338}},
		BlockTime: 250 * time.Millisecond, Logger: r.log, FeedHeartbeat: -1})
	if err != nil {
		t.Fatalf("devnet: %v", err)
	}
	t.Cleanup(dn.Close)
	r.dn = dn
	r.direct = map[uint64]string{}
	engine := map[uint64]string{} // what the worker and the oracle dial
	for _, c := range dn.Chains() {
		r.direct[c.ID] = c.RPCURL
		engine[c.ID] = c.RPCURL
		if sc.FailRate+sc.DelayRate > 0 {
			p, err := faultproxy.Start("127.0.0.1:0", faultproxy.Config{Target: c.RPCURL, Seed: sc.Seed + int64(c.ID),
				FailRate: sc.FailRate, DelayRate: sc.DelayRate, MinDelay: 100 * time.Millisecond, MaxDelay: 2 * time.Second,
				RPCErrorShare: rpcErrorShare(t, sc.RPCErrorShare), LostResponseShare: 0.25})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			r.proxies = append(r.proxies, p)
			engine[c.ID] = p.URL
		}
	}
	engineRegistry, err := chains.NewRegistry(devnet.ChainConfigs(engine))
	if err != nil {
		t.Fatal(err)
	}
	directRegistry, err := dn.Registry()
	if err != nil {
		t.Fatal(err)
	}
	chainsDir := filepath.Join(r.logDir, "configs")
	if err := os.MkdirAll(chainsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	doc, err := json.MarshalIndent(map[string]any{"chains": devnet.ChainConfigs(engine)}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(chainsDir, "chains.reliability.json"), doc, 0o644); err != nil {
		t.Fatal(err)
	}

	ts := temporaltest.NewServer(temporaltest.WithT(t))
	if _, err := ts.GetDefaultClient().OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace: ts.GetDefaultNamespace(), SearchAttributes: workflows.SearchAttributeTypes()}); err != nil {
		t.Fatalf("search attributes: %v", err)
	}

	oracleKey := "reliability-oracle-key"
	ocfg, err := oracle.ConfigFromEnv(lookup(map[string]string{"ENVIRONMENT": "reliability",
		"ECDSA_PRIVATE_KEY": hex.EncodeToString(crypto.FromECDSA(devnet.OracleKey())), "API_KEYS": oracleKey + ":worker"}))
	if err != nil {
		t.Fatal(err)
	}
	osrv, err := oracle.NewServer(ocfg, engineRegistry, r.log)
	if err != nil {
		t.Fatal(err)
	}
	oracleHTTP := httptest.NewServer(osrv.Handler())
	t.Cleanup(oracleHTTP.Close)

	cfg, err := app.Load(lookup(map[string]string{
		"TEMPORAL_ADDRESS": ts.GetFrontendHostPort(), "TEMPORAL_NAMESPACE": ts.GetDefaultNamespace(),
		"ORACLE_URL": oracleHTTP.URL, "PRICE_SOURCE": "table", "QUOTE_TTL": "30m",
	}), devnet.EngineEnv(pg.URL(), oracleKey))
	if err != nil {
		t.Fatal(err)
	}
	sys, err := app.Open(ctx, cfg, directRegistry, r.log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sys.Close)
	if _, err := sys.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	r.sys = sys
	apiHTTP := httptest.NewServer(sys.APIServer(ctx).Handler())
	t.Cleanup(apiHTTP.Close)
	r.api = &e2e.Client{BaseURL: apiHTTP.URL, HTTP: &http.Client{Timeout: 30 * time.Second}}
	r.pool, err = pgxpool.New(ctx, pg.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.pool.Close)

	r.worker = &Supervisor{Name: "worker", Bin: bin, Args: []string{"worker"}, LogDir: r.logDir, RestartDelay: time.Second,
		Env: []string{
			"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
			"DATABASE_URL=" + pg.URL(),
			"TEMPORAL_ADDRESS=" + ts.GetFrontendHostPort(), "TEMPORAL_NAMESPACE=" + ts.GetDefaultNamespace(),
			"ORACLE_URL=" + oracleHTTP.URL, "ORACLE_API_KEY=" + oracleKey, "ORACLE_SIGNERS=" + devnet.OracleAddress().Hex(),
			"SOLVER_PRIVATE_KEY=" + hex.EncodeToString(crypto.FromECDSA(devnet.SolverKey())),
			"ENVIRONMENT=reliability", "CHAINS_CONFIG_DIR=" + chainsDir,
			"SCAN_INTERVAL=250ms", "LOG_LEVEL=info", "PRICE_SOURCE=table",
		}}
	if err := r.worker.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.worker.Close(10 * time.Second) })
	return r
}

// restartPostgres stops Postgres the way e says, keeps it down for e.Down and starts it again
// on the same data directory and port.
func (r *rig) restartPostgres(ctx context.Context, e Event) error {
	r.pgMu.Lock()
	defer r.pgMu.Unlock()
	if err := StopPostgres(r.pgOpts.DataDir, e.Shutdown, time.Minute); err != nil {
		return err
	}
	sleep(ctx, e.Down)
	pg, err := devstack.EnsurePostgres(ctx, r.pgOpts)
	if err != nil {
		return fmt.Errorf("start postgres again: %w", err)
	}
	r.pg = pg
	return nil
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// intentCase is one intent of a scenario: what the client asks for and pays, and what happened.
type intentCase struct {
	Index     int
	Account   int
	Kind      string   // eth, usdc, or eth-underpaid
	Amount    *big.Int // quoted input
	Recipient common.Address
	RefundTo  common.Address
	Hint      bool

	RequestID   string
	OrderID     common.Hash
	CurrencyOut common.Address
	AmountOut   *big.Int
	Deposited   *big.Int
	DepositTx   common.Hash
	DepositedAt time.Time
	EndedAt     time.Time
	// Closed is set when the workflow closed while the read model still showed the request in
	// flight: it will never end.
	Closed string
	Err    error
}

func (c *intentCase) currency() common.Address {
	if c.Kind == "usdc" {
		return devnet.USDCAddress
	}
	return common.Address{}
}

// wantStatus is how the intent must end.
func (c *intentCase) wantStatus() string {
	if c.Kind == "eth-underpaid" {
		return "refund"
	}
	return "success"
}

// freshAddress is an address no one uses, derived from the seed: its balance after the run is
// exactly what the engine paid it.
func freshAddress(seed int64, i int, role string) common.Address {
	return common.BytesToAddress(crypto.Keccak256([]byte(fmt.Sprintf("reliability/%d/%d/%s", seed, i, role)))[12:])
}

// planIntents draws the scenario's intents from its seed.
func planIntents(sc scenario) []*intentCase {
	r := rand.New(rand.NewPCG(uint64(sc.Seed), 0x1a7e27))
	bad := map[int]bool{}
	for _, i := range r.Perm(sc.Intents)[:sc.Bad] {
		bad[i] = true
	}
	out := make([]*intentCase, sc.Intents)
	for i := range out {
		c := &intentCase{Index: i, Account: i % sc.Accounts, Recipient: freshAddress(sc.Seed, i, "recipient"),
			RefundTo: freshAddress(sc.Seed, i, "refundTo"), Hint: r.Float64() < sc.HintShare}
		switch {
		case bad[i]:
			c.Kind = "eth-underpaid"
			c.Amount = new(big.Int).Mul(big.NewInt(50+r.Int64N(450)), big.NewInt(1e15)) // 0.05-0.5 ETH
		case r.IntN(2) == 0:
			c.Kind = "eth"
			c.Amount = new(big.Int).Mul(big.NewInt(50+r.Int64N(450)), big.NewInt(1e15))
		default:
			c.Kind = "usdc"
			c.Amount = new(big.Int).Mul(big.NewInt(20+r.Int64N(280)), big.NewInt(1e6)) // 20-300 USDC
		}
		out[i] = c
	}
	return out
}

// quoteWithRetry asks for a quote until it is given: Postgres may be down for a while.
func (r *rig) quoteWithRetry(ctx context.Context, body map[string]any) (*quote.Response, error) {
	deadline := time.Now().Add(90 * time.Second)
	for {
		q, err := r.api.Quote(ctx, body)
		if err == nil {
			return q, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, err
		}
		sleep(ctx, 500*time.Millisecond)
	}
}

// deposit quotes one intent and pays for it from its account: the quote's steps, or half the
// quoted ETH for an underpaid one.
func (r *rig) deposit(ctx context.Context, c *intentCase) error {
	acct := devnet.TestAccounts()[c.Account]
	cur := c.currency()
	q, err := r.quoteWithRetry(ctx, map[string]any{"user": acct.Address.Hex(), "recipient": c.Recipient.Hex(),
		"refundTo": c.RefundTo.Hex(), "originChainId": 31337, "destinationChainId": 31338, "originCurrency": cur.Hex(),
		"destinationCurrency": cur.Hex(), "amount": c.Amount.String(), "tradeType": "EXACT_INPUT", "includeProtocolData": true})
	if err != nil {
		return fmt.Errorf("quote: %w", err)
	}
	c.RequestID = q.RequestID
	c.OrderID = common.HexToHash(q.Protocol.V2.OrderID)
	c.CurrencyOut = cur
	c.AmountOut, _ = new(big.Int).SetString(q.Details.CurrencyOut.Amount, 10)
	wallet := &e2e.Wallet{Key: acct.Key, RPCs: r.direct}
	if c.Kind == "eth-underpaid" {
		var d *quote.TxData
		for _, s := range q.Steps {
			if s.ID == "deposit" {
				d = &s.Items[0].Data
			}
		}
		if d == nil {
			return errors.New("the quote has no deposit step")
		}
		v, _ := new(big.Int).SetString(d.Value, 10)
		c.Deposited = new(big.Int).Div(v, big.NewInt(2))
		d.Value = c.Deposited.String()
		rc, err := wallet.SendTx(ctx, *d)
		if err != nil {
			return fmt.Errorf("underpaid deposit: %w", err)
		}
		c.DepositTx = rc.TxHash
	} else {
		rc, err := wallet.ExecuteSteps(ctx, q)
		if err != nil {
			return fmt.Errorf("steps: %w", err)
		}
		c.Deposited = new(big.Int).Set(c.Amount)
		c.DepositTx = rc.TxHash
	}
	c.DepositedAt = time.Now()
	if c.Hint {
		// The API's router signals the workflow too; it may fail while Postgres is down, and the
		// scanner finds the deposit anyway.
		_, _ = r.api.Do(ctx, http.MethodPost, "/transactions/index", map[string]any{"chainId": 31337, "txHash": c.DepositTx.Hex()}, nil)
	}
	return nil
}

// eventRecord is a fault as it happened.
type eventRecord struct {
	Event
	At       time.Duration // since the first deposit
	InFlight int           // deposited intents not yet ended when it struck (-1: unknown)
	Err      error
}

// terminal statuses of the read model.
var terminal = map[string]bool{"success": true, "refund": true, "failure": true}

// inFlight counts deposited intents whose read-model status is not terminal.
func (r *rig) inFlight(ctx context.Context, cases []*intentCase, mu *sync.Mutex) int {
	mu.Lock()
	var ids []string
	for _, c := range cases {
		if !c.DepositedAt.IsZero() {
			ids = append(ids, c.RequestID)
		}
	}
	mu.Unlock()
	qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var n int
	if err := r.pool.QueryRow(qctx, `SELECT count(*) FROM requests WHERE id = ANY($1) AND status NOT IN ('success','refund','failure')`,
		ids).Scan(&n); err != nil {
		return -1
	}
	return n
}

// runChaos plays the plan once the first deposit is made.
func (r *rig) runChaos(ctx context.Context, plan []Event, began time.Time, cases []*intentCase, mu *sync.Mutex) []eventRecord {
	var out []eventRecord
	for _, e := range plan {
		sleep(ctx, e.After)
		// A fault is meant to strike intents in flight: give the clients up to 15 s to have one.
		inFlight := r.inFlight(ctx, cases, mu)
		for wait := time.Now().Add(15 * time.Second); inFlight == 0 && time.Now().Before(wait) && ctx.Err() == nil; {
			sleep(ctx, 200*time.Millisecond)
			inFlight = r.inFlight(ctx, cases, mu)
		}
		if ctx.Err() != nil {
			break
		}
		rec := eventRecord{Event: e, At: time.Since(began), InFlight: inFlight}
		switch e.Kind {
		case KillWorker:
			if rec.Err = r.worker.Kill(); rec.Err == nil {
				sleep(ctx, e.Down)
				rec.Err = r.worker.Start()
			}
		case RestartPostgres:
			rec.Err = r.restartPostgres(ctx, e)
		}
		r.t.Logf("fault at +%v: %s, %d intents in flight, err=%v", rec.At.Round(time.Millisecond), e, rec.InFlight, rec.Err)
		out = append(out, rec)
	}
	return out
}

// readRow is a request's row in the read model.
type readRow struct {
	Status, FailReason, RefundFailReason string
	OutTxs                               []string
}

func (r *rig) readModel(ctx context.Context, ids []string) (map[string]readRow, error) {
	rows, err := r.pool.Query(ctx, `SELECT id, status, fail_reason, refund_fail_reason, out_tx_hashes FROM requests WHERE id = ANY($1)`, ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]readRow{}
	for rows.Next() {
		var id string
		var row readRow
		if err := rows.Scan(&id, &row.Status, &row.FailReason, &row.RefundFailReason, &row.OutTxs); err != nil {
			return nil, err
		}
		out[id] = row
	}
	return out, rows.Err()
}

// figures are the measured outcome of a run, logged in one stable line.
type figures struct {
	Scenario                     string
	Seed                         int64
	Intents, Success, Refund     int
	Failure, Stuck, DepositErrs  int
	Kills, Unexpected, PGRestart int
	Proxy                        faultproxy.Stats
	DoubleFills, StrayFills      int
	DoubleRefunds, StrayRefunds  int
	NonceReuse, NonceGaps        int
	SolverTxs, Replacements      int // stored solver transactions, of which replacements
	RefundedFillable             int // correctly paid intents refunded because their fill was not sent or included
	ReadModelMismatches          int
	OpenWorkflows                int // still running at the end (e.g. awaiting an operator)
	FailedWorkflows              int // closed other than completed (failed, terminated, timed out)
	WrongOutcomes, WrongBalances int
	LatencyP50, LatencyMax       time.Duration
	Drain                        time.Duration // from the last deposit and fault to the last intent's end
	Duration                     time.Duration
}

func (f figures) String() string {
	return fmt.Sprintf("RELIABILITY scenario=%s commit=%s seed=%d intents=%d success=%d refund=%d failure=%d stuck=%d deposit_errors=%d "+
		"worker_kills=%d worker_unexpected_exits=%d postgres_restarts=%d rpc_requests=%d rpc_faults=%d rpc_failed=%d rpc_failed_503=%d "+
		"rpc_failed_jsonrpc=%d rpc_lost_responses=%d rpc_delayed=%d double_fills=%d stray_fills=%d double_refunds=%d stray_refunds=%d "+
		"solver_txs=%d replacements=%d refunded_fillable=%d nonce_reuse=%d nonce_gaps=%d readmodel_mismatches=%d open_workflows=%d failed_workflows=%d wrong_outcomes=%d wrong_balances=%d "+
		"latency_p50=%.1fs latency_max=%.1fs drain=%.1fs duration=%.1fs",
		f.Scenario, builtFrom, f.Seed, f.Intents, f.Success, f.Refund, f.Failure, f.Stuck, f.DepositErrs,
		f.Kills, f.Unexpected, f.PGRestart, f.Proxy.Requests, f.Proxy.Faults(), f.Proxy.Failed(), f.Proxy.Failed503,
		f.Proxy.FailedRPC, f.Proxy.LostResponses, f.Proxy.Delayed, f.DoubleFills, f.StrayFills, f.DoubleRefunds, f.StrayRefunds,
		f.SolverTxs, f.Replacements, f.RefundedFillable, f.NonceReuse, f.NonceGaps, f.ReadModelMismatches, f.OpenWorkflows, f.FailedWorkflows, f.WrongOutcomes, f.WrongBalances,
		f.LatencyP50.Seconds(), f.LatencyMax.Seconds(), f.Drain.Seconds(), f.Duration.Seconds())
}

// runScenario runs sc end to end and checks every invariant; it returns the figures.
func runScenario(t *testing.T, sc scenario) figures {
	began := time.Now()
	r := startRig(t, sc)
	cases := planIntents(sc)
	plan := NewPlan(sc.Seed, PlanOptions{Kills: sc.Kills, PostgresRestarts: sc.PostgresRestarts, Gap: sc.Gap,
		WorkerDown: sc.WorkerDown, PostgresDown: sc.PostgresDown})
	kinds := map[string]int{}
	for _, c := range cases {
		kinds[c.Kind]++
	}
	t.Logf("scenario %s seed=%d: %d intents %v from %d accounts; fault proxy fail=%.2f delay=%.2f; plan %s",
		sc.Name, sc.Seed, sc.Intents, kinds, sc.Accounts, sc.FailRate, sc.DelayRate, FormatPlan(plan))

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()

	var mu sync.Mutex // guards the cases' run fields
	firstDeposit := make(chan struct{})
	var firstOnce sync.Once
	var wg sync.WaitGroup
	paceRand := rand.New(rand.NewPCG(uint64(sc.Seed), 0xace))
	pauses := make([]time.Duration, len(cases))
	for i := range pauses {
		pauses[i] = sc.Pace[0]
		if sc.Pace[1] > sc.Pace[0] {
			pauses[i] += time.Duration(paceRand.Int64N(int64(sc.Pace[1] - sc.Pace[0])))
		}
	}
	byAccount := make([][]*intentCase, sc.Accounts)
	for _, c := range cases {
		byAccount[c.Account] = append(byAccount[c.Account], c)
	}
	for _, mine := range byAccount {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, c := range mine {
				sleep(ctx, pauses[c.Index])
				shadow := *c
				err := r.deposit(ctx, &shadow)
				mu.Lock()
				*c = shadow
				c.Err = err
				mu.Unlock()
				if err != nil {
					t.Errorf("intent %d (%s, account %d): %v", c.Index, c.Kind, c.Account, err)
					continue
				}
				firstOnce.Do(func() { close(firstDeposit) })
			}
		}()
	}
	// The faults start with the first deposit, so that they strike intents in flight.
	chaosDone := make(chan []eventRecord, 1)
	go func() {
		select {
		case <-firstDeposit:
		case <-ctx.Done():
			chaosDone <- nil
			return
		}
		chaosDone <- r.runChaos(ctx, plan, time.Now(), cases, &mu)
	}()
	wg.Wait()
	firstOnce.Do(func() { close(firstDeposit) })
	events := <-chaosDone
	quietSince := time.Now()
	t.Logf("all deposits made and faults played %.1fs after the start of the run", time.Since(began).Seconds())

	// Wait for every deposited intent to end in the read model.
	var ids []string
	for _, c := range cases {
		if c.Err == nil {
			ids = append(ids, c.RequestID)
		}
	}
	deadline := time.Now().Add(sc.Drain)
	lastEnd := time.Time{}
	lastProbe := time.Now()
	for {
		rows, err := r.readModel(ctx, ids)
		open := 0
		probe := time.Since(lastProbe) > 5*time.Second
		if probe {
			lastProbe = time.Now()
		}
		if err == nil {
			now := time.Now()
			for _, c := range cases {
				if c.Err != nil || c.Closed != "" {
					continue
				}
				if row, ok := rows[c.RequestID]; ok && terminal[row.Status] {
					if c.EndedAt.IsZero() {
						c.EndedAt = now
						lastEnd = now
					}
					continue
				}
				// A request whose workflow has closed while the read model shows it in flight
				// will never end: no need to wait for it.
				if probe {
					if st := r.workflowStatus(ctx, c.RequestID); st != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING &&
						st != enumspb.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED {
						c.Closed = st.String()
						t.Logf("intent %d (request %s): workflow %s while the read model shows %q", c.Index, c.RequestID, st, rows[c.RequestID].Status)
						continue
					}
				}
				open++
			}
		}
		if err == nil && open == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("%d intents have not ended %v after the last deposit and fault", open, sc.Drain)
			break
		}
		sleep(ctx, 250*time.Millisecond)
	}

	f := r.check(ctx, cases)
	f.Scenario, f.Seed, f.Intents = sc.Name, sc.Seed, sc.Intents
	ws := r.worker.Stats()
	f.Kills, f.Unexpected = ws.Kills, len(ws.Unexpected)
	for _, e := range events {
		if e.Kind == RestartPostgres && e.Err == nil {
			f.PGRestart++
		}
		if e.Err != nil {
			t.Errorf("fault %s was not injected: %v", e.Event, e.Err)
		}
	}
	if len(events) != len(plan) {
		t.Errorf("%d of %d planned faults were played", len(events), len(plan))
	}
	for _, p := range r.proxies {
		f.Proxy = f.Proxy.Add(p.Stats())
	}
	var lat []time.Duration
	for _, c := range cases {
		if c.Err != nil {
			f.DepositErrs++
		} else if !c.EndedAt.IsZero() {
			lat = append(lat, c.EndedAt.Sub(c.DepositedAt))
		}
	}
	if len(lat) > 0 {
		slices.Sort(lat)
		f.LatencyP50, f.LatencyMax = lat[len(lat)/2], lat[len(lat)-1]
	}
	if !lastEnd.IsZero() {
		f.Drain = max(0, lastEnd.Sub(quietSince))
	}
	f.Duration = time.Since(began)
	if sc.FailRate+sc.DelayRate > 0 {
		t.Logf("fault proxy: %s", f.Proxy)
	}
	for _, u := range ws.Unexpected {
		t.Errorf("the worker exited on its own: %s", u)
	}
	t.Logf("worker logs: %s", strings.Join(ws.Logs, " "))
	t.Log(f.String())
	return f
}

// check verifies the invariants after the run and counts what it found.
func (r *rig) check(ctx context.Context, cases []*intentCase) figures {
	t := r.t
	var f figures
	var live []*intentCase
	var ids []string
	for _, c := range cases {
		if c.Err == nil {
			live = append(live, c)
			ids = append(ids, c.RequestID)
		}
	}
	rows, err := r.readModel(ctx, ids)
	if err != nil {
		t.Fatalf("read model: %v", err)
	}

	// On chain: every Fill of the output settler on 31338 and every Withdrawal (refund) of the
	// depository on 31337, by id.
	fills := r.eventCounts(ctx, 31338, devnet.OutputSettlerAddress, evm.OutputSettlerABI.GetABI().Events["Fill"].ID)
	refunds := r.eventCounts(ctx, 31337, devnet.DepositoryAddress, evm.DepositoryABI.GetABI().Events["Withdrawal"].ID)
	for _, n := range fills {
		f.DoubleFills += max(0, n-1)
	}
	for _, n := range refunds {
		f.DoubleRefunds += max(0, n-1)
	}
	// Solver transactions: what each request had signed. A fill that is not included is
	// replaced by further attempts of the same kind at the same nonce (purpose pay or cancel),
	// so a request and kind may have several rows, but only one nonce.
	type stored struct {
		attempts int
		nonces   map[int64]bool
	}
	solverTxs := map[string]map[string]*stored{} // request -> kind -> attempts
	txRows, err := r.pool.Query(ctx, `SELECT request_id, kind, chain_id, nonce FROM solver_transactions`)
	if err != nil {
		t.Fatalf("solver transactions: %v", err)
	}
	for txRows.Next() {
		var req, kind string
		var chain, nonce int64
		if err := txRows.Scan(&req, &kind, &chain, &nonce); err != nil {
			t.Fatal(err)
		}
		if solverTxs[req] == nil {
			solverTxs[req] = map[string]*stored{}
		}
		st := solverTxs[req][kind]
		if st == nil {
			st = &stored{nonces: map[int64]bool{}}
			solverTxs[req][kind] = st
		}
		st.attempts++
		st.nonces[chain<<32|nonce] = true
		f.SolverTxs++
	}
	txRows.Close()
	kindsOf := func(req string) string {
		var ks []string
		for k, st := range solverTxs[req] {
			ks = append(ks, fmt.Sprintf("%s×%d", k, st.attempts))
		}
		sort.Strings(ks)
		return "[" + strings.Join(ks, " ") + "]"
	}
	for req, kinds := range solverTxs {
		for kind, st := range kinds {
			f.Replacements += st.attempts - 1
			if len(st.nonces) != 1 {
				f.NonceReuse++
				t.Errorf("request %s: its %s attempts were signed at %d different nonces", req, kind, len(st.nonces))
			}
		}
	}
	reuse, gaps := r.checkNonces(ctx)
	f.NonceReuse += reuse
	f.NonceGaps = gaps

	type bad struct {
		c   *intentCase
		why string
	}
	var problems []bad
	for _, c := range live {
		row, ok := rows[c.RequestID]
		if !ok {
			problems = append(problems, bad{c, "no read-model row"})
			continue
		}
		switch row.Status {
		case "success":
			f.Success++
		case "refund":
			f.Refund++
		case "failure":
			f.Failure++
		default:
			f.Stuck++
		}
		// A correctly paid intent is filled; the engine may also refund it when its fill could
		// not be sent or included (then it says so), never for another reason. An underpaid
		// one is refunded for what it is.
		nFill, nRefund := fills[c.OrderID], refunds[intent.RefundID(c.RequestID)]
		switch {
		case row.Status == c.wantStatus():
			if row.Status == "refund" && row.FailReason != string(intent.FailReasonDepositedAmountTooLowToFill) {
				f.WrongOutcomes++
				problems = append(problems, bad{c, "refunded with failReason " + row.FailReason})
			}
		case row.Status == "refund" && c.Kind != "eth-underpaid" && (row.FailReason == string(intent.FailReasonTransactionNotIncluded) ||
			row.FailReason == string(intent.FailReasonTransactionSubmissionFailed)):
			f.RefundedFillable++
			t.Logf("intent %d (%s, request %s) was refunded: %s", c.Index, c.Kind, c.RequestID, row.FailReason)
		default:
			f.WrongOutcomes++
			problems = append(problems, bad{c, fmt.Sprintf("status %s (%s/%s), want %s", row.Status, row.FailReason, row.RefundFailReason, c.wantStatus())})
		}
		switch row.Status {
		case "success":
			if nFill != 1 || nRefund != 0 {
				problems = append(problems, bad{c, fmt.Sprintf("%d fills and %d refunds on chain, want 1 fill and no refund", nFill, nRefund)})
			}
			f.StrayRefunds += nRefund
			if got := r.balance(ctx, 31338, c.CurrencyOut, c.Recipient); got.Cmp(c.AmountOut) != 0 {
				f.WrongBalances++
				problems = append(problems, bad{c, fmt.Sprintf("recipient holds %s, quoted output %s", got, c.AmountOut)})
			}
			if _, ok := solverTxs[c.RequestID]["fill"]; !ok || len(solverTxs[c.RequestID]) != 1 {
				problems = append(problems, bad{c, "stored solver transactions " + kindsOf(c.RequestID) + ", want its fill only"})
			}
		case "refund":
			if nFill != 0 || nRefund != 1 {
				problems = append(problems, bad{c, fmt.Sprintf("%d fills and %d refunds on chain, want no fill and 1 refund", nFill, nRefund)})
			}
			f.StrayFills += nFill
			if got := r.balance(ctx, 31337, c.currency(), c.RefundTo); got.Cmp(c.Deposited) != 0 {
				f.WrongBalances++
				problems = append(problems, bad{c, fmt.Sprintf("refundTo holds %s, deposited %s", got, c.Deposited)})
			}
			if got := r.balance(ctx, 31338, c.currency(), c.Recipient); got.Sign() != 0 {
				f.WrongBalances++
				problems = append(problems, bad{c, fmt.Sprintf("the recipient of a refunded intent holds %s", got)})
			}
			if _, ok := solverTxs[c.RequestID]["refund"]; !ok {
				problems = append(problems, bad{c, "stored solver transactions " + kindsOf(c.RequestID) + ", want a refund"})
			}
		default:
			// failure or in flight: the status problem is reported above; show the money.
			problems = append(problems, bad{c, fmt.Sprintf("%d fills and %d refunds on chain, stored solver transactions %s",
				nFill, nRefund, kindsOf(c.RequestID))})
		}
		// The workflow's own state: its state query and, once completed, its result must equal
		// the read model; and it must have completed.
		status, why := r.compareWorkflow(ctx, c, row)
		if why != "" {
			f.ReadModelMismatches++
			problems = append(problems, bad{c, why})
		}
		switch status {
		case enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		case enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING:
			f.OpenWorkflows++
			problems = append(problems, bad{c, "the workflow is still running"})
		default:
			f.FailedWorkflows++
			problems = append(problems, bad{c, "the workflow closed as " + status.String()})
		}
	}
	if f.DoubleFills != 0 || f.DoubleRefunds != 0 {
		t.Errorf("double payouts on chain: %d fills, %d refunds", f.DoubleFills, f.DoubleRefunds)
	}
	if f.NonceReuse != 0 {
		t.Errorf("%d solver nonces were used for more than one transaction", f.NonceReuse)
	}
	if f.NonceGaps != 0 {
		t.Errorf("%d problems with the solver's nonce sequence", f.NonceGaps)
	}
	sort.Slice(problems, func(i, j int) bool { return problems[i].c.Index < problems[j].c.Index })
	reported := map[string]bool{}
	for _, p := range problems {
		t.Errorf("intent %d (%s, account %d, request %s, order %s, deposit %s): %s", p.c.Index, p.c.Kind, p.c.Account,
			p.c.RequestID, p.c.OrderID.Hex(), p.c.DepositTx.Hex(), p.why)
		if !reported[p.c.RequestID] {
			reported[p.c.RequestID] = true
			r.explain(ctx, p.c)
		}
	}
	return f
}

// eventCounts counts a contract's events by their first indexed topic (the order or payout id).
func (r *rig) eventCounts(ctx context.Context, chainID uint64, addr common.Address, topic common.Hash) map[common.Hash]int {
	c, err := r.dn.Chain(chainID).Dial(ctx)
	if err != nil {
		r.t.Fatal(err)
	}
	defer c.Close()
	logs, err := c.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: big.NewInt(0), Addresses: []common.Address{addr},
		Topics: [][]common.Hash{{topic}}})
	if err != nil {
		r.t.Fatalf("logs of %s on %d: %v", addr, chainID, err)
	}
	out := map[common.Hash]int{}
	for _, l := range logs {
		if len(l.Topics) > 1 && !l.Removed {
			out[l.Topics[1]]++
		}
	}
	return out
}

func (r *rig) balance(ctx context.Context, chainID uint64, currency, account common.Address) *big.Int {
	c, err := r.dn.Chain(chainID).Dial(ctx)
	if err != nil {
		r.t.Fatal(err)
	}
	defer c.Close()
	if currency == (common.Address{}) {
		b, err := c.BalanceAt(ctx, account, nil)
		if err != nil {
			r.t.Fatal(err)
		}
		return b
	}
	out, err := c.CallContract(ctx, ethereum.CallMsg{To: &currency, Data: evm.ERC20ABI.PackBalanceOf(account)}, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	b, err := evm.ERC20ABI.UnpackBalanceOf(out)
	if err != nil {
		r.t.Fatal(err)
	}
	return b
}

// checkNonces counts solver nonces signed for more than one request's transaction (attempts of
// one transaction share its nonce on purpose), and per chain the gaps in the stored nonces plus
// a chain nonce that differs from the next stored one (a signed transaction that never landed,
// or one the engine did not record).
func (r *rig) checkNonces(ctx context.Context) (reuse, gaps int) {
	t := r.t
	rows, err := r.pool.Query(ctx, `SELECT chain_id, nonce, count(DISTINCT request_id || '/' || kind),
		string_agg(DISTINCT request_id || '/' || kind, ' ')
		FROM solver_transactions GROUP BY chain_id, from_address, nonce HAVING count(DISTINCT request_id || '/' || kind) > 1`)
	if err != nil {
		t.Fatalf("nonces: %v", err)
	}
	for rows.Next() {
		var chain, nonce, n int64
		var who string
		if err := rows.Scan(&chain, &nonce, &n, &who); err != nil {
			t.Fatal(err)
		}
		reuse++
		t.Errorf("solver nonce %d on chain %d was signed for %d transactions: %s", nonce, chain, n, who)
	}
	rows.Close()
	rows, err = r.pool.Query(ctx, `SELECT chain_id, from_address, min(nonce), max(nonce), count(DISTINCT nonce)
		FROM solver_transactions GROUP BY chain_id, from_address`)
	if err != nil {
		t.Fatalf("nonces: %v", err)
	}
	type span struct {
		chain     uint64
		from      string
		lo, hi, n int64
	}
	var spans []span
	for rows.Next() {
		var s span
		var chain int64
		if err := rows.Scan(&chain, &s.from, &s.lo, &s.hi, &s.n); err != nil {
			t.Fatal(err)
		}
		s.chain = uint64(chain)
		spans = append(spans, s)
	}
	rows.Close()
	for _, s := range spans {
		if s.hi-s.lo+1 != s.n {
			gaps++
			t.Errorf("chain %d: stored solver nonces %d..%d have %d values: a gap", s.chain, s.lo, s.hi, s.n)
		}
		c, err := r.dn.Chain(s.chain).Dial(ctx)
		if err != nil {
			t.Fatal(err)
		}
		onChain, err := c.NonceAt(ctx, common.HexToAddress(s.from), nil)
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		if int64(onChain) != s.hi+1 {
			gaps++
			t.Errorf("chain %d: the solver's nonce on chain is %d, the last stored transaction has %d", s.chain, onChain, s.hi)
		}
	}
	return reuse, gaps
}

// workflowStatus is the request's workflow's execution status (UNSPECIFIED when it cannot be
// read, e.g. before the workflow exists).
func (r *rig) workflowStatus(ctx context.Context, requestID string) enumspb.WorkflowExecutionStatus {
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	d, err := r.sys.Temporal.DescribeWorkflowExecution(dctx, workflows.IntentWorkflowID(requestID), "")
	if err != nil {
		return enumspb.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED
	}
	return d.GetWorkflowExecutionInfo().GetStatus()
}

// compareWorkflow compares the read model with the workflow's own state: its state query and,
// once it has completed, its result. It returns the workflow's execution status and what
// differs ("" when nothing does).
func (r *rig) compareWorkflow(ctx context.Context, c *intentCase, row readRow) (enumspb.WorkflowExecutionStatus, string) {
	id := workflows.IntentWorkflowID(c.RequestID)
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	status := r.workflowStatus(wctx, c.RequestID)
	for until := time.Now().Add(10 * time.Second); status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING && time.Now().Before(until); {
		sleep(wctx, 250*time.Millisecond)
		status = r.workflowStatus(wctx, c.RequestID)
	}
	type namedState struct {
		name string
		s    workflows.State
	}
	var states []namedState
	v, err := r.sys.Temporal.QueryWorkflow(wctx, id, "", workflows.QueryState)
	if err != nil {
		return status, fmt.Sprintf("state query: %v", err)
	}
	var st workflows.State
	if err := v.Get(&st); err != nil {
		return status, fmt.Sprintf("state query: %v", err)
	}
	states = append(states, namedState{"state query", st})
	if status == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED {
		var res workflows.IntentResult
		if err := r.sys.Temporal.GetWorkflow(wctx, id, "").Get(wctx, &res); err != nil {
			return status, fmt.Sprintf("workflow result: %v", err)
		}
		states = append(states, namedState{"result", res})
	}
	na := func(s string) string {
		if s == "" {
			return string(intent.FailReasonNA)
		}
		return s
	}
	var diffs []string
	for _, w := range states {
		if string(w.s.Status) != row.Status || na(string(w.s.FailReason)) != row.FailReason ||
			na(string(w.s.RefundFailReason)) != row.RefundFailReason {
			diffs = append(diffs, fmt.Sprintf("workflow %s %s/%s/%s, read model %s/%s/%s", w.name, w.s.Status, na(string(w.s.FailReason)),
				na(string(w.s.RefundFailReason)), row.Status, row.FailReason, row.RefundFailReason))
		}
		if w.s.FillTx != "" && !slices.Contains(row.OutTxs, w.s.FillTx) {
			diffs = append(diffs, fmt.Sprintf("workflow %s fill %s not in the read model's txHashes %v", w.name, w.s.FillTx, row.OutTxs))
		}
		if w.s.RefundTx != "" && !slices.Contains(row.OutTxs, w.s.RefundTx) {
			diffs = append(diffs, fmt.Sprintf("workflow %s refund %s not in the read model's txHashes %v", w.name, w.s.RefundTx, row.OutTxs))
		}
	}
	return status, strings.Join(diffs, "; ")
}

// saveHistory writes the workflow's event history as JSON (the format `temporal workflow show
// --output json` and the replay tests read) into the log directory.
func (r *rig) saveHistory(ctx context.Context, workflowID string) (string, error) {
	hctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	it := r.sys.Temporal.GetWorkflowHistory(hctx, workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			return "", err
		}
		h.Events = append(h.Events, e)
	}
	b, err := protojson.MarshalOptions{Indent: "  "}.Marshal(h)
	if err != nil {
		return "", err
	}
	path := filepath.Join(r.logDir, "history-"+workflowID+".json")
	return path, os.WriteFile(path, b, 0o644)
}

// explain logs what Temporal knows about a request that went wrong: the workflow's status, its
// pending activities with their last failure, and the worker log lines that name it.
func (r *rig) explain(ctx context.Context, c *intentCase) {
	t := r.t
	id := workflows.IntentWorkflowID(c.RequestID)
	d, err := r.sys.Temporal.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		t.Logf("  %s: describe: %v", id, err)
	} else {
		info := d.GetWorkflowExecutionInfo()
		t.Logf("  %s: workflow %s, history length %d", id, enumspb.WorkflowExecutionStatus_name[int32(info.GetStatus())], info.GetHistoryLength())
		if st := info.GetStatus(); st != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING && st != enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED {
			gctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err := r.sys.Temporal.GetWorkflow(gctx, id, "").Get(gctx, nil)
			cancel()
			t.Logf("    the workflow ended with: %v", err)
		}
		for _, a := range d.GetPendingActivities() {
			t.Logf("    pending %s attempt %d state %s last failure: %s", a.GetActivityType().GetName(), a.GetAttempt(),
				a.GetState(), a.GetLastFailure().GetMessage())
		}
	}
	if path, err := r.saveHistory(ctx, id); err != nil {
		t.Logf("    history: %v", err)
	} else {
		t.Logf("    history saved in %s", path)
	}
	n := 0
	for _, path := range r.worker.Stats().Logs {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, c.RequestID) && n < 40 {
				t.Logf("    %s: %s", filepath.Base(path), line)
				n++
			}
		}
	}
}
