// Command intentd is the intent engine's one binary. Subcommands: devnet (local chains), dev
// (the whole engine on the embedded default), api, worker, oracle and migrate (separate
// processes, as in production), and admin (support-staff tools: `admin refund`). Configuration
// comes from the environment and is validated at start; a bad value stops the process with a
// message naming the variable.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/app"
	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/oracle"
	"github.com/intentd/intentd/worker"
)

const usage = `usage: intentd <command>

commands:
  api       run the HTTP API
  worker    run the Temporal worker and the deposit scanner
  oracle    run the attestation oracle
  migrate   apply the database schema
  admin     support-staff tools:
              admin refund <requestId> --reason "…" [--operator NAME] [--recipient 0x…]
              refunds an intent by hand and waits until the refund is mined

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
	logger := newLogger()
	var err error
	switch os.Args[1] {
	case "api", "worker", "migrate":
		err = runEngine(ctx, os.Args[1], logger)
	case "oracle":
		err = runOracle(ctx, logger)
	case "admin":
		err = runAdmin(ctx, os.Args[2:], os.Stdout, os.Stderr)
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

func runEngine(ctx context.Context, cmd string, logger *slog.Logger) error {
	cfg, err := app.Load(os.LookupEnv, nil)
	if err != nil {
		return err
	}
	sys, err := app.Open(ctx, cfg, nil, logger)
	if err != nil {
		return err
	}
	defer sys.Close()
	switch cmd {
	case "migrate":
		applied, err := sys.Migrate(ctx)
		if err != nil {
			return err
		}
		fmt.Printf("migrations applied: %d %v\n", len(applied), applied)
		return nil
	case "worker":
		logger.Info("worker starting", "config", cfg)
		return worker.Run(ctx, sys.WorkerDeps())
	default:
		logger.Info("api starting", "config", cfg)
		return sys.APIServer(ctx).Run(ctx, cfg.APIAddr)
	}
}

func runOracle(ctx context.Context, logger *slog.Logger) error {
	cfg, err := oracle.ConfigFromEnv(os.LookupEnv)
	if err != nil {
		return err
	}
	reg, err := chains.LoadRegistry(cfg.ChainsFile())
	if err != nil {
		return err
	}
	srv, err := oracle.NewServer(cfg, reg, logger.With("component", "oracle"))
	if err != nil {
		return err
	}
	return srv.Run(ctx, cfg.Addr())
}

func newLogger() *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(envOr("LOG_LEVEL", "info"))); err != nil {
		level = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
