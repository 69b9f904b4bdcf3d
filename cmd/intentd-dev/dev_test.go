package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

func TestDevAdminTokenIsKeptPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dev-admin-token")
	h1, err := devAdminToken(path)
	if err != nil || len(h1) != sha256.Size {
		t.Fatalf("first: %x %v", h1, err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", st.Mode(), err)
	}
	b, _ := os.ReadFile(path)
	if sum := sha256.Sum256(bytes.TrimSpace(b)); !bytes.Equal(sum[:], h1) {
		t.Fatal("hash is not the SHA-256 of the stored token")
	}
	h2, err := devAdminToken(path)
	if err != nil || !bytes.Equal(h1, h2) {
		t.Fatalf("restart made a new token: %v", err)
	}
	// A file made too open (or truncated) is fixed up.
	if err := os.WriteFile(path, []byte("short\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	h3, err := devAdminToken(path)
	if st, _ := os.Stat(path); err != nil || bytes.Equal(h3, h1) || st.Mode().Perm() != 0o600 {
		t.Fatalf("truncated token file: %v %v", st.Mode(), err)
	}
}

func lookup(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestLoadLauncherConfig(t *testing.T) {
	c, err := loadLauncherConfig(lookup(nil))
	if err != nil || c != (launcherConfig{DataDir: ".data", DevnetHost: "127.0.0.1", DevnetSolana: true, DevnetExchange: true, LogLevel: slog.LevelInfo, PprofBlock: true, Workers: -1}) {
		t.Fatalf("defaults: %+v %v", c, err)
	}
	c, err = loadLauncherConfig(lookup(map[string]string{"DATA_DIR": "/tmp/d", "DEVNET_HOST": "0.0.0.0",
		"DATABASE_URL": "postgres://x@db/intentd", "LOG_LEVEL": "debug", "TEMPORAL_PERSISTENCE": "postgres",
		"TEMPORAL_ADDRESS": "127.0.0.1:7233", "DEV_WORKERS": "2", "DEV_WORKER_BIN": "/opt/intentd", "PPROF_BLOCK": "false", "DEVNET_SOLANA": "false",
		"DEVNET_EXCHANGE": "false"}))
	if err != nil || c != (launcherConfig{DataDir: "/tmp/d", DevnetHost: "0.0.0.0", DatabaseURL: "postgres://x@db/intentd", LogLevel: slog.LevelDebug,
		TemporalPersistence: "postgres", TemporalAddress: "127.0.0.1:7233", Workers: 2, IntentdBin: "/opt/intentd"}) {
		t.Fatalf("set: %+v %v", c, err)
	}
	if _, err := loadLauncherConfig(lookup(map[string]string{"LOG_LEVEL": "loud"})); err == nil || !strings.Contains(err.Error(), "LOG_LEVEL:") {
		t.Fatalf("bad LOG_LEVEL: %v", err)
	}
	if _, err := loadLauncherConfig(lookup(map[string]string{"PPROF_BLOCK": "yes"})); err == nil || !strings.Contains(err.Error(), "PPROF_BLOCK:") {
		t.Fatalf("bad PPROF_BLOCK: %v", err)
	}
	if _, err := loadLauncherConfig(lookup(map[string]string{"TEMPORAL_PERSISTENCE": "mysql"})); err == nil ||
		!strings.Contains(err.Error(), "TEMPORAL_PERSISTENCE") {
		t.Fatalf("bad TEMPORAL_PERSISTENCE: %v", err)
	}
	if _, err := loadLauncherConfig(lookup(map[string]string{"DEV_WORKERS": "many"})); err == nil ||
		!strings.Contains(err.Error(), "DEV_WORKERS") {
		t.Fatalf("bad DEV_WORKERS: %v", err)
	}
}

// dev checks the engine's and the oracle's variables before it starts anything; Postgres and
// Temporal are its own, whatever the environment says.
func TestDevConfigs(t *testing.T) {
	const workerKey = "worker-key-0123456789abcdef0123456789" // dev's is 64 hex; the oracles need 32 or more
	cfg, ocfgs, err := devConfigs(lookup(map[string]string{"DATABASE_URL": "postgres://elsewhere", "TEMPORAL_ADDRESS": "elsewhere:7233"}),
		workerKey, "127.0.0.1:3000")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DatabaseURL != startedByDev || cfg.TemporalAddress != startedByDev || cfg.OracleURL != "http://127.0.0.1:3000" ||
		cfg.OracleAPIKey != workerKey || cfg.PriceSource != "feeds" || cfg.SolverAddress() != devnet.SolverAddress() {
		t.Fatalf("engine: %v", cfg)
	}
	// `make run` runs three oracles at 2-of-3 on 3000-3002, each asking the two others.
	if len(ocfgs) != devnet.OracleCount || cfg.OracleSignersThreshold != 2 || len(cfg.OracleSigners) != 3 {
		t.Fatalf("oracles: %d, engine %d-of-%d", len(ocfgs), cfg.OracleSignersThreshold, len(cfg.OracleSigners))
	}
	for i, ocfg := range ocfgs {
		if ocfg.HTTPPort != 3000+i || ocfg.SignerAddress() != devnet.OracleAddresses()[i] || len(ocfg.Peers) != 2 ||
			ocfg.OracleSignersThreshold != 2 || len(ocfg.OracleSigners) != 3 || cfg.OracleSigners[i] != ocfg.SignerAddress() {
			t.Fatalf("oracle %d: %v", i, ocfg)
		}
	}
	if ocfgs[0].SignerAddress() != devnet.OracleAddress() {
		t.Fatal("the first oracle signs with devnet.OracleKey")
	}
	_, _, err = devConfigs(lookup(map[string]string{"QUOTE_TTL": "soon", "PRICE_FEEDS": "ETH"}), workerKey, "127.0.0.1:3000")
	if err == nil || !strings.Contains(err.Error(), "QUOTE_TTL:") || !strings.Contains(err.Error(), "PRICE_FEEDS:") {
		t.Fatalf("bad engine variables: %v", err)
	}
	if _, _, err = devConfigs(lookup(map[string]string{"UNAUTHENTICATED_RATE_LIMIT_MAX": "0"}), workerKey, "127.0.0.1:3000"); err == nil ||
		!strings.Contains(err.Error(), "UNAUTHENTICATED_RATE_LIMIT_MAX") {
		t.Fatalf("bad oracle variable: %v", err)
	}
}

// The dev key is Unlimited (the SDK suite and load tools run against it without rate limits),
// in environment "dev", reused across restarts; a stored key that is neither (made before keys
// had limits) is revoked and replaced.
func TestDevAPIKeyIsUnlimitedAndReused(t *testing.T) {
	ctx := context.Background()
	st := store.New(testenv.Pool(t))
	path := filepath.Join(t.TempDir(), "dev-api-key")
	v1, err := devAPIKey(ctx, st, path)
	if err != nil {
		t.Fatal(err)
	}
	k, _, err := st.KeyByHash(ctx, auth.Hash(v1))
	if err != nil || k == nil || !k.Unlimited || k.Environment != "dev" || k.Integrator.Name != "dev" {
		t.Fatalf("dev key %+v %v", k, err)
	}
	if v2, err := devAPIKey(ctx, st, path); err != nil || v2 != v1 {
		t.Fatalf("restart made a new key: %v", err)
	}
	by := store.Actor{Name: "t", Via: store.ViaCLI}
	old, _, err := st.CreateAPIKey(ctx, store.NewKey{IntegratorID: k.Integrator.ID, Label: "dev"}, by)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(old+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	v3, err := devAPIKey(ctx, st, path)
	if err != nil || v3 == old {
		t.Fatalf("a limited key was kept: %v", err)
	}
	if ok, _, _ := st.KeyByHash(ctx, auth.Hash(old)); ok == nil || ok.RevokedAt == nil {
		t.Fatalf("the replaced key is not revoked: %+v", ok)
	}
	if k, _, _ := st.KeyByHash(ctx, auth.Hash(v3)); k == nil || !k.Unlimited {
		t.Fatalf("new dev key %+v", k)
	}
}

// Unset, TEMPORAL_PERSISTENCE keeps a new data directory's visibility records on the private
// cluster, and leaves a data directory created before (a temporal.db without the marker) and a
// DATABASE_URL's Postgres as they were.
func TestDefaultTemporalPersistence(t *testing.T) {
	fresh := t.TempDir()
	if got, err := defaultPersistence(fresh, true); err != nil || got != "sqlite-postgres-visibility" {
		t.Fatalf("new data directory: %q %v", got, err)
	}
	if err := os.WriteFile(filepath.Join(fresh, "temporal.db"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := defaultPersistence(fresh, true); got != "sqlite-postgres-visibility" {
		t.Fatalf("the same directory after its first start: %q", got)
	}
	old := t.TempDir()
	if err := os.WriteFile(filepath.Join(old, "temporal.db"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := defaultPersistence(old, true); got != "sqlite" {
		t.Fatalf("a data directory from before: %q", got)
	}
	if got, _ := defaultPersistence(t.TempDir(), false); got != "sqlite" {
		t.Fatalf("on DATABASE_URL: %q", got)
	}
}

// TEMPORAL_PERSISTENCE, as `dev` and `temporal` both read it: temporal.db in the data directory,
// its visibility records on Postgres, or everything on Postgres; the engine's search
// attributes registered in each.
func TestTemporalOptionsFollowThePersistence(t *testing.T) {
	const pgURL = "postgres://postgres@127.0.0.1:5433/intentd"
	for _, tc := range []struct{ persistence, pg, visibility string }{
		{"sqlite", "", ""}, {"sqlite-postgres-visibility", "", pgURL}, {"postgres", pgURL, ""},
	} {
		o, where := temporalOptions("/d", tc.persistence, pgURL, nil)
		if o.DatabaseFile != "/d/temporal.db" || o.PostgresURL != tc.pg || o.VisibilityPostgresURL != tc.visibility ||
			len(o.SearchAttributes) == 0 || where == "" {
			t.Errorf("%s: %+v, %q", tc.persistence, o, where)
		}
	}
}
