package testkit

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"testing"

	"github.com/intentd/intentd/events"
	"github.com/intentd/intentd/internal/process"
)

// WebhookSecretsKey is the stacks' WEBHOOK_SECRETS_KEY (a secret of the stack's: 32 bytes).
const WebhookSecretsKey = "7e3b0c1f5a92d4e86b10c7f3a2e9d5b41c6f08a3e7d2b95c14f0a6e83d7b2c59"

// StartDispatcher runs a webhook dispatcher of the stack's engine in the test process until the
// returned stop or the end of the test; tune adjusts its options (fast retries, say).
func (s *Stack) StartDispatcher(t testing.TB, tune func(*events.Options)) (stop func()) {
	t.Helper()
	d := s.Sys.Config.NewDispatcher(s.Sys.Store, s.Sys.Logger)
	if tune != nil {
		tune(&d.Opts)
	}
	ctx, cancel := context.WithCancel(s.ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = d.Run(ctx) }()
	stop = func() { cancel(); <-done }
	t.Cleanup(stop)
	return stop
}

// StartDispatcherProcess runs `intentd dispatcher` from bin (process.BuildIntentd) as a process
// of its own on the stack's database, configured through its environment only (the stack's
// variables and extra), under a supervisor that tests kill and restart.
func (s *Stack) StartDispatcherProcess(t *testing.T, bin string, extra map[string]string) *process.Supervisor {
	t.Helper()
	vars := map[string]string{"DATABASE_URL": s.processEnv["DATABASE_URL"], "WEBHOOK_SECRETS_KEY": WebhookSecretsKey,
		"WEBHOOK_ALLOW_PRIVATE": "true", "LOG_LEVEL": "info"}
	maps.Copy(vars, extra)
	s.dispatchers++
	name := fmt.Sprintf("dispatcher%d", s.dispatchers)
	s.withMetrics(t, name, vars)
	return startProcess(t, bin, name, filepath.Join(s.logDir, name), s.apiRPCs, vars)
}
