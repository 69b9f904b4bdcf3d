//go:build unix

package process

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// terminateSignal asks a process to stop.
var terminateSignal os.Signal = syscall.SIGTERM

// StopPostgres stops the Postgres cluster whose data directory is dataDir by signalling its
// postmaster (named in postmaster.pid) and waits until the postmaster is gone.
func StopPostgres(dataDir string, mode PostgresShutdown, timeout time.Duration) error {
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return fmt.Errorf("postgres pid file: %w", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil || pid <= 0 {
		return fmt.Errorf("postgres pid file names no process: %q", b)
	}
	sig := syscall.SIGQUIT
	if mode == Fast {
		sig = syscall.SIGINT
	}
	if err := syscall.Kill(pid, sig); err != nil {
		return fmt.Errorf("signal postmaster %d: %w", pid, err)
	}
	deadline := time.Now().Add(timeout)
	for processAlive(pid) {
		if time.Now().After(deadline) {
			return fmt.Errorf("postmaster %d still runs %v after %v", pid, timeout, sig)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return nil
}

// processAlive reports whether pid runs; a zombie (exited, not reaped by its parent) does not.
func processAlive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !errors.Is(err, os.ErrNotExist) || !procMounted()
	}
	// pid (comm) state ...: the state follows the last ')'.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

func procMounted() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}
