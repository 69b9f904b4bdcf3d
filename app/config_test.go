package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/workflows"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// The test configuration's keys: a solver key made for these tests (never valid anywhere else)
// and an oracle address.
var (
	testSolverKey = must(crypto.HexToECDSA("8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63"))
	testSolverHex = hex.EncodeToString(crypto.FromECDSA(testSolverKey))
	testOracle    = common.HexToAddress("0x5B38Da6a701c568545dCfcB03FcB875f56beddC4")
)

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// required is the smallest valid configuration; with adds or overrides variables.
func required(with map[string]string) map[string]string {
	m := map[string]string{"DATABASE_URL": "postgres://x@127.0.0.1/db", "SOLVER_PRIVATE_KEY": testSolverHex,
		"ORACLE_SIGNERS": testOracle.Hex()}
	maps.Copy(m, with)
	return m
}

func TestLoadNamesEveryBadVariable(t *testing.T) {
	_, err := Load(env(map[string]string{
		"SOLVER_PRIVATE_KEY": "0xnothex", "QUOTE_TTL": "soon", "SCAN_INTERVAL": "-1s", "PRICES_USD": "ETH=free",
		"ORACLE_SIGNERS": "0x0000000000000000000000000000000000000000", "LOG_LEVEL": "loud",
		"PRICE_MAX_AGE": "0s", "PRICE_CACHE_TTL": "often", "QUOTE_MAX_USD": "ETH=5", "SWAP_COST_BPS": "0.5",
		"SOLVER_MAX_FILL": "ETH=-1", "DEPOSIT_CONFIRMATION_TIMEOUT": "never", "FILL_BUMP_AFTER": "0s", "FILL_MAX_BUMPS": "99", "FILL_SUBMIT_ATTEMPTS": "0",
	}), nil)
	if err == nil {
		t.Fatal("bad configuration accepted")
	}
	for _, name := range []string{"DATABASE_URL", "SOLVER_PRIVATE_KEY", "QUOTE_TTL", "SCAN_INTERVAL", "PRICES_USD", "ORACLE_SIGNERS", "LOG_LEVEL",
		"PRICE_MAX_AGE", "PRICE_CACHE_TTL", "QUOTE_MAX_USD", "SWAP_COST_BPS",
		"SOLVER_MAX_FILL", "DEPOSIT_CONFIRMATION_TIMEOUT", "FILL_BUMP_AFTER", "FILL_MAX_BUMPS", "FILL_SUBMIT_ATTEMPTS"} {
		if !strings.Contains(err.Error(), name+":") {
			t.Errorf("error does not name %s:\n%v", name, err)
		}
	}
}

func TestPriceSourceFeedsNeedsAFeedList(t *testing.T) {
	for _, tc := range []struct{ source, feeds, name string }{{"feeds", "", "PRICE_FEEDS"}, {"oracle", "", "PRICE_SOURCE"},
		{"feeds", "ETH=31337:", "PRICE_FEEDS"}} {
		_, err := Load(env(map[string]string{"PRICE_SOURCE": tc.source, "PRICE_FEEDS": tc.feeds}), nil)
		if err == nil || !strings.Contains(err.Error(), tc.name+":") {
			t.Errorf("%+v: %v", tc, err)
		}
	}
	feeds := "ETH=31337:0xb5704cb42a6cFc04fb7F6eF09782f07338EB9AD6,USDC=31337:0x8c19D0C06866bAB258AB6cf5480077FFc8f4E857"
	cfg, err := Load(env(map[string]string{"PRICE_SOURCE": "feeds", "PRICE_FEEDS": feeds}), Defaults(required(nil)))
	if err != nil || len(cfg.PriceFeeds) != 2 {
		t.Fatalf("feeds config: %v %v", cfg.PriceFeeds, err)
	}

	// A feed's address is its chain's: read by the chain's family once the chain files are
	// loaded, at start, before anything is connected to.
	reg, err := chains.NewRegistry(devnet.ChainConfigs(map[uint64]string{31337: "http://127.0.0.1:1"}))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"ETH=31337:0x0000000000000000000000000000000000000000", "ETH=31337:0x1234"} {
		cfg, err := Load(env(map[string]string{"PRICE_SOURCE": "feeds", "PRICE_FEEDS": bad}), Defaults(required(nil)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Open(context.Background(), cfg, reg, slog.New(slog.DiscardHandler)); err == nil ||
			!strings.HasPrefix(err.Error(), "PRICE_FEEDS: the feed of ETH on chain 31337") {
			t.Errorf("%s: Open = %v, want PRICE_FEEDS refused", bad, err)
		}
	}
}

func TestConfigNeverPrintsTheSolverKey(t *testing.T) {
	key := testSolverHex
	cfg, err := Load(env(required(nil)), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), cfg.LogValue().String()} {
		if strings.Contains(s, key) || strings.Contains(s, key[:16]) {
			t.Fatalf("solver key printed: %s", s)
		}
	}
	if cfg.SolverAddress() != crypto.PubkeyToAddress(testSolverKey.PublicKey) {
		t.Fatal("wrong solver address")
	}
}

// TestAdminToken: ADMIN_TOKEN is checked for strength at start and kept only as its SHA-256;
// neither the token nor its hash is printed, a weak token stops the process without being
// echoed, and the retired ADMIN_TOKEN_SHA256 stops it too, so a deployment that still sets it
// does not run with the admin endpoint silently gone.
func TestAdminToken(t *testing.T) {
	with := func(name, v string) map[string]string { return required(map[string]string{name: v}) }

	cfg, err := Load(env(required(nil)), nil)
	if err != nil || cfg.AdminTokenSHA256 != nil {
		t.Fatalf("unset: %x %v", cfg.AdminTokenSHA256, err)
	}
	const strong = "ia_5e0c8b2f7d41a9e63c1f08b4d72e95a1c6f3b80d47e2a59c1b6d03f8e7a42c95"
	sum := sha256.Sum256([]byte(strong))
	cfg, err = Load(env(with("ADMIN_TOKEN", strong)), nil)
	if err != nil || !bytes.Equal(cfg.AdminTokenSHA256, sum[:]) {
		t.Fatalf("strong token: %x %v", cfg.AdminTokenSHA256, err)
	}
	for _, s := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), cfg.LogValue().String()} {
		if strings.Contains(s, strong) || strings.Contains(s, hex.EncodeToString(sum[:])) {
			t.Fatalf("admin token or its hash printed: %s", s)
		}
	}
	for _, weak := range []string{
		"tok-7f3a-secret",                          // short
		"3f9a8b7c6d5e4f30a1b2c3d4e5f60718",         // 32 random hex digits: 128 bits, estimated lower
		"passwordpasswordpassword1234567890",       // long, guessable
		strings.Repeat("a", 64),                    // long, one character
		"0123456789abcdef0123456789abcdef01234567", // a sequence
	} {
		_, err := Load(env(with("ADMIN_TOKEN", weak)), nil)
		if err == nil || !strings.Contains(err.Error(), "ADMIN_TOKEN: is too weak") {
			t.Errorf("%q accepted or not named: %v", weak, err)
		} else if strings.Contains(err.Error(), weak) {
			t.Errorf("the token is echoed: %v", err)
		}
	}
	_, err = Load(env(with("ADMIN_TOKEN_SHA256", hex.EncodeToString(sum[:]))), nil)
	if err == nil || !strings.Contains(err.Error(), "ADMIN_TOKEN_SHA256: is no longer read") || strings.Contains(err.Error(), hex.EncodeToString(sum[:])) {
		t.Fatalf("ADMIN_TOKEN_SHA256: %v", err)
	}
}

func TestLoadDefaults(t *testing.T) {
	cfg, err := Load(env(required(nil)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Environment != "dev" || cfg.ChainsFile() != "configs/chains.dev.json" || cfg.TemporalAddress != "127.0.0.1:7233" ||
		cfg.TemporalNamespace != "default" || cfg.APIAddr != "127.0.0.1:8080" || cfg.OracleURL != "http://127.0.0.1:3000" ||
		cfg.OracleAPIKey != "" || cfg.PriceSource != "table" || len(cfg.Prices) != 2 || cfg.PriceMaxAge != time.Hour ||
		cfg.PriceCacheTTL != 10*time.Second || cfg.SwapCostBps != 10 || cfg.QuoteTTL != 10*time.Minute ||
		cfg.ScanInterval != time.Second || !cfg.EagerStart || cfg.SolverMaxFill != nil || cfg.LogLevel != slog.LevelInfo || cfg.AdminTokenSHA256 != nil {
		t.Fatalf("defaults: %+v", cfg)
	}
	if m, ok := cfg.QuoteLimits.Max("ETH", "USDC"); !ok || !m.Equal(decimal.NewFromInt(1_000_000)) {
		t.Fatalf("default QUOTE_MAX_USD: %v", cfg.QuoteLimits)
	}
	if cfg.Policy != (workflows.Policy{ConfirmationTimeout: 30 * time.Minute, FillBumpAfter: 30 * time.Second, FillMaxBumps: 3, SubmitAttempts: 20}) {
		t.Fatalf("default policy: %+v", cfg.Policy)
	}
}

func TestLoadReadsEveryVariable(t *testing.T) {
	other := common.HexToAddress("0x1111111111111111111111111111111111111111")
	cfg, err := Load(env(required(map[string]string{
		"ENVIRONMENT": "prod", "CHAINS_CONFIG_DIR": "/etc/intentd", "TEMPORAL_ADDRESS": "temporal:7233",
		"TEMPORAL_NAMESPACE": "intents", "API_ADDR": "0.0.0.0:8080", "ORACLE_URL": "http://oracle:3000/", "ORACLE_API_KEY": "k",
		"ORACLE_SIGNERS": " " + testOracle.Hex() + " ;; " + other.Hex() + ";", "PRICES_USD": "eth=2500", "PRICE_MAX_AGE": "5m",
		"PRICE_CACHE_TTL": "1s", "QUOTE_MAX_USD": "ETH/USDC=5, */*=10", "SWAP_COST_BPS": "25", "QUOTE_TTL": "2m",
		"SCAN_INTERVAL": "250ms", "EAGER_START": "false", "SOLVER_MAX_FILL": "eth=100, USDC=250000", "DEPOSIT_CONFIRMATION_TIMEOUT": "1h",
		"FILL_BUMP_AFTER": "10s", "FILL_MAX_BUMPS": "5", "FILL_SUBMIT_ATTEMPTS": "7", "LOG_LEVEL": "debug",
	})), nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ChainsFile() != "/etc/intentd/chains.prod.json" || cfg.TemporalAddress != "temporal:7233" || cfg.TemporalNamespace != "intents" ||
		cfg.APIAddr != "0.0.0.0:8080" || cfg.OracleURL != "http://oracle:3000" || cfg.OracleAPIKey != "k" ||
		len(cfg.OracleSigners) != 2 || cfg.OracleSigners[1] != other || !cfg.Prices["ETH"].Equal(decimal.NewFromInt(2500)) ||
		cfg.PriceMaxAge != 5*time.Minute || cfg.PriceCacheTTL != time.Second || cfg.SwapCostBps != 25 || cfg.QuoteTTL != 2*time.Minute ||
		cfg.ScanInterval != 250*time.Millisecond || cfg.EagerStart || !cfg.SolverMaxFill["ETH"].Equal(decimal.NewFromInt(100)) || len(cfg.SolverMaxFill) != 2 ||
		cfg.LogLevel != slog.LevelDebug {
		t.Fatalf("config: %+v", cfg)
	}
	if m, _ := cfg.QuoteLimits.Max("eth", "usdc"); !m.Equal(decimal.NewFromInt(5)) {
		t.Fatalf("QUOTE_MAX_USD: %v", cfg.QuoteLimits)
	}
	if cfg.Policy != (workflows.Policy{ConfirmationTimeout: time.Hour, FillBumpAfter: 10 * time.Second, FillMaxBumps: 5, SubmitAttempts: 7}) {
		t.Fatalf("policy: %+v", cfg.Policy)
	}
}

func TestOracleSignersNameTheBadEntry(t *testing.T) {
	for in, want := range map[string]string{
		"":                           "at least one",
		" ; ":                        "at least one",
		testOracle.Hex() + ";0x1234": `signer "0x1234" is not a nonzero address`,
		"0x0000000000000000000000000000000000000000": "is not a nonzero address",
	} {
		_, err := Load(env(required(map[string]string{"ORACLE_SIGNERS": in})), nil)
		if err == nil || !strings.Contains(err.Error(), "ORACLE_SIGNERS: ") || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %s", in, err, want)
		}
	}
}

// The worker's own quorum (ORACLE_SIGNERS_THRESHOLD): 1 by default, at most the unique signers,
// an integer of at least 1; a repeated signer counts once.
func TestOracleSignersThreshold(t *testing.T) {
	other := "0x00000000000000000000000000000000000000c2"
	cfg, err := Load(env(required(map[string]string{"ORACLE_SIGNERS": testOracle.Hex() + ";" + other + ";" + strings.ToUpper(other[2:])})), nil)
	if err != nil || cfg.OracleSignersThreshold != 1 || len(cfg.OracleSigners) != 2 {
		t.Fatalf("default: %d of %d, %v", cfg.OracleSignersThreshold, len(cfg.OracleSigners), err)
	}
	cfg, err = Load(env(required(map[string]string{"ORACLE_SIGNERS": testOracle.Hex() + ";" + other, "ORACLE_SIGNERS_THRESHOLD": "2"})), nil)
	if err != nil || cfg.OracleSignersThreshold != 2 {
		t.Fatalf("2-of-2: %d, %v", cfg.OracleSignersThreshold, err)
	}
	for in, want := range map[string]string{"3": "exceeds the 2 unique", "0": "ORACLE_SIGNERS_THRESHOLD", "two": "ORACLE_SIGNERS_THRESHOLD"} {
		_, err := Load(env(required(map[string]string{"ORACLE_SIGNERS": testOracle.Hex() + ";" + other + ";" + other, "ORACLE_SIGNERS_THRESHOLD": in})), nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %s", in, err, want)
		}
	}
}

// TestRolesHoldOnlyTheirSecrets: the solver's private key is the worker's alone. The api quotes
// with SOLVER_ADDRESS, migrate reads DATABASE_URL only, and both refuse the key in their
// environment; the worker refuses to start without it.
func TestRolesHoldOnlyTheirSecrets(t *testing.T) {
	solver := crypto.PubkeyToAddress(testSolverKey.PublicKey)
	db := map[string]string{"DATABASE_URL": "postgres://x@127.0.0.1/db"}
	with := func(m map[string]string) map[string]string { out := maps.Clone(db); maps.Copy(out, m); return out }

	cfg, err := LoadRole(RoleMigrate, env(db), nil)
	if err != nil || cfg.SolverKey() != nil {
		t.Fatalf("migrate with DATABASE_URL alone: %v", err)
	}
	cfg, err = LoadRole(RoleAPI, env(with(map[string]string{"SOLVER_ADDRESS": solver.Hex()})), nil)
	if err != nil || cfg.SolverKey() != nil || cfg.SolverAddress() != solver {
		t.Fatalf("api with SOLVER_ADDRESS: %v %v", cfg.SolverAddress(), err)
	}
	cfg, err = LoadRole(RoleWorker, env(required(nil)), nil)
	if err != nil || cfg.SolverKey() == nil || cfg.SolverAddress() != solver {
		t.Fatalf("worker with its key: %v", err)
	}

	for _, tc := range []struct {
		role Role
		env  map[string]string
		name string
	}{
		{RoleAPI, db, "SOLVER_ADDRESS"},
		{RoleAPI, with(map[string]string{"SOLVER_ADDRESS": "0x1234"}), "SOLVER_ADDRESS"},
		{RoleAPI, with(map[string]string{"SOLVER_ADDRESS": solver.Hex(), "SOLVER_PRIVATE_KEY": testSolverHex}), "SOLVER_PRIVATE_KEY"},
		{RoleMigrate, with(map[string]string{"SOLVER_PRIVATE_KEY": testSolverHex}), "SOLVER_PRIVATE_KEY"},
		{RoleWorker, with(map[string]string{"ORACLE_SIGNERS": testOracle.Hex()}), "SOLVER_PRIVATE_KEY"},
		{RoleAll, required(map[string]string{"SOLVER_ADDRESS": testOracle.Hex()}), "SOLVER_ADDRESS"},
	} {
		_, err := LoadRole(tc.role, env(tc.env), nil)
		if err == nil || !strings.Contains(err.Error(), tc.name+":") {
			t.Errorf("%s %v: %v, want an error naming %s", tc.role, tc.env, err, tc.name)
			continue
		}
		if strings.Contains(err.Error(), testSolverHex) {
			t.Errorf("%s: the key is echoed: %v", tc.role, err)
		}
	}
	if cfg, err := Load(env(required(map[string]string{"SOLVER_ADDRESS": solver.Hex()})), nil); err != nil || cfg.SolverAddress() != solver {
		t.Fatalf("dev mode: a SOLVER_ADDRESS that matches the key: %v", err)
	}
}

// SCREENING_BLOCKLIST_FILE (issue 33, point 6: "an absent file at start is an error when
// configured"): off by default; a configured file must exist and parse for the api and the
// worker to start, and the reload interval defaults to 10s.
func TestScreeningBlocklistFileMustExistAndParseWhenSet(t *testing.T) {
	cfg, err := Load(env(required(nil)), nil)
	if err != nil || cfg.ScreeningFile != "" || cfg.ScreeningReloadInterval != 10*time.Second {
		t.Fatalf("defaults: %q %v, %v", cfg.ScreeningFile, cfg.ScreeningReloadInterval, err)
	}
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.txt"), filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(good, []byte("# listed\n0x8589427373D6D84E98730D7795D8f6f8731FDA16\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("0x1234\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, role := range []Role{RoleAPI, RoleWorker, RoleAll} {
		vars := required(map[string]string{"SCREENING_BLOCKLIST_FILE": good, "SCREENING_RELOAD_INTERVAL": "1m",
			"SOLVER_ADDRESS": crypto.PubkeyToAddress(testSolverKey.PublicKey).Hex()})
		if role == RoleAPI {
			delete(vars, "SOLVER_PRIVATE_KEY")
		}
		cfg, err := LoadRole(role, env(vars), nil)
		if err != nil || cfg.ScreeningFile != good || cfg.ScreeningReloadInterval != time.Minute {
			t.Fatalf("%s with a good file: %q %v, %v", role, cfg.ScreeningFile, cfg.ScreeningReloadInterval, err)
		}
		for _, path := range []string{filepath.Join(dir, "missing.txt"), bad} {
			vars["SCREENING_BLOCKLIST_FILE"] = path
			if _, err := LoadRole(role, env(vars), nil); err == nil || !strings.Contains(err.Error(), "SCREENING_BLOCKLIST_FILE") {
				t.Fatalf("%s with %s: %v, want an error naming SCREENING_BLOCKLIST_FILE", role, path, err)
			}
		}
	}
}

// EXPOSURE_CAP_USD, the exposure cap of chains whose file sets none: "configurable per chain,
// documented default", "decimals not floats", validated at start.
func TestExposureCapUSD(t *testing.T) {
	cfg, err := Load(env(required(nil)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.ExposureCapUSD.Equal(decimal.RequireFromString(DefaultExposureCapUSD)) {
		t.Fatalf("default: %s", cfg.ExposureCapUSD)
	}
	if cfg, err = Load(env(required(map[string]string{"EXPOSURE_CAP_USD": "2500.5"})), nil); err != nil ||
		!cfg.ExposureCapUSD.Equal(decimal.RequireFromString("2500.5")) {
		t.Fatalf("2500.5: %s %v", cfg.ExposureCapUSD, err)
	}
	for _, bad := range []string{"-1", "lots", "1e3x"} {
		if _, err := Load(env(required(map[string]string{"EXPOSURE_CAP_USD": bad})), nil); err == nil || !strings.Contains(err.Error(), "EXPOSURE_CAP_USD:") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// Review L6: the admin API has a listener of its own, ADMIN_ADDR, an internal address by default
// (127.0.0.1:8081), never API_ADDR's; a value that is no host:port, or that is the public
// listener, stops the api at start.
func TestAdminAddr(t *testing.T) {
	cfg, err := Load(env(required(nil)), nil)
	if err != nil || cfg.AdminAddr != "127.0.0.1:8081" {
		t.Fatalf("default: %q %v", cfg.AdminAddr, err)
	}
	if cfg.AdminAddr == cfg.APIAddr {
		t.Fatal("the default admin address is the public one")
	}
	cfg, err = Load(env(required(map[string]string{"API_ADDR": "0.0.0.0:8080", "ADMIN_ADDR": "10.0.0.5:9443"})), nil)
	if err != nil || cfg.AdminAddr != "10.0.0.5:9443" {
		t.Fatalf("set: %q %v", cfg.AdminAddr, err)
	}
	for _, bad := range []map[string]string{
		{"ADMIN_ADDR": "localhost"},
		{"ADMIN_ADDR": "127.0.0.1:99999"},
		{"API_ADDR": "127.0.0.1:8080", "ADMIN_ADDR": "127.0.0.1:8080"},
		{"API_ADDR": "0.0.0.0:8080", "ADMIN_ADDR": "127.0.0.1:8080"},
		{"API_ADDR": "127.0.0.1:8080", "ADMIN_ADDR": ":8080"},
	} {
		if _, err := Load(env(required(bad)), nil); err == nil || !strings.Contains(err.Error(), "ADMIN_ADDR:") {
			t.Errorf("%v: %v", bad, err)
		}
	}
}

// HINT_MAX_DEPOSITS (issue 33, point 2: a hint "handles at most a small number of deposits"):
// 16 by default, 1 to 256, a bad value named at start.
func TestHintMaxDeposits(t *testing.T) {
	cfg, err := Load(env(required(nil)), nil)
	if err != nil || cfg.HintMaxDeposits != 16 {
		t.Fatalf("default: %d, %v", cfg.HintMaxDeposits, err)
	}
	if cfg, err = Load(env(required(map[string]string{"HINT_MAX_DEPOSITS": "4"})), nil); err != nil || cfg.HintMaxDeposits != 4 {
		t.Fatalf("4: %d, %v", cfg.HintMaxDeposits, err)
	}
	for _, bad := range []string{"0", "257", "many"} {
		if _, err := Load(env(required(map[string]string{"HINT_MAX_DEPOSITS": bad})), nil); err == nil || !strings.Contains(err.Error(), "HINT_MAX_DEPOSITS:") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// Review L13 (issue 33, point 7): "WEBHOOK_ALLOW_PRIVATE=true is refused unless in dev
// (ENVIRONMENT=dev or the intentd-dev binary)": the production roles that use it (api,
// dispatcher) refuse to start with it in any other environment; intentd-dev, which runs every
// role in one process, and ENVIRONMENT=dev keep it.
func TestWebhookAllowPrivateIsRefusedOutsideDev(t *testing.T) {
	solver := crypto.PubkeyToAddress(testSolverKey.PublicKey).Hex()
	vars := func(role Role, environment string) map[string]string {
		m := map[string]string{"DATABASE_URL": "postgres://x@127.0.0.1/db", "WEBHOOK_ALLOW_PRIVATE": "true",
			"WEBHOOK_SECRETS_KEY": strings.Repeat("ab", 32), "ORACLE_SIGNERS": testOracle.Hex()}
		if environment != "" {
			m["ENVIRONMENT"] = environment
		}
		switch role {
		case RoleAPI:
			m["SOLVER_ADDRESS"] = solver
		case RoleAll:
			m["SOLVER_PRIVATE_KEY"] = testSolverHex
		}
		return m
	}
	for _, role := range []Role{RoleAPI, RoleDispatcher} {
		for _, environment := range []string{"production", "staging"} {
			_, err := LoadRole(role, env(vars(role, environment)), nil)
			if err == nil || !strings.Contains(err.Error(), "WEBHOOK_ALLOW_PRIVATE:") {
				t.Errorf("%s in %s with WEBHOOK_ALLOW_PRIVATE=true: %v, want refused naming it", role, environment, err)
			}
		}
		for _, environment := range []string{"dev", ""} { // "" is the default, dev
			cfg, err := LoadRole(role, env(vars(role, environment)), nil)
			if err != nil || !cfg.WebhookAllowPrivate {
				t.Errorf("%s in %q with WEBHOOK_ALLOW_PRIVATE=true: %v, want it kept", role, environment, err)
			}
		}
	}
	if cfg, err := Load(env(vars(RoleAll, "production")), nil); err != nil || !cfg.WebhookAllowPrivate {
		t.Errorf("intentd-dev (every role in one process): %v, want it kept", err)
	}
	if cfg, err := LoadRole(RoleAPI, env(map[string]string{"DATABASE_URL": "postgres://x@127.0.0.1/db", "SOLVER_ADDRESS": solver,
		"ENVIRONMENT": "production"}), nil); err != nil || cfg.WebhookAllowPrivate {
		t.Errorf("production without it: %v", err)
	}
}

// Review L15: the webhook secrets key can be rotated: WEBHOOK_SECRETS_PREVIOUS_KEYS (newest
// first) still open what they sealed, and WEBHOOK_SECRETS_OPEN_UNVERSIONED (default true) turns
// off the format without a key id once `intentd admin webhooks reseal` has run. A bad key is
// named, never echoed.
func TestWebhookSecretsPreviousKeysAndUnversioned(t *testing.T) {
	oldKey, newKey := strings.Repeat("11", 32), strings.Repeat("22", 32)
	base := map[string]string{"DATABASE_URL": "postgres://x@127.0.0.1/db", "WEBHOOK_SECRETS_KEY": newKey}
	with := func(m map[string]string) map[string]string { out := maps.Clone(base); maps.Copy(out, m); return out }
	cfg, err := LoadRole(RoleDispatcher, env(base), nil)
	if err != nil || len(cfg.WebhookPreviousKeys) != 0 || !cfg.WebhookOpenUnversioned {
		t.Fatalf("defaults: %d previous keys, open unversioned %v, %v", len(cfg.WebhookPreviousKeys), cfg.WebhookOpenUnversioned, err)
	}
	cfg, err = LoadRole(RoleDispatcher, env(with(map[string]string{"WEBHOOK_SECRETS_PREVIOUS_KEYS": oldKey,
		"WEBHOOK_SECRETS_OPEN_UNVERSIONED": "false"})), nil)
	if err != nil || len(cfg.WebhookPreviousKeys) != 1 || cfg.WebhookOpenUnversioned {
		t.Fatalf("set: %d previous keys, open unversioned %v, %v", len(cfg.WebhookPreviousKeys), cfg.WebhookOpenUnversioned, err)
	}
	oldCfg, err := LoadRole(RoleDispatcher, env(with(map[string]string{"WEBHOOK_SECRETS_KEY": oldKey})), nil)
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := oldCfg.Sealer().SealSecret("6f0e7c1a-8d2b-4c3e-9f10-2a3b4c5d6e7f", "whsec_x")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := cfg.Sealer().OpenSecret("6f0e7c1a-8d2b-4c3e-9f10-2a3b4c5d6e7f", sealed); err != nil || got != "whsec_x" {
		t.Errorf("a value sealed under the previous key: %q %v", got, err)
	}
	bad := strings.Repeat("ab", 31)
	_, err = LoadRole(RoleDispatcher, env(with(map[string]string{"WEBHOOK_SECRETS_PREVIOUS_KEYS": oldKey + "," + bad})), nil)
	if err == nil || !strings.Contains(err.Error(), "WEBHOOK_SECRETS_PREVIOUS_KEYS:") || strings.Contains(err.Error(), bad) {
		t.Errorf("a bad previous key: %v, want it named and not echoed", err)
	}
}
