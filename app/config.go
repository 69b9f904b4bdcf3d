// Package app wires the engine's processes from configuration: it loads and validates the
// environment once, opens the shared clients (Postgres, Temporal, chains, oracle) and builds the
// API and worker. cmd/intentd's subcommands and the integration tests both start the system
// through it, so tests run the same composition the binary does.
package app

import (
	"crypto/ecdsa"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"math"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	solanago "github.com/gagliardetto/solana-go"
	"github.com/shopspring/decimal"
	"github.com/trustelem/zxcvbn"

	"github.com/intentd/intentd/activities"
	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/door"
	"github.com/intentd/intentd/events"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/envconf"
	"github.com/intentd/intentd/prices"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/ratelimit"
	"github.com/intentd/intentd/screening"
	"github.com/intentd/intentd/workflows"
)

// Role is the process a configuration is loaded for. Each role reads, requires and holds only
// what it uses: the solver's private key is the worker's alone (the API quotes with the
// solver's address, migrate needs neither), so a compromised API process cannot sign.
type Role string

// The roles of `intentd`, and RoleAll: every role in one process (`intentd-dev dev`, the test
// stacks).
const (
	RoleAPI     Role = "api"
	RoleWorker  Role = "worker"
	RoleMigrate Role = "migrate"
	// RoleDispatcher delivers the outbox's events to webhooks (events.Dispatcher); it needs
	// Postgres and the webhook secrets key, nothing of Temporal or the chains.
	RoleDispatcher Role = "dispatcher"
	RoleAll        Role = "all"
)

// api and worker report whether the role runs the API or the worker.
func (r Role) api() bool    { return r == RoleAPI || r == RoleAll }
func (r Role) worker() bool { return r == RoleWorker || r == RoleAll }

// dispatcher reports whether the role delivers webhooks.
func (r Role) dispatcher() bool { return r == RoleDispatcher || r == RoleAll }

// Config is every setting of the engine (API and worker), loaded from the environment for one
// Role: a setting its role does not use is left zero.
type Config struct {
	Role              Role
	Environment       string // ENVIRONMENT: selects configs/chains.<env>.json
	ChainsConfigDir   string // CHAINS_CONFIG_DIR
	DatabaseURL       string // DATABASE_URL
	TemporalAddress   string // TEMPORAL_ADDRESS
	TemporalNamespace string // TEMPORAL_NAMESPACE
	// TemporalUIURL (TEMPORAL_UI_URL, e.g. http://127.0.0.1:8233; default none) is the Temporal
	// Web UI the dashboard links operators to from a request's page.
	TemporalUIURL string
	APIAddr       string // API_ADDR
	// AdminAddr (ADMIN_ADDR, default 127.0.0.1:8081) is where the api serves the admin API
	// (/admin/…), a listener of its own and never API_ADDR: an internal address. Without
	// ADMIN_TOKEN nothing listens there.
	AdminAddr string
	// RequestsV2DeprecatedAt, RequestsV2SunsetAt (REQUESTS_V2_DEPRECATED_AT,
	// REQUESTS_V2_SUNSET_AT: RFC 3339; the spec's 2026-07-22 and 2026-11-24 by default) and
	// RequestsV2MigrationGuide (REQUESTS_V2_MIGRATION_GUIDE) schedule GET /requests/v2's end.
	RequestsV2DeprecatedAt   time.Time
	RequestsV2SunsetAt       time.Time
	RequestsV2MigrationGuide string
	OracleURL                string // ORACLE_URL
	OracleAPIKey             string // ORACLE_API_KEY (secret)
	// OracleSigners (ORACLE_SIGNERS, unique) are the oracle signers whose signatures the worker
	// accepts, and OracleSignersThreshold (ORACLE_SIGNERS_THRESHOLD, default 1, at most the
	// number of signers) how many of them must have signed an attestation before the worker
	// relies on it: the engine's own quorum, checked whatever the oracle answered.
	OracleSigners          []common.Address
	OracleSignersThreshold int
	PriceSource            string // PRICE_SOURCE: table or feeds
	Prices                 prices.Table
	PriceFeeds             map[string]prices.FeedRef
	PriceMaxAge            time.Duration
	PriceCacheTTL          time.Duration
	QuoteLimits            quote.PairLimits
	SwapCostBps            int64
	QuoteTTL               time.Duration
	ScanInterval           time.Duration
	// NonceGapAfter (NONCE_GAP_AFTER, 10s) is how long the chain's pending nonce of the solver
	// may stay below the next nonce the engine hands out, unmoved, before the worker fills the
	// gap (worker/nonces.go; docs/operations.md, "Nonce gaps").
	NonceGapAfter time.Duration
	// EagerStart (EAGER_START, default true) starts a deposit's workflow eagerly: a worker of
	// the process that routes the deposit runs its first workflow task from the start's
	// answer, without the trip through matching. A chain's deposits are routed by the scanner
	// of the worker that holds its scan lock, and a fleet's scanners take the blocks in turn
	// (deposits.turns), so each worker runs the workflows of the blocks it routed. false
	// leaves every start to the task queue (docs/operations.md).
	EagerStart bool
	// SolverMaxFill is the solver's capacity per fill by symbol, whole units (SOLVER_MAX_FILL,
	// e.g. "ETH=100,USDC=250000"; empty: no limit).
	SolverMaxFill map[string]decimal.Decimal
	// SolverInventoryFloor is the solver's balance per symbol, whole units, below which the
	// inventory alert fires (SOLVER_INVENTORY_FLOOR, e.g. "ETH=10,USDC=20000"; empty: none).
	SolverInventoryFloor map[string]decimal.Decimal
	// ScreeningFile (SCREENING_BLOCKLIST_FILE; default none: no screening) is the blocklist of
	// addresses the API refuses to quote for and the worker refuses to fill for or refund to
	// (package screening, docs/operations.md "Screening"); it must exist and parse at start.
	// ScreeningReloadInterval (SCREENING_RELOAD_INTERVAL, 10s) is how often the file is checked
	// for a change, which is then in force without a restart.
	ScreeningFile           string
	ScreeningReloadInterval time.Duration
	// ExposureCapUSD (EXPOSURE_CAP_USD, default 10000) is the most USD the worker fills against
	// a chain's deposits that are not yet final, for chains whose file sets no exposureCapUsd
	// (docs/operations.md, "Confirmations by value and the exposure cap").
	ExposureCapUSD decimal.Decimal
	// RefundGas is the gas ceiling refunds are signed with and valued against, for the
	// currencies whose chain file sets no refundGas (REFUND_GAS_LIMITS, default
	// "NATIVE=100000,ERC20=150000": one for the chains' native currencies, one for ERC-20s).
	RefundGas activities.RefundGas
	// OrphanRefundBudget is each depositor's budget of automatic refunds of deposits no order can
	// take on one chain (ORPHAN_REFUND_BUDGET, default "10/24h": ten per depositor and chain in
	// any 24 hours); past it they wait for an operator.
	OrphanRefundBudget intent.RefundBudget
	// Policy is what every new intent runs under: DEPOSIT_CONFIRMATION_TIMEOUT (30m),
	// FILL_BUMP_AFTER (30s), FILL_MAX_BUMPS (3) and FILL_SUBMIT_ATTEMPTS (20).
	Policy   workflows.Policy
	LogLevel slog.Level
	// MetricsAddr (METRICS_ADDR; default none) serves /metrics, /livez and /readyz on a port of
	// their own (internal/metrics), e.g. 0.0.0.0:9100 in a container. StuckAfter (STUCK_AFTER,
	// 10m) is how long a request in flight may go without a transition before it counts as
	// stuck (intentd_requests_stuck).
	MetricsAddr string
	StuckAfter  time.Duration
	// AdminTokenSHA256 is the SHA-256 of ADMIN_TOKEN, the bearer token of
	// POST /admin/requests/{requestId}/refund; unset, that endpoint does not exist. The token is
	// checked for strength and hashed at load (AdminTokenHash) and only the hash is kept, so the
	// configuration never holds, prints or logs the token.
	AdminTokenSHA256 []byte
	// RedisURL (REDIS_URL, secret: it may carry a password) is the Redis that holds the rate
	// limits' buckets, shared by every API process; unset, each process limits on its own.
	RedisURL string
	// TrustedProxies (TRUSTED_PROXIES: CIDRs or addresses, comma-separated) are the peers whose
	// X-Forwarded-For names the client; unset, none.
	TrustedProxies []string
	// HintMaxDeposits (HINT_MAX_DEPOSITS, default 16, 1 to 256) is how many deposits of one
	// transaction a hint (POST /transactions/index, /single) routes; the scanner routes the
	// others (door.Door.IndexTransaction).
	HintMaxDeposits int
	// RateLimits is who gets which limit: the spec's table, and RATE_LIMITS_ANONYMOUS,
	// RATE_LIMIT_UNKNOWN_KEY and RATE_LIMIT_REQUESTS_SCHEDULE (loadRateLimits).
	RateLimits ratelimit.Policy
	// Stream caps the websocket stream's connections without a key: WS_ANONYMOUS_PER_IP,
	// WS_ANONYMOUS_PER_PROCESS, WS_ANONYMOUS_GLOBAL (loadStream).
	Stream StreamLimits
	// WebhookSecretsKey (WEBHOOK_SECRETS_KEY, secret: 32 bytes, hex or base64) seals the webhook
	// signing secrets in the database (events.Sealer). The dispatcher requires it; without it
	// the api's webhook admin routes answer 503.
	WebhookSecretsKey []byte
	// WebhookPreviousKeys (WEBHOOK_SECRETS_PREVIOUS_KEYS, secret: keys as WEBHOOK_SECRETS_KEY,
	// comma-separated, newest first; default none) still open values sealed under them, after
	// WEBHOOK_SECRETS_KEY was rotated and until `intentd admin webhooks reseal` has run.
	WebhookPreviousKeys [][]byte
	// WebhookOpenUnversioned (WEBHOOK_SECRETS_OPEN_UNVERSIONED, default true) opens values
	// sealed before the sealed format named its key and was bound to the webhook's key id
	// (events.Sealer); false once `reseal` has run, so every value opens only in its place.
	WebhookOpenUnversioned bool
	// WebhookAllowPrivate (WEBHOOK_ALLOW_PRIVATE, dev mode only) allows http webhook URLs and
	// loopback or private addresses; off, only https to public addresses. It is refused unless
	// the process runs in dev (DevMode): in any other environment it would let webhooks reach
	// the service's own network (Postgres, Temporal, metadata endpoints).
	WebhookAllowPrivate bool
	// Dispatcher tunes webhook delivery: WEBHOOK_WORKERS, WEBHOOK_PER_KEY, WEBHOOK_TIMEOUT,
	// WEBHOOK_LEASE_MARGIN,
	// WEBHOOK_MAX_RETRIES, WEBHOOK_RETRY_INITIAL, WEBHOOK_RETRY_MAX, OUTBOX_RETENTION,
	// WEBHOOK_LOG_RETENTION (events.DefaultOptions).
	Dispatcher    events.Options
	solverKey     *ecdsa.PrivateKey // SOLVER_PRIVATE_KEY (secret; never printed): the worker's only
	solverAddress common.Address    // SOLVER_ADDRESS, or the key's
	// relayerKey (RELAYER_PRIVATE_KEY, secret; never printed; the worker's only, optional) signs
	// and pays for the calls of gasless requests (issue 37, docs/gasless.md); it is not the
	// solver's key. Without it the worker relays nothing.
	relayerKey *ecdsa.PrivateKey
	// perpsDepositoryKey (PERPS_DEPOSITORY_KEY, secret; never printed; the worker's only,
	// optional) is the key of the engine's depository account on a perps exchange (chain 1337,
	// docs/perps.md): refunds of withdrawals are sendAssets out of it. Without it nothing is
	// refunded on the exchange (a refund waits for an operator).
	perpsDepositoryKey *ecdsa.PrivateKey

	// The Solana family's keys (all optional: without them no route to a Solana chain is
	// offered, as before the family was linked). solanaSolverKey (SOLVER_SOLANA_KEY, base58
	// secret, the worker's only) pays fills; solanaVaultKey (SOLANA_VAULT_KEY, base58 secret, the
	// worker's only) is the local chain's vault, which refunds out of a Solana chain pay from;
	// solanaSolver (SOLVER_SOLANA_ADDRESS, or the key's public key) is what quotes name.
	solanaSolverKey solanago.PrivateKey
	solanaVaultKey  solanago.PrivateKey
	solanaSolver    string
}

// SolanaSolverKey is the solver's Solana keypair (SOLVER_SOLANA_KEY); nil in a role other than
// the worker's, or when none is configured.
func (c Config) SolanaSolverKey() solanago.PrivateKey { return c.solanaSolverKey }

// SolanaVaultKey is the Solana vault's keypair (SOLANA_VAULT_KEY); nil when none is configured.
func (c Config) SolanaVaultKey() solanago.PrivateKey { return c.solanaVaultKey }

// SolanaSolverAddress is the solver's Solana address, base58 (SOLVER_SOLANA_ADDRESS, or the
// public key of SOLVER_SOLANA_KEY); "" when neither is set.
func (c Config) SolanaSolverAddress() string { return c.solanaSolver }

// SolverKey returns the solver's signing key; nil in a role other than the worker's.
func (c Config) SolverKey() *ecdsa.PrivateKey { return c.solverKey }

// relayerAddress is the relayer's public address, "" without a relayer key.
func (c Config) relayerAddress() string {
	if c.relayerKey == nil {
		return ""
	}
	return crypto.PubkeyToAddress(c.relayerKey.PublicKey).Hex()
}

// RelayerKey returns the relayer's signing key (RELAYER_PRIVATE_KEY); nil in a role other than
// the worker's, or when none is configured.
func (c Config) RelayerKey() *ecdsa.PrivateKey { return c.relayerKey }

// PerpsDepositoryKey returns the key of the depository account on the perps exchange
// (PERPS_DEPOSITORY_KEY); nil in a role other than the worker's, or when none is configured.
func (c Config) PerpsDepositoryKey() *ecdsa.PrivateKey { return c.perpsDepositoryKey }

// SolverAddress is the solver's public address: SOLVER_ADDRESS, or the address of
// SOLVER_PRIVATE_KEY.
func (c Config) SolverAddress() common.Address { return c.solverAddress }

// DevEnvironment is the ENVIRONMENT of development (and its default).
const DevEnvironment = "dev"

// DevMode reports whether the configuration is development's: ENVIRONMENT=dev, or every role in
// one process (RoleAll), which only intentd-dev and the test stacks run; the production binary
// runs one role. Settings that lower a guard for a developer's machine are refused outside it.
func (c Config) DevMode() bool { return c.Environment == DevEnvironment || c.Role == RoleAll }

// ChainsFile is the chain configuration file for the environment.
func (c Config) ChainsFile() string {
	return filepath.Join(c.ChainsConfigDir, "chains."+c.Environment+".json")
}

// LogValue keeps secrets out of logs.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(slog.String("role", string(c.Role)), slog.String("environment", c.Environment), slog.String("temporal", c.TemporalAddress),
		slog.String("api", c.APIAddr), slog.String("admin", c.AdminAddr), slog.String("oracle", c.OracleURL), slog.String("solver", c.SolverAddress().Hex()),
		slog.String("solanaSolver", c.solanaSolver), slog.String("relayer", c.relayerAddress()),
		slog.Bool("adminRefunds", len(c.AdminTokenSHA256) > 0), slog.Bool("sharedRateLimits", c.RedisURL != ""),
		slog.String("screening", c.ScreeningFile))
}

// String keeps secrets out of %v.
func (c Config) String() string { return c.LogValue().String() }

// GoString keeps secrets out of %#v.
func (c Config) GoString() string { return c.String() }

// Defaults supplies values for variables that are unset; dev mode fills in the devnet's keys.
type Defaults map[string]string

// The defaults of the Temporal variables, shared with the admin command line, which reaches the
// same Temporal.
const (
	DefaultTemporalAddress   = "127.0.0.1:7233"
	DefaultTemporalNamespace = "default"
)

// DefaultExposureCapUSD is EXPOSURE_CAP_USD's default: what a chain without an exposureCapUsd
// of its own may have filled against deposits not yet final, in USD.
const DefaultExposureCapUSD = "10000"

// Load reads the configuration of every role in one process (RoleAll), as `intentd-dev dev` and
// the test stacks run them: LoadRole(RoleAll, lookup, defaults).
func Load(lookup func(string) (string, bool), defaults Defaults) (Config, error) {
	return LoadRole(RoleAll, lookup, defaults)
}

// LoadRole reads the configuration of one role. lookup is os.LookupEnv in production; defaults
// are used for unset variables. Every invalid value is an error naming its variable, and so is
// SOLVER_PRIVATE_KEY in the environment of the api or migrate: a process that never signs must
// not hold the key.
func LoadRole(role Role, lookup func(string) (string, bool), defaults Defaults) (Config, error) {
	v := envconf.New(lookup, defaults)
	c := Config{Role: role}
	switch role {
	case RoleAPI, RoleWorker, RoleMigrate, RoleDispatcher, RoleAll:
	default:
		return Config{}, fmt.Errorf("unknown role %q", role)
	}
	c.Environment = v.Get("ENVIRONMENT", DevEnvironment)
	c.DatabaseURL = v.Get("DATABASE_URL", "")
	if c.DatabaseURL == "" {
		v.Bad("DATABASE_URL", "is required")
	}
	c.LogLevel = v.Level("LOG_LEVEL", "info")
	if role != RoleMigrate {
		c.MetricsAddr = v.Get("METRICS_ADDR", "")
		c.StuckAfter = v.PositiveDuration("STUCK_AFTER", "10m")
	}
	if !role.worker() {
		if v.Set("SOLVER_PRIVATE_KEY") {
			v.Bad("SOLVER_PRIVATE_KEY", "must not be set for %s: only the worker signs (give the api SOLVER_ADDRESS)", role)
		}
		for _, k := range []string{"SOLVER_SOLANA_KEY", "SOLANA_VAULT_KEY", "RELAYER_PRIVATE_KEY", "PERPS_DEPOSITORY_KEY"} {
			if v.Set(k) {
				v.Bad(k, "must not be set for %s: only the worker signs (give the api SOLVER_SOLANA_ADDRESS)", role)
			}
		}
	}
	if role != RoleMigrate && role != RoleDispatcher {
		c.loadEngine(v)
	}
	if role.api() || role.dispatcher() {
		c.loadWebhooks(v)
	}
	if role.worker() {
		c.loadWorker(v)
	}
	if role.api() {
		c.loadAPI(v)
	}
	if err := v.Err(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// loadEngine reads what the API and the worker both use: Temporal, the chains, prices, quotes and
// the lifecycle policy.
func (c *Config) loadEngine(v *envconf.Vars) {
	c.ChainsConfigDir = v.Get("CHAINS_CONFIG_DIR", "configs")
	c.TemporalAddress = v.Get("TEMPORAL_ADDRESS", DefaultTemporalAddress)
	c.TemporalNamespace = v.Get("TEMPORAL_NAMESPACE", DefaultTemporalNamespace)
	c.TemporalUIURL = strings.TrimRight(v.Get("TEMPORAL_UI_URL", ""), "/")
	var err error
	switch c.PriceSource = v.Get("PRICE_SOURCE", "table"); c.PriceSource {
	case "table":
		if c.Prices, err = prices.ParseTable(v.Get("PRICES_USD", "ETH=3000,USDC=1")); err != nil {
			v.Bad("PRICES_USD", "%v", err)
		}
	case "feeds":
		if c.PriceFeeds, err = prices.ParseFeeds(v.Get("PRICE_FEEDS", "")); err != nil {
			v.Bad("PRICE_FEEDS", "%v", err)
		}
	default:
		v.Bad("PRICE_SOURCE", "must be table or feeds")
	}
	c.PriceMaxAge = v.PositiveDuration("PRICE_MAX_AGE", "1h")
	c.PriceCacheTTL = v.PositiveDuration("PRICE_CACHE_TTL", "10s")
	if c.QuoteLimits, err = quote.ParsePairLimits(v.Get("QUOTE_MAX_USD", "*/*=1000000")); err != nil {
		v.Bad("QUOTE_MAX_USD", "%v", err)
	}
	if c.SwapCostBps, err = strconv.ParseInt(v.Get("SWAP_COST_BPS", "10"), 10, 64); err != nil || c.SwapCostBps < 1 || c.SwapCostBps > 1000 {
		v.Bad("SWAP_COST_BPS", "must be whole basis points from 1 to 1000")
	}
	if c.QuoteTTL, err = time.ParseDuration(v.Get("QUOTE_TTL", "10m")); err != nil || c.QuoteTTL < time.Minute {
		v.Bad("QUOTE_TTL", "must be a duration of at least 1m, like 10m")
	}
	c.ScanInterval = v.PositiveDuration("SCAN_INTERVAL", "1s")
	c.NonceGapAfter = v.PositiveDuration("NONCE_GAP_AFTER", "10s")
	c.EagerStart = v.Bool("EAGER_START", "true")
	// The worker refuses a fill over it; the API serves it (GET /config/v2's capacityPerRequest).
	if s := v.Get("SOLVER_MAX_FILL", ""); strings.TrimSpace(s) != "" {
		if c.SolverMaxFill, err = envconf.SymbolAmounts(s, "maximum fill", "whole units"); err != nil {
			v.Bad("SOLVER_MAX_FILL", "%v", err)
		}
	}
	c.ScreeningFile = strings.TrimSpace(v.Get("SCREENING_BLOCKLIST_FILE", ""))
	c.ScreeningReloadInterval = v.PositiveDuration("SCREENING_RELOAD_INTERVAL", "10s")
	if c.ScreeningFile != "" {
		if _, err := screening.ReadFile(c.ScreeningFile); err != nil {
			v.Bad("SCREENING_BLOCKLIST_FILE", "%v", err)
		}
	}
	c.Policy.ConfirmationTimeout = v.PositiveDuration("DEPOSIT_CONFIRMATION_TIMEOUT", "30m")
	c.Policy.FillBumpAfter = v.PositiveDuration("FILL_BUMP_AFTER", "30s")
	c.Policy.FillMaxBumps = v.IntRange("FILL_MAX_BUMPS", "3", 1, 20)
	c.Policy.SubmitAttempts = v.IntRange("FILL_SUBMIT_ATTEMPTS", "20", 1, 100)
}

// loadWebhooks reads the webhook settings of the api (its admin routes seal secrets) and the
// dispatcher (it opens them to sign, and delivers).
func (c *Config) loadWebhooks(v *envconf.Vars) {
	if k := v.Get("WEBHOOK_SECRETS_KEY", ""); k != "" {
		var err error
		if c.WebhookSecretsKey, err = events.ParseSecretsKey(k); err != nil {
			v.Bad("WEBHOOK_SECRETS_KEY", "%v", err)
		}
	} else if c.Role == RoleDispatcher {
		v.Bad("WEBHOOK_SECRETS_KEY", "is required: the key that seals webhook signing secrets (32 random bytes, e.g. `openssl rand -hex 32`), the same as the api's")
	}
	var err error
	if c.WebhookPreviousKeys, err = events.ParseSecretsKeys(v.Get("WEBHOOK_SECRETS_PREVIOUS_KEYS", "")); err != nil {
		v.Bad("WEBHOOK_SECRETS_PREVIOUS_KEYS", "%v", err)
	}
	c.WebhookOpenUnversioned = v.Bool("WEBHOOK_SECRETS_OPEN_UNVERSIONED", "true")
	c.WebhookAllowPrivate = v.Bool("WEBHOOK_ALLOW_PRIVATE", "false")
	if c.WebhookAllowPrivate && !c.DevMode() {
		v.Bad("WEBHOOK_ALLOW_PRIVATE", "is for development only and is refused unless ENVIRONMENT=%s (ENVIRONMENT is %q): it would let webhooks reach private and loopback addresses", DevEnvironment, c.Environment)
	}
	if !c.Role.dispatcher() {
		return
	}
	d := events.DefaultOptions
	d.Workers = v.IntRange("WEBHOOK_WORKERS", strconv.Itoa(d.Workers), 1, 1024)
	d.PerKey = v.IntRange("WEBHOOK_PER_KEY", strconv.Itoa(d.PerKey), 1, 64)
	d.Timeout = v.PositiveDuration("WEBHOOK_TIMEOUT", d.Timeout.String())
	d.LeaseMargin = v.PositiveDuration("WEBHOOK_LEASE_MARGIN", d.LeaseMargin.String())
	d.MaxRetries = v.IntRange("WEBHOOK_MAX_RETRIES", strconv.Itoa(d.MaxRetries), 1, 50)
	d.RetryInitial = v.PositiveDuration("WEBHOOK_RETRY_INITIAL", d.RetryInitial.String())
	d.RetryMax = v.PositiveDuration("WEBHOOK_RETRY_MAX", d.RetryMax.String())
	d.OutboxRetention = v.PositiveDuration("OUTBOX_RETENTION", d.OutboxRetention.String())
	d.DeliveryRetention = v.PositiveDuration("WEBHOOK_LOG_RETENTION", d.DeliveryRetention.String())
	c.Dispatcher = d
}

// loadWorker reads the worker's own settings: the solver's key and the oracle.
func (c *Config) loadWorker(v *envconf.Vars) {
	c.OracleURL = strings.TrimRight(v.Get("ORACLE_URL", "http://127.0.0.1:3000"), "/")
	c.OracleAPIKey = v.Get("ORACLE_API_KEY", "")
	c.OracleSigners = oracleSigners(v)
	c.OracleSignersThreshold = v.IntRange("ORACLE_SIGNERS_THRESHOLD", "1", 1, 1000)
	if len(c.OracleSigners) > 0 && c.OracleSignersThreshold > len(c.OracleSigners) {
		v.Bad("ORACLE_SIGNERS_THRESHOLD", "%d exceeds the %d unique ORACLE_SIGNERS entries", c.OracleSignersThreshold, len(c.OracleSigners))
	}
	if s := v.Get("SOLVER_INVENTORY_FLOOR", ""); strings.TrimSpace(s) != "" {
		var err error
		if c.SolverInventoryFloor, err = envconf.SymbolAmounts(s, "inventory floor", "whole units"); err != nil {
			v.Bad("SOLVER_INVENTORY_FLOOR", "%v", err)
		}
	}
	if limit, err := decimal.NewFromString(v.Get("EXPOSURE_CAP_USD", DefaultExposureCapUSD)); err != nil || limit.IsNegative() {
		v.Bad("EXPOSURE_CAP_USD", "must be a decimal of at least 0, in USD, like 10000")
	} else {
		c.ExposureCapUSD = limit
	}
	c.RefundGas = refundGas(v)
	c.OrphanRefundBudget = orphanRefundBudget(v)
	key := strings.TrimPrefix(v.Get("SOLVER_PRIVATE_KEY", ""), "0x")
	var err error
	if key == "" {
		v.Bad("SOLVER_PRIVATE_KEY", "is required")
	} else if c.solverKey, err = crypto.HexToECDSA(key); err != nil {
		v.Bad("SOLVER_PRIVATE_KEY", "is not a valid secp256k1 private key")
	} else {
		c.solverAddress = crypto.PubkeyToAddress(c.solverKey.PublicKey)
	}
	if rk := strings.TrimPrefix(v.Get("RELAYER_PRIVATE_KEY", ""), "0x"); rk != "" {
		if c.relayerKey, err = crypto.HexToECDSA(rk); err != nil {
			v.Bad("RELAYER_PRIVATE_KEY", "is not a valid secp256k1 private key")
		} else if c.solverKey != nil && crypto.PubkeyToAddress(c.relayerKey.PublicKey) == c.solverAddress {
			v.Bad("RELAYER_PRIVATE_KEY", "must not be the solver's key: the relayer has its own address and nonces")
		}
	}
	if dk := strings.TrimPrefix(v.Get("PERPS_DEPOSITORY_KEY", ""), "0x"); dk != "" {
		if c.perpsDepositoryKey, err = crypto.HexToECDSA(dk); err != nil {
			v.Bad("PERPS_DEPOSITORY_KEY", "is not a valid secp256k1 private key")
		}
	}
	c.solanaSolverKey = solanaKey(v, "SOLVER_SOLANA_KEY")
	c.solanaVaultKey = solanaKey(v, "SOLANA_VAULT_KEY")
	if c.solanaSolverKey != nil {
		c.solanaSolver = c.solanaSolverKey.PublicKey().String()
	}
}

// validSolanaAddress reports whether a is a Solana public key in base58, as written.
func validSolanaAddress(a string) bool {
	k, err := solanago.PublicKeyFromBase58(a)
	return err == nil && k.String() == a
}

// solanaKey reads a Solana keypair given as its base58 secret (64 bytes, as solana-keygen and
// wallets export it); nil when the variable is unset. The value is never repeated in an error.
func solanaKey(v *envconf.Vars, name string) solanago.PrivateKey {
	s := strings.TrimSpace(v.Get(name, ""))
	if s == "" {
		return nil
	}
	k, err := solanago.PrivateKeyFromBase58(s)
	if err != nil || len(k) != 64 {
		v.Bad(name, "is not a base58 Solana keypair (64 bytes)")
		return nil
	}
	return k
}

// loadAPI reads the API's own settings: its address, the solver's address quotes name, the
// admin token and the rate limits.
func (c *Config) loadAPI(v *envconf.Vars) {
	c.APIAddr = v.Get("API_ADDR", "127.0.0.1:8080")
	var err error
	for _, d := range []struct {
		name, def string
		dst       *time.Time
	}{{"REQUESTS_V2_DEPRECATED_AT", "2026-07-22T00:00:00Z", &c.RequestsV2DeprecatedAt},
		{"REQUESTS_V2_SUNSET_AT", "2026-11-24T00:00:00Z", &c.RequestsV2SunsetAt}} {
		if *d.dst, err = time.Parse(time.RFC3339, v.Get(d.name, d.def)); err != nil {
			v.Bad(d.name, "must be an RFC 3339 time, like %s", d.def)
		}
	}
	if c.RequestsV2SunsetAt.Before(c.RequestsV2DeprecatedAt) {
		v.Bad("REQUESTS_V2_SUNSET_AT", "is before REQUESTS_V2_DEPRECATED_AT")
	}
	c.RequestsV2MigrationGuide = v.Get("REQUESTS_V2_MIGRATION_GUIDE", "docs/api.md#get-requestsv2-and-requests-deprecated")
	loadRateLimits(v, c)
	loadStream(v, c)
	c.HintMaxDeposits = v.IntRange("HINT_MAX_DEPOSITS", strconv.Itoa(door.DefaultHintMaxDeposits), 1, 256)
	switch a := strings.TrimSpace(v.Get("SOLVER_ADDRESS", "")); {
	case a == "" && c.Role == RoleAPI:
		v.Bad("SOLVER_ADDRESS", "is required: the solver's public address, which quotes name (the api never holds its key)")
	case a == "":
		// RoleAll: the address of the worker's key.
	case !common.IsHexAddress(a) || common.HexToAddress(a) == (common.Address{}):
		v.Bad("SOLVER_ADDRESS", "is not a nonzero address")
	case c.solverKey != nil && common.HexToAddress(a) != c.solverAddress:
		v.Bad("SOLVER_ADDRESS", "is not the address of SOLVER_PRIVATE_KEY")
	default:
		c.solverAddress = common.HexToAddress(a)
	}
	switch a := strings.TrimSpace(v.Get("SOLVER_SOLANA_ADDRESS", "")); {
	case a == "":
		// The key's, when this process holds it (RoleAll); else no Solana routes.
	case !validSolanaAddress(a):
		v.Bad("SOLVER_SOLANA_ADDRESS", "is not a base58 Solana address")
	case c.solanaSolver != "" && a != c.solanaSolver:
		v.Bad("SOLVER_SOLANA_ADDRESS", "is not the public key of SOLVER_SOLANA_KEY")
	default:
		c.solanaSolver = a
	}
	if v.Get("ADMIN_TOKEN_SHA256", "") != "" {
		// A hash cannot be checked for strength: a deployment that still sets it stops here
		// rather than running with the admin endpoint silently gone.
		v.Bad("ADMIN_TOKEN_SHA256", "is no longer read: set ADMIN_TOKEN, the token itself, whose strength is checked at start (docs/operations.md)")
	}
	if t := v.Get("ADMIN_TOKEN", ""); t != "" {
		var err error
		if c.AdminTokenSHA256, err = AdminTokenHash(t); err != nil {
			v.Bad("ADMIN_TOKEN", "%v", err)
		}
	}
	c.AdminAddr = adminAddr(v, c.APIAddr)
}

// adminAddr reads ADMIN_ADDR: host:port, a listener apart from API_ADDR's (the same port on an
// address both could bind is refused: the admin API is never served on the public listener).
func adminAddr(v *envconf.Vars, apiAddr string) string {
	addr := strings.TrimSpace(v.Get("ADMIN_ADDR", "127.0.0.1:8081"))
	host, port, err := net.SplitHostPort(addr)
	if _, perr := strconv.ParseUint(port, 10, 16); err != nil || perr != nil {
		v.Bad("ADMIN_ADDR", "%q is not host:port, like 127.0.0.1:8081", addr)
		return ""
	}
	apiHost, apiPort, err := net.SplitHostPort(apiAddr)
	wildcard := func(h string) bool { return h == "" || h == "0.0.0.0" || h == "::" }
	if err == nil && port == apiPort && port != "0" && (host == apiHost || wildcard(host) || wildcard(apiHost)) {
		v.Bad("ADMIN_ADDR", "%s is API_ADDR's listener (%s): the admin API needs a listener of its own, on an internal address", addr, apiAddr)
	}
	return addr
}

// The admin token's minimum strength: at least AdminTokenMinLength characters and at least
// AdminTokenMinBits bits of entropy as zxcvbn estimates it (log2 of the guesses an attacker who
// knows common passwords, words, keyboard walks, repeats and sequences would need). A random
// token passes with room to spare (`openssl rand -hex 32`: about 220 bits); anything a person
// would make up does not.
const (
	AdminTokenMinLength = 32
	AdminTokenMinBits   = 128
)

// AdminTokenHash checks that token is strong enough to guard the admin endpoint and returns its
// SHA-256, the only form the API keeps. The error never quotes the token.
func AdminTokenHash(token string) ([]byte, error) {
	if utf8.RuneCountInString(token) < AdminTokenMinLength || math.Log2(zxcvbn.PasswordStrength(token, nil).Guesses) < AdminTokenMinBits {
		return nil, fmt.Errorf("is too weak: it must be at least %d characters with at least %d bits of estimated entropy "+
			"(a random token, such as `openssl rand -hex 32` makes)", AdminTokenMinLength, AdminTokenMinBits)
	}
	sum := sha256.Sum256([]byte(token))
	return sum[:], nil
}

// oracleSigners reads ORACLE_SIGNERS: the oracle addresses whose signatures the worker accepts,
// at least one, none the zero address.
func oracleSigners(v *envconf.Vars) []common.Address {
	entries, err := envconf.List{Sep: ";", Item: "signer"}.Parse(v.Get("ORACLE_SIGNERS", ""))
	if err != nil {
		v.Bad("ORACLE_SIGNERS", "%v", err)
		return nil
	}
	var out []common.Address
	for _, e := range entries {
		if !common.IsHexAddress(e.Value) || common.HexToAddress(e.Value) == (common.Address{}) {
			v.Bad("ORACLE_SIGNERS", "%v", e.Errorf("is not a nonzero address"))
			continue
		}
		if a := common.HexToAddress(e.Value); !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		v.Bad("ORACLE_SIGNERS", "at least one accepted oracle signer address is required")
	}
	return out
}

// refundGas reads REFUND_GAS_LIMITS: NATIVE=gas and ERC20=gas, the refund gas ceilings of the
// currencies whose chain file sets no refundGas of their own (activities' defaults when left out).
func refundGas(v *envconf.Vars) activities.RefundGas {
	def := fmt.Sprintf("NATIVE=%d,ERC20=%d", activities.DefaultRefundGasNative, activities.DefaultRefundGasERC20)
	g := activities.RefundGas{Native: activities.DefaultRefundGasNative, ERC20: activities.DefaultRefundGasERC20}
	entries, err := envconf.List{Sep: ",", KV: "=", Item: "refund gas ceiling", Form: "NATIVE=gas or ERC20=gas", Key: "kind",
		UpperKeys: true, Unique: true}.Parse(v.Get("REFUND_GAS_LIMITS", def))
	if err != nil {
		v.Bad("REFUND_GAS_LIMITS", "%v", err)
		return g
	}
	for _, e := range entries {
		gas, err := strconv.ParseUint(e.Value, 10, 64)
		if err != nil || gas < chains.MinRefundGas || gas > chains.MaxRefundGas {
			v.Bad("REFUND_GAS_LIMITS", "%v", e.Errorf("is not whole gas from %d to %d", chains.MinRefundGas, chains.MaxRefundGas))
			continue
		}
		switch e.Key {
		case "NATIVE":
			g.Native = gas
		case "ERC20":
			g.ERC20 = gas
		default:
			v.Bad("REFUND_GAS_LIMITS", "%v", e.Errorf("names neither NATIVE nor ERC20 (a listed currency's own ceiling is its refundGas in the chain file)"))
		}
	}
	return g
}

// orphanRefundBudget reads ORPHAN_REFUND_BUDGET: "N/window", N automatic refunds of deposits no
// order can take per depositor and chain within any window (0: every one waits for an operator).
func orphanRefundBudget(v *envconf.Vars) intent.RefundBudget {
	s := v.Get("ORPHAN_REFUND_BUDGET", "10/24h")
	n, window, ok := strings.Cut(s, "/")
	per, err1 := strconv.Atoi(strings.TrimSpace(n))
	w, err2 := time.ParseDuration(strings.TrimSpace(window))
	if !ok || err1 != nil || err2 != nil || per < 0 || per > 1_000_000 || w <= 0 {
		v.Bad("ORPHAN_REFUND_BUDGET", "must be refunds/window, a whole number from 0 to 1000000 and a positive duration, like 10/24h")
		return intent.RefundBudget{}
	}
	return intent.RefundBudget{PerDepositor: per, Window: w}
}
