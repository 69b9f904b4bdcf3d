package oracle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// assertNoSecrets fails when any form of the test private key or API key appears in out.
func assertNoSecrets(t testing.TB, out string) {
	t.Helper()
	lower := strings.ToLower(out)
	for _, secret := range []string{testOracleKeyHex, testOracleKeyHex[:16], testOracleKeyHex[48:], testAPIKey, "do_not_log_me"} {
		assert.NotContains(t, lower, strings.ToLower(secret), "secret material leaked")
	}
}

// configErr loads a configuration that must fail and returns the message.
func configErr(t *testing.T, extra map[string]string) string {
	t.Helper()
	_, err := ConfigFromEnv(env(baseEnv(extra)))
	require.Error(t, err)
	assertNoSecrets(t, err.Error())
	return err.Error()
}

const (
	addrA = "0x1111111111111111111111111111111111111111"
	addrB = "0x2222222222222222222222222222222222222222"
	addrC = "0xabcdefabcdefabcdefabcdefabcdefabcdefabcd"
)

func TestConfigDefaults(t *testing.T) {
	cfg := mustConfig(t, nil)
	assert.Equal(t, "test", cfg.Environment)
	assert.Equal(t, SigningModuleRawPrivateKey, cfg.SigningModule)
	assert.Equal(t, 3000, cfg.HTTPPort)
	assert.Equal(t, ":3000", cfg.Addr())
	assert.Equal(t, 2, cfg.RateLimitMax)
	assert.Equal(t, time.Second, cfg.RateLimitWindow)
	assert.Equal(t, 10*time.Second, cfg.PeerRequestTimeout)
	assert.Equal(t, 1, cfg.OracleSignersThreshold)
	assert.Equal(t, "configs/chains.test.json", cfg.ChainsFile())
	assert.Equal(t, testOracleAddress(t), cfg.SignerAddress())
	assert.Equal(t, slog.LevelInfo, cfg.LogLevel)
	assert.Empty(t, cfg.Warnings)
}

func TestConfigLogLevel(t *testing.T) {
	assert.Equal(t, slog.LevelDebug, mustConfig(t, map[string]string{EnvLogLevel: "debug"}).LogLevel)
	assert.Equal(t, slog.LevelWarn, mustConfig(t, map[string]string{EnvLogLevel: " WARN "}).LogLevel)
	assert.Contains(t, configErr(t, map[string]string{EnvLogLevel: "loud"}), EnvLogLevel)
}

func TestConfigEnvironmentIsRequired(t *testing.T) {
	_, err := ConfigFromEnv(env(map[string]string{EnvPrivateKey: testOracleKeyHex}))
	require.ErrorContains(t, err, EnvEnvironment)
	assert.Contains(t, configErr(t, map[string]string{EnvEnvironment: "../etc"}), EnvEnvironment)
}

func TestConfigPortOrderIsHTTPPortThenPortThen3000(t *testing.T) {
	assert.Equal(t, 8080, mustConfig(t, map[string]string{EnvHTTPPort: "8080", EnvPort: "9090"}).HTTPPort)
	assert.Equal(t, 9090, mustConfig(t, map[string]string{EnvPort: "9090"}).HTTPPort)
	assert.Equal(t, 9090, mustConfig(t, map[string]string{EnvHTTPPort: "", EnvPort: "9090"}).HTTPPort, "empty counts as unset")
	assert.Equal(t, 3000, mustConfig(t, nil).HTTPPort)
	assert.Contains(t, configErr(t, map[string]string{EnvHTTPPort: "http"}), EnvHTTPPort)
	assert.Contains(t, configErr(t, map[string]string{EnvPort: "70000"}), EnvPort)
}

func TestConfigRateLimitValues(t *testing.T) {
	cfg := mustConfig(t, map[string]string{EnvRateLimitMax: "10", EnvRateLimitWindowMS: "60000", EnvPeerRequestTimeoutMS: "2500"})
	assert.Equal(t, 10, cfg.RateLimitMax)
	assert.Equal(t, time.Minute, cfg.RateLimitWindow)
	assert.Equal(t, 2500*time.Millisecond, cfg.PeerRequestTimeout)
	assert.Contains(t, configErr(t, map[string]string{EnvRateLimitMax: "0"}), EnvRateLimitMax)
	assert.Contains(t, configErr(t, map[string]string{EnvRateLimitWindowMS: "1s"}), EnvRateLimitWindowMS)
	assert.Contains(t, configErr(t, map[string]string{EnvPeerRequestTimeoutMS: "-5"}), EnvPeerRequestTimeoutMS)
}

func TestConfigSigningModuleDefaultsToRawPrivateKey(t *testing.T) {
	assert.Equal(t, SigningModuleRawPrivateKey, mustConfig(t, map[string]string{EnvSigningModule: "raw-private-key"}).SigningModule)
}

func TestConfigAWSKMSNeedsKeyIDAndRegion(t *testing.T) {
	msg := configErr(t, map[string]string{EnvSigningModule: "aws-kms"})
	assert.Contains(t, msg, EnvAWSKMSKeyID)
	assert.Contains(t, msg, EnvAWSKMSKeyRegion)
	cfg := mustConfig(t, map[string]string{EnvSigningModule: "aws-kms", EnvPrivateKey: "", EnvAWSKMSKeyID: "alias/oracle",
		EnvAWSKMSKeyRegion: "eu-west-1"})
	assert.Equal(t, SigningModuleAWSKMS, cfg.SigningModule)
	assert.Equal(t, "alias/oracle", cfg.kms.keyID)
	msg = configErr(t, map[string]string{EnvSigningModule: "gcp-kms"})
	assert.Contains(t, msg, EnvSigningModule)
	assert.Contains(t, msg, "not supported")
}

func TestConfigUnknownSigningModuleIsRejected(t *testing.T) {
	assert.Contains(t, configErr(t, map[string]string{EnvSigningModule: "hsm"}), EnvSigningModule)
}

func TestConfigPrivateKeyIsRequiredInRawMode(t *testing.T) {
	_, err := ConfigFromEnv(env(map[string]string{EnvEnvironment: "test"}))
	require.ErrorContains(t, err, EnvPrivateKey)
}

func TestConfigInvalidPrivateKeyErrorDoesNotEchoIt(t *testing.T) {
	for _, bad := range []string{
		testOracleKeyHex[:62] + "zz",            // not hex
		testOracleKeyHex + "00",                 // too long
		strings.Repeat("0", 64),                 // zero scalar
		"0x" + strings.Repeat("f", 64),          // above the curve order
		"do_not_log_me" + testOracleKeyHex[13:], // partially the real key
	} {
		msg := configErr(t, map[string]string{EnvPrivateKey: bad})
		assert.Contains(t, msg, EnvPrivateKey)
		assert.NotContains(t, msg, bad)
	}
}

func TestConfigAPIKeysAreParsedAndHashed(t *testing.T) {
	k2, k3 := strings.Repeat("2", MinAPIKeyLength), strings.Repeat("3", MinAPIKeyLength)
	cfg := mustConfig(t, map[string]string{EnvAPIKeys: testAPIKey + ":engine;" + k2 + ":ops;" + k3})
	require.Len(t, cfg.APIKeys, 3)
	assert.Equal(t, []string{"engine", "ops", ""}, []string{cfg.APIKeys[0].Label, cfg.APIKeys[1].Label, cfg.APIKeys[2].Label})
	assert.Contains(t, configErr(t, map[string]string{EnvAPIKeys: ":label"}), EnvAPIKeys)
}

// Review L7: "A short API_KEYS value can be brute-forced to lift the rate limit and to use
// force. Require at least 32 random characters." The start is refused, naming the entry by its
// position, never the key.
func TestConfigAPIKeysShorterThan32CharactersStopStart(t *testing.T) {
	short := "sk_short_secret_0123456789abcde" // 31 characters
	msg := configErr(t, map[string]string{EnvAPIKeys: testAPIKey + ":engine;" + short + ":ops"})
	assert.Contains(t, msg, EnvAPIKeys)
	assert.Contains(t, msg, "entry 2")
	assert.Contains(t, msg, "at least 32")
	assert.NotContains(t, msg, short)
	mustConfig(t, map[string]string{EnvAPIKeys: short + "f:ops"}) // 32 are enough
}

func TestConfigPeersAreParsed(t *testing.T) {
	cfg := mustConfig(t, map[string]string{EnvPeers: "https://a.example/|peer-secret;http://b.example:3000|pass-through"})
	require.Len(t, cfg.Peers, 2)
	assert.Equal(t, "https://a.example", cfg.Peers[0].BaseURL)
	assert.False(t, cfg.Peers[0].PassThrough)
	assert.True(t, cfg.Peers[1].PassThrough)
	assert.NotContains(t, fmt.Sprintf("%v %+v", cfg, cfg.Peers), "peer-secret")
	for _, bad := range []string{"https://a.example", "ftp://a.example|k", "https://user:pw@a.example|k", "a.example|k"} {
		msg := configErr(t, map[string]string{EnvPeers: bad})
		assert.Contains(t, msg, EnvPeers)
		assert.NotContains(t, msg, "pw@")
	}
}

// The spec's startup validation rules, one test each.

func TestConfigThresholdMustBeAnInteger(t *testing.T) {
	for _, v := range []string{"two", "1.5", "1e2"} {
		assert.Contains(t, configErr(t, map[string]string{EnvOracleSignersThreshold: v}), EnvOracleSignersThreshold)
	}
}

func TestConfigThresholdMustBeAtLeastOne(t *testing.T) {
	for _, v := range []string{"0", "-1"} {
		assert.Contains(t, configErr(t, map[string]string{EnvOracleSignersThreshold: v}), EnvOracleSignersThreshold)
	}
}

func TestConfigThresholdMustNotExceedUniqueSigners(t *testing.T) {
	local := testOracleAddress(t).Hex()
	// Three entries, two unique (case differs): threshold 3 is too high, 2 is fine.
	signers := local + ";" + addrC + ";0x" + strings.ToUpper(addrC[2:])
	msg := configErr(t, map[string]string{EnvOracleSigners: signers, EnvOracleSignersThreshold: "3"})
	assert.Contains(t, msg, EnvOracleSignersThreshold)
	assert.Contains(t, msg, "2 unique")
	cfg := mustConfig(t, map[string]string{EnvOracleSigners: signers, EnvOracleSignersThreshold: "2"})
	assert.Equal(t, []common.Address{testOracleAddress(t), common.HexToAddress(addrC)}, cfg.OracleSigners)
	assert.Equal(t, 2, cfg.OracleSignersThreshold)
}

func TestConfigSignerEntriesMustBeAddresses(t *testing.T) {
	local := testOracleAddress(t).Hex()
	msg := configErr(t, map[string]string{EnvOracleSigners: local + ";0x1234"})
	assert.Contains(t, msg, EnvOracleSigners)
	assert.Contains(t, msg, "not an address")
}

func TestConfigSignerEntriesMustBeNonzero(t *testing.T) {
	local := testOracleAddress(t).Hex()
	msg := configErr(t, map[string]string{EnvOracleSigners: local + ";0x0000000000000000000000000000000000000000"})
	assert.Contains(t, msg, EnvOracleSigners)
	assert.Contains(t, msg, "zero address")
}

func TestConfigLocalSignerMustBeInTheAllowlist(t *testing.T) {
	msg := configErr(t, map[string]string{EnvOracleSigners: addrA + ";" + addrB})
	assert.Contains(t, msg, EnvOracleSigners)
	assert.Contains(t, msg, testOracleAddress(t).Hex())
	// In the list (any case, any position) is fine.
	mustConfig(t, map[string]string{EnvOracleSigners: addrA + "; " + strings.ToLower(testOracleAddress(t).Hex())})
}

func TestConfigThresholdWithoutAllowlistOnlyWarns(t *testing.T) {
	cfg := mustConfig(t, map[string]string{EnvOracleSignersThreshold: "3"})
	require.Len(t, cfg.Warnings, 1)
	assert.Contains(t, cfg.Warnings[0], EnvOracleSignersThreshold)

	var logs bytes.Buffer
	_, err := NewServer(cfg, offlineRegistry(t), slog.New(slog.NewTextHandler(&logs, nil)))
	require.NoError(t, err)
	assert.Contains(t, logs.String(), "level=WARN")
	assert.Contains(t, logs.String(), EnvOracleSignersThreshold)
}

func TestConfigReportsEveryBadVariable(t *testing.T) {
	_, err := ConfigFromEnv(env(map[string]string{EnvSigningModule: "gcp-kms", EnvHTTPPort: "x", EnvOracleSignersThreshold: "0"}))
	require.Error(t, err)
	for _, name := range []string{EnvEnvironment, EnvSigningModule, EnvHTTPPort, EnvOracleSignersThreshold} {
		assert.Contains(t, err.Error(), name)
	}
}

// TestConfigNeverRevealsSecrets formats the configuration every way a developer might (fmt
// verbs, JSON, slog text and JSON handlers) and finds no key material.
func TestConfigNeverRevealsSecrets(t *testing.T) {
	cfg := mustConfig(t, map[string]string{
		EnvAPIKeys: testAPIKey + ":engine",
		EnvPeers:   "https://peer.example|" + testAPIKey,
	})
	var outputs []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		outputs = append(outputs, fmt.Sprintf(verb, cfg), fmt.Sprintf(verb, &cfg))
	}
	outputs = append(outputs, fmt.Sprintf("%v %+v", cfg.APIKeys, cfg.Peers))
	for _, k := range cfg.APIKeys {
		assert.NotContains(t, fmt.Sprintf("%v", cfg.APIKeys), fmt.Sprintf("%x", k.hash[:4]), "not even the key's hash")
	}
	js, err := json.Marshal(cfg)
	require.NoError(t, err)
	outputs = append(outputs, string(js))
	var text, jsonLog bytes.Buffer
	slog.New(slog.NewTextHandler(&text, nil)).Info("config", "cfg", cfg, "ptr", &cfg)
	slog.New(slog.NewJSONHandler(&jsonLog, nil)).Info("config", "cfg", cfg)
	outputs = append(outputs, text.String(), jsonLog.String())

	for _, out := range outputs {
		assertNoSecrets(t, out)
	}
	// What is public stays useful: the signer address and the API key labels.
	assert.Contains(t, fmt.Sprint(cfg), testOracleAddress(t).Hex())
	assert.Contains(t, text.String(), testOracleAddress(t).Hex())
	assert.Contains(t, text.String(), "engine")
}
