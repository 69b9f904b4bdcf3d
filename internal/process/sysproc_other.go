//go:build !unix

package process

import (
	"errors"
	"os"
	"time"
)

var terminateSignal os.Signal = os.Kill

// StopPostgres is only implemented on Unix.
func StopPostgres(string, PostgresShutdown, time.Duration) error {
	return errors.New("process: stopping postgres by signal needs a Unix system")
}
