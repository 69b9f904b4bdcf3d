//go:build reliability

package reliability

import (
	"testing"
	"time"
)

// The full reliability scenarios (`make test-reliability`). Each starts its own system —
// private Postgres, in-process Temporal, devnet chains, oracle, API, and the worker as a
// separate process — drives 50 intents from ten accounts through it (a mix of ETH and USDC
// bridges 31337→31338, six of them underpaid so that they must be refunded, about a quarter of
// the others paid by a plain transfer to a strict deposit address, a fifth of the rest crossing
// to or from the local Solana chain, a fifth of the remaining ETH and USDC bridges gasless:
// USDC from a key without ETH, relayed through POST /execute) and breaks one
// thing while they are in flight. RELIABILITY_SEED replaces the default seeds;
// RELIABILITY_LOG_DIR keeps the logs. docs/reliability.md has the figures.

// full is what the scenarios share: 50 intents, 6 underpaid, from 10 accounts.
func full(name string, seed int64) scenario {
	return scenario{
		Name: name, Seed: seed, Intents: 50, Bad: 6, Accounts: 10,
		Pace: [2]time.Duration{1500 * time.Millisecond, 8 * time.Second}, HintShare: 0.5, DepositAddressShare: 0.25,
		SolanaShare: 0.2, GaslessShare: 0.2, PerpsShare: 0.3,
		Gap:           [2]time.Duration{3 * time.Second, 10 * time.Second},
		WorkerDown:    [2]time.Duration{500 * time.Millisecond, 3 * time.Second},
		PostgresDown:  [2]time.Duration{3 * time.Second, 8 * time.Second},
		RPCErrorShare: 0.5,
		Drain:         8 * time.Minute,
	}
}

// The worker process is killed with SIGKILL at three random moments and restarted: every
// intent ends in success or refund, with exactly one fill or one refund on chain.
func TestReliabilityWorkerKills(t *testing.T) {
	sc := full("worker-kills", seedFor(t, 101))
	sc.Kills, sc.DispatcherKills = 3, 2
	runScenario(t, sc)
}

// A fault proxy in front of the chain RPC of the worker and the oracle fails 20% of the calls
// (half HTTP 503, half a JSON-RPC error; a quarter of them after the node has executed the
// call) and delays another 10% by 0.1-2 s: every intent still ends correctly.
func TestReliabilityRPCFaults(t *testing.T) {
	sc := full("rpc-faults", seedFor(t, 202))
	sc.FailRate, sc.DelayRate = 0.2, 0.1
	runScenario(t, sc)
}

// Postgres is crashed (immediate shutdown) and later restarted cleanly (fast shutdown), down
// 3-8 s each time, while intents are in flight: the read model ends equal to the workflows' own
// state.
func TestReliabilityPostgresRestart(t *testing.T) {
	sc := full("postgres-restart", seedFor(t, 303))
	sc.PostgresRestarts = 2
	runScenario(t, sc)
}

// Postgres crashes and stays down for 20-25 s, as in a failover of a managed database: the
// same invariants hold.
func TestReliabilityPostgresOutage(t *testing.T) {
	sc := full("postgres-outage", seedFor(t, 505))
	sc.PostgresRestarts = 1
	sc.PostgresDown = [2]time.Duration{20 * time.Second, 25 * time.Second}
	runScenario(t, sc)
}

// Everything at once: three worker kills, a Postgres crash and 30% RPC faults.
func TestReliabilityAllFaults(t *testing.T) {
	sc := full("all-faults", seedFor(t, 404))
	sc.Kills, sc.PostgresRestarts, sc.DispatcherKills = 3, 1, 2
	sc.FailRate, sc.DelayRate = 0.2, 0.1
	runScenario(t, sc)
}
