// Package envconf reads a process's configuration from environment variables the same way in
// every process: a value or its default, lists of entries (List), and every problem collected
// with the name of its variable, so that a process reports all its bad values at once, at start,
// and stops. The config structs (app.Config, oracle.Config and the small ones of the command
// lines) are loaded with it; nothing else reads the environment.
package envconf

import (
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"
)

// Vars reads variables through lookup (os.LookupEnv in production, a map in tests) and collects
// the problems found.
type Vars struct {
	lookup   func(string) (string, bool)
	defaults map[string]string
	errs     []string
}

// New reads through lookup; defaults supply values for unset variables before each call's own
// default (dev mode and the test stacks fill in the devnet's keys this way).
func New(lookup func(string) (string, bool), defaults map[string]string) *Vars {
	return &Vars{lookup: lookup, defaults: defaults}
}

// Get returns the variable's value, else the contents of the file NAME_FILE names (how Docker
// and Kubernetes hand a container its secrets: the value never sits in the environment; one
// trailing newline is dropped), else its entry in the defaults, else def. An empty value counts
// as unset; a variable given both ways, or a file that cannot be read, is a problem.
func (v *Vars) Get(name, def string) string {
	s, ok := v.lookup(name)
	path, fromFile := v.lookup(name + "_FILE")
	fromFile = fromFile && path != ""
	switch {
	case ok && s != "" && fromFile:
		v.Bad(name, "is set both directly and through %s_FILE; give one", name)
		return s
	case ok && s != "":
		return s
	case fromFile:
		b, err := os.ReadFile(path)
		if err != nil {
			v.Bad(name+"_FILE", "cannot be read: %v", err)
			return def
		}
		if s := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r"); s != "" {
			return s
		}
	}
	if s, ok := v.defaults[name]; ok {
		return s
	}
	return def
}

// Set reports whether the variable is given, directly or through NAME_FILE.
func (v *Vars) Set(name string) bool {
	if s, ok := v.lookup(name); ok && s != "" {
		return true
	}
	p, ok := v.lookup(name + "_FILE")
	return ok && p != ""
}

// Bad records a problem with the variable. The message must not quote a secret value.
func (v *Vars) Bad(name, format string, args ...any) {
	v.errs = append(v.errs, fmt.Sprintf("%s: %s", name, fmt.Sprintf(format, args...)))
}

// PositiveDuration reads a duration above zero, such as "30s"; def is also the example the
// error gives.
func (v *Vars) PositiveDuration(name, def string) time.Duration {
	d, err := time.ParseDuration(v.Get(name, def))
	if err != nil || d <= 0 {
		v.Bad(name, "must be a positive duration, like %s", def)
	}
	return d
}

// IntRange reads a whole number from lo to hi.
func (v *Vars) IntRange(name, def string, lo, hi int) int {
	n, err := strconv.Atoi(v.Get(name, def))
	if err != nil || n < lo || n > hi {
		v.Bad(name, "must be a whole number from %d to %d", lo, hi)
	}
	return n
}

// Bool reads true or false (1 or 0).
func (v *Vars) Bool(name, def string) bool {
	switch v.Get(name, def) {
	case "true", "1":
		return true
	case "false", "0":
		return false
	}
	v.Bad(name, "must be true or false")
	return false
}

// Level reads a log level: debug, info, warn or error.
func (v *Vars) Level(name, def string) slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(v.Get(name, def))); err != nil {
		v.Bad(name, "must be debug, info, warn or error")
	}
	return l
}

// Err is nil when every variable read was good, else one error that lists every problem, one a
// line, each naming its variable.
func (v *Vars) Err() error {
	if len(v.errs) == 0 {
		return nil
	}
	return fmt.Errorf("invalid configuration:\n  %s", strings.Join(v.errs, "\n  "))
}
