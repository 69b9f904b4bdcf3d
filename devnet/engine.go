package devnet

import (
	"encoding/hex"

	"github.com/ethereum/go-ethereum/crypto"
)

// EngineEnv is the engine's configuration for the devnet, as environment variables: the
// devnet's well-known solver and oracle keys and its price feeds. `intentd-dev dev` and the test
// stacks use it for the variables the environment leaves unset. The keys are dev-only and never
// valid anywhere else.
func EngineEnv(databaseURL, oracleAPIKey string) map[string]string {
	return map[string]string{
		"DATABASE_URL":       databaseURL,
		"SOLVER_PRIVATE_KEY": hex.EncodeToString(crypto.FromECDSA(SolverKey())),
		"ORACLE_SIGNERS":     OracleAddress().Hex(),
		"ORACLE_API_KEY":     oracleAPIKey,
		"SCAN_INTERVAL":      "500ms",
		// Dev prices come from the devnet's Chainlink-style feeds, as production's do from
		// real ones.
		"PRICE_SOURCE": "feeds",
		"PRICE_FEEDS":  PriceFeedsConfig(31337),
		// Webhook receivers in development run on the developer's machine (http, loopback).
		"WEBHOOK_ALLOW_PRIVATE": "true",
	}
}

// OracleEnv is the oracle's configuration for the devnet (its well-known signing key, the
// worker's API key and its port) over lookup, the process environment.
func OracleEnv(lookup func(string) (string, bool), port, apiKey string) func(string) (string, bool) {
	overlay := map[string]string{
		"ENVIRONMENT":       "dev",
		"ECDSA_PRIVATE_KEY": hex.EncodeToString(crypto.FromECDSA(OracleKey())),
		"API_KEYS":          apiKey + ":worker",
		"HTTP_PORT":         port,
	}
	return func(name string) (string, bool) {
		if v, ok := overlay[name]; ok {
			return v, true
		}
		return lookup(name)
	}
}
