package oracle

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/oracle/oracleapi"
)

// The spec's configuration: ENVIRONMENT selects configs/chains.<ENVIRONMENT>.json and
// configs/chains.hub.<ENVIRONMENT>.json, whose endpoints are $VARIABLE placeholders resolved
// from the environment; GET /chains/v1 names the VM families with the spec's identifiers. The
// documented example environment is the one shipped.
func TestExampleEnvironmentLoadsBothChainFiles(t *testing.T) {
	cfg := mustConfig(t, map[string]string{EnvEnvironment: "example", EnvChainsConfigDir: filepath.Join("..", "configs"),
		"ETHEREUM_RPC_URL": "http://127.0.0.1:1", "BASE_RPC_URL": "http://127.0.0.1:2", "ARBITRUM_RPC_URL": "http://127.0.0.1:3",
		EnvVaultSecretsDir: t.TempDir()})
	reg, err := cfg.LoadChains()
	require.NoError(t, err)
	_, hs := newTestServer(t, cfg, reg, nil)
	r := do(t, http.MethodGet, hs.URL+oracleapi.PathChains, "", nil)
	require.Equal(t, http.StatusOK, r.status)
	assert.JSONEq(t, `{"chains":[
		{"id":1,"name":"ethereum","vmType":"ethereum-vm","depository":"0x1111111111111111111111111111111111111111",
		 "outputSettler":"0x2222222222222222222222222222222222222222","confirmations":12},
		{"id":8453,"name":"base","vmType":"ethereum-vm","depository":"0x1111111111111111111111111111111111111111",
		 "outputSettler":"0x2222222222222222222222222222222222222222","confirmations":3},
		{"id":42161,"name":"arbitrum","vmType":"ethereum-vm","depository":"0x3333333333333333333333333333333333333333",
		 "confirmations":1,"hub":true}]}`, string(r.body))

	// A placeholder without a value stops the start, naming the variable.
	cfg = mustConfig(t, map[string]string{EnvEnvironment: "example", EnvChainsConfigDir: filepath.Join("..", "configs"),
		"ETHEREUM_RPC_URL": "http://127.0.0.1:1", "BASE_RPC_URL": "http://127.0.0.1:2"})
	_, err = cfg.LoadChains()
	require.ErrorContains(t, err, "ARBITRUM_RPC_URL")

	// dev ships both files too (its hub file lists no chain): the devnet's three EVM chains
	// (31337, 31338 and 999, the perps exchange's EVM chain).
	dev := mustConfig(t, map[string]string{EnvEnvironment: "dev", EnvChainsConfigDir: filepath.Join("..", "configs")})
	reg, err = dev.LoadChains()
	require.NoError(t, err)
	var ids []uint64
	for _, c := range reg.Enabled() {
		ids = append(ids, c.ID)
	}
	assert.ElementsMatch(t, []uint64{31337, 31338, 999}, ids)
}

// "The container entrypoint also loads secrets from /vault/secrets when present": a file named
// like a variable holds its value, other files hold NAME=value lines; the environment wins;
// the chain files' placeholders are resolved from the secrets too.
func TestSecretsFolder(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, EnvPrivateKey), []byte(testOracleKeyHex+"\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "rpc.env"), []byte("# rpc\nexport ETHEREUM_RPC_URL='http://127.0.0.1:9'\nAPI_KEYS="+testAPIKey+":vault\n"), 0o600))
	vars := map[string]string{EnvEnvironment: "example", EnvVaultSecretsDir: dir, EnvChainsConfigDir: filepath.Join("..", "configs"),
		"BASE_RPC_URL": "http://127.0.0.1:2", "ARBITRUM_RPC_URL": "http://127.0.0.1:3"}
	cfg, err := ConfigFromEnv(env(vars))
	require.NoError(t, err)
	assert.Equal(t, testOracleAddress(t), cfg.SignerAddress())
	require.Len(t, cfg.APIKeys, 1)
	assert.Equal(t, "vault", cfg.APIKeys[0].Label)
	reg, err := cfg.LoadChains()
	require.NoError(t, err)
	c, err := reg.Get(1)
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:9", c.HTTPRPCURL)

	vars[EnvAPIKeys] = strings.Repeat("e", MinAPIKeyLength) + ":env"
	cfg, err = ConfigFromEnv(env(vars))
	require.NoError(t, err)
	assert.Equal(t, "env", cfg.APIKeys[0].Label, "the environment wins over the secrets files")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken"), []byte("not a pair\n"), 0o600))
	_, err = ConfigFromEnv(env(vars))
	require.ErrorContains(t, err, EnvVaultSecretsDir)
	require.ErrorContains(t, err, "broken line 1")
	assertNoSecrets(t, err.Error())
}
