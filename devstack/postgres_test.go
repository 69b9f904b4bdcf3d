package devstack

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

func testLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

func testFreePort(t *testing.T) int {
	t.Helper()
	port, err := freePort("127.0.0.1")
	require.NoError(t, err)
	return port
}

func requirePGBinaries(t *testing.T) {
	t.Helper()
	if _, _, err := findPGBinaries(""); err != nil {
		t.Skip(err)
	}
}

func queryInt(t *testing.T, ctx context.Context, url, sql string) int {
	t.Helper()
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer func() { _ = conn.Close(ctx) }()
	var n int
	require.NoError(t, conn.QueryRow(ctx, sql).Scan(&n))
	return n
}

func execSQL(t *testing.T, ctx context.Context, url, sql string) {
	t.Helper()
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer func() { _ = conn.Close(ctx) }()
	_, err = conn.Exec(ctx, sql)
	require.NoError(t, err)
}

func TestEnsurePostgresPrivateCluster(t *testing.T) {
	requirePGBinaries(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	dataDir := filepath.Join(t.TempDir(), "pg")
	port := testFreePort(t)
	opts := PostgresOptions{
		// Nothing listens there: the private cluster must be used.
		URL:      fmt.Sprintf("postgres://postgres@127.0.0.1:%d/nothing?sslmode=disable", testFreePort(t)),
		DataDir:  dataDir,
		Port:     port,
		Database: "devstack_test",
		Logger:   testLogger(),
	}
	wantURL := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/devstack_test?sslmode=disable", port)

	// First start: initdb, start, create the database.
	p, err := EnsurePostgres(ctx, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Stop() })
	require.True(t, p.Started())
	require.Equal(t, wantURL, p.URL())
	require.FileExists(t, filepath.Join(dataDir, "PG_VERSION"))
	require.Equal(t, 1, queryInt(t, ctx, p.URL(), "SELECT 1"))
	// Room for the pools of the whole shape on one machine (several worker processes).
	require.Equal(t, privateMaxConnections, queryInt(t, ctx, p.URL(), "SELECT current_setting('max_connections')::int"))
	execSQL(t, ctx, p.URL(), "CREATE TABLE marker (n int); INSERT INTO marker VALUES (42)")

	// A second EnsurePostgres while it runs reuses it and does not own it.
	reused, err := EnsurePostgres(ctx, opts)
	require.NoError(t, err)
	require.False(t, reused.Started())
	require.Equal(t, wantURL, reused.URL())
	require.NoError(t, reused.Stop()) // no-op
	require.Equal(t, 42, queryInt(t, ctx, p.URL(), "SELECT n FROM marker"))

	require.NoError(t, p.Stop())
	require.NoFileExists(t, filepath.Join(dataDir, "postmaster.pid"))

	// Restart on the same data directory keeps the data.
	p2, err := EnsurePostgres(ctx, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p2.Stop() })
	require.True(t, p2.Started())
	require.Equal(t, 42, queryInt(t, ctx, p2.URL(), "SELECT n FROM marker"))

	// kill -9 the postmaster: the stale pid file must not prevent a restart.
	pidData, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.SplitN(string(pidData), "\n", 2)[0])
	require.NoError(t, err)
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	require.Eventually(t, func() bool { return !isPostgresProcess(pid) }, 10*time.Second, 50*time.Millisecond)
	require.FileExists(t, filepath.Join(dataDir, "postmaster.pid"))

	p3, err := EnsurePostgres(ctx, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p3.Stop() })
	require.True(t, p3.Started())
	require.Equal(t, 42, queryInt(t, ctx, p3.URL(), "SELECT n FROM marker"))
	require.NoError(t, p3.Stop())
}

func TestEnsurePostgresUsesReachableURL(t *testing.T) {
	const url = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := pingURL(ctx, url, 2*time.Second); err != nil {
		t.Skipf("no system postgres on 5432: %v", err)
	}
	p, err := EnsurePostgres(ctx, PostgresOptions{
		URL:     url,
		DataDir: filepath.Join(t.TempDir(), "pg"),
		Logger:  testLogger(),
	})
	require.NoError(t, err)
	require.False(t, p.Started())
	require.Equal(t, url, p.URL())
	require.NoError(t, p.Stop())
	require.Equal(t, 1, queryInt(t, ctx, p.URL(), "SELECT 1"))
}

func TestEnsurePostgresNeedsDataDir(t *testing.T) {
	_, err := EnsurePostgres(context.Background(), PostgresOptions{
		URL: fmt.Sprintf("postgres://postgres@127.0.0.1:%d/x?sslmode=disable", testFreePort(t)),
	})
	require.ErrorContains(t, err, "DataDir")
}

// quietTestLogger shows only warnings and errors, which is what the Temporal
// server passes on anyway.
func quietTestLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

func portOf(t *testing.T, hostPort string) int {
	t.Helper()
	_, p, err := net.SplitHostPort(hostPort)
	require.NoError(t, err)
	n, err := strconv.Atoi(p)
	require.NoError(t, err)
	return n
}
