// Package envconf reads a process's configuration from environment variables the same way in
// every process: a value or its default, lists of entries (List), and every problem collected
// with the name of its variable, so that a process reports all its bad values at once, at start,
// and stops. The config structs (app.Config, oracle.Config and the small ones of the command
// lines) are loaded with it; nothing else reads the environment.
package envconf

import (
	"fmt"
	"log/slog"
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

// Get returns the variable's value, else its entry in the defaults, else def. An empty value
// counts as unset.
func (v *Vars) Get(name, def string) string {
	if s, ok := v.lookup(name); ok && s != "" {
		return s
	}
	if s, ok := v.defaults[name]; ok {
		return s
	}
	return def
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
