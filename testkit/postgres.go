package testkit

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/intentd/intentd/devstack"
	"github.com/intentd/intentd/internal/process"
	"github.com/intentd/intentd/testkit/testenv"
)

// database returns the engine's database: a fresh one on the tests' Postgres, with the schema
// applied, or with Options.PrivatePostgres an empty one on a cluster of the stack's own (Start
// applies the schema through the engine, as `intentd migrate` does).
func (s *Stack) database(t *testing.T, o Options) string {
	if !o.PrivatePostgres {
		return testenv.DatabaseURL(t)
	}
	s.pgOpts = devstack.PostgresOptions{DataDir: filepath.Join(t.TempDir(), "pg"), Port: freePort(t), Database: "intentd", Logger: o.Logger}
	pg, err := devstack.EnsurePostgres(s.ctx, s.pgOpts)
	if err != nil {
		t.Fatalf("postgres: %v", err)
	}
	s.pg = pg
	t.Cleanup(func() {
		s.pgMu.Lock()
		defer s.pgMu.Unlock()
		if err := s.pg.Stop(); err != nil {
			t.Logf("stop postgres: %v", err)
		}
	})
	return pg.URL()
}

// RestartPostgres stops the stack's private Postgres the way mode says (a crash or a clean
// shutdown), keeps it down for down and starts it again on the same data directory and port.
func (s *Stack) RestartPostgres(ctx context.Context, mode process.PostgresShutdown, down time.Duration) error {
	s.pgMu.Lock()
	defer s.pgMu.Unlock()
	if s.pg == nil {
		return fmt.Errorf("the stack has no private Postgres (Options.PrivatePostgres)")
	}
	if err := process.StopPostgres(s.pgOpts.DataDir, mode, time.Minute); err != nil {
		return err
	}
	timer := time.NewTimer(down)
	defer timer.Stop()
	select {
	case <-ctx.Done():
	case <-timer.C:
	}
	pg, err := devstack.EnsurePostgres(ctx, s.pgOpts)
	if err != nil {
		return fmt.Errorf("start postgres again: %w", err)
	}
	s.pg = pg
	return nil
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}
