// Command intentd-dev is the development launcher: it runs the local chains (devnet) and the
// whole engine on the embedded default (dev): a private Postgres, an in-process Temporal server
// with its Web UI, the oracle, the worker and the API in one process. It is the only binary that
// links the Temporal server; the production binary, intentd, never does. `make run` starts both
// subcommands.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/devstack"
	"github.com/intentd/intentd/workflows"
)

const usage = `usage: intentd-dev <command>

commands:
  devnet    run the local EVM chains 31337 (8545) and 31338 (8546) with the contracts deployed
  dev       run Postgres, Temporal (+ Web UI), the oracle, the worker and the API in one process,
            against the chains of 'intentd-dev devnet'
  temporal  run only the Temporal development server and its Web UI (127.0.0.1:7233, :8233),
            with the engine's search attributes, for running intentd's processes separately

Configuration is read from the environment; see README.md.
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
	case "devnet":
		o := devnet.DefaultOptions()
		o.Host = envOr("DEVNET_HOST", o.Host) // 0.0.0.0 in a container
		err = devnet.Run(ctx, o, os.Stdout)
	case "dev":
		err = RunDev(ctx, DevOptions{DataDir: envOr("DATA_DIR", ".data"), OracleAddr: "127.0.0.1:3000", UIPort: 8233,
			Out: os.Stdout, Logger: logger})
	case "temporal":
		err = runTemporal(ctx, envOr("DATA_DIR", ".data"), logger)
	case "-h", "--help", "help":
		fmt.Print(usage)
	default:
		fmt.Fprintf(os.Stderr, "intentd-dev: unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "intentd-dev %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

// runTemporal serves the development Temporal server until ctx ends.
func runTemporal(ctx context.Context, dataDir string, logger *slog.Logger) error {
	tmp, err := devstack.StartTemporal(ctx, devstack.TemporalOptions{DatabaseFile: dataDir + "/temporal.db",
		SearchAttributes: workflows.SearchAttributeTypes(), Logger: logger})
	if err != nil {
		return err
	}
	defer tmp.Stop()
	fmt.Printf("temporal: ready at %s (namespace %s), Web UI at %s; Ctrl-C stops it\n", tmp.HostPort(), tmp.Namespace(), tmp.UIURL())
	<-ctx.Done()
	return nil
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
