package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/intentd/intentd/internal/cli/clitest"
)

// Issue 34 point 6: "the intentd and intentd-dev commands on spf13/cobra … with every command,
// flag and help text that the docs name". Every invocation of intentd-dev that the docs, the
// scripts (make run, the benchmarks), the Makefile and the Dockerfile's devnet image write
// parses, and every command they name exists.
func TestEveryDocumentedInvocationParses(t *testing.T) {
	invs := clitest.Invocations(t, "../..", "intentd-dev")
	for _, want := range []struct{ where, args string }{
		{"scripts/run.sh", "devnet"},
		{"Makefile", "dev"},
		{"bench/run-intents-scale.sh", "temporal"},
		{"docker-compose.yml service devnet", "devnet"},
	} {
		if !slices.ContainsFunc(invs, func(i clitest.Invocation) bool {
			return strings.HasPrefix(i.Where, want.where) && i.Whole && strings.Join(i.Args, " ") == want.args
		}) {
			t.Errorf("the scan did not find `intentd-dev %s` in %s", want.args, want.where)
		}
	}
	clitest.Check(t, newRootCmd, invs)
	t.Logf("%d invocations checked", len(invs))
}

// "`--help` on every command says what it does", and the exit status of the hand-written
// parser: 2 for a command line not understood, 0 for help.
func TestCommandLine(t *testing.T) {
	for _, c := range newRootCmd().Commands() {
		if r := clitest.DryRun(newRootCmd(), c.Name(), "--help"); r.Code != 0 || !strings.Contains(r.Stdout, c.Long) {
			t.Errorf("intentd-dev %s --help: exit %d\n%s", c.Name(), r.Code, r.Stdout)
		}
	}
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{nil, 2, "Available Commands:\n  dev "},
		{[]string{"--help"}, 0, ""},
		{[]string{"run"}, 2, "intentd-dev: unknown command \"run\""},
		{[]string{"dev", "--port", "1"}, 2, "unknown flag: --port"},
		{[]string{"devnet", "31337"}, 2, "unexpected argument \"31337\""},
		{[]string{"temporal"}, 0, ""},
	} {
		r := clitest.DryRun(newRootCmd(), tc.args...)
		if r.Code != tc.code || !strings.Contains(r.Stderr, tc.stderr) || tc.stderr == "" && r.Stderr != "" {
			t.Errorf("intentd-dev %s: exit %d, want %d: %s", strings.Join(tc.args, " "), r.Code, tc.code, r.Stderr)
		}
	}
}
