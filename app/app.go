package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/intentd/intentd/admin"
	"github.com/intentd/intentd/api"
	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/migrations"
	"github.com/intentd/intentd/oracle"
	"github.com/intentd/intentd/prices"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/worker"
)

// System is the engine's shared clients, opened once per process.
type System struct {
	Config   Config
	Logger   *slog.Logger
	Pool     *pgxpool.Pool
	Store    *store.Store
	Chains   *evm.Pool
	Temporal client.Client

	pricesOnce sync.Once
	prices     *prices.Cached
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
	pool, err := pgxpool.New(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres at DATABASE_URL is not reachable: %w", err)
	}
	tc, err := client.DialContext(ctx, client.Options{HostPort: cfg.TemporalAddress, Namespace: cfg.TemporalNamespace,
		Logger: sdklog.NewStructuredLogger(logger.With("component", "temporal-sdk"))})
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("temporal at TEMPORAL_ADDRESS %s: %w", cfg.TemporalAddress, err)
	}
	return &System{Config: cfg, Logger: logger, Pool: pool, Store: store.New(pool), Chains: evm.NewPool(registry), Temporal: tc}, nil
}

// Close releases the clients.
func (s *System) Close() {
	s.Temporal.Close()
	s.Pool.Close()
}

// Migrate applies the schema.
func (s *System) Migrate(ctx context.Context) ([]string, error) { return migrations.Apply(ctx, s.Pool) }

// WorkerDeps builds the worker's dependencies.
func (s *System) WorkerDeps() worker.Deps {
	return worker.Deps{Temporal: s.Temporal, Store: s.Store, Chains: s.Chains,
		Oracle:        oracle.NewClient(s.Config.OracleURL, s.Config.OracleAPIKey, &http.Client{Timeout: 20 * time.Second}),
		OracleSigners: s.Config.OracleSigners, SolverKey: s.Config.SolverKey(), Prices: s.PriceSource(), ScanInterval: s.Config.ScanInterval,
		Policy: s.Config.Policy, MaxFill: s.Config.SolverMaxFill,
		Logger: s.Logger.With("component", "worker")}
}

// APIServer builds the HTTP API, with the manual admin refund (sent through the system's
// Temporal client) when ADMIN_TOKEN_SHA256 is set. It starts reading the price of every
// configured currency in the background, so the first quotes do not wait on a price feed; a
// failure there is only logged (a quote then reads the price itself and reports what fails).
func (s *System) APIServer(ctx context.Context) *api.Server {
	prices := s.PriceSource()
	go func() {
		if err := prices.Warm(ctx, s.symbols()...); err != nil && ctx.Err() == nil {
			s.Logger.Warn("prices not warmed", "error", err)
		}
	}()
	engine := &quote.Engine{Chains: s.Chains, Prices: prices, Store: s.Store, Solver: s.Config.SolverAddress(),
		TTL: s.Config.QuoteTTL, Limits: s.Config.QuoteLimits, SwapCostBps: s.Config.SwapCostBps}
	// The API only routes hinted deposits: it needs the router's dependencies, not the worker's.
	router := worker.Router(worker.Deps{Temporal: s.Temporal, Store: s.Store, Chains: s.Chains, Policy: s.Config.Policy,
		Logger: s.Logger.With("component", "api")})
	return &api.Server{Store: s.Store, Chains: s.Chains, Indexer: router, Logger: s.Logger.With("component", "api"),
		Quotes: engine, Admin: admin.Refunder{Temporal: s.Temporal}, AdminTokenSHA256: s.Config.AdminTokenSHA256}
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
