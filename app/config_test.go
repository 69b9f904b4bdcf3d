package app

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/intentd/intentd/devnet"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
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
		{"feeds", "ETH=31337:0x0000000000000000000000000000000000000000", "PRICE_FEEDS"}} {
		_, err := Load(env(map[string]string{"PRICE_SOURCE": tc.source, "PRICE_FEEDS": tc.feeds}), nil)
		if err == nil || !strings.Contains(err.Error(), tc.name+":") {
			t.Errorf("%+v: %v", tc, err)
		}
	}
	cfg, err := Load(env(map[string]string{"PRICE_SOURCE": "feeds", "PRICE_FEEDS": devnet.PriceFeedsConfig(31337)}),
		devnet.EngineEnv("postgres://x@127.0.0.1/db", "k"))
	if err != nil || len(cfg.PriceFeeds) != 2 {
		t.Fatalf("feeds config: %v %v", cfg.PriceFeeds, err)
	}
}

func TestConfigNeverPrintsTheSolverKey(t *testing.T) {
	key := hex.EncodeToString(crypto.FromECDSA(devnet.SolverKey()))
	cfg, err := Load(env(map[string]string{"DATABASE_URL": "postgres://x@127.0.0.1/db", "SOLVER_PRIVATE_KEY": key,
		"ORACLE_SIGNERS": devnet.OracleAddress().Hex()}), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), cfg.LogValue().String()} {
		if strings.Contains(s, key) || strings.Contains(s, key[:16]) {
			t.Fatalf("solver key printed: %s", s)
		}
	}
	if cfg.SolverAddress() != devnet.SolverAddress() {
		t.Fatal("wrong solver address")
	}
}

func TestAdminTokenSHA256(t *testing.T) {
	base := map[string]string{"DATABASE_URL": "postgres://x@127.0.0.1/db",
		"SOLVER_PRIVATE_KEY": hex.EncodeToString(crypto.FromECDSA(devnet.SolverKey())), "ORACLE_SIGNERS": devnet.OracleAddress().Hex()}
	with := func(v string) map[string]string {
		m := map[string]string{"ADMIN_TOKEN_SHA256": v}
		for k, x := range base {
			m[k] = x
		}
		return m
	}

	cfg, err := Load(env(base), nil)
	if err != nil || cfg.AdminTokenSHA256 != nil {
		t.Fatalf("unset: %x %v", cfg.AdminTokenSHA256, err)
	}
	sum := sha256.Sum256([]byte("tok-7f3a-secret"))
	for _, v := range []string{hex.EncodeToString(sum[:]), strings.ToUpper(hex.EncodeToString(sum[:])), " " + hex.EncodeToString(sum[:]) + "\n"} {
		cfg, err := Load(env(with(v)), nil)
		if err != nil || !bytes.Equal(cfg.AdminTokenSHA256, sum[:]) {
			t.Fatalf("%q: %x %v", v, cfg.AdminTokenSHA256, err)
		}
		for _, s := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg)} {
			if strings.Contains(s, hex.EncodeToString(sum[:])) {
				t.Fatalf("admin token hash printed: %s", s)
			}
		}
	}
	for _, v := range []string{"tok-7f3a-secret", hex.EncodeToString(sum[:31]), hex.EncodeToString(sum[:]) + "00",
		"0x" + hex.EncodeToString(sum[:]), strings.Repeat("zz", 32)} {
		_, err := Load(env(with(v)), nil)
		if err == nil || !strings.Contains(err.Error(), "ADMIN_TOKEN_SHA256:") {
			t.Fatalf("%q accepted or not named: %v", v, err)
		}
		if strings.Contains(err.Error(), v) {
			t.Fatalf("the value is echoed (it may be the token itself): %v", err)
		}
	}
}
