// Package app wires the engine's processes from configuration: it loads and validates the
// environment once, opens the shared clients (Postgres, Temporal, chains, oracle) and builds the
// API and worker. cmd/intentd's subcommands and the integration tests both start the system
// through it, so tests run the same composition the binary does.
package app

import (
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/internal/symbols"
	"github.com/intentd/intentd/prices"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/workflows"
)

// Config is every setting of the engine (API and worker), loaded from the environment.
type Config struct {
	Environment       string // ENVIRONMENT: selects configs/chains.<env>.json
	ChainsConfigDir   string // CHAINS_CONFIG_DIR
	DatabaseURL       string // DATABASE_URL
	TemporalAddress   string // TEMPORAL_ADDRESS
	TemporalNamespace string // TEMPORAL_NAMESPACE
	APIAddr           string // API_ADDR
	OracleURL         string // ORACLE_URL
	OracleAPIKey      string // ORACLE_API_KEY (secret)
	OracleSigners     []common.Address
	PriceSource       string // PRICE_SOURCE: table or feeds
	Prices            prices.Table
	PriceFeeds        map[string]prices.FeedRef
	PriceMaxAge       time.Duration
	PriceCacheTTL     time.Duration
	QuoteLimits       quote.PairLimits
	SwapCostBps       int64
	QuoteTTL          time.Duration
	ScanInterval      time.Duration
	// SolverMaxFill is the solver's capacity per fill by symbol, whole units (SOLVER_MAX_FILL,
	// e.g. "ETH=100,USDC=250000"; empty: no limit).
	SolverMaxFill map[string]decimal.Decimal
	// Policy is what every new intent runs under: DEPOSIT_CONFIRMATION_TIMEOUT (30m),
	// FILL_BUMP_AFTER (30s), FILL_MAX_BUMPS (3) and FILL_SUBMIT_ATTEMPTS (20).
	Policy   workflows.Policy
	LogLevel slog.Level
	// AdminTokenSHA256 (ADMIN_TOKEN_SHA256, 64 hex digits) is the SHA-256 of the bearer token of
	// POST /admin/requests/{requestId}/refund; unset, that endpoint does not exist. Only the
	// hash is configured; the token itself is never in the environment of the API.
	AdminTokenSHA256 []byte
	solverKey        *ecdsa.PrivateKey // SOLVER_PRIVATE_KEY (secret; never printed)
}

// SolverKey returns the solver's signing key.
func (c Config) SolverKey() *ecdsa.PrivateKey { return c.solverKey }

// SolverAddress is the solver's public address.
func (c Config) SolverAddress() common.Address { return crypto.PubkeyToAddress(c.solverKey.PublicKey) }

// ChainsFile is the chain configuration file for the environment.
func (c Config) ChainsFile() string {
	return filepath.Join(c.ChainsConfigDir, "chains."+c.Environment+".json")
}

// LogValue keeps secrets out of logs.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(slog.String("environment", c.Environment), slog.String("temporal", c.TemporalAddress),
		slog.String("api", c.APIAddr), slog.String("oracle", c.OracleURL), slog.String("solver", c.SolverAddress().Hex()),
		slog.Bool("adminRefunds", len(c.AdminTokenSHA256) > 0))
}

// String keeps secrets out of %v.
func (c Config) String() string { return c.LogValue().String() }

// GoString keeps secrets out of %#v.
func (c Config) GoString() string { return c.String() }

// Defaults supplies values for variables that are unset; dev mode fills in the devnet's keys.
type Defaults map[string]string

// Load reads the configuration. lookup is os.LookupEnv in production; defaults are used for
// unset variables. Every invalid value is an error naming its variable.
func Load(lookup func(string) (string, bool), defaults Defaults) (Config, error) {
	get := func(name, def string) string {
		if v, ok := lookup(name); ok && v != "" {
			return v
		}
		if v, ok := defaults[name]; ok {
			return v
		}
		return def
	}
	var c Config
	var errs []string
	bad := func(name, format string, args ...any) {
		errs = append(errs, fmt.Sprintf("%s: %s", name, fmt.Sprintf(format, args...)))
	}
	c.Environment = get("ENVIRONMENT", "dev")
	c.ChainsConfigDir = get("CHAINS_CONFIG_DIR", "configs")
	c.DatabaseURL = get("DATABASE_URL", "")
	if c.DatabaseURL == "" {
		bad("DATABASE_URL", "is required")
	}
	c.TemporalAddress = get("TEMPORAL_ADDRESS", "127.0.0.1:7233")
	c.TemporalNamespace = get("TEMPORAL_NAMESPACE", "default")
	c.APIAddr = get("API_ADDR", "127.0.0.1:8080")
	c.OracleURL = strings.TrimRight(get("ORACLE_URL", "http://127.0.0.1:3000"), "/")
	c.OracleAPIKey = get("ORACLE_API_KEY", "")
	for _, s := range strings.Split(get("ORACLE_SIGNERS", ""), ";") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if !common.IsHexAddress(s) || common.HexToAddress(s) == (common.Address{}) {
			bad("ORACLE_SIGNERS", "%q is not a nonzero address", s)
			continue
		}
		c.OracleSigners = append(c.OracleSigners, common.HexToAddress(s))
	}
	if len(c.OracleSigners) == 0 {
		bad("ORACLE_SIGNERS", "at least one accepted oracle signer address is required")
	}
	var err error
	switch c.PriceSource = get("PRICE_SOURCE", "table"); c.PriceSource {
	case "table":
		if c.Prices, err = prices.ParseTable(get("PRICES_USD", "ETH=3000,USDC=1")); err != nil {
			bad("PRICES_USD", "%v", err)
		}
	case "feeds":
		if c.PriceFeeds, err = prices.ParseFeeds(get("PRICE_FEEDS", "")); err != nil {
			bad("PRICE_FEEDS", "%v", err)
		}
	default:
		bad("PRICE_SOURCE", "must be table or feeds")
	}
	if c.PriceMaxAge, err = time.ParseDuration(get("PRICE_MAX_AGE", "1h")); err != nil || c.PriceMaxAge <= 0 {
		bad("PRICE_MAX_AGE", "must be a positive duration, like 1h")
	}
	if c.PriceCacheTTL, err = time.ParseDuration(get("PRICE_CACHE_TTL", "10s")); err != nil || c.PriceCacheTTL <= 0 {
		bad("PRICE_CACHE_TTL", "must be a positive duration, like 10s")
	}
	if c.QuoteLimits, err = quote.ParsePairLimits(get("QUOTE_MAX_USD", "*/*=1000000")); err != nil {
		bad("QUOTE_MAX_USD", "%v", err)
	}
	if c.SwapCostBps, err = strconv.ParseInt(get("SWAP_COST_BPS", "10"), 10, 64); err != nil || c.SwapCostBps < 1 || c.SwapCostBps > 1000 {
		bad("SWAP_COST_BPS", "must be whole basis points from 1 to 1000")
	}
	if c.QuoteTTL, err = time.ParseDuration(get("QUOTE_TTL", "10m")); err != nil || c.QuoteTTL < time.Minute {
		bad("QUOTE_TTL", "must be a duration of at least 1m, like 10m")
	}
	if c.ScanInterval, err = time.ParseDuration(get("SCAN_INTERVAL", "1s")); err != nil || c.ScanInterval <= 0 {
		bad("SCAN_INTERVAL", "must be a positive duration, like 1s")
	}
	if v := get("SOLVER_MAX_FILL", ""); strings.TrimSpace(v) != "" {
		if c.SolverMaxFill, err = symbols.Parse(v, "maximum fill", "whole units"); err != nil {
			bad("SOLVER_MAX_FILL", "%v", err)
		}
	}
	if c.Policy.ConfirmationTimeout, err = time.ParseDuration(get("DEPOSIT_CONFIRMATION_TIMEOUT", "30m")); err != nil || c.Policy.ConfirmationTimeout <= 0 {
		bad("DEPOSIT_CONFIRMATION_TIMEOUT", "must be a positive duration, like 30m")
	}
	if c.Policy.FillBumpAfter, err = time.ParseDuration(get("FILL_BUMP_AFTER", "30s")); err != nil || c.Policy.FillBumpAfter <= 0 {
		bad("FILL_BUMP_AFTER", "must be a positive duration, like 30s")
	}
	if c.Policy.FillMaxBumps, err = strconv.Atoi(get("FILL_MAX_BUMPS", "3")); err != nil || c.Policy.FillMaxBumps < 1 || c.Policy.FillMaxBumps > 20 {
		bad("FILL_MAX_BUMPS", "must be a whole number from 1 to 20")
	}
	if c.Policy.SubmitAttempts, err = strconv.Atoi(get("FILL_SUBMIT_ATTEMPTS", "20")); err != nil || c.Policy.SubmitAttempts < 1 || c.Policy.SubmitAttempts > 100 {
		bad("FILL_SUBMIT_ATTEMPTS", "must be a whole number from 1 to 100")
	}
	if err := c.LogLevel.UnmarshalText([]byte(get("LOG_LEVEL", "info"))); err != nil {
		bad("LOG_LEVEL", "must be debug, info, warn or error")
	}
	if h := strings.TrimSpace(get("ADMIN_TOKEN_SHA256", "")); h != "" {
		if b, err := hex.DecodeString(h); err != nil || len(b) != sha256.Size {
			bad("ADMIN_TOKEN_SHA256", "must be the SHA-256 of the admin token as 64 hex digits (printf %%s \"$TOKEN\" | sha256sum), not the token")
		} else {
			c.AdminTokenSHA256 = b
		}
	}
	key := strings.TrimPrefix(get("SOLVER_PRIVATE_KEY", ""), "0x")
	if key == "" {
		bad("SOLVER_PRIVATE_KEY", "is required")
	} else if c.solverKey, err = crypto.HexToECDSA(key); err != nil {
		bad("SOLVER_PRIVATE_KEY", "is not a valid secp256k1 private key")
	}
	if len(errs) > 0 {
		return Config{}, fmt.Errorf("invalid configuration:\n  %s", strings.Join(errs, "\n  "))
	}
	return c, nil
}
