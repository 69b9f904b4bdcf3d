// Package devstack provides the infrastructure of the embedded default
// deployment, so that intentd can be run with nothing installed but the
// binary itself (and a PostgreSQL installation on the machine):
//
//   - StartTemporal runs a complete Temporal server (frontend, history,
//     matching and worker services) inside the current process, persisted in a
//     SQLite file, optionally together with the Temporal Web UI. This mirrors
//     what `temporal server start-dev` does, without requiring the CLI.
//   - EnsurePostgres uses DATABASE_URL when it is reachable and otherwise
//     initialises and starts a private PostgreSQL cluster in a data directory,
//     so that a developer does not need to provision a database by hand.
//
// Neither component reaches the outside network: the Temporal UI's news feed
// is disabled and every listener binds to the configured (by default
// loopback) address.
package devstack
