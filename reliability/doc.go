// Package reliability holds the engine's reliability tests. The tests run the whole system on
// the test stack (testkit) with the worker as a separate OS process (the `intentd
// worker` binary), a private Postgres cluster, an in-process Temporal server, the devnet chains,
// the oracle and the API, drive many intents through it and break it while they are in flight:
// the worker is killed with SIGKILL and restarted, Postgres is crashed and restarted, and a fault
// proxy (testkit/faultproxy) fails or delays the chain RPC calls of the worker and the
// oracle. At the end every intent must have ended correctly, on chain and in the read model.
//
// The full scenarios are behind the build tag `reliability` (`make test-reliability`); a short
// form, TestReliabilityShort, runs in `make test`. docs/reliability.md describes the scenarios,
// the invariants and the figures measured.
//
// The test files are split by concern: harness_test.go (scenarios, the binary, the rig),
// intents_test.go (planning and paying for intents, the Solana kinds among them), run_test.go
// (running a scenario, its faults and figures), check_test.go (the invariants on chain and in
// the read model), solana_test.go (the invariants of the intents to and from the local Solana
// chain) and
// workflow_test.go (the workflows' own state, histories and explanations). This file's package
// holds the seeded plan of faults, which needs no testing.T.
package reliability
