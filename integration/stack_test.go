// Package integration runs the whole engine in-process on real parts: Temporal (temporaltest),
// Postgres, the devnet chains over HTTP JSON-RPC, the oracle over HTTP, the worker and the API,
// composed by package app exactly as the binary composes them (internal/testkit).
package integration

import (
	"maps"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/intentd/intentd/internal/testkit"
)

// testAdminToken is the admin bearer token of the test stacks.
const testAdminToken = testkit.AdminToken

type stack struct{ *testkit.Stack }

// startStack runs the engine on a fresh devnet. env overrides or adds configuration
// variables (for example a short FILL_BUMP_AFTER).
func startStack(t *testing.T, env ...map[string]string) *stack {
	t.Helper()
	vars := map[string]string{}
	for _, e := range env {
		maps.Copy(vars, e)
	}
	return startStackWith(t, stackOptions{env: vars})
}

// stackOptions configure startStackWith.
type stackOptions struct {
	env map[string]string
	// rpc, when set, gives the URL the engine reaches a chain at (a proxy in front of it);
	// tests and wallets keep using the chain directly.
	rpc func(chainID uint64, url string) string
}

func startStackWith(t *testing.T, o stackOptions) *stack {
	t.Helper()
	return &stack{testkit.Start(t, testkit.Options{Env: o.env, RPC: o.rpc})}
}

// balance reads a native or ERC-20 balance on a devnet chain.
func (s *stack) balance(t *testing.T, chainID uint64, currency, account common.Address) *big.Int {
	t.Helper()
	return s.Balance(t, chainID, currency, account)
}

// fills counts the output settler's Fill events for an order on a chain.
func (s *stack) fills(t *testing.T, chainID uint64, orderID common.Hash) int {
	t.Helper()
	return s.Fills(t, chainID, orderID)
}
