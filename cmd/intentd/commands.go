package main

import (
	"github.com/spf13/cobra"

	"github.com/intentd/intentd/internal/cli"
)

// lookupFunc reads the environment: os.LookupEnv, or a test's map.
type lookupFunc = func(string) (string, bool)

// newRootCmd is intentd's command tree; lookup is where its commands read their configuration.
// The roles take no flags and no arguments: deployments run them as `intentd <role>`, configured
// from the environment only.
func newRootCmd(lookup lookupFunc) *cobra.Command {
	root := &cobra.Command{
		Use:   "intentd",
		Short: "the intent engine's production binary",
		Long: `intentd is the intent engine's production binary: each role runs as a process of its own,
as in production, and admin holds the support staff's tools.

Configuration is read from the environment and checked at start; see README.md. The local chains
and the embedded development stack are intentd-dev's ('make run').`,
	}
	role := func(name, short, long string) *cobra.Command {
		return &cobra.Command{Use: name, Short: short, Long: long, Args: cli.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error { return runEngine(cmd.Context(), name, lookup) }}
	}
	root.AddCommand(
		role("api", "run the HTTP API", `Runs the HTTP API on API_ADDR (default 127.0.0.1:8080), the admin API on its own listener
ADMIN_ADDR (with ADMIN_TOKEN), and /metrics and the probes on METRICS_ADDR when set. It needs the
solver's address (SOLVER_ADDRESS), never its key.`),
		role("worker", "run the Temporal worker and the deposit scanner", `Runs the Temporal worker (the intent workflows and their activities) and the deposit scanner.
The only role that is given the solver's key (SOLVER_PRIVATE_KEY); it refuses to start without it.`),
		role("dispatcher", "deliver status events to the API keys' webhooks (several may run)", `Delivers the status events of the outbox to the API keys' webhooks (docs/events.md); several
dispatchers may run, each delivery is claimed by one. Needs WEBHOOK_SECRETS_KEY.`),
		role("migrate", "apply the database schema", `Applies the database schema to DATABASE_URL (the migrations not applied yet) and says which
it applied. It needs DATABASE_URL alone; run it again at will.`),
		&cobra.Command{Use: "oracle", Short: "run the attestation oracle", Args: cli.NoArgs,
			Long: `Runs the attestation oracle (docs/oracle.md) on its own configuration (oracle.Config: HTTP_PORT,
ECDSA_PRIVATE_KEY, ORACLE_SIGNERS, …, secrets read from VAULT_SECRETS_DIR).`,
			RunE: func(cmd *cobra.Command, _ []string) error { return runOracle(cmd.Context()) }},
		newAdminCmd(lookup),
	)
	return root
}
