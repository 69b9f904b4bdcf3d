package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/intentd/intentd/app"
	"github.com/intentd/intentd/devnet"
)

// workerProc is one `intentd worker` process that `dev` runs beside itself (DEV_WORKERS): the
// production binary, configured from its environment only, as a deployment runs it.
type workerProc struct {
	name, bin, logPath string
	env                []string
}

// workerGrace is how long a stopping worker process has before it is killed: it gives running
// activities 10 s to finish (worker.Run).
const workerGrace = 20 * time.Second

// workerProcesses configures o.Workers worker processes on dev's configuration: the devnet's
// defaults (devnet.EngineEnv), then the developer's environment, then what dev started or chose
// (its Postgres, its Temporal, its oracles and their key, the chain file), and a metrics port of
// their own each (127.0.0.1:9101 and up).
func workerProcesses(o DevOptions, cfg app.Config, oracleKey, dataDir string) ([]*workerProc, error) {
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
	chainsDir, err := filepath.Abs(cfg.ChainsConfigDir)
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
	var out []*workerProc
	for i := range o.Workers {
		env := maps.Clone(vars)
		env["METRICS_ADDR"] = fmt.Sprintf("127.0.0.1:%d", 9101+i)
		list := make([]string, 0, len(env))
		for k, v := range env {
			list = append(list, k+"="+v)
		}
		sort.Strings(list)
		name := fmt.Sprintf("worker-%d", i+1)
		out = append(out, &workerProc{name: name, bin: bin, env: list, logPath: filepath.Join(dataDir, name+".log")})
	}
	return out, nil
}

// run runs the process until ctx ends (then SIGTERM, and SIGKILL after workerGrace); a process
// that exits before is an error, which stops dev.
func (w *workerProc) run(ctx context.Context) error {
	f, err := os.OpenFile(w.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.CommandContext(ctx, w.bin, "worker")
	cmd.Env, cmd.Stdout, cmd.Stderr = w.env, f, f
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = workerGrace
	err = cmd.Run()
	if ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("%s exited: %v (log %s)", w.name, err, w.logPath)
}
