// Package process runs the engine's processes the way an orchestrator would, for the test
// stacks that run the worker as `intentd worker` (testkit.Options.WorkerBinary) and for
// `intentd-dev dev`'s worker processes (DEV_WORKERS): it builds the
// binary, supervises a process (SIGKILL on request, restart after an exit nobody asked for, one
// log file per start), and crashes or stops a Postgres cluster by signalling its postmaster.
package process

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// BuildIntentd compiles the intentd binary (github.com/intentd/intentd/cmd/intentd) into dir
// and returns its path. It uses the go command found on PATH with the caller's environment, so
// the build cache is shared with the test run.
func BuildIntentd(ctx context.Context, dir string) (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("the go command is needed to build intentd: %w", err)
	}
	out := filepath.Join(dir, "intentd")
	cmd := exec.CommandContext(ctx, goBin, "build", "-o", out, "github.com/intentd/intentd/cmd/intentd")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/intentd: %w\n%s", err, b)
	}
	return out, nil
}

// Supervisor runs one OS process the way an orchestrator would: Kill sends SIGKILL and Start
// starts it again, and a process that exits on its own is counted and started again after
// RestartDelay. Each start writes its stdout and stderr to its own file in LogDir
// (<Name>-<n>.log).
type Supervisor struct {
	Name         string
	Bin          string
	Args         []string
	Env          []string
	LogDir       string
	RestartDelay time.Duration // after an exit nobody asked for; default 1s

	mu         sync.Mutex
	cur        *proc
	starts     int
	kills      int
	unexpected []string // how each unexpected exit ended
	logs       []string
	closed     bool
}

type proc struct {
	n          int // which start this is, from 1
	cmd        *exec.Cmd
	exited     chan struct{}
	deliberate bool // guarded by Supervisor.mu: the exit was asked for (Kill, Close)
	err        error
}

// Start starts the process; it is an error when it is already running.
func (s *Supervisor) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.startLocked()
}

func (s *Supervisor) startLocked() error {
	if s.closed {
		return errors.New("supervisor closed")
	}
	if s.cur != nil {
		select {
		case <-s.cur.exited:
		default:
			return fmt.Errorf("%s is already running (pid %d)", s.Name, s.cur.cmd.Process.Pid)
		}
	}
	s.starts++
	logPath := filepath.Join(s.LogDir, fmt.Sprintf("%s-%d.log", s.Name, s.starts))
	f, err := os.Create(logPath)
	if err != nil {
		return err
	}
	cmd := exec.Command(s.Bin, s.Args...)
	cmd.Env = s.Env
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		_ = f.Close()
		return fmt.Errorf("start %s: %w", s.Name, err)
	}
	s.logs = append(s.logs, logPath)
	p := &proc{n: s.starts, cmd: cmd, exited: make(chan struct{})}
	s.cur = p
	go func() {
		err := cmd.Wait()
		_ = f.Close()
		s.mu.Lock()
		p.err = err
		close(p.exited)
		if p.deliberate || s.closed || s.cur != p {
			s.mu.Unlock()
			return
		}
		s.unexpected = append(s.unexpected, fmt.Sprintf("start %d (%s): %v", p.n, logPath, err))
		delay := s.RestartDelay
		if delay <= 0 {
			delay = time.Second
		}
		s.mu.Unlock()
		time.AfterFunc(delay, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.cur == p && !s.closed && !p.deliberate {
				_ = s.startLocked()
			}
		})
	}()
	return nil
}

// Pid is the running process's id, 0 when none runs.
func (s *Supervisor) Pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == nil {
		return 0
	}
	select {
	case <-s.cur.exited:
		return 0
	default:
		return s.cur.cmd.Process.Pid
	}
}

// Kill sends SIGKILL to the running process and waits until it is gone. It is not restarted
// until Start.
func (s *Supervisor) Kill() error {
	s.mu.Lock()
	p := s.cur
	if p == nil {
		s.mu.Unlock()
		return errors.New("not started")
	}
	p.deliberate = true
	s.kills++
	s.mu.Unlock()
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	<-p.exited
	return nil
}

// Stop stops the running process gracefully, as on a deploy: SIGTERM, then SIGKILL after grace.
// It is not restarted until Start.
func (s *Supervisor) Stop(grace time.Duration) { s.stop(grace, false) }

// Close stops the process for good: SIGTERM, then SIGKILL after grace.
func (s *Supervisor) Close(grace time.Duration) { s.stop(grace, true) }

func (s *Supervisor) stop(grace time.Duration, final bool) {
	s.mu.Lock()
	if final {
		s.closed = true
	}
	p := s.cur
	if p != nil {
		p.deliberate = true
	}
	s.mu.Unlock()
	if p == nil {
		return
	}
	_ = p.cmd.Process.Signal(terminateSignal)
	select {
	case <-p.exited:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// SupervisorStats is what happened to the supervised process.
type SupervisorStats struct {
	Starts, Kills int
	// Unexpected lists the exits nobody asked for (each followed by a restart).
	Unexpected []string
	// Logs are the log files, one per start.
	Logs []string
}

// Stats returns the counts so far.
func (s *Supervisor) Stats() SupervisorStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return SupervisorStats{Starts: s.starts, Kills: s.kills, Unexpected: append([]string(nil), s.unexpected...),
		Logs: append([]string(nil), s.logs...)}
}
