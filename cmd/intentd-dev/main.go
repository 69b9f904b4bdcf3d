// Command intentd-dev is the development launcher: it runs the local chains (devnet) and the
// whole engine on the embedded default (dev): a private Postgres, an in-process Temporal server
// with its Web UI, the oracle, the worker and the API in one process. It is the only binary that
// links the Temporal server; the production binary, intentd, never does. `make run` starts both
// commands (on spf13/cobra through internal/cli, as intentd).
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/gin-gonic/gin"
	"github.com/spf13/cobra"

	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/devnet/exchange"
	"github.com/intentd/intentd/devnet/svm"
	"github.com/intentd/intentd/devstack"
	"github.com/intentd/intentd/internal/cli"
	"github.com/intentd/intentd/internal/logging"
	"github.com/intentd/intentd/internal/pprofserver"
)

func main() {
	gin.SetMode(gin.ReleaseMode)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, newRootCmd(), os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if code != 0 {
		os.Exit(code)
	}
}

// newRootCmd is intentd-dev's command tree: three commands, no flags, configured from the
// environment (launcherConfig).
func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "intentd-dev",
		Short: "the development launcher: the local chains and the whole engine in one process",
		Long: `intentd-dev is the development launcher: the local chains (devnet) and the whole engine on the
embedded default (dev). 'make run' starts both.

Configuration is read from the environment and checked at start; see README.md.`,
	}
	command := func(name, short, long string) *cobra.Command {
		return &cobra.Command{Use: name, Short: short, Long: long, Args: cli.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error { return run(cmd.Context(), name) }}
	}
	root.AddCommand(
		command("devnet", "run the local EVM chains 31337 (8545) and 31338 (8546), the local Solana chain (8899) and the local perps exchange (8337)",
			`Runs the local EVM chains 31337 (JSON-RPC on 8545) and 31338 (8546), in memory, with the
contracts deployed, the local Solana chain (litesvm behind our JSON-RPC on 8899, with a USDC
mint; Node.js and 'make solana-deps') and the local perps exchange (chain 1337, its HTTP API on
8337), on DEVNET_HOST (default 127.0.0.1). DEVNET_SOLANA=false leaves Solana out,
DEVNET_EXCHANGE=false the exchange. Its keys are dev-only: never reuse them.`),
		command("dev", "run Postgres, Temporal (+ Web UI), the oracle, the worker and the API in one process",
			`Runs Postgres (DATABASE_URL when it answers, else a private cluster in DATA_DIR), Temporal and its
Web UI (127.0.0.1:8233), the oracles, the worker, the dispatcher and the API in one process, against
the chains of 'intentd-dev devnet'. DEV_WORKERS=N runs the worker as N 'intentd worker' processes
instead; TEMPORAL_ADDRESS uses a Temporal server of another process ('intentd-dev temporal').`),
		command("temporal", "run only the Temporal development server and its Web UI (127.0.0.1:7233, :8233)",
			`Runs only the Temporal development server and its Web UI (127.0.0.1:7233, :8233), with the
engine's search attributes, for running intentd's processes separately. Its state is in
DATA_DIR/temporal.db, or on Postgres with TEMPORAL_PERSISTENCE=postgres.`),
	)
	return root
}

// run loads the launcher's configuration and runs the subcommand cmd.
func run(ctx context.Context, cmd string) error {
	cfg, err := loadLauncherConfig(os.LookupEnv)
	if err != nil {
		return err
	}
	logger, closeLog := logging.New(os.Stderr, cfg.LogLevel)
	defer closeLog()
	if cmd == "dev" { // the engine's process; the chains run beside it with the same environment
		percent, limit := tuneGC(os.LookupEnv)
		logger.Debug("garbage collector", "gcPercentSet", percent, "memoryLimitSet", limit)
		if err := pprofserver.Start(ctx, cfg.PprofAddr, cfg.PprofBlock, logger); err != nil {
			return fmt.Errorf("PPROF_ADDR: %w", err)
		}
	}
	switch cmd {
	case "devnet":
		o := devnet.DefaultOptions()
		o.Host = cfg.DevnetHost
		if cfg.DevnetSolana {
			o.Solana = &svm.Options{Host: cfg.DevnetHost, Port: svm.DefaultPort, Logger: logger}
		}
		if cfg.DevnetExchange {
			o.Exchange = &exchange.Options{Host: cfg.DevnetHost, Port: exchange.DefaultPort, Logger: logger}
		}
		return devnet.Run(ctx, o, os.Stdout)
	case "dev":
		return RunDev(ctx, DevOptions{DataDir: cfg.DataDir, DatabaseURL: cfg.DatabaseURL, Lookup: os.LookupEnv,
			TemporalPersistence: cfg.TemporalPersistence, TemporalAddress: cfg.TemporalAddress,
			Workers: cfg.Workers, IntentdBin: cfg.IntentdBin, Solana: cfg.DevnetSolana, Exchange: cfg.DevnetExchange,
			OracleAddr: "127.0.0.1:3000", UIPort: 8233, Out: os.Stdout, Logger: logger})
	default:
		return runTemporal(ctx, cfg, logger)
	}
}

// runTemporal serves the development Temporal server until ctx ends: its state in
// DataDir/temporal.db, or with TEMPORAL_PERSISTENCE=postgres (or sqlite-postgres-visibility)
// on DATABASE_URL when it answers, else on a private cluster it starts in DataDir/pg. A private
// cluster's URL (no password: it trusts local connections) is written to DataDir/database-url,
// so the engine's processes can share the cluster, as the production shape does.
func runTemporal(ctx context.Context, cfg launcherConfig, logger *slog.Logger) error {
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return err
	}
	pgURL := ""
	if p := cfg.TemporalPersistence; p == "postgres" || p == "sqlite-postgres-visibility" {
		pg, err := devstack.EnsurePostgres(ctx, devstack.PostgresOptions{URL: cfg.DatabaseURL,
			DataDir: filepath.Join(cfg.DataDir, "pg"), Logger: logger})
		if err != nil {
			return fmt.Errorf("postgres: %w", err)
		}
		defer func() { _ = pg.Stop() }()
		if pg.Started() {
			if err := os.WriteFile(filepath.Join(cfg.DataDir, "database-url"), []byte(pg.URL()+"\n"), 0o600); err != nil {
				return err
			}
		}
		pgURL = pg.URL()
	}
	opts, where := temporalOptions(cfg.DataDir, cfg.TemporalPersistence, pgURL, logger)
	fmt.Printf("temporal: state in %s\n", where)
	tmp, err := devstack.StartTemporal(ctx, opts)
	if err != nil {
		return err
	}
	defer tmp.Stop()
	fmt.Printf("temporal: ready at %s (namespace %s), Web UI at %s; Ctrl-C stops it\n", tmp.HostPort(), tmp.Namespace(), tmp.UIURL())
	<-ctx.Done()
	return nil
}
