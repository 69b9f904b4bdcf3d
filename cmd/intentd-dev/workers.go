package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/intentd/intentd/app"
	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/internal/process"
)

// workerGrace is how long a stopping worker process has before it is killed: it gives running
// activities 10 s to finish (worker.Run).
const workerGrace = 20 * time.Second

// workerSupervisors configures o.Workers `intentd worker` processes (DEV_WORKERS), the
// production binary configured from its environment only, as a deployment runs it: the devnet's
// defaults (devnet.EngineEnv), then the developer's environment, then what dev started or chose
// (its Postgres, its Temporal, its oracles and their key, the chain file), and a metrics port of
// their own each (127.0.0.1:9101 and up). Each runs under a process.Supervisor, as the
// reliability suite runs its worker: started again a second after an exit nobody asked for, each
// start's output in dataDir/worker-N-<start>.log.
func workerSupervisors(o DevOptions, cfg app.Config, registry *chains.Registry, oracleKey, dataDir string) ([]*process.Supervisor, error) {
	bin := o.IntentdBin
	if bin == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		bin = filepath.Join(filepath.Dir(exe), "intentd")
	}
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("DEV_WORKERS: %w (make build builds bin/intentd; DEV_WORKER_BIN names another)", err)
	}
	chainsDir, err := workerChainFile(cfg, registry, dataDir)
	if err != nil {
		return nil, err
	}
	vars := devnet.EngineEnv(cfg.DatabaseURL, oracleKey)
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	maps.Copy(vars, map[string]string{"DATABASE_URL": cfg.DatabaseURL, "TEMPORAL_ADDRESS": cfg.TemporalAddress,
		"TEMPORAL_NAMESPACE": cfg.TemporalNamespace, "ORACLE_URL": cfg.OracleURL, "ORACLE_API_KEY": oracleKey,
		"CHAINS_CONFIG_DIR": chainsDir, "ENVIRONMENT": cfg.Environment})
	for _, k := range []string{"DEV_WORKERS", "PPROF_ADDR", "DATABASE_URL_FILE", "ORACLE_API_KEY_FILE"} {
		delete(vars, k)
	}
	var out []*process.Supervisor
	for i := range o.Workers {
		vars["METRICS_ADDR"] = fmt.Sprintf("127.0.0.1:%d", 9101+i)
		env := make([]string, 0, len(vars))
		for k, v := range vars {
			env = append(env, k+"="+v)
		}
		slices.Sort(env)
		out = append(out, &process.Supervisor{Name: fmt.Sprintf("worker-%d", i+1), Bin: bin, Args: []string{"worker"},
			Env: env, LogDir: dataDir, RestartDelay: time.Second})
	}
	return out, nil
}

// workerChainFile writes the chains dev runs on (the chain file's, and the local Solana chain
// when DEVNET_SOLANA lists it: withLocalSolana) as the chain file of the workers' environment in
// dataDir/configs, and returns that directory, so that a worker process sees every chain the
// in-process parts do.
func workerChainFile(cfg app.Config, registry *chains.Registry, dataDir string) (string, error) {
	dir, err := filepath.Abs(filepath.Join(dataDir, "configs"))
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	list := make([]chains.Chain, 0, len(registry.All()))
	for _, ch := range registry.All() {
		list = append(list, *ch)
	}
	doc, err := json.MarshalIndent(map[string]any{"chains": list}, "", "  ")
	if err != nil {
		return "", err
	}
	env := cfg.Environment
	if env == "" {
		env = "dev"
	}
	return dir, os.WriteFile(filepath.Join(dir, "chains."+env+".json"), doc, 0o644)
}
