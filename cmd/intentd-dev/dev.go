package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/ethereum/go-ethereum/ethclient"
	"golang.org/x/sync/errgroup"

	"github.com/intentd/intentd/app"
	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/perps"
	"github.com/intentd/intentd/chains/solana"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/devnet/exchange"
	"github.com/intentd/intentd/devnet/svm"
	"github.com/intentd/intentd/devstack"
	"github.com/intentd/intentd/events"
	"github.com/intentd/intentd/oracle"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/worker"
	"github.com/intentd/intentd/workflows"
)

// DevOptions configure `intentd-dev dev`: the whole engine in one process on the embedded default.
type DevOptions struct {
	DataDir     string // .data: Postgres cluster, Temporal database, dev API key, dev admin token
	DatabaseURL string // used when reachable; otherwise a private cluster starts in DataDir
	// Lookup reads the environment (os.LookupEnv) for the engine's and the oracle's variables.
	Lookup func(string) (string, bool)
	// OracleAddr is the first oracle's address (127.0.0.1:3000); the devnet.OracleCount oracles
	// listen on it and the next ports, peers of each other at 2-of-3.
	OracleAddr string
	UIPort     int // 8233
	// TemporalPersistence is TEMPORAL_PERSISTENCE: sqlite (temporal.db), postgres (dev's
	// Postgres), sqlite-postgres-visibility (temporal.db, the visibility records on dev's
	// Postgres), or "" for the default (defaultPersistence).
	TemporalPersistence string
	// TemporalAddress, when set, is the Temporal server to use instead of starting one.
	TemporalAddress string
	// Workers is the number of `intentd worker` processes (IntentdBin) to run instead of the
	// in-process worker; below zero, the worker runs in this process.
	Workers    int
	IntentdBin string
	// Solana lists the local Solana chain that `intentd-dev devnet` runs (DEVNET_SOLANA) beside
	// the chain file's, at DEVNET_SOLANA_RPC_URL (default http://127.0.0.1:8899), unless the file
	// lists its id already (devnet.SolanaChainConfig). Worker processes (Workers) read the chain
	// file alone and do not see it.
	Solana bool
	// Exchange lists the local perps exchange that `intentd-dev devnet` runs (DEVNET_EXCHANGE)
	// beside the chain file's, at DEVNET_EXCHANGE_URL (default http://127.0.0.1:8337), unless the
	// file lists its id already (devnet.ExchangeChainConfig).
	Exchange bool
	Out      io.Writer
	Logger   *slog.Logger
}

// RunDev starts Postgres (DATABASE_URL or a private cluster), Temporal with its Web UI, the
// oracle, the worker and the API, against chains already served by `intentd-dev devnet`, and runs
// until ctx ends.
func RunDev(ctx context.Context, o DevOptions) error {
	say := func(format string, args ...any) { fmt.Fprintf(o.Out, "==> "+format+"\n", args...) }
	// Every variable is read and checked before anything starts.
	oracleKey := randomHex(32)
	cfg, ocfgs, err := devConfigs(o.Lookup, oracleKey, o.OracleAddr)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.DataDir, 0o755); err != nil {
		return err
	}
	dataDir, err := filepath.Abs(o.DataDir)
	if err != nil {
		return err
	}

	say("postgres: checking DATABASE_URL, else starting a private cluster in %s", filepath.Join(dataDir, "pg"))
	pg, err := devstack.EnsurePostgres(ctx, devstack.PostgresOptions{URL: o.DatabaseURL,
		DataDir: filepath.Join(dataDir, "pg"), Logger: o.Logger})
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	defer func() { _ = pg.Stop() }()
	if pg.Started() {
		say("postgres: private cluster ready")
	} else {
		say("postgres: using DATABASE_URL")
	}

	temporalAddr, temporalUI, namespace := o.TemporalAddress, "(that of the Temporal server at "+o.TemporalAddress+")", cfg.TemporalNamespace
	if o.TemporalAddress != "" {
		say("temporal: using the server at %s (TEMPORAL_ADDRESS)", o.TemporalAddress)
	} else {
		tmp, err := startTemporal(ctx, o, dataDir, pg)
		if err != nil {
			return fmt.Errorf("temporal: %w", err)
		}
		defer tmp.Stop()
		temporalAddr, temporalUI, namespace = tmp.HostPort(), tmp.UIURL(), tmp.Namespace()
		say("temporal: ready at %s, Web UI at %s", temporalAddr, temporalUI)
	}

	cfg.DatabaseURL, cfg.TemporalAddress, cfg.TemporalNamespace = pg.URL(), temporalAddr, namespace

	registry, err := chains.LoadRegistry(filepath.Join(cfg.ChainsConfigDir, "chains.dev.json"))
	if err != nil {
		return err
	}
	if o.Solana {
		if registry, err = withLocalSolana(registry, o.Lookup); err != nil {
			return err
		}
	}
	if o.Exchange {
		if registry, err = withLocalExchange(registry, o.Lookup); err != nil {
			return err
		}
	}
	for _, ch := range registry.Enabled() {
		say("chains: waiting for chain %d at %s (start it with `intentd-dev devnet`)", ch.ID, ch.HTTPRPCURL)
		if err := waitChain(ctx, ch); err != nil {
			return err
		}
	}

	adminLine, adminToken := "from ADMIN_TOKEN", "$ADMIN_TOKEN"
	if len(cfg.AdminTokenSHA256) == 0 {
		tokenFile := filepath.Join(dataDir, "dev-admin-token")
		if cfg.AdminTokenSHA256, err = devAdminToken(tokenFile); err != nil {
			return fmt.Errorf("dev admin token: %w", err)
		}
		adminLine = "in " + filepath.Join(o.DataDir, "dev-admin-token")
		adminToken = "$(cat " + filepath.Join(o.DataDir, "dev-admin-token") + ")"
	}
	if len(cfg.WebhookSecretsKey) == 0 {
		if cfg.WebhookSecretsKey, err = devSecretsKey(filepath.Join(dataDir, "dev-webhook-secrets-key")); err != nil {
			return fmt.Errorf("dev webhook secrets key: %w", err)
		}
	}
	if cfg.MetricsAddr == "" {
		cfg.MetricsAddr = defaultDevMetricsAddr
	}
	sys, err := app.Open(ctx, cfg, registry, o.Logger)
	if err != nil {
		return err
	}
	defer sys.Close()
	if applied, err := sys.Migrate(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	} else if len(applied) > 0 {
		say("migrations: applied %s", strings.Join(applied, ", "))
	}
	devKey, err := devAPIKey(ctx, sys.Store, filepath.Join(dataDir, "dev-api-key"))
	if err != nil {
		return err
	}

	g, gctx := errgroup.WithContext(ctx)
	if err := sys.ServeMetrics(gctx, app.RoleAll); err != nil {
		return err
	}
	var oracleURLs []string
	for i, ocfg := range ocfgs {
		osrv, err := oracle.NewServer(ocfg, registry, o.Logger.With("component", "oracle", "oracle", i+1))
		if err != nil {
			return fmt.Errorf("oracle %d: %w", i+1, err)
		}
		addr := oracleAddr(o.OracleAddr, i)
		oracleURLs = append(oracleURLs, "http://"+addr+"/lives/v1")
		g.Go(func() error { return osrv.Run(gctx, addr) })
	}
	workerLine := "in this process"
	if o.Workers < 0 {
		g.Go(func() error { return worker.Run(gctx, sys.WorkerDeps()) })
	} else {
		sups, err := workerSupervisors(o, cfg, registry, oracleKey, dataDir)
		if err != nil {
			return err
		}
		for _, sup := range sups {
			if err := sup.Start(); err != nil {
				return err
			}
			defer sup.Close(workerGrace)
		}
		workerLine = fmt.Sprintf("%d `intentd worker` processes (logs %s)", len(sups), filepath.Join(o.DataDir, "worker-N-1.log"))
	}
	g.Go(func() error { return sys.APIServer(gctx).Run(gctx, cfg.APIAddr) })
	g.Go(func() error { return sys.Config.NewDispatcher(sys.Store, o.Logger).Run(gctx) })

	fmt.Fprintf(o.Out, `
intentd-dev dev is running. Ctrl-C stops everything.

  API             http://%s   (try: curl http://%s/chains)
  Status stream   ws://%s/ws   (websocket: docs/events.md)
  Metrics, health http://%s/metrics  /livez  /readyz
  Temporal Web UI %s
  Temporal        %s (namespace %s)
  Worker          %s
  Oracles         %s (2-of-3; the worker asks the first)
  Postgres        %s
  Dev API key     %s   (x-api-key header; stored in %s)
  Admin API       http://%s/admin/…   (its own listener, ADMIN_ADDR; try: curl -H "Authorization: Bearer %s" http://%s/admin/integrators)
  Admin token     %s   (Authorization: Bearer header of the admin API)
`, cfg.APIAddr, cfg.APIAddr, cfg.APIAddr, cfg.MetricsAddr, temporalUI, temporalAddr, namespace, workerLine, strings.Join(oracleURLs, " "), redactURL(pg.URL()), devKey,
		filepath.Join(o.DataDir, "dev-api-key"), cfg.AdminAddr, adminToken, cfg.AdminAddr, adminLine)
	for _, ch := range registry.Enabled() {
		fmt.Fprintf(o.Out, "  Chain %d     %s\n", ch.ID, ch.HTTPRPCURL)
	}
	fmt.Fprintln(o.Out)
	err = g.Wait()
	say("stopping")
	if errors.Is(err, context.Canceled) || ctx.Err() != nil {
		return nil
	}
	return err
}

// startTemporal starts the in-process Temporal server on the persistence o asks for.
func startTemporal(ctx context.Context, o DevOptions, dataDir string, pg *devstack.Postgres) (*devstack.Temporal, error) {
	persistence := o.TemporalPersistence
	if persistence == "" {
		var err error
		if persistence, err = defaultPersistence(dataDir, pg.Started()); err != nil {
			return nil, err
		}
	}
	topts, where := temporalOptions(dataDir, persistence, pg.URL(), o.Logger)
	topts.UIPort = o.UIPort
	fmt.Fprintf(o.Out, "==> temporal: starting the in-process server (state in %s)\n", where)
	return devstack.StartTemporal(ctx, topts)
}

// temporalOptions are the options of a Temporal server with the engine's search attributes
// that keeps its state by persistence (TEMPORAL_PERSISTENCE): in dataDir/temporal.db (sqlite),
// its visibility records on the Postgres at pgURL (sqlite-postgres-visibility), or all of it
// there (postgres); where says so for the console.
func temporalOptions(dataDir, persistence, pgURL string, logger *slog.Logger) (opts devstack.TemporalOptions, where string) {
	opts = devstack.TemporalOptions{DatabaseFile: filepath.Join(dataDir, "temporal.db"),
		SearchAttributes: workflows.SearchAttributeTypes(), Logger: logger}
	where = opts.DatabaseFile
	switch persistence {
	case "sqlite-postgres-visibility":
		opts.VisibilityPostgresURL, where = pgURL, where+", its visibility records on "+redactURL(pgURL)
	case "postgres":
		opts.PostgresURL, where = pgURL, "its databases on "+redactURL(pgURL)
	}
	return opts, where
}

// defaultDevMetricsAddr is where `dev` serves its metrics and health unless METRICS_ADDR says.
const defaultDevMetricsAddr = "127.0.0.1:9100"

// startedByDev stands for the addresses of the Postgres and the Temporal that `dev` starts itself,
// until they run: the engine's DATABASE_URL and TEMPORAL_ADDRESS are not read from the
// environment in dev mode.
const startedByDev = "(started by intentd-dev dev)"

// oracleAddr is the address of oracle i: the port of first plus i.
func oracleAddr(first string, i int) string {
	host, port, _ := strings.Cut(first, ":")
	p, _ := strconv.Atoi(port)
	return host + ":" + strconv.Itoa(p+i)
}

// devConfigs loads the engine's and the oracles' configurations of `dev` over lookup, with the
// devnet's keys and price feeds for what the environment leaves unset and oracleKey as the
// worker's key at the oracles (and theirs at each other), the first served at oracleAddr and
// the others on the next ports. The engine's Postgres and Temporal addresses are set once they
// run.
func devConfigs(lookup func(string) (string, bool), oracleKey, oracleAddr0 string) (app.Config, []oracle.Config, error) {
	engineEnv := func(name string) (string, bool) {
		if name == "DATABASE_URL" || name == "TEMPORAL_ADDRESS" {
			return startedByDev, true
		}
		return lookup(name)
	}
	cfg, err := app.Load(engineEnv, devnet.EngineEnv(startedByDev, oracleKey))
	if err != nil {
		return app.Config{}, nil, err
	}
	cfg.OracleURL = "http://" + oracleAddr0
	var ocfgs []oracle.Config
	for i := range devnet.OracleCount {
		var peers []string
		for j := range devnet.OracleCount {
			if j != i {
				peers = append(peers, "http://"+oracleAddr(oracleAddr0, j))
			}
		}
		_, port, _ := strings.Cut(oracleAddr(oracleAddr0, i), ":")
		ocfg, err := oracle.ConfigFromEnv(devnet.OracleEnv(lookup, i, port, oracleKey, peers))
		if err != nil {
			return app.Config{}, nil, fmt.Errorf("oracle %d: %w", i+1, err)
		}
		ocfgs = append(ocfgs, ocfg)
	}
	return cfg, ocfgs, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

func redactURL(u string) string {
	if at := strings.Index(u, "@"); at > 0 {
		if scheme := strings.Index(u, "://"); scheme > 0 && scheme < at {
			user := u[scheme+3 : at]
			if name, _, ok := strings.Cut(user, ":"); ok {
				return u[:scheme+3] + name + ":***" + u[at:]
			}
		}
	}
	return u
}

func waitChain(ctx context.Context, ch *chains.Chain) error {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval, b.MaxInterval, b.MaxElapsedTime = 200*time.Millisecond, 2*time.Second, 2*time.Minute
	err := backoff.Retry(func() error {
		if ch.VMType == chains.VMTypePerps {
			c, err := perps.Dial(ch)
			if err != nil {
				return backoff.Permanent(err)
			}
			return c.Ping(ctx)
		}
		if ch.VMType == chains.VMTypeSVM {
			c, err := solana.Dial(ch)
			if err != nil {
				return backoff.Permanent(err)
			}
			defer func() { _ = c.Close() }()
			_, err = c.Head(ctx)
			return err
		}
		c, err := ethclient.DialContext(ctx, ch.HTTPRPCURL)
		if err != nil {
			return err
		}
		defer c.Close()
		id, err := c.ChainID(ctx)
		if err != nil {
			return err
		}
		if id.Uint64() != ch.ID {
			return backoff.Permanent(fmt.Errorf("chain at %s has id %d, configured %d", ch.HTTPRPCURL, id, ch.ID))
		}
		return nil
	}, backoff.WithContext(b, ctx))
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("chain %d at %s is not reachable (is `intentd-dev devnet` running?): %w", ch.ID, ch.HTTPRPCURL, err)
	}
	return err
}

// withLocalSolana is reg with the local Solana chain of `intentd-dev devnet` added
// (devnet.SolanaChainConfig at DEVNET_SOLANA_RPC_URL, default http://127.0.0.1:8899), unless reg
// lists its id already.
func withLocalSolana(reg *chains.Registry, lookup func(string) (string, bool)) (*chains.Registry, error) {
	if _, err := reg.Get(solana.ChainID); err == nil {
		return reg, nil
	}
	url := fmt.Sprintf("http://127.0.0.1:%d", svm.DefaultPort)
	if u, ok := lookup("DEVNET_SOLANA_RPC_URL"); ok && u != "" {
		url = u
	}
	list := make([]chains.Chain, 0, len(reg.All())+1)
	for _, ch := range reg.All() {
		list = append(list, *ch)
	}
	return chains.NewRegistry(append(list, devnet.SolanaChainConfig(url)))
}

// withLocalExchange is reg with the local perps exchange of `intentd-dev devnet` added
// (devnet.ExchangeChainConfig at DEVNET_EXCHANGE_URL, default http://127.0.0.1:8337), unless reg
// lists its id already.
func withLocalExchange(reg *chains.Registry, lookup func(string) (string, bool)) (*chains.Registry, error) {
	if _, err := reg.Get(devnet.ExchangeChainID); err == nil {
		return reg, nil
	}
	url := fmt.Sprintf("http://127.0.0.1:%d", exchange.DefaultPort)
	if u, ok := lookup("DEVNET_EXCHANGE_URL"); ok && u != "" {
		url = u
	}
	list := make([]chains.Chain, 0, len(reg.All())+1)
	for _, ch := range reg.All() {
		list = append(list, *ch)
	}
	return chains.NewRegistry(append(list, devnet.ExchangeChainConfig(url)))
}

// devAPIKey returns the dev API key, creating it (and its integrator "dev") on first start.
// Only its hash is in the database; the plain key is kept in the (git-ignored) data directory so
// restarts reuse it. The key is Unlimited, in environment "dev", so the SDK suite and the load
// tools run without rate limits; a stored key that is not (made before keys had limits) is
// revoked and replaced.
func devAPIKey(ctx context.Context, st *store.Store, path string) (string, error) {
	by := store.Actor{Name: "intentd-dev", Via: store.ViaDev}
	if b, err := os.ReadFile(path); err == nil {
		v := strings.TrimSpace(string(b))
		k, _, err := st.KeyByHash(ctx, auth.Hash(v))
		if err != nil {
			return "", err
		}
		if k != nil && k.RevokedAt == nil {
			if k.Unlimited && k.Environment == devEnvironment {
				return v, nil
			}
			if _, err := st.RevokeAPIKey(ctx, k.Integrator.ID, k.ID, by); err != nil {
				return "", err
			}
		}
	}
	in, err := st.CreateIntegrator(ctx, auth.Integrator{Name: "dev"}, by)
	if err != nil {
		return "", err
	}
	v, _, err := st.CreateAPIKey(ctx, store.NewKey{IntegratorID: in.ID, Label: "dev", Environment: devEnvironment,
		Tier: auth.TierDefault, Unlimited: true}, by)
	if err != nil {
		return "", err
	}
	return v, os.WriteFile(path, []byte(v+"\n"), 0o600)
}

// devEnvironment is the dev key's environment.
const devEnvironment = "dev"

// devAdminToken returns the SHA-256 of the dev admin token, creating the token on first start
// (and again when the file holds one too weak for app.AdminTokenHash).
// The token is kept in the (git-ignored) data directory, readable by its owner only, so
// restarts reuse it; it is never printed, only the file's path.
// devSecretsKey is the development WEBHOOK_SECRETS_KEY: read from path, or made and written
// there (mode 0600) the first time, so webhook secrets sealed in .data open after a restart.
func devSecretsKey(path string) ([]byte, error) {
	if b, err := os.ReadFile(path); err == nil {
		if key, err := events.ParseSecretsKey(string(b)); err == nil {
			return key, nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	hexKey := randomHex(32)
	if err := os.WriteFile(path, []byte(hexKey+"\n"), 0o600); err != nil {
		return nil, err
	}
	return events.ParseSecretsKey(hexKey)
}

func devAdminToken(path string) ([]byte, error) {
	token := ""
	if b, err := os.ReadFile(path); err == nil {
		token = strings.TrimSpace(string(b))
		if err := os.Chmod(path, 0o600); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if _, err := app.AdminTokenHash(token); err != nil { // missing, truncated or weak: make a new one
		token = "ia_" + randomHex(32)
		if err := os.WriteFile(path, []byte(token+"\n"), 0o600); err != nil {
			return nil, err
		}
		if err := os.Chmod(path, 0o600); err != nil { // WriteFile keeps an existing file's mode
			return nil, err
		}
	}
	sum := sha256.Sum256([]byte(token))
	return sum[:], nil
}

// visibilityMarker, in the data directory, records that the in-process Temporal keeps its
// visibility records on the private Postgres.
const visibilityMarker = "temporal-visibility-on-postgres"

// defaultPersistence chooses where the in-process Temporal keeps its state when
// TEMPORAL_PERSISTENCE is unset: temporal.db with the visibility records on the private
// Postgres cluster (SQLite's visibility table, 58 indexes and two full-text tables kept by
// triggers, was a fifth of the engine's CPU under load: BENCHMARKS.md, "Intents under load"),
// for a new data directory or one that already does so (the marker file); temporal.db alone for
// a data directory created before (its visibility records are in temporal.db, and moving them
// would empty the Web UI's lists) or when dev runs on DATABASE_URL (whose Postgres it must not
// create databases on).
func defaultPersistence(dataDir string, privateCluster bool) (string, error) {
	marker := filepath.Join(dataDir, visibilityMarker)
	if _, err := os.Stat(marker); err == nil {
		return "sqlite-postgres-visibility", nil
	}
	if !privateCluster {
		return "sqlite", nil
	}
	if _, err := os.Stat(filepath.Join(dataDir, "temporal.db")); err == nil {
		return "sqlite", nil
	}
	if err := os.WriteFile(marker, []byte("the in-process Temporal keeps its visibility records on the private Postgres\n"), 0o644); err != nil {
		return "", fmt.Errorf("temporal persistence: %w", err)
	}
	return "sqlite-postgres-visibility", nil
}
