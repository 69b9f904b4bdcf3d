// Package cli runs the command trees of intentd and intentd-dev (github.com/spf13/cobra, as the
// Temporal CLI) with the conventions that deployments, scripts and runbooks rely on, which were
// those of the hand-written parsers before:
//
//   - exit status 0 on success, 1 when the command failed, 2 when the command line was not
//     understood (an unknown command or flag, a flag's bad value, a command of commands without
//     one of its commands: its usage goes to stderr);
//   - `--help`, `-h` and `help <command>` print the command's help on stdout and exit 0;
//   - a failure is one line on stderr, `<command path>: <error>`;
//   - flags may come before or after the positional words, with one dash or two (`-reason x`,
//     as the flag package took them, is `--reason x`).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// UsageError is a command line that was not understood: the process exits 2 on it. Err says
// why; nil when the command's usage has been printed instead.
type UsageError struct{ Err error }

func (e *UsageError) Error() string {
	if e.Err == nil {
		return "usage printed"
	}
	return e.Err.Error()
}

func (e *UsageError) Unwrap() error { return e.Err }

// Usagef is a UsageError saying why.
func Usagef(format string, a ...any) error {
	return &UsageError{Err: fmt.Errorf(format, a...)}
}

// NoArgs is the Args of a command that takes no positional words: any is a UsageError.
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return Usagef("unexpected argument %q (%s takes none)", args[0], cmd.CommandPath())
	}
	return nil
}

// Execute runs root on args (the words after the binary's name), its output on stdout and
// stderr, and returns the command that ran (or was meant to) and its error.
func Execute(ctx context.Context, root *cobra.Command, args []string, stdout, stderr io.Writer) (*cobra.Command, error) {
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SilenceErrors, root.SilenceUsage = true, true // Run reports, in one line
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &UsageError{Err: err} })
	root.InitDefaultHelpCmd() // `help <command>`, which cobra adds as it executes: Find must see it

	// Cobra prints the help of a command of commands and succeeds whatever words follow it
	// (only the root's unknown words are an error, as Find's): both are usage errors here.
	cmd, rest, _ := root.Find(args)
	if cmd.HasSubCommands() && !cmd.Runnable() && !asksHelp(rest) {
		if i := slices.IndexFunc(rest, func(a string) bool { return !strings.HasPrefix(a, "-") }); i >= 0 {
			return cmd, Usagef("unknown command %q", rest[i])
		}
		fmt.Fprint(stderr, cmd.UsageString())
		return cmd, &UsageError{}
	}
	root.SetArgs(twoDashes(cmd, args))
	return root.ExecuteContextC(ctx)
}

// Run is Execute reported: it returns the exit status.
func Run(ctx context.Context, root *cobra.Command, args []string, stdout, stderr io.Writer) int {
	cmd, err := Execute(ctx, root, args, stdout, stderr)
	return Report(stderr, cmd, err)
}

// Report writes a failure of cmd (from Execute) to stderr in one line, with where to find the
// usage when it is a UsageError, and returns the exit status: 0, 1, or 2 for a UsageError.
func Report(stderr io.Writer, cmd *cobra.Command, err error) int {
	var usage *UsageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &usage):
		if usage.Err != nil {
			fmt.Fprintf(stderr, "%s: %v\nRun '%s --help' for usage.\n", cmd.CommandPath(), usage.Err, cmd.CommandPath())
		}
		return 2
	default:
		fmt.Fprintf(stderr, "%s: %v\n", cmd.CommandPath(), err)
		return 1
	}
}

// asksHelp reports whether the words after a command of commands ask for its help: -h, --help,
// or the word help (`intentd admin keys help`, as the hand-written parser took it).
func asksHelp(args []string) bool {
	return slices.ContainsFunc(args, func(a string) bool { return a == "-h" || a == "--help" || a == "-help" || a == "help" })
}

// twoDashes rewrites the long flags of cmd given with one dash (`-reason`, `-json=true`), as the
// flag package took them, to pflag's two. A word that is the value of the flag before it (a
// `--reason -x`, an `--amount-usd -12.50`) is left as it is, and so is everything after `--`.
func twoDashes(cmd *cobra.Command, args []string) []string {
	cmd.InitDefaultHelpFlag()
	out := slices.Clone(args)
	isValue := false
	for i, a := range out {
		if a == "--" {
			break
		}
		if isValue || !strings.HasPrefix(a, "-") {
			isValue = false
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := cmd.Flags().Lookup(name)
		if f == nil {
			continue
		}
		if !strings.HasPrefix(a, "--") && len(name) > 1 {
			out[i] = "-" + a
		}
		isValue = !hasValue && f.NoOptDefVal == ""
	}
	return out
}
