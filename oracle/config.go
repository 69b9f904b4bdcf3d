package oracle

import (
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/internal/envconf"
	"github.com/intentd/intentd/prices"
)

// Environment variables read by ConfigFromEnv. They are the spec's names; CHAINS_CONFIG_DIR is
// ours and only says where the chain files live.
const (
	EnvEnvironment            = "ENVIRONMENT"
	EnvSigningModule          = "SIGNING_MODULE"
	EnvPrivateKey             = "ECDSA_PRIVATE_KEY"
	EnvAPIKeys                = "API_KEYS"
	EnvHTTPPort               = "HTTP_PORT"
	EnvPort                   = "PORT"
	EnvRateLimitMax           = "UNAUTHENTICATED_RATE_LIMIT_MAX"
	EnvRateLimitWindowMS      = "UNAUTHENTICATED_RATE_LIMIT_WINDOW_MS"
	EnvPeers                  = "PEERS"
	EnvPeerRequestTimeoutMS   = "PEER_REQUEST_TIMEOUT_MS"
	EnvOracleSigners          = "ORACLE_SIGNERS"
	EnvOracleSignersThreshold = "ORACLE_SIGNERS_THRESHOLD"
	EnvChainsConfigDir        = "CHAINS_CONFIG_DIR"
	EnvLogLevel               = "LOG_LEVEL"
	EnvMetricsAddr            = "METRICS_ADDR"
	EnvAWSKMSKeyID            = "AWS_KMS_SIGNER_KEY_ID"
	EnvAWSKMSKeyRegion        = "AWS_KMS_SIGNER_KEY_REGION"
	// EnvAWSKMSEndpoint (ours) points the KMS client at another endpoint than AWS's: a local
	// KMS emulator in tests, a VPC endpoint in production.
	EnvAWSKMSEndpoint = "AWS_KMS_ENDPOINT"
	// EnvVaultSecretsDir (ours) is where secrets files are read from; /vault/secrets by default.
	EnvVaultSecretsDir = "VAULT_SECRETS_DIR"
	// The oracle's own prices (ours), by which it tiers a deposit's confirmations when its chain
	// has confirmationTiers (depth.go): the engine's variables of the same names
	// (docs/prices.md), except that PRICE_SOURCE defaults to none.
	EnvPriceSource   = "PRICE_SOURCE"
	EnvPricesUSD     = "PRICES_USD"
	EnvPriceFeeds    = "PRICE_FEEDS"
	EnvPriceMaxAge   = "PRICE_MAX_AGE"
	EnvPriceCacheTTL = "PRICE_CACHE_TTL"
)

// Price sources of the oracle (PRICE_SOURCE). Without prices (none, the default) the oracle
// values no deposit, so every deposit is attested at its chain's full confirmations whatever the
// chain's tiers say: a value it cannot check is never taken to be small.
const (
	PriceSourceNone  = "none"
	PriceSourceTable = "table"
	PriceSourceFeeds = "feeds"
)

// DefaultVaultSecretsDir is where a Vault agent writes the secrets of the container.
const DefaultVaultSecretsDir = "/vault/secrets"

// Signing modes: raw-private-key (the key comes from ECDSA_PRIVATE_KEY) and aws-kms (an
// ECC_SECG_P256K1 key in AWS KMS named by AWS_KMS_SIGNER_KEY_ID in AWS_KMS_SIGNER_KEY_REGION;
// the key never leaves KMS). Another `<cloud>-kms` fails at start with a clear message instead of
// silently signing with something else.
const (
	SigningModuleRawPrivateKey = "raw-private-key"
	SigningModuleAWSKMS        = "aws-kms"
)

// Defaults of the spec, exported so that docs, tests and the command line agree on them.
const (
	DefaultHTTPPort               = 3000
	DefaultRateLimitMax           = 2
	DefaultRateLimitWindow        = 1000 * time.Millisecond
	DefaultPeerRequestTimeout     = 10000 * time.Millisecond
	DefaultOracleSignersThreshold = 1
	DefaultChainsConfigDir        = "configs"
)

// PeerCredentialPassThrough as a peer's credential forwards the caller's own x-api-key to that
// peer instead of a dedicated key.
const PeerCredentialPassThrough = "pass-through"

// Config is the oracle's whole configuration, loaded once from the environment and validated
// there so that a bad value stops the process at start. The signing key and the API keys live in
// unexported fields (API keys only as hashes) and String, GoString and LogValue redact, so
// printing, logging or JSON-encoding a Config never reveals a secret.
type Config struct {
	// Environment selects the chain file `<ChainsConfigDir>/chains.<Environment>.json`.
	Environment string `json:"environment"`
	// SigningModule is the signing mode: SigningModuleRawPrivateKey or SigningModuleAWSKMS (the
	// key in AWS KMS, kms.go); any other value is refused at start.
	SigningModule string `json:"signingModule"`
	// HTTPPort is the listening port (HTTP_PORT, then PORT, then 3000).
	HTTPPort int `json:"httpPort"`
	// RateLimitMax requests per RateLimitWindow are allowed per client IP without an API key.
	RateLimitMax    int           `json:"rateLimitMax"`
	RateLimitWindow time.Duration `json:"rateLimitWindow"`
	// Peers are the other oracle instances asked for signatures when a caller sets
	// requestPeerSignatures (aggregate.go), each with its own credential; the list is validated
	// at start so a bad value stops the process.
	Peers              []Peer        `json:"peers"`
	PeerRequestTimeout time.Duration `json:"peerRequestTimeout"`
	// OracleSigners is the allowlist of signer addresses, unique, in configured order.
	OracleSigners []common.Address `json:"oracleSigners"`
	// OracleSignersThreshold is the number of unique allowlisted signatures aimed for.
	OracleSignersThreshold int `json:"oracleSignersThreshold"`
	// ChainsConfigDir is the folder holding the chain configuration files.
	ChainsConfigDir string `json:"chainsConfigDir"`
	// APIKeys are the configured keys, by label; the keys themselves are kept only as hashes.
	APIKeys []APIKey `json:"apiKeys"`
	// LogLevel is the lowest level the process logs (LOG_LEVEL: debug, info, warn or error;
	// default info), read here so that `intentd oracle` loads one struct at start.
	LogLevel slog.Level `json:"logLevel"`
	// MetricsAddr (METRICS_ADDR, ours; default none) serves /metrics, /livez and /readyz on a
	// port of their own (internal/metrics).
	MetricsAddr string `json:"metricsAddr,omitempty"`
	// Warnings are accepted-but-suspicious settings; NewServer logs them at start.
	Warnings []string `json:"warnings,omitempty"`
	// PriceSource (PRICE_SOURCE: none, table or feeds; default none) is where the oracle's own
	// USD prices come from: Prices (PRICES_USD) or PriceFeeds (PRICE_FEEDS, read through the
	// oracle's own RPC clients), behind a cache (PRICE_CACHE_TTL, 10s; PRICE_MAX_AGE, 1h).
	PriceSource   string                    `json:"priceSource"`
	Prices        prices.Table              `json:"prices,omitempty"`
	PriceFeeds    map[string]prices.FeedRef `json:"priceFeeds,omitempty"`
	PriceMaxAge   time.Duration             `json:"priceMaxAge"`
	PriceCacheTTL time.Duration             `json:"priceCacheTtl"`

	signer messageSigner
	// kms is the KMS key of the aws-kms mode; ConnectSigner makes it the signer.
	kms *kmsSettings
	// hub are the ids of the chains read from chains.hub.<ENVIRONMENT>.json (LoadChains).
	hub map[uint64]bool
	// lookup is the environment with the secrets files beneath it, for the chain files'
	// placeholders.
	lookup func(string) (string, bool)
}

// APIKey is one entry of API_KEYS. Only a SHA-256 hash of the key is held, so a heap dump or a
// careless print of the config does not reveal it; Label names the key in logs.
type APIKey struct {
	Label string `json:"label"`
	hash  [sha256.Size]byte
}

// String prints the label only: even the hash of a short key could be brute-forced.
func (k APIKey) String() string { return "APIKey(" + k.Label + ")" }

// Peer is one entry of PEERS. The credential is unexported because it is a secret of another
// instance; PassThrough says the caller's own x-api-key is forwarded instead.
type Peer struct {
	BaseURL     string `json:"baseUrl"`
	PassThrough bool   `json:"passThrough"`
	apiKey      string
}

// String keeps the peer credential out of any formatted output.
func (p Peer) String() string {
	cred := "[REDACTED]"
	if p.PassThrough {
		cred = PeerCredentialPassThrough
	}
	return p.BaseURL + "|" + cred
}

// SignerAddress is the address of the local signing key; it is what peers and settlement see.
func (c Config) SignerAddress() common.Address {
	if c.signer == nil {
		return common.Address{}
	}
	return c.signer.Address()
}

// Addr is the listen address for the configured port on every interface.
func (c Config) Addr() string { return ":" + strconv.Itoa(c.HTTPPort) }

// ChainsFile is the chain configuration file selected by ENVIRONMENT.
func (c Config) ChainsFile() string {
	return filepath.Join(c.ChainsConfigDir, "chains."+c.Environment+".json")
}

// HubChainsFile is the settlement hub's chain file selected by ENVIRONMENT.
func (c Config) HubChainsFile() string {
	return filepath.Join(c.ChainsConfigDir, "chains.hub."+c.Environment+".json")
}

// LoadChains reads the chain files selected by ENVIRONMENT, chains.<ENVIRONMENT>.json
// (required) and chains.hub.<ENVIRONMENT>.json (when present), into one registry, resolving
// their $VAR and ${VAR:-default} placeholders from the environment and the secrets files. The
// hub's chains are remembered so GET /chains/v1 marks them; a chain listed in both files is an
// error.
func (c *Config) LoadChains() (*chains.Registry, error) {
	lookup := c.lookup
	if lookup == nil {
		lookup = os.LookupEnv
	}
	read := func(path string) ([]chains.Chain, error) {
		doc, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		r, err := chains.ParseRegistry(doc, lookup)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		var out []chains.Chain
		for _, ch := range r.All() {
			out = append(out, *ch)
		}
		return out, nil
	}
	list, err := read(c.ChainsFile())
	if err != nil {
		return nil, err
	}
	hub, err := read(c.HubChainsFile())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	c.hub = map[uint64]bool{}
	for _, ch := range hub {
		c.hub[ch.ID] = true
	}
	reg, err := chains.NewRegistry(append(list, hub...))
	if err != nil {
		return nil, fmt.Errorf("%s and %s: %w", c.ChainsFile(), c.HubChainsFile(), err)
	}
	return reg, nil
}

// String is the redacted form used by %v and %+v: secrets are never printed.
func (c Config) String() string {
	labels := make([]string, len(c.APIKeys))
	for i, k := range c.APIKeys {
		labels[i] = k.Label
	}
	signers := make([]string, len(c.OracleSigners))
	for i, s := range c.OracleSigners {
		signers[i] = s.Hex()
	}
	peers := make([]string, len(c.Peers))
	for i, p := range c.Peers {
		peers[i] = p.String()
	}
	return fmt.Sprintf("oracle.Config{Environment:%s SigningModule:%s Signer:%s SigningKey:[REDACTED] HTTPPort:%d "+
		"RateLimit:%d/%s Peers:[%s] PeerRequestTimeout:%s OracleSigners:[%s] Threshold:%d ChainsConfigDir:%s APIKeys:[%s]}",
		c.Environment, c.SigningModule, c.SignerAddress().Hex(), c.HTTPPort, c.RateLimitMax, c.RateLimitWindow,
		strings.Join(peers, " "), c.PeerRequestTimeout, strings.Join(signers, " "), c.OracleSignersThreshold,
		c.ChainsConfigDir, strings.Join(labels, " "))
}

// GoString makes %#v redact too; without it fmt would walk the unexported key.
func (c Config) GoString() string { return c.String() }

// LogValue lets the configuration be logged as structured attributes without secrets.
func (c Config) LogValue() slog.Value {
	labels := make([]string, len(c.APIKeys))
	for i, k := range c.APIKeys {
		labels[i] = k.Label
	}
	peers := make([]string, len(c.Peers))
	for i, p := range c.Peers {
		peers[i] = p.String()
	}
	return slog.GroupValue(
		slog.String("environment", c.Environment),
		slog.String("signingModule", c.SigningModule),
		slog.String("signer", c.SignerAddress().Hex()),
		slog.Int("httpPort", c.HTTPPort),
		slog.Int("rateLimitMax", c.RateLimitMax),
		slog.Duration("rateLimitWindow", c.RateLimitWindow),
		slog.Any("peers", peers),
		slog.Duration("peerRequestTimeout", c.PeerRequestTimeout),
		slog.Int("oracleSigners", len(c.OracleSigners)),
		slog.Int("oracleSignersThreshold", c.OracleSignersThreshold),
		slog.String("chainsFile", c.ChainsFile()),
		slog.Any("apiKeys", labels),
		slog.String("priceSource", c.PriceSource),
	)
}

var environmentName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// ConfigFromEnv loads and validates the configuration; lookup is os.LookupEnv in production and
// a map in tests. An empty value counts as unset. Every problem found is reported, each naming
// its variable, and no message ever contains a secret value.
func ConfigFromEnv(env func(string) (string, bool)) (Config, error) {
	lookup, secretsErr := withSecretsFiles(env)
	get := func(name string) (string, bool) {
		v, ok := lookup(name)
		v = strings.TrimSpace(v)
		return v, ok && v != ""
	}
	var errs []error
	fail := func(name, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", name, fmt.Sprintf(format, args...)))
	}
	if secretsErr != nil {
		fail(EnvVaultSecretsDir, "%v", secretsErr)
	}
	cfg := Config{
		SigningModule:          SigningModuleRawPrivateKey,
		HTTPPort:               DefaultHTTPPort,
		RateLimitMax:           DefaultRateLimitMax,
		RateLimitWindow:        DefaultRateLimitWindow,
		PeerRequestTimeout:     DefaultPeerRequestTimeout,
		OracleSignersThreshold: DefaultOracleSignersThreshold,
		ChainsConfigDir:        DefaultChainsConfigDir,
		PriceSource:            PriceSourceNone,
		PriceMaxAge:            prices.DefaultMaxAge,
		PriceCacheTTL:          prices.DefaultTTL,
		lookup:                 lookup,
	}

	if v, ok := get(EnvEnvironment); !ok {
		fail(EnvEnvironment, "is required (it selects chains.<ENVIRONMENT>.json)")
	} else if !environmentName.MatchString(v) {
		fail(EnvEnvironment, "%q may hold only letters, digits, '-' and '_'", v)
	} else {
		cfg.Environment = v
	}
	if v, ok := get(EnvChainsConfigDir); ok {
		cfg.ChainsConfigDir = v
	}

	if v, ok := get(EnvSigningModule); ok {
		cfg.SigningModule = v
	}
	switch {
	case cfg.SigningModule == SigningModuleRawPrivateKey:
		key, err := parsePrivateKey(lookup)
		if err != nil {
			fail(EnvPrivateKey, "%v", err)
		}
		if key != nil {
			cfg.signer = newKeySigner(key)
		}
	case cfg.SigningModule == SigningModuleAWSKMS:
		cfg.kms = &kmsSettings{}
		if cfg.kms.keyID, _ = get(EnvAWSKMSKeyID); cfg.kms.keyID == "" {
			fail(EnvAWSKMSKeyID, "is required when %s is %s", EnvSigningModule, SigningModuleAWSKMS)
		}
		if cfg.kms.region, _ = get(EnvAWSKMSKeyRegion); cfg.kms.region == "" {
			fail(EnvAWSKMSKeyRegion, "is required when %s is %s", EnvSigningModule, SigningModuleAWSKMS)
		}
		if v, ok := get(EnvAWSKMSEndpoint); ok {
			if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				fail(EnvAWSKMSEndpoint, "is not an http(s) URL")
			}
			cfg.kms.endpoint = v
		}
	case strings.HasSuffix(cfg.SigningModule, "-kms") && len(cfg.SigningModule) > len("-kms"):
		fail(EnvSigningModule, "%q is not supported; use %q or %q", cfg.SigningModule, SigningModuleRawPrivateKey, SigningModuleAWSKMS)
	default:
		fail(EnvSigningModule, "%q is not a signing module; use %q or %q", cfg.SigningModule, SigningModuleRawPrivateKey, SigningModuleAWSKMS)
	}

	if v, ok := get(EnvAPIKeys); ok {
		keys, err := parseAPIKeys(v)
		if err != nil {
			fail(EnvAPIKeys, "%v", err)
		}
		cfg.APIKeys = keys
	}

	if v, ok := get(EnvHTTPPort); ok {
		cfg.HTTPPort = parsePort(EnvHTTPPort, v, fail)
	} else if v, ok := get(EnvPort); ok {
		cfg.HTTPPort = parsePort(EnvPort, v, fail)
	}

	if v, ok := get(EnvRateLimitMax); ok {
		if n, err := strconv.Atoi(v); err != nil || n < 1 {
			fail(EnvRateLimitMax, "%q is not an integer of at least 1", v)
		} else {
			cfg.RateLimitMax = n
		}
	}
	if v, ok := get(EnvRateLimitWindowMS); ok {
		cfg.RateLimitWindow = parseMillis(EnvRateLimitWindowMS, v, fail)
	}
	if v, ok := get(EnvPeerRequestTimeoutMS); ok {
		cfg.PeerRequestTimeout = parseMillis(EnvPeerRequestTimeoutMS, v, fail)
	}
	if v, ok := get(EnvPeers); ok {
		peers, err := parsePeers(v)
		if err != nil {
			fail(EnvPeers, "%v", err)
		}
		cfg.Peers = peers
	}

	if v, ok := get(EnvLogLevel); ok {
		if err := cfg.LogLevel.UnmarshalText([]byte(v)); err != nil {
			fail(EnvLogLevel, "%q is not debug, info, warn or error", v)
		}
	}
	if v, ok := get(EnvMetricsAddr); ok {
		cfg.MetricsAddr = v
	}

	loadPrices(&cfg, get, fail)

	thresholdSet := false
	if v, ok := get(EnvOracleSignersThreshold); ok {
		thresholdSet = true
		if n, err := strconv.Atoi(v); err != nil {
			fail(EnvOracleSignersThreshold, "%q is not an integer", v)
		} else if n < 1 {
			fail(EnvOracleSignersThreshold, "%d is below 1", n)
		} else {
			cfg.OracleSignersThreshold = n
		}
	}
	if v, ok := get(EnvOracleSigners); ok {
		signers, err := parseSigners(v)
		if err != nil {
			fail(EnvOracleSigners, "%v", err)
		}
		cfg.OracleSigners = signers
		if err == nil {
			if cfg.OracleSignersThreshold > len(signers) {
				fail(EnvOracleSignersThreshold, "%d exceeds the %d unique %s entries",
					cfg.OracleSignersThreshold, len(signers), EnvOracleSigners)
			}
			if cfg.signer != nil && !containsAddress(signers, cfg.SignerAddress()) { // KMS: checked in ConnectSigner
				fail(EnvOracleSigners, "does not list this oracle's signer %s", cfg.SignerAddress().Hex())
			}
		}
	} else if thresholdSet {
		cfg.Warnings = append(cfg.Warnings, EnvOracleSignersThreshold+" is set without "+EnvOracleSigners+"; it is ignored")
	}

	if len(errs) > 0 {
		return Config{}, fmt.Errorf("oracle configuration: %w", errors.Join(errs...))
	}
	return cfg, nil
}

// loadPrices reads the oracle's price settings into cfg (PRICE_SOURCE and the variables of
// its source); a source's variable set under another source is refused rather than ignored.
func loadPrices(cfg *Config, get func(string) (string, bool), fail func(name, format string, args ...any)) {
	if v, ok := get(EnvPriceSource); ok {
		cfg.PriceSource = strings.ToLower(v)
	}
	for _, d := range []struct {
		name string
		to   *time.Duration
	}{{EnvPriceMaxAge, &cfg.PriceMaxAge}, {EnvPriceCacheTTL, &cfg.PriceCacheTTL}} {
		if v, ok := get(d.name); ok {
			if x, err := time.ParseDuration(v); err != nil || x <= 0 {
				fail(d.name, "%q is not a positive Go duration such as 1h", v)
			} else {
				*d.to = x
			}
		}
	}
	table, hasTable := get(EnvPricesUSD)
	feeds, hasFeeds := get(EnvPriceFeeds)
	var err error
	switch cfg.PriceSource {
	case PriceSourceNone:
		if hasTable || hasFeeds {
			// A shared environment file may hold the engine's prices: not an error, but the
			// operator should know they are not the oracle's.
			cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s or %s is set but %s is %s: the oracle values no deposit, "+
				"and attests every deposit at its chain's full confirmations", EnvPricesUSD, EnvPriceFeeds, EnvPriceSource, PriceSourceNone))
		}
	case PriceSourceTable:
		if !hasTable {
			fail(EnvPricesUSD, "is required when %s is %s", EnvPriceSource, PriceSourceTable)
		} else if cfg.Prices, err = prices.ParseTable(table); err != nil {
			fail(EnvPricesUSD, "%v", err)
		}
	case PriceSourceFeeds:
		if !hasFeeds {
			fail(EnvPriceFeeds, "is required when %s is %s", EnvPriceSource, PriceSourceFeeds)
		} else if cfg.PriceFeeds, err = prices.ParseFeeds(feeds); err != nil {
			fail(EnvPriceFeeds, "%v", err)
		}
	default:
		fail(EnvPriceSource, "%q is not %s, %s or %s", cfg.PriceSource, PriceSourceNone, PriceSourceTable, PriceSourceFeeds)
	}
}

// parsePrivateKey never includes the value, nor any part of it, in its errors.
func parsePrivateKey(lookup func(string) (string, bool)) (*ecdsa.PrivateKey, error) {
	raw, ok := lookup(EnvPrivateKey)
	raw = strings.TrimSpace(raw)
	if !ok || raw == "" {
		return nil, fmt.Errorf("is required when %s is %s", EnvSigningModule, SigningModuleRawPrivateKey)
	}
	raw = strings.TrimPrefix(strings.TrimPrefix(raw, "0x"), "0X")
	b, err := hex.DecodeString(raw)
	if err != nil || len(b) != 32 {
		return nil, errors.New("is not a 32-byte hex private key")
	}
	key, err := crypto.ToECDSA(b)
	if err != nil {
		return nil, errors.New("is not a valid secp256k1 private key")
	}
	return key, nil
}

// MinAPIKeyLength is the fewest characters an API_KEYS key may have. A key lifts the rate limit
// and authorizes force, and the oracle answers anyone who guesses one: 32 random characters
// (`openssl rand -hex 32` gives 64) are beyond guessing, a short word is not.
const MinAPIKeyLength = 32

// parseAPIKeys reports entries by position, never by content, because the content is the secret.
func parseAPIKeys(v string) ([]APIKey, error) {
	entries, err := envconf.List{Sep: ";", KV: ":", KeyOnly: true, Secret: true, Key: "key"}.Parse(v)
	if err != nil {
		return nil, fmt.Errorf("%w (format <key>:<label>;<key>:<label>)", err)
	}
	var out []APIKey
	seen := map[[sha256.Size]byte]bool{}
	for _, e := range entries {
		if n := utf8.RuneCountInString(e.Key); n < MinAPIKeyLength {
			return nil, e.Errorf("has a key of %d characters; a key needs at least %d random ones (openssl rand -hex 32)", n, MinAPIKeyLength)
		}
		h := sha256.Sum256([]byte(e.Key))
		if seen[h] {
			continue
		}
		seen[h] = true
		out = append(out, APIKey{Label: e.Value, hash: h})
	}
	return out, nil
}

func parsePeers(v string) ([]Peer, error) {
	entries, err := envconf.List{Sep: ";", KV: "|", KeyOnly: true, Secret: true, Key: "base URL"}.Parse(v)
	if err != nil {
		return nil, err
	}
	var out []Peer
	for _, e := range entries {
		if e.Value == "" {
			return nil, e.Errorf("needs a credential: <peer_base_url>|<peer_api_key> or <peer_base_url>|%s", PeerCredentialPassThrough)
		}
		u, err := url.Parse(e.Key)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			return nil, e.Errorf("has a base URL that is not an http(s) URL without credentials")
		}
		p := Peer{BaseURL: strings.TrimRight(e.Key, "/")}
		if e.Value == PeerCredentialPassThrough {
			p.PassThrough = true
		} else {
			p.apiKey = e.Value
		}
		out = append(out, p)
	}
	return out, nil
}

// parseSigners returns the unique entries in configured order: the threshold is compared with
// the count of unique signers, as the spec requires.
func parseSigners(v string) ([]common.Address, error) {
	entries, err := envconf.List{Sep: ";"}.Parse(v)
	if err != nil {
		return nil, err
	}
	var out []common.Address
	for _, e := range entries {
		if !common.IsHexAddress(e.Value) {
			return nil, e.Errorf("is not an address")
		}
		a := common.HexToAddress(e.Value)
		if a == (common.Address{}) {
			return nil, e.Errorf("is the zero address")
		}
		if !containsAddress(out, a) {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("is set but lists no address")
	}
	return out, nil
}

func containsAddress(list []common.Address, a common.Address) bool {
	for _, x := range list {
		if x == a {
			return true
		}
	}
	return false
}

func parsePort(name, v string, fail func(string, string, ...any)) int {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 65535 {
		fail(name, "%q is not a port number (1-65535)", v)
		return 0
	}
	return n
}

func parseMillis(name, v string, fail func(string, string, ...any)) time.Duration {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1 || n > int64(time.Duration(1<<62)/time.Millisecond) {
		fail(name, "%q is not a whole number of milliseconds of at least 1", v)
		return 0
	}
	return time.Duration(n) * time.Millisecond
}
