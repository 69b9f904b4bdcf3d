package devnet

import (
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/intentd/intentd/devnet/svm"
)

// EngineEnv is the engine's configuration for the devnet, as environment variables: the
// devnet's well-known solver and oracle keys and its price feeds. `intentd-dev dev` and the test
// stacks use it for the variables the environment leaves unset. The keys are dev-only and never
// valid anywhere else.
func EngineEnv(databaseURL, oracleAPIKey string) map[string]string {
	return map[string]string{
		"DATABASE_URL":       databaseURL,
		"SOLVER_PRIVATE_KEY": hex.EncodeToString(crypto.FromECDSA(SolverKey())),
		// The relayer's key, which sends and pays for gasless requests' calls (docs/gasless.md).
		"RELAYER_PRIVATE_KEY": hex.EncodeToString(crypto.FromECDSA(RelayerKey())),
		// The engine's depository account on the local perps exchange: refunds of withdrawals
		// are paid out of it (docs/perps.md).
		"PERPS_DEPOSITORY_KEY": hex.EncodeToString(crypto.FromECDSA(ExchangeDepositoryKey())),
		// The solver's and the vault's keypairs on the local Solana chain (devnet/svm), base58
		// as wallets export them: the worker pays Solana fills and refunds with them.
		"SOLVER_SOLANA_KEY":        svm.SolverKey().String(),
		"SOLANA_VAULT_KEY":         svm.VaultKey().String(),
		"ORACLE_SIGNERS":           oracleSigners(),
		"ORACLE_SIGNERS_THRESHOLD": strconv.Itoa(OracleThreshold),
		"ORACLE_API_KEY":           oracleAPIKey,
		"SCAN_INTERVAL":            "500ms",
		// Dev prices come from the devnet's Chainlink-style feeds, as production's do from
		// real ones.
		"PRICE_SOURCE": "feeds",
		"PRICE_FEEDS":  PriceFeedsConfig(31337),
		// Webhook receivers in development run on the developer's machine (http, loopback).
		"WEBHOOK_ALLOW_PRIVATE": "true",
	}
}

// OracleEnv is the configuration of oracle i (0 to OracleCount-1) for the devnet over lookup,
// the process environment: its well-known signing key, the worker's API key (also the key the
// oracles ask each other with), its port, the other oracles as PEERS and every oracle's signer
// as ORACLE_SIGNERS at OracleThreshold.
func OracleEnv(lookup func(string) (string, bool), i int, port, apiKey string, peerURLs []string) func(string) (string, bool) {
	overlay := OracleVars(i, port, apiKey, peerURLs)
	return func(name string) (string, bool) {
		if v, ok := overlay[name]; ok {
			return v, true
		}
		return lookup(name)
	}
}

// OracleVars are OracleEnv's variables, for an oracle run as a process of its own.
func OracleVars(i int, port, apiKey string, peerURLs []string) map[string]string {
	var peers []string
	for _, u := range peerURLs {
		peers = append(peers, u+"|"+apiKey)
	}
	return map[string]string{
		"ENVIRONMENT":              "dev",
		"ECDSA_PRIVATE_KEY":        hex.EncodeToString(crypto.FromECDSA(OracleKeys()[i])),
		"API_KEYS":                 apiKey + ":worker",
		"HTTP_PORT":                port,
		"PEERS":                    strings.Join(peers, ";"),
		"ORACLE_SIGNERS":           oracleSigners(),
		"ORACLE_SIGNERS_THRESHOLD": strconv.Itoa(OracleThreshold),
		// The oracle's own prices, from the same feeds as the engine's: it values a deposit
		// itself to tier its confirmations (chains with confirmationTiers).
		"PRICE_SOURCE": "feeds",
		"PRICE_FEEDS":  PriceFeedsConfig(31337),
	}
}

// oracleSigners is ORACLE_SIGNERS of the devnet's oracles.
func oracleSigners() string {
	var out []string
	for _, a := range OracleAddresses() {
		out = append(out, a.Hex())
	}
	return strings.Join(out, ";")
}
