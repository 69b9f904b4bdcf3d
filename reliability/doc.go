// Package reliability holds the engine's reliability tests and their helpers. The tests run the
// whole system with the worker as a separate OS process (the `intentd worker` binary), a private
// Postgres cluster, an in-process Temporal server, the devnet chains, the oracle and the API,
// drive many intents through it and break it while they are in flight: the worker is killed
// with SIGKILL and restarted, Postgres is crashed and restarted, and a fault proxy
// (internal/faultproxy) fails or delays the chain RPC calls of the worker and the oracle. At the
// end every intent must have ended correctly, on chain and in the read model.
//
// The full scenarios are behind the build tag `reliability` (`make test-reliability`); a short
// form, TestReliabilityShort, runs in `make test`. docs/reliability.md describes the scenarios,
// the invariants and the figures measured.
//
// This file's package holds the pieces that need no testing.T: building and supervising the
// worker process, the seeded plan of faults, and crashing Postgres.
package reliability
