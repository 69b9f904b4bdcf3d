package reliability

import (
	"testing"
	"time"
)

// TestReliabilityShort is the short form of the reliability scenarios that `make test` runs:
// eight intents (two of them underpaid, three crossing to or from the local Solana chain: one
// sol-dest, two sol-origin for seed 1; issue 36; one gasless, relayed through POST /execute for a
// key without ETH, for seed 1; issue 37) while the worker process is killed once, the webhook
// dispatcher process once, Postgres is crashed once (down 2-3 s) and a fault proxy fails (half HTTP 503, half JSON-RPC errors) or
// delays 10% of the chain RPC calls of the worker and the oracle (the Solana chain's too). The full scenarios are
// `make test-reliability` (build tag reliability); docs/reliability.md describes both.
func TestReliabilityShort(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole system with a worker process; skipped with -short")
	}
	runScenario(t, scenario{
		Name: "short", Seed: seedFor(t, 1), Intents: 8, Bad: 2, Accounts: 4,
		Pace: [2]time.Duration{500 * time.Millisecond, 2 * time.Second}, HintShare: 0.5, SolanaShare: 0.5, GaslessShare: 0.34,
		Kills: 1, PostgresRestarts: 1, DispatcherKills: 1,
		Gap:          [2]time.Duration{time.Second, 4 * time.Second},
		WorkerDown:   [2]time.Duration{500 * time.Millisecond, 2 * time.Second},
		PostgresDown: [2]time.Duration{2 * time.Second, 3 * time.Second},
		FailRate:     0.07, DelayRate: 0.03, RPCErrorShare: 0.5,
		Drain: 3 * time.Minute,
	})
}
