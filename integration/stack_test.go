// Package integration runs the whole engine in-process on real parts: Temporal (temporaltest),
// Postgres, the devnet chains over HTTP JSON-RPC, the oracle over HTTP, the worker and the API,
// composed by package app exactly as the binary composes them (testkit).
package integration

import (
	"log/slog"
	"maps"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/intentd/intentd/testkit"
)

// testAdminToken is the admin bearer token of the test stacks.
const testAdminToken = testkit.AdminToken

// stackBlockTime is how often the stack's devnet chains seal a block.
const stackBlockTime = testkit.BlockTime

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
	// logger, when set, receives every log record of the stack: the devnet, the oracle, the
	// engine and the Temporal SDK (which app.Open wires from the same logger). Default: WARN and
	// above to stderr.
	logger *slog.Logger
	// exchange runs the local perps exchange as chain 1337 (testkit.Options.Exchange).
	exchange bool
}

func startStackWith(t *testing.T, o stackOptions) *stack {
	t.Helper()
	return &stack{testkit.Start(t, testkit.Options{Env: o.env, RPC: o.rpc, Logger: o.logger, Exchange: o.exchange})}
}

// startWorker runs another worker of the stack's engine; stopWorker stops the one started last.
func (s *stack) startWorker(t *testing.T) { t.Helper(); s.StartWorker(t) }

func (s *stack) stopWorker() { s.StopWorker() }

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
