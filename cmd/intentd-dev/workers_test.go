package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/intentd/intentd/app"
	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/solana"
)

// DEV_WORKERS: each worker process is configured from its environment only: dev's Postgres,
// Temporal and oracles (with the key they accept), a metrics port of its own, never dev's own
// launcher variables, each under its own supervisor; a binary that is not there is named in the
// error.
func TestWorkerProcessesAreConfiguredFromTheirEnvironment(t *testing.T) {
	t.Setenv("DEV_WORKERS", "2")
	t.Setenv("PPROF_ADDR", "127.0.0.1:6060")
	t.Setenv("FILL_BUMP_AFTER", "45s") // the developer's own setting reaches the workers
	bin := filepath.Join(t.TempDir(), "intentd")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := app.Config{DatabaseURL: "postgres://postgres@127.0.0.1:5433/intentd", TemporalAddress: "127.0.0.1:7233",
		TemporalNamespace: "default", OracleURL: "http://127.0.0.1:3000", ChainsConfigDir: "configs", Environment: "dev"}
	// The chains dev runs on, the local Solana chain among them (DEVNET_SOLANA).
	reg, err := chains.LoadRegistry(filepath.Join("..", "..", "configs", "chains.dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	if reg, err = withLocalSolana(reg, func(string) (string, bool) { return "", false }); err != nil {
		t.Fatal(err)
	}
	ws, err := workerSupervisors(DevOptions{Workers: 2, IntentdBin: bin}, cfg, reg, "oracle-key", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 2 {
		t.Fatalf("%d worker processes, want 2", len(ws))
	}
	for i, w := range ws {
		env := map[string]string{}
		if w.Name != []string{"worker-1", "worker-2"}[i] || w.Bin != bin || !slices.Equal(w.Args, []string{"worker"}) {
			t.Errorf("worker %d: %s runs %s %v", i+1, w.Name, w.Bin, w.Args)
		}
		for _, kv := range w.Env {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
		want := map[string]string{"DATABASE_URL": cfg.DatabaseURL, "TEMPORAL_ADDRESS": "127.0.0.1:7233", "TEMPORAL_NAMESPACE": "default",
			"ORACLE_URL": "http://127.0.0.1:3000", "ORACLE_API_KEY": "oracle-key", "ENVIRONMENT": "dev", "FILL_BUMP_AFTER": "45s",
			"METRICS_ADDR": []string{"127.0.0.1:9101", "127.0.0.1:9102"}[i]}
		for k, v := range want {
			if env[k] != v {
				t.Errorf("worker %d: %s=%q, want %q", i+1, k, env[k], v)
			}
		}
		for _, k := range []string{"DEV_WORKERS", "PPROF_ADDR"} {
			if _, ok := env[k]; ok {
				t.Errorf("worker %d: %s is dev's, not the worker's", i+1, k)
			}
		}
		if env["SOLVER_PRIVATE_KEY"] == "" || !filepath.IsAbs(env["CHAINS_CONFIG_DIR"]) || !slices.IsSorted(w.Env) {
			t.Errorf("worker %d: solver key set %v, chains dir %q", i+1, env["SOLVER_PRIVATE_KEY"] != "", env["CHAINS_CONFIG_DIR"])
		}
		// The worker's chain file lists every chain dev runs on, the local Solana chain too, and
		// the worker holds the Solana solver's and vault's dev keys.
		wreg, err := chains.LoadRegistry(filepath.Join(env["CHAINS_CONFIG_DIR"], "chains.dev.json"))
		if err != nil {
			t.Fatalf("worker %d: its chain file: %v", i+1, err)
		}
		if _, err := wreg.Get(solana.ChainID); err != nil || len(wreg.All()) != len(reg.All()) {
			t.Errorf("worker %d: its chain file lists %d chains (Solana: %v), dev runs on %d", i+1, len(wreg.All()), err, len(reg.All()))
		}
		if env["SOLVER_SOLANA_KEY"] == "" || env["SOLANA_VAULT_KEY"] == "" {
			t.Errorf("worker %d: no Solana solver or vault key", i+1)
		}
	}
	if _, err := workerSupervisors(DevOptions{Workers: 1, IntentdBin: filepath.Join(t.TempDir(), "missing")}, cfg, reg, "k", t.TempDir()); err == nil ||
		!strings.Contains(err.Error(), "DEV_WORKERS") {
		t.Errorf("a missing binary: %v", err)
	}
}
