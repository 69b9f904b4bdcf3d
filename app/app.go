package app

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/intentd/intentd/api"
	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/chains/perps"
	"github.com/intentd/intentd/chains/solana"
	"github.com/intentd/intentd/deposits"
	"github.com/intentd/intentd/door"
	"github.com/intentd/intentd/events"
	"github.com/intentd/intentd/internal/httpclient"
	"github.com/intentd/intentd/internal/metrics"
	"github.com/intentd/intentd/migrations"
	"github.com/intentd/intentd/oracle/oracleapi"
	"github.com/intentd/intentd/prices"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/ratelimit"
	"github.com/intentd/intentd/screening"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/worker"
)

// System is the engine's shared clients, opened once per process.
type System struct {
	Config   Config
	Logger   *slog.Logger
	Pool     *pgxpool.Pool
	Store    *store.Store
	Chains   *chains.Clients
	Temporal client.Client
	// Screening is the blocklist (SCREENING_BLOCKLIST_FILE), watched for changes until Close;
	// nil when none is configured.
	Screening *screening.List

	pricesOnce sync.Once
	prices     *prices.Cached
	doorOnce   sync.Once
	door       *door.Door
	redisOnce  sync.Once
	redis      *redis.Client // the rate limits' and the websocket caps' (redisClient), when REDIS_URL is set
	signing    *pgxpool.Pool // the solver's signings' (store.SignOn)
	stopWatch  context.CancelFunc
}

// Open connects to Postgres and Temporal and loads the chain registry (from the environment's
// file unless registry is given, as tests do).
func Open(ctx context.Context, cfg Config, registry *chains.Registry, logger *slog.Logger) (*System, error) {
	if registry == nil {
		r, err := chains.LoadRegistry(cfg.ChainsFile())
		if err != nil {
			return nil, err
		}
		registry = r
	}
	if cfg.PriceFeeds != nil {
		// A feed's address is its chain's: its family reads it once the registry is known.
		feeds, err := prices.CheckFeeds(registry, cfg.PriceFeeds)
		if err != nil {
			return nil, fmt.Errorf("PRICE_FEEDS: %w", err)
		}
		cfg.PriceFeeds = feeds
	}
	var list *screening.List
	if cfg.ScreeningFile != "" {
		var err error
		if list, err = screening.Open(cfg.ScreeningFile, logger.With("component", "screening")); err != nil {
			return nil, fmt.Errorf("SCREENING_BLOCKLIST_FILE: %w", err)
		}
		logger.Info("screening blocklist loaded", "file", cfg.ScreeningFile, "addresses", list.Len())
	}
	pool, err := openPool(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	// The solver's signings have a pool of their own (store.SignOn), connected only once a
	// worker signs.
	signing, err := poolBeside(ctx, pool, signingPoolConns)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("DATABASE_URL: %w", err)
	}
	tc, err := client.DialContext(ctx, client.Options{HostPort: cfg.TemporalAddress, Namespace: cfg.TemporalNamespace,
		MetricsHandler: metrics.TemporalHandler(),
		Logger:         sdklog.NewStructuredLogger(logger.With("component", "temporal-sdk"))})
	if err != nil {
		signing.Close()
		pool.Close()
		return nil, fmt.Errorf("temporal at TEMPORAL_ADDRESS %s: %w", cfg.TemporalAddress, err)
	}
	watch, stop := context.WithCancel(ctx)
	go list.Watch(watch, cfg.ScreeningReloadInterval)
	st := store.New(pool).SignOn(signing)
	return &System{Config: cfg, Logger: logger, Pool: pool, signing: signing, Store: st,
		Chains: chains.NewClients(registry, evm.VM(), solana.VM(), perps.VM(st)), Temporal: tc, Screening: list, stopWatch: stop}, nil
}

// signingPoolConns is the size of a process's pool for the solver's signings: one group commit
// runs at a time per chain and solver address.
const signingPoolConns = 2

// poolBeside opens a pool of up to conns connections on pool's database, none opened before
// they are used: for a part of the process that must not wait for the main pool's connections.
func poolBeside(ctx context.Context, pool *pgxpool.Pool, conns int32) (*pgxpool.Pool, error) {
	cfg := pool.Config().Copy()
	cfg.MaxConns, cfg.MinConns = conns, 0
	p, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil { // the configuration was parsed once already: not expected
		return nil, fmt.Errorf("DATABASE_URL: %w", err)
	}
	return p, nil
}

// openPool connects to the Postgres at url and checks that it answers.
func openPool(ctx context.Context, url string) (*pgxpool.Pool, error) {
	pc, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL: %w", err)
	}
	if !strings.Contains(url, "pool_max_conns") {
		// pgx's default (4 on two cores) is too few for a process that also holds a connection
		// for each LISTEN (the dispatcher's, the websocket stream's) and serves bursts of status
		// reads; DATABASE_URL's pool_max_conns overrides it.
		pc.MaxConns = max(defaultPoolConns, 4*int32(runtime.NumCPU()))
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres at DATABASE_URL is not reachable: %w", err)
	}
	return pool, nil
}

// defaultPoolConns is the least a process's Postgres pool may grow to.
const defaultPoolConns = 16

// Migrate applies the schema to cfg's database, the whole of the migrate role: it opens
// Postgres only (no Temporal, no chains), so migrate runs with DATABASE_URL alone.
func Migrate(ctx context.Context, cfg Config) ([]string, error) {
	pool, err := openPool(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	return migrations.Apply(ctx, pool)
}

// Close releases the clients.
func (s *System) Close() {
	if s.stopWatch != nil {
		s.stopWatch()
	}
	if s.redis != nil {
		_ = s.redis.Close()
	}
	s.Temporal.Close()
	if s.signing != nil {
		s.signing.Close()
	}
	s.Pool.Close()
}

// Migrate applies the schema.
func (s *System) Migrate(ctx context.Context) ([]string, error) { return migrations.Apply(ctx, s.Pool) }

// Intents is the door to the intent workflows (built once): the scanner delivers deposits
// through it, the API indexes transactions and sends manual refunds through it.
func (s *System) Intents() *door.Door {
	s.doorOnce.Do(func() {
		s.door = &door.Door{Temporal: s.Temporal, Requests: s.Store, Chains: s.Chains, Policy: s.Config.Policy,
			EagerStart: s.Config.EagerStart, HintMaxDeposits: s.Config.HintMaxDeposits, Logger: s.Logger.With("component", "intents")}
	})
	return s.door
}

// quoteEngine is the quote engine: the API's, and the worker's for the requotes of payments at
// open deposit addresses (deposits.Requoter).
func (s *System) quoteEngine() *quote.Engine {
	return &quote.Engine{Chains: s.Chains, Prices: s.PriceSource(), Store: s.Store, Solver: s.Config.SolverAddress().Hex(), Solvers: s.solvers(),
		TTL: s.Config.QuoteTTL, Limits: s.Config.QuoteLimits, SwapCostBps: s.Config.SwapCostBps, Screening: s.Screening}
}

// solvers are the solver's addresses on the families where it has one of its own (svm:
// SOLVER_SOLANA_ADDRESS or its key's); nil when none is configured.
func (s *System) solvers() map[chains.VMType]string {
	if a := s.Config.SolanaSolverAddress(); a != "" {
		return map[chains.VMType]string{chains.VMTypeSVM: a}
	}
	return nil
}

// WorkerDeps builds the worker's dependencies.
func (s *System) WorkerDeps() worker.Deps {
	return worker.Deps{Temporal: s.Temporal, Store: s.Store, Chains: s.Chains, Families: s.families(),
		Oracle:        oracleapi.NewClient(s.Config.OracleURL, s.Config.OracleAPIKey, httpclient.New(20*time.Second)),
		OracleSigners: s.Config.OracleSigners, OracleThreshold: s.Config.OracleSignersThreshold, Environment: s.Config.Environment,
		SolverKey: s.Config.SolverKey(), RelayerKey: s.Config.RelayerKey(), Solvers: s.solvers(), Prices: s.PriceSource(), ScanInterval: s.Config.ScanInterval, NonceGapAfter: s.Config.NonceGapAfter,
		MaxFill: s.Config.SolverMaxFill, InventoryFloor: s.Config.SolverInventoryFloor, Screening: s.Screening, ExposureCap: s.Config.ExposureCapUSD,
		Intents: s.Intents(), Requotes: s.quoteEngine(), RefundGas: s.Config.RefundGas, RefundBudget: s.Config.OrphanRefundBudget,
		Logger: s.Logger.With("component", "worker")}
}

// families are the chain families the worker pays with: the EVM family, signing with the
// solver's key and allocating its nonces in the store, and relaying gasless calls with the
// relayer's (RELAYER_PRIVATE_KEY; none without it); the Solana family, signing fills with
// the solver's Solana keypair (SOLVER_SOLANA_KEY) and refunds with the vault's
// (SOLANA_VAULT_KEY), keeping what it signs in the store (solana_payments); none without a key
// (a role other than the worker's); the perps exchange's family, signing its sendAsset fills
// with the solver's key (its exchange account is the solver's EVM address) and keeping them in
// the store (perps_payments). A new family is registered here, beside evm.VM(), solana.VM() and
// perps.VM() in Open.
func (s *System) families() *chains.Families {
	payouts := map[chains.VMType]chains.Payout{}
	if key := s.Config.SolverKey(); key != nil {
		p := evm.NewPayout(s.Chains, s.Store, key)
		if relayer := s.Config.RelayerKey(); relayer != nil {
			p.WithRelayer(relayer)
		}
		payouts[chains.VMTypeEVM] = p
		payouts[chains.VMTypePerps] = perps.NewPayout(s.Chains, s.Store, key).WithDepository(s.Config.PerpsDepositoryKey())
	}
	if key := s.Config.SolanaSolverKey(); key != nil {
		payouts[chains.VMTypeSVM] = solana.NewPayout(s.Chains, s.Store, key, s.Config.SolanaVaultKey())
	}
	return chains.NewFamilies(s.Chains, payouts)
}

// APIServer builds the HTTP API, with the admin API (the manual refund, sent through the
// system's Temporal client; integrators, keys, webhooks) on ADMIN_ADDR when ADMIN_TOKEN is set,
// and the websocket stream, whose listener on
// Postgres runs until ctx ends. It starts reading the price of every
// configured currency in the background, so the first quotes do not wait on a price feed; a
// failure there is only logged (a quote then reads the price itself and reports what fails).
func (s *System) APIServer(ctx context.Context) *api.Server {
	prices := s.PriceSource()
	go func() {
		if err := prices.Warm(ctx, s.symbols()...); err != nil && ctx.Err() == nil {
			s.Logger.Warn("prices not warmed", "error", err)
		}
	}()
	engine := s.quoteEngine()
	reindexer := &deposits.Reindexer{Scanner: &deposits.Scanner{Chains: s.Chains, Store: s.Store, Router: s.Intents(),
		Requotes: engine, Logger: s.Logger.With("component", "reindex"),
		RefundGas: func(chainID uint64, currency string) uint64 {
			return s.Config.RefundGas.Of(s.Chains.Registry(), chainID, currency)
		}}}
	return &api.Server{Store: s.Store, Chains: s.Chains.Registry(), Indexer: s.Intents(), Reindexer: reindexer, Logger: s.Logger.With("component", "api"),
		Stream: s.stream(ctx),
		Quotes: engine, Admin: s.Intents(), Gasless: s.Intents(), AdminTokenSHA256: s.Config.AdminTokenSHA256, AdminAddr: s.Config.AdminAddr,
		Limits: s.rateLimiter(ctx), TrustedProxies: s.Config.TrustedProxies,
		TemporalUIURL: s.Config.TemporalUIURL, TemporalNamespace: s.Config.TemporalNamespace, SolverMaxFill: s.Config.SolverMaxFill,
		Webhooks: s.Config.Sealer(), WebhookPolicy: s.Config.WebhookPolicy(),
		V2: api.V2Deprecation{DeprecatedAt: s.Config.RequestsV2DeprecatedAt, SunsetAt: s.Config.RequestsV2SunsetAt,
			MigrationGuide: s.Config.RequestsV2MigrationGuide}}
}

// streamPoolConns bounds the websocket stream's own pool: its LISTEN connection, held for good,
// and the reads of subscribes and catch-ups.
const streamPoolConns = 3

// stream starts the API's websocket stream (docs/events.md), listening until ctx ends. It has a
// pool of its own on the same database, so the connection its listener holds for good and its
// reads never take one of the API's (the status reads may hold half of those, the rest serve
// quotes, keys and usage). Nil without a database (tests of other parts).
func (s *System) stream(ctx context.Context) *events.Hub {
	if s.Pool == nil {
		return nil
	}
	pool, err := poolBeside(ctx, s.Pool, streamPoolConns)
	if err != nil {
		s.Logger.Error("websocket stream not started: its pool", "error", err)
		return nil
	}
	hub := s.newHub(ctx, store.New(pool))
	register(hub.Collector())
	go func() {
		_ = hub.Run(ctx)
		pool.Close()
	}()
	return hub
}

// rateLimiter is the API's rate limiter: over Redis when REDIS_URL is set, so that the limits
// hold across every API process, else in this process only. A Redis that does not answer at
// start is no reason not to serve: the limiter fails open to its local buckets until it does.
func (s *System) rateLimiter(ctx context.Context) *ratelimit.Limiter {
	logger := s.Logger.With("component", "ratelimit")
	o := ratelimit.Options{Policy: s.Config.RateLimits, Logger: logger}
	if s.Config.RedisURL == "" {
		logger.Info("rate limits are kept in this process only (no REDIS_URL): each API process limits on its own")
		return ratelimit.New(o)
	}
	if o.Redis = s.redisClient(); o.Redis == nil {
		return ratelimit.New(o)
	}
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := s.redis.Ping(pctx).Err(); err != nil {
		logger.Warn("redis at REDIS_URL does not answer: rate limits fail open to this process's own until it does", "error", err)
	}
	return ratelimit.New(o)
}

// redisClient is the process's client of REDIS_URL (the rate limits' and the websocket caps'),
// opened on first use; nil without REDIS_URL.
func (s *System) redisClient() *redis.Client {
	s.redisOnce.Do(func() {
		if s.Config.RedisURL == "" {
			return
		}
		logger := s.Logger.With("component", "ratelimit")
		redis.SetLogger(redisLog{logger})
		var err error
		if s.redis, err = redisClient(s.Config.RedisURL); err != nil { // validated by Load
			logger.Error("REDIS_URL: rate limits and websocket caps are kept in this process only", "error", err)
		}
	})
	return s.redis
}

// symbols lists the currency symbols of the enabled chains, once each.
func (s *System) symbols() []string {
	seen := map[string]bool{}
	var out []string
	for _, ch := range s.Chains.Registry().Enabled() {
		for _, c := range ch.Currencies() {
			if !seen[c.Symbol] {
				seen[c.Symbol] = true
				out = append(out, c.Symbol)
			}
		}
	}
	return out
}

// PriceSource is the configured USD price source behind a refresh-ahead cache, so quotes are
// priced from memory (docs/prices.md). It is built once per process: in dev mode the API and
// the worker share one cache.
func (s *System) PriceSource() *prices.Cached {
	s.pricesOnce.Do(func() {
		var src prices.Source = s.Config.Prices
		if s.Config.PriceSource == "feeds" {
			src = prices.NewFeeds(s.Chains, s.Config.PriceFeeds, s.Config.PriceMaxAge)
		}
		s.prices = prices.NewCached(src, s.Config.PriceCacheTTL, s.Config.PriceMaxAge)
	})
	return s.prices
}

// Sealer is the webhook secrets' sealer (WEBHOOK_SECRETS_KEY, WEBHOOK_SECRETS_PREVIOUS_KEYS,
// WEBHOOK_SECRETS_OPEN_UNVERSIONED); nil when the key is not set.
func (c Config) Sealer() *events.Sealer {
	if c.WebhookSecretsKey == nil {
		return nil
	}
	s, err := events.NewSealer(c.WebhookSecretsKey, c.WebhookPreviousKeys...)
	if err != nil { // the keys' lengths were checked at load
		panic(err)
	}
	s.OpenUnversioned = c.WebhookOpenUnversioned
	return s
}

// WebhookPolicy is which webhook URLs are allowed (WEBHOOK_ALLOW_PRIVATE).
func (c Config) WebhookPolicy() events.URLPolicy {
	return events.URLPolicy{AllowPrivate: c.WebhookAllowPrivate}
}

// NewDispatcher builds the webhook dispatcher over st.
func (c Config) NewDispatcher(st *store.Store, logger *slog.Logger) *events.Dispatcher {
	return &events.Dispatcher{Store: st, Sealer: c.Sealer(), Policy: c.WebhookPolicy(), Opts: c.Dispatcher,
		Logger: logger.With("component", "dispatcher")}
}

// RunDispatcher is the dispatcher role: it opens Postgres only and delivers webhooks until
// ctx ends; its metrics port (METRICS_ADDR) is ready while Postgres answers.
func RunDispatcher(ctx context.Context, cfg Config, logger *slog.Logger) error {
	pool, err := openPool(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := metrics.Serve(ctx, cfg.MetricsAddr, []metrics.Probe{postgresProbe(pool)}, logger); err != nil {
		return fmt.Errorf("METRICS_ADDR: %w", err)
	}
	return cfg.NewDispatcher(store.New(pool), logger).Run(ctx)
}

// register adds a collector to the process's metrics; a second one of the same kind (a test
// that builds two APIs in one process) is left out.
func register(c prometheus.Collector) { _ = metrics.Registry.Register(c) }

func postgresProbe(pool *pgxpool.Pool) metrics.Probe {
	return metrics.Probe{Name: "postgres", Check: pool.Ping}
}

// Probes are the readiness checks of role: Postgres and Temporal for all, and for the worker
// every enabled chain's RPC (it cannot attest, fill or refund without them).
func (s *System) Probes(role Role) []metrics.Probe {
	probes := []metrics.Probe{postgresProbe(s.Pool), {Name: "temporal", Check: func(ctx context.Context) error {
		_, err := s.Temporal.CheckHealth(ctx, &client.CheckHealthRequest{})
		return err
	}}}
	if role.worker() {
		for _, ch := range s.Chains.Registry().Enabled() {
			id := ch.ID
			probes = append(probes, metrics.Probe{Name: fmt.Sprintf("chain-%d", id), Check: func(ctx context.Context) error {
				h, err := chains.Capability[chains.HeadReader](s.Chains, id)
				if err == nil {
					_, err = h.Head(ctx)
				}
				return err
			}})
		}
	}
	return probes
}

// ServeMetrics serves the process's metrics and health on METRICS_ADDR (nothing when unset),
// with the read model's gauges when the role runs the API.
func (s *System) ServeMetrics(ctx context.Context, role Role) error {
	if role.api() {
		register(s.Store.NewGauges(s.Config.StuckAfter))
	}
	if s.Pool != nil {
		register(newPoolCollector(s.Pool))
	}
	if err := metrics.Serve(ctx, s.Config.MetricsAddr, s.Probes(role), s.Logger.With("component", "metrics")); err != nil {
		return fmt.Errorf("METRICS_ADDR: %w", err)
	}
	return nil
}
