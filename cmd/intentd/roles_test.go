package main

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/testkit/testenv"
)

func lookupIn(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// TestRolesStartWithoutTheSolverKey runs the roles as `intentd <role>` runs them: migrate with
// DATABASE_URL alone and the api with the solver's address alone both start and serve; the worker
// refuses to start without the key, before it opens anything.
func TestRolesStartWithoutTheSolverKey(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db := testenv.DatabaseURL(t)

	if err := runEngine(ctx, "migrate", lookupIn(map[string]string{"DATABASE_URL": db})); err != nil {
		t.Fatalf("migrate without the key: %v", err)
	}

	err := runEngine(ctx, "worker", lookupIn(map[string]string{"DATABASE_URL": db, "ORACLE_SIGNERS": devnet.OracleAddress().Hex(),
		"TEMPORAL_ADDRESS": "127.0.0.1:1"}))
	if err == nil || !strings.Contains(err.Error(), "SOLVER_PRIVATE_KEY: is required") {
		t.Fatalf("worker without the key: %v", err)
	}

	ts := testenv.TemporalServer(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	apiCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- runEngine(apiCtx, "api", lookupIn(map[string]string{"DATABASE_URL": db, "SOLVER_ADDRESS": devnet.SolverAddress().Hex(),
			"TEMPORAL_ADDRESS": ts.GetFrontendHostPort(), "TEMPORAL_NAMESPACE": ts.GetDefaultNamespace(),
			"CHAINS_CONFIG_DIR": "../../configs", "API_ADDR": addr, "LOG_LEVEL": "warn"}))
	}()
	for {
		res, err := http.Get("http://" + addr + "/chains")
		if err == nil {
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				t.Fatalf("api: GET /chains %d", res.StatusCode)
			}
			break
		}
		select {
		case err := <-done:
			t.Fatalf("api without the key did not start: %v", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
	stop()
	if err := <-done; err != nil {
		t.Fatalf("api stopped with %v", err)
	}
}
