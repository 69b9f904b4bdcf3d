// Command intentd is the intent engine's production binary. Subcommands: api, worker, oracle and
// migrate (separate processes, as in production), and admin (support-staff tools: `admin
// refund`, `admin keys` and `admin integrators`). Each loads one configuration struct from the environment at start (app.Config,
// oracle.Config, or the admin command's own) and validates it there, so a bad value stops the
// process with a message naming the variable before anything is opened.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/app"
	"github.com/intentd/intentd/internal/logging"
	"github.com/intentd/intentd/internal/metrics"
	"github.com/intentd/intentd/oracle"
	"github.com/intentd/intentd/worker"
)

const usage = `usage: intentd <command>

commands:
  api       run the HTTP API
  worker    run the Temporal worker and the deposit scanner
  dispatcher deliver status events to the API keys' webhooks (several may run)
  oracle    run the attestation oracle
  migrate   apply the database schema
  admin     support-staff tools:
              admin refund <requestId> --reason "…" [--operator NAME] [--recipient 0x…]
              refunds an intent by hand and waits until the refund is mined
              admin keys create|rename|limits|revoke|list …
              admin integrators create|update|list|show|sponsorship …
              manage integrators and their API keys (intentd admin keys --help)
              admin webhooks set|show|disable|rotate|deliveries|resend …
              an API key's webhook (intentd admin webhooks --help)

Configuration is read from the environment; see README.md. The local chains and the embedded
development stack are intentd-dev's ('make run').
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	gin.SetMode(gin.ReleaseMode)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch os.Args[1] {
	case "api", "worker", "migrate", "dispatcher":
		err = runEngine(ctx, os.Args[1], os.LookupEnv)
	case "oracle":
		err = runOracle(ctx)
	case "admin":
		err = runAdmin(ctx, os.Args[2:], os.LookupEnv, os.Stdout, os.Stderr)
		if errors.Is(err, errUsage) {
			os.Exit(2)
		}
	case "-h", "--help", "help":
		fmt.Print(usage)
	default:
		fmt.Fprintf(os.Stderr, "intentd: unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "intentd %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

// runEngine runs the api, worker or migrate role on app.Config loaded for that role through
// lookup (os.LookupEnv): each role reads and requires only what it uses, so the api and migrate
// start without the solver's private key and the worker refuses to start without it.
func runEngine(ctx context.Context, cmd string, lookup func(string) (string, bool)) error {
	cfg, err := app.LoadRole(app.Role(cmd), lookup, nil)
	if err != nil {
		return err
	}
	logger, closeLog := logging.New(os.Stderr, cfg.LogLevel)
	defer closeLog()
	if cfg.Role == app.RoleMigrate {
		applied, err := app.Migrate(ctx, cfg)
		if err != nil {
			return err
		}
		fmt.Printf("migrations applied: %d %v\n", len(applied), applied)
		return nil
	}
	if cfg.Role == app.RoleDispatcher {
		logger.Info("dispatcher starting", "config", cfg)
		return app.RunDispatcher(ctx, cfg, logger)
	}
	sys, err := app.Open(ctx, cfg, nil, logger)
	if err != nil {
		return err
	}
	defer sys.Close()
	if err := sys.ServeMetrics(ctx, cfg.Role); err != nil {
		return err
	}
	if cfg.Role == app.RoleWorker {
		logger.Info("worker starting", "config", cfg)
		return worker.Run(ctx, sys.WorkerDeps())
	}
	logger.Info("api starting", "config", cfg)
	return sys.APIServer(ctx).Run(ctx, cfg.APIAddr)
}

// runOracle runs the attestation oracle on oracle.Config, its one configuration.
func runOracle(ctx context.Context) error {
	cfg, err := oracle.ConfigFromEnv(os.LookupEnv)
	if err != nil {
		return err
	}
	logger, closeLog := logging.New(os.Stderr, cfg.LogLevel)
	defer closeLog()
	reg, err := cfg.LoadChains()
	if err != nil {
		return err
	}
	if err := cfg.ConnectSigner(ctx); err != nil {
		return err
	}
	srv, err := oracle.NewServer(cfg, reg, logger.With("component", "oracle"))
	if err != nil {
		return err
	}
	if err := metrics.Serve(ctx, cfg.MetricsAddr, srv.Probes(), logger.With("component", "metrics")); err != nil {
		return fmt.Errorf("METRICS_ADDR: %w", err)
	}
	return srv.Run(ctx, cfg.Addr())
}
