// Command intentd is the intent engine's production binary. Commands (commands.go, on
// spf13/cobra through internal/cli): api, worker, dispatcher, oracle and migrate (separate
// processes, as in production), and admin (support-staff tools: `admin refund`, `admin keys`,
// `admin integrators` and `admin webhooks`). Each loads one configuration struct from the
// environment at start (app.Config, oracle.Config, or the admin command's own) and validates it
// there, so a bad value stops the process with a message naming the variable before anything is
// opened; flags are only the admin commands' own.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/app"
	"github.com/intentd/intentd/internal/cli"
	"github.com/intentd/intentd/internal/logging"
	"github.com/intentd/intentd/internal/metrics"
	"github.com/intentd/intentd/oracle"
	"github.com/intentd/intentd/worker"
)

func main() {
	gin.SetMode(gin.ReleaseMode)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, newRootCmd(os.LookupEnv), os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if code != 0 {
		os.Exit(code)
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
