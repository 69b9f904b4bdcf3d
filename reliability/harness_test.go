package reliability

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/intentd/intentd/internal/process"
	"github.com/intentd/intentd/testkit"
	"github.com/intentd/intentd/testkit/faultproxy"
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
	// DepositAddressShare is the fraction of the correctly paid intents quoted with a strict
	// deposit address (issue 35) and paid by a plain transfer to it; the engine sweeps each
	// into the depository before it fills.
	DepositAddressShare float64
	// SolanaShare is the fraction of the correctly paid intents that cross to or from the local
	// Solana chain (issue 36): half sol-dest (31337 → Solana, paid by the EVM account), half
	// sol-origin (Solana → 31337, paid by the Solana test account of the same index). Drawn
	// only when > 0, so that the plans of the other scenarios are what they were; > 0 also
	// starts the local Solana chain (testkit.Options.Solana).
	SolanaShare float64
	// GaslessShare is the fraction of the plain eth and usdc intents made gasless instead (issue
	// 37): USDC 31337 → 31338 from a fresh key without ETH, executed through POST /execute with
	// subsidizeFees and relayed by the engine, the rig's integrator paying the gas
	// (gasless_test.go). Drawn from a generator of its own, so the other intents of the plan stay
	// what they were.
	GaslessShare float64
	// PerpsShare is the fraction of the plain eth and usdc intents (those not made gasless) made
	// perps intents instead (issue 38): half deposits of USDC on 31337 to the perps USDC of an
	// account on the local perps exchange (1337), half withdrawals of perps USDC from the exchange
	// to USDC on 31337 (perps_test.go). Drawn from a generator of its own, so the other intents of
	// the plan stay what they were; > 0 also starts the local exchange (testkit.Options.Exchange).
	PerpsShare float64

	Kills            int // SIGKILLs of the worker process
	PostgresRestarts int // Postgres crashes (then clean restarts, alternating)
	DispatcherKills  int // SIGKILLs of the webhook dispatcher process
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
		binPath, buildErr = process.BuildIntentd(ctx, binDir)
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

// rig is the running system of one scenario: the test stack with the worker as a separate
// process, a private Postgres and, when the scenario says so, fault proxies in front of the
// chains of the worker and the oracle.
type rig struct {
	*testkit.Stack
	t      *testing.T
	sc     scenario
	logDir string
	pool   *pgxpool.Pool // the checks' own connection pool
	// Every intent is quoted with an API key whose webhook posts to receiver, delivered by the
	// dispatcher process (which the plan may kill); the receiver refuses a tenth of the calls
	// and answers after up to 200 ms.
	receiver   *testkit.WebhookReceiver
	dispatcher *process.Supervisor
	stream     *streamWatch // the intents' websocket subscribers (stream_test.go)
	// sponsorID is the integrator of the rig's key, which sponsors the gasless intents' relays
	// (setupSponsor); "" when the scenario has none.
	sponsorID string
}

// startRig starts the scenario's stack (testkit.Start) with its logs in the log directory.
func startRig(t *testing.T, sc scenario) *rig {
	t.Helper()
	bin := intentdBinary(t)
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
	t.Cleanup(func() { _ = logFile.Close() })
	o := testkit.Options{Logger: slog.New(slog.NewTextHandler(logFile, &slog.HandlerOptions{Level: slog.LevelWarn})),
		PrivatePostgres: true, WorkerBinary: bin, LogDir: r.logDir, Solana: sc.SolanaShare > 0,
		Exchange: sc.PerpsShare > 0,
		Env:      map[string]string{"PRICE_SOURCE": "table", "QUOTE_TTL": "30m", "SCAN_INTERVAL": "250ms"}}
	if sc.SolanaShare > 0 {
		// The price table prices ETH and USDC only by default: SOL too, or no Solana route is quoted.
		o.Env["PRICES_USD"] = "ETH=3000,USDC=1,SOL=150"
	}
	if sc.FailRate+sc.DelayRate > 0 {
		o.Faults = &faultproxy.Config{Seed: sc.Seed, FailRate: sc.FailRate, DelayRate: sc.DelayRate,
			MinDelay: 100 * time.Millisecond, MaxDelay: 2 * time.Second,
			RPCErrorShare: rpcErrorShare(t, sc.RPCErrorShare), LostResponseShare: 0.25}
	}
	r.Stack = testkit.Start(t, o)
	r.API.HTTP = &http.Client{Timeout: 30 * time.Second}
	r.receiver = testkit.NewWebhookReceiver(t)
	answers := rand.New(rand.NewPCG(uint64(sc.Seed), 0x4e6b))
	var answerMu sync.Mutex
	r.receiver.Answer = func(int) int {
		answerMu.Lock()
		defer answerMu.Unlock()
		if answers.IntN(10) == 0 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	}
	r.receiver.Delay = func() time.Duration {
		answerMu.Lock()
		defer answerMu.Unlock()
		return time.Duration(answers.Int64N(int64(200 * time.Millisecond)))
	}
	r.API.APIKey = r.WebhookKey(t, "reliability", r.receiver)
	if sc.GaslessShare > 0 {
		r.setupSponsor()
	}
	r.dispatcher = r.StartDispatcherProcess(t, bin, map[string]string{"WEBHOOK_TIMEOUT": "2s", "WEBHOOK_LEASE_MARGIN": "1s",
		"WEBHOOK_RETRY_INITIAL": "200ms", "WEBHOOK_RETRY_MAX": "2s", "WEBHOOK_MAX_RETRIES": "50"})
	r.pool, err = pgxpool.New(context.Background(), r.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.pool.Close)
	r.stream = r.watchStream(t)
	return r
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
