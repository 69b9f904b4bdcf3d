package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/intentd/intentd/internal/cli/clitest"
)

func newTestRoot() *cobra.Command { return newRootCmd(lookupIn(map[string]string{"USER": "alice"})) }

// Issue 34 point 6: "the intentd and intentd-dev commands on spf13/cobra … with every command,
// flag and help text that the docs name". Every invocation of intentd that README.md, docs/*.md,
// the scripts, the Makefile, docker-compose.yml, the Kubernetes manifests and the test rigs
// write parses (a whole command line passes its command's checks, its action not run), and
// every command they name exists.
func TestEveryDocumentedInvocationParses(t *testing.T) {
	invs := clitest.Invocations(t, "../..", "intentd")
	// The test rigs run the roles as processes (testkit startProcess, the reliability
	// suite, intentd-dev's DEV_WORKERS): `intentd <role>`, configured from the environment.
	for _, role := range []string{"api", "worker", "dispatcher", "oracle", "migrate"} {
		invs = append(invs, clitest.Invocation{Where: "testkit", Args: []string{role}, Whole: true})
	}
	// The scan reaches every kind of place (were it to find nothing, it would prove nothing).
	for _, want := range []struct{ where, args string }{
		{"docs/operations.md", "admin keys limits --integrator 3f0c… 9b2e… --tier custom --limit quote=1200/1m"},
		{"docs/operations.md", "admin integrators sponsorship adjust 3f0c… --amount-usd -12.50 --reason double-counted fill 0x6f2c…"},
		{"docs/operations.md", "admin refund 0x6f2c…e41a --reason refundTo reverts, paying the user's EOA --operator alice --recipient 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 --timeout 15m"},
		{"docs/events.md", "admin webhooks set --integrator $INTEGRATOR $KEY --url https://hooks.example.com/intents --header Authorization: Bearer receiver-token"},
		{"README.md", "admin keys create|rename|limits|revoke|list"},
		{"bench/cap-workers.sh", "worker"},
		{"docker-compose.yml service migrate", "migrate"},
		{"docker-compose.yml service oracle-1", "oracle"},
		{"deploy/kubernetes/intentd.yaml", "dispatcher"},
	} {
		if !slices.ContainsFunc(invs, func(i clitest.Invocation) bool {
			return strings.HasPrefix(i.Where, want.where) && strings.Join(i.Args, " ") == want.args
		}) {
			t.Errorf("the scan did not find `intentd %s` in %s", want.args, want.where)
		}
	}
	clitest.Check(t, newTestRoot, invs)
	t.Logf("%d invocations checked", len(invs))
}

// "`--help` on every command says what it does": every command's help, on stdout with exit
// status 0, says what it does and lists its flags.
func TestHelpOnEveryCommand(t *testing.T) {
	var walk func(path []string, c *cobra.Command)
	walk = func(path []string, c *cobra.Command) {
		for _, help := range []string{"--help", "-h"} {
			r := clitest.DryRun(newTestRoot(), append(slices.Clone(path), help)...)
			if r.Code != 0 || c.Short == "" || !strings.Contains(r.Stdout, strings.TrimSpace(firstNonEmpty(c.Long, c.Short))) {
				t.Errorf("intentd %s %s: exit %d, Short %q\n%s%s", strings.Join(path, " "), help, r.Code, c.Short, r.Stdout, r.Stderr)
			}
			c.LocalFlags().VisitAll(func(f *pflag.Flag) {
				if !strings.Contains(r.Stdout, "--"+f.Name) {
					t.Errorf("intentd %s --help does not list --%s", strings.Join(path, " "), f.Name)
				}
			})
		}
		for _, sub := range c.Commands() {
			walk(append(slices.Clone(path), sub.Name()), sub)
		}
	}
	walk(nil, newTestRoot())
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// The command line's rules as the hand-written parser had them: exit status 2 and a message on
// stderr for a command line not understood (a bare command of commands prints its usage there),
// 1 for a command that refuses its input, 0 and stdout for help.
func TestCommandLineExitStatusAndMessages(t *testing.T) {
	const id = "0x5555555555555555555555555555555555555555555555555555555555555555"
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{nil, 2, "", "Available Commands:\n  admin"},
		{[]string{"bogus"}, 2, "", "intentd: unknown command \"bogus\"\nRun 'intentd --help' for usage.\n"},
		{[]string{"help"}, 0, "Available Commands:", ""},
		{[]string{"--help"}, 0, "Available Commands:", ""},
		{[]string{"help", "admin", "keys"}, 0, "intentd admin keys create --integrator", ""},
		{[]string{"admin", "keys", "help"}, 0, "intentd admin keys create --integrator", ""},
		{[]string{"admin", "help"}, 0, "admin refund", ""},
		{[]string{"admin"}, 2, "", "Usage:\n  intentd admin [command]"},
		{[]string{"admin", "integrators", "sponsorship"}, 2, "", "top-up"},
		{[]string{"admin", "keys", "destroy"}, 2, "", "intentd admin keys: unknown command \"destroy\""},
		{[]string{"admin", "keys", "create", "--help"}, 0, "--integrator", ""},
		{[]string{"admin", "webhooks", "reseal", "--help"}, 0, "WEBHOOK_SECRETS_KEY", ""},
		{[]string{"api", "extra"}, 2, "", "intentd api: unexpected argument \"extra\""},
		{[]string{"worker", "--threads", "4"}, 2, "", "unknown flag: --threads"},
		{[]string{"admin", "keys", "create", "--integrator", "i", "--limit", "quote=fast"}, 2, "", "is not BUCKET=COUNT/PERIOD"},
		{[]string{"admin", "refund", id, "--reason", "x", "--timeout", "soon"}, 2, "", "invalid argument \"soon\" for \"--timeout\""},
		{[]string{"admin", "refund", id}, 1, "", "intentd admin refund: --reason is required\n"},
		{[]string{"admin", "webhooks", "show", "--integrator", "i"}, 1, "", "one KEY_ID expected, got 0"},
		{[]string{"admin", "webhooks", "reseal", "k"}, 1, "", "reseal takes no arguments"},
		{[]string{"admin", "integrators", "update", "3f0c"}, 1, "", "nothing to change"},
		{[]string{"admin", "integrators", "update", "3f0c", "--business-verified=false"}, 0, "", ""},
		{[]string{"admin", "integrators", "sponsorship", "adjust", "3f0c", "--amount-usd", "-12.50", "-reason", "x", "-json"}, 0, "", ""},
	} {
		r := clitest.DryRun(newTestRoot(), tc.args...)
		if r.Code != tc.code || !strings.Contains(r.Stdout, tc.stdout) || !strings.Contains(r.Stderr, tc.stderr) ||
			tc.stdout == "" && r.Stdout != "" || tc.stderr == "" && r.Stderr != "" {
			t.Errorf("intentd %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(tc.args, " "), r.Code, tc.code, r.Stdout, r.Stderr)
		}
	}
}
