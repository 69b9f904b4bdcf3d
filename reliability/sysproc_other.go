//go:build !unix

package reliability

import (
	"errors"
	"os"
	"time"
)

var terminateSignal os.Signal = os.Kill

// PostgresShutdown is how CrashPostgres stops a cluster.
type PostgresShutdown int

// Shutdown modes; see sysproc_unix.go.
const (
	Immediate PostgresShutdown = iota
	Fast
)

func (m PostgresShutdown) String() string {
	if m == Fast {
		return "fast"
	}
	return "immediate"
}

// StopPostgres is only implemented on Unix.
func StopPostgres(string, PostgresShutdown, time.Duration) error {
	return errors.New("reliability: stopping postgres by signal needs a Unix system")
}
