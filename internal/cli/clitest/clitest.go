// Package clitest checks a command tree of package cli against the repository: every
// invocation of the binary that the docs, the scripts and the deployments write must parse, and
// every command they name must exist. It runs the parsing only (DryRun), never a command's
// action, so a test needs neither a database nor a chain.
package clitest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/intentd/intentd/internal/cli"
)

// Result is what a dry run printed and its exit status.
type Result struct {
	Cmd            *cobra.Command // the command that would have run (or was meant to)
	Err            error
	Code           int
	Stdout, Stderr string
}

// DryRun runs args on root as the binary runs them (cli.Execute, cli.Report), but with every
// command's action replaced by one that does nothing: what runs is the parsing, each command's
// checks of its words and flags (its Args) and the help.
func DryRun(root *cobra.Command, args ...string) Result {
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Runnable() {
			c.Run, c.RunE = nil, func(*cobra.Command, []string) error { return nil }
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	var stdout, stderr bytes.Buffer
	cmd, err := cli.Execute(context.Background(), root, args, &stdout, &stderr)
	code := cli.Report(&stderr, cmd, err)
	return Result{Cmd: cmd, Err: err, Code: code, Stdout: stdout.String(), Stderr: stderr.String()}
}

// Invocation is one place the repository runs or names a command of a binary.
type Invocation struct {
	Where string   // file:line
	Args  []string // the words after the binary's name
	// Whole says Args are a whole command line (a code block's, a script's, a deployment's):
	// it must parse. Otherwise (inline code, a message) only its command words must exist; a
	// word may list alternatives, keys create|rename.
	Whole bool
}

// Invocations are binary's invocations in the repository at repo: README.md and docs/*.md
// (code blocks whole, inline code by its words), the scripts (scripts/*.sh, bench/*.sh and the
// Makefile: a line that runs bin/<binary> whole; inline code and quoted text, in comments and
// messages too, by its words), and the Dockerfile's entry points with the commands
// docker-compose.yml and deploy/kubernetes give them.
func Invocations(t testing.TB, repo, binary string) []Invocation {
	t.Helper()
	var out []Invocation
	glob := func(patterns ...string) []string {
		var files []string
		for _, p := range patterns {
			m, err := filepath.Glob(filepath.Join(repo, p))
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, m...)
		}
		return files
	}
	// The binary's name as a word followed by a space: not intentd-dev for intentd, not
	// ./cmd/intentd, not a Kubernetes namespace (-n intentd).
	mention := regexp.MustCompile(`(^|[\s` + "`" + `'"(]|[^d]/)` + regexp.QuoteMeta(binary) + ` `)
	after := func(s string) []string { // the text after each mention in s
		var rest []string
		for _, m := range mention.FindAllStringSubmatchIndex(s, -1) {
			if !strings.HasSuffix(s[:m[0]+1], "-n ") {
				rest = append(rest, s[m[1]:])
			}
		}
		return rest
	}
	// A script's line that runs bin/<binary>, after variables of its own.
	runs := regexp.MustCompile(`^\s*(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*(?:\./)?bin/` + regexp.QuoteMeta(binary) + `(?:\s+(.*))?$`)
	for _, file := range glob("README.md", "docs/*.md") {
		inCode := false
		for i, line := range joinContinued(lines(t, file)) {
			where := rel(repo, file, i)
			switch {
			case strings.HasPrefix(strings.TrimSpace(line), "```"):
				inCode = !inCode
			case inCode:
				for _, rest := range after(line) {
					out = append(out, Invocation{Where: where, Args: shellWords(rest), Whole: true})
				}
			default:
				for _, span := range spans.FindAllString(line, -1) {
					if span[0] == '`' {
						out = append(out, named(where, after(span[1:len(span)-1]+" "))...)
					}
				}
			}
		}
	}
	for _, file := range glob("scripts/*.sh", "bench/*.sh", "Makefile") {
		for i, line := range joinContinued(lines(t, file)) {
			where := rel(repo, file, i)
			if m := runs.FindStringSubmatch(line); m != nil {
				out = append(out, Invocation{Where: where, Args: shellWords(m[1]), Whole: true})
			}
			for _, span := range spans.FindAllString(line, -1) {
				out = append(out, named(where, after(span[1:len(span)-1]+" "))...)
			}
		}
	}
	return append(out, deployed(t, repo, binary)...)
}

var (
	// spans are inline code and quoted text.
	spans = regexp.MustCompile("`[^`]+`|'[^']+'|\"[^\"]+\"")
	// commandWord is a command's name, or alternatives (keys create|rename).
	commandWord = regexp.MustCompile(`^[a-z][a-z0-9-]*(\|[a-z][a-z0-9-]*)*$`)
)

// named are the invocations in texts (each what follows a mention of the binary) by their
// command words.
func named(where string, texts []string) []Invocation {
	var out []Invocation
	for _, text := range texts {
		var ws []string
		for _, w := range strings.Fields(text) {
			w = strings.TrimRight(w, ",.:;)")
			if !commandWord.MatchString(w) {
				break
			}
			ws = append(ws, w)
		}
		if len(ws) > 0 {
			out = append(out, Invocation{Where: where, Args: ws})
		}
	}
	return out
}

// deployed are the Dockerfile's entry points of binary, as docker-compose.yml's services and the
// Kubernetes manifests (image intentd-<target>, or intentd for the target intentd) run them.
func deployed(t testing.TB, repo, binary string) []Invocation {
	t.Helper()
	entry := map[string][]string{} // build target → the words after the binary
	target := ""
	for i, line := range lines(t, filepath.Join(repo, "Dockerfile")) {
		f := strings.Fields(line)
		switch {
		case len(f) >= 4 && strings.EqualFold(f[0], "FROM") && strings.EqualFold(f[2], "AS"):
			target = f[3]
		case len(f) > 1 && f[0] == "ENTRYPOINT":
			var words []string
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "ENTRYPOINT")), &words); err != nil {
				t.Fatalf("Dockerfile:%d: %v", i+1, err)
			}
			if filepath.Base(words[0]) == binary {
				entry[target] = words[1:]
			}
		}
	}
	var out []Invocation
	var compose struct {
		Services map[string]struct {
			Build   any      `yaml:"build"`
			Command []string `yaml:"command"`
		} `yaml:"services"`
	}
	raw, err := os.ReadFile(filepath.Join(repo, "docker-compose.yml"))
	if err == nil {
		err = yaml.Unmarshal(raw, &compose)
	}
	if err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	for name, s := range compose.Services {
		build, _ := s.Build.(map[string]any)
		tgt, _ := build["target"].(string)
		if words, ok := entry[tgt]; ok {
			out = append(out, Invocation{Where: "docker-compose.yml service " + name, Args: slices.Concat(words, s.Command), Whole: true})
		}
	}
	manifests, err := filepath.Glob(filepath.Join(repo, "deploy", "kubernetes", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range manifests {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(f)
		for {
			var doc struct {
				Metadata struct{ Name string } `yaml:"metadata"`
				Spec     struct {
					Template struct {
						Spec struct {
							Containers []struct {
								Image string   `yaml:"image"`
								Args  []string `yaml:"args"`
							} `yaml:"containers"`
						} `yaml:"spec"`
					} `yaml:"template"`
				} `yaml:"spec"`
			}
			if dec.Decode(&doc) != nil {
				break
			}
			for _, c := range doc.Spec.Template.Spec.Containers {
				image, _, _ := strings.Cut(c.Image, ":")
				tgt := strings.TrimPrefix(image, "intentd-")
				if words, ok := entry[tgt]; ok {
					out = append(out, Invocation{Where: rel(repo, file, -1) + " " + doc.Metadata.Name, Args: slices.Concat(words, c.Args), Whole: true})
				}
			}
		}
		_ = f.Close()
	}
	return out
}

// Check checks every invocation on a fresh tree of newRoot: a whole one must parse and pass its
// command's checks (exit status 0, the action not run), and every command word must name a
// command.
func Check(t *testing.T, newRoot func() *cobra.Command, invocations []Invocation) {
	t.Helper()
	for _, inv := range invocations {
		if inv.Whole {
			if r := DryRun(newRoot(), inv.Args...); r.Code != 0 {
				t.Errorf("%s: %q does not parse (exit %d): %s", inv.Where, inv.Args, r.Code, r.Stderr)
			}
			continue
		}
		cmd := newRoot()
		for _, w := range inv.Args {
			if !cmd.HasSubCommands() {
				break
			}
			var next *cobra.Command
			for _, alt := range strings.Split(w, "|") {
				sub := subcommand(cmd, alt)
				if sub == nil {
					t.Errorf("%s: %q names no command %q of %q", inv.Where, inv.Args, alt, cmd.CommandPath())
				} else if next == nil {
					next = sub
				}
			}
			if next == nil {
				break
			}
			cmd = next
		}
	}
}

func subcommand(cmd *cobra.Command, name string) *cobra.Command {
	for _, sub := range cmd.Commands() {
		if sub.Name() == name || sub.HasAlias(name) {
			return sub
		}
	}
	return nil
}

// shellWords splits a command line as the shell does, far enough for the docs: quotes, and
// the end of the command at an unquoted operator (|, ;, &, >, <, ")") or comment.
func shellWords(s string) []string {
	var out []string
	var word strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			word.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				out, inWord = append(out, word.String()), false
				word.Reset()
			}
		case strings.ContainsRune("|;&><)#", r) && !inWord:
			return out
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		out = append(out, word.String())
	}
	return out
}

func lines(t testing.TB, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(b), "\n")
}

// joinContinued joins the lines that end in a backslash to the next, keeping each line's place
// (a joined line leaves an empty one behind) so line numbers stay true.
func joinContinued(ls []string) []string {
	for i := len(ls) - 2; i >= 0; i-- {
		if strings.HasSuffix(ls[i], `\`) {
			ls[i], ls[i+1] = strings.TrimSuffix(ls[i], `\`)+" "+strings.TrimSpace(ls[i+1]), ""
		}
	}
	return ls
}

func rel(repo, file string, i int) string {
	r, err := filepath.Rel(repo, file)
	if err != nil {
		r = file
	}
	if i < 0 {
		return r
	}
	return r + ":" + strconv.Itoa(i+1)
}
