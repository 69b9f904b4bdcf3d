package main

import (
	"log/slog"

	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/internal/envconf"
)

// launcherConfig is what every intentd-dev subcommand loads at start. `dev` loads the engine's
// app.Config and the oracle's oracle.Config too (devConfigs), before it starts anything.
type launcherConfig struct {
	// DataDir (DATA_DIR, default .data) holds the Postgres cluster, temporal.db, the dev API key
	// and the dev admin token.
	DataDir string
	// DevnetHost (DEVNET_HOST, default 127.0.0.1; 0.0.0.0 in a container) is where `devnet`
	// serves the chains' JSON-RPC.
	DevnetHost string
	// DevnetSolana (DEVNET_SOLANA, default true) makes `devnet` run the local Solana chain
	// (devnet/svm, a Node.js process) beside the EVM chains; false runs the EVM chains alone, as
	// the devnet image does (it has no Node.js) and the benchmarks do.
	DevnetSolana bool
	// DevnetExchange (DEVNET_EXCHANGE, default true) makes `devnet` run the local perps exchange
	// (devnet/exchange, chain 1337) on exchange.DefaultPort beside the chains.
	DevnetExchange bool
	// DatabaseURL (DATABASE_URL, optional) is the Postgres `dev` uses when it is reachable;
	// otherwise `dev` starts a private cluster in DataDir.
	DatabaseURL string
	// LogLevel (LOG_LEVEL, default info) is the lowest level logged.
	LogLevel slog.Level
	// PprofAddr (PPROF_ADDR, default none) serves the runtime profiles of `dev`, the engine's
	// process (internal/pprofserver): loopback only in practice.
	PprofAddr string
	// PprofBlock (PPROF_BLOCK, default true) switches block and mutex profiling on with
	// PPROF_ADDR; false leaves them off, for a CPU profile without their cost.
	PprofBlock bool
	// TemporalPersistence (TEMPORAL_PERSISTENCE) is where `dev`'s in-process Temporal keeps
	// its state: sqlite, DataDir/temporal.db; postgres, databases intentd_temporal and
	// intentd_temporal_visibility on dev's Postgres (the production persistence);
	// sqlite-postgres-visibility, temporal.db with the visibility records on dev's Postgres.
	// Unset: defaultPersistence. BENCHMARKS.md, "Intents under load", compares them.
	TemporalPersistence string
	// TemporalAddress (TEMPORAL_ADDRESS, optional) is a Temporal server `dev` uses instead of
	// starting one in its process: `intentd-dev temporal` in another process, say (the
	// production shape, BENCHMARKS.md "Scale-out"). Its namespace is TEMPORAL_NAMESPACE
	// (default "default") and the engine's search attributes must be registered there, as
	// `intentd-dev temporal` does.
	TemporalAddress string
	// Workers (DEV_WORKERS, optional) moves `dev`'s worker out of its process: N runs N
	// `intentd worker` processes (IntentdBin) beside it, configured from the environment only,
	// as in production; unset runs the worker in `dev`'s process.
	Workers int
	// IntentdBin (DEV_WORKER_BIN, default: intentd beside the intentd-dev executable) is the
	// production binary DEV_WORKERS runs.
	IntentdBin string
}

// loadLauncherConfig reads the launcher's variables through lookup (os.LookupEnv).
func loadLauncherConfig(lookup func(string) (string, bool)) (launcherConfig, error) {
	v := envconf.New(lookup, nil)
	c := launcherConfig{DataDir: v.Get("DATA_DIR", ".data"), DevnetHost: v.Get("DEVNET_HOST", devnet.DefaultOptions().Host),
		DevnetSolana: v.Bool("DEVNET_SOLANA", "true"), DevnetExchange: v.Bool("DEVNET_EXCHANGE", "true"), DatabaseURL: v.Get("DATABASE_URL", ""), LogLevel: v.Level("LOG_LEVEL", "info"),
		PprofAddr: v.Get("PPROF_ADDR", ""), PprofBlock: v.Bool("PPROF_BLOCK", "true"), TemporalPersistence: v.Get("TEMPORAL_PERSISTENCE", ""),
		TemporalAddress: v.Get("TEMPORAL_ADDRESS", ""), Workers: -1, IntentdBin: v.Get("DEV_WORKER_BIN", "")}
	if v.Set("DEV_WORKERS") {
		c.Workers = v.IntRange("DEV_WORKERS", "1", 0, 16)
	}
	switch c.TemporalPersistence {
	case "", "sqlite", "postgres", "sqlite-postgres-visibility":
	default:
		v.Bad("TEMPORAL_PERSISTENCE", "%q is none of sqlite, postgres, sqlite-postgres-visibility", c.TemporalPersistence)
	}
	return c, v.Err()
}
