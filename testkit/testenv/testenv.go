// Package testenv gives tests the real parts they run against: a fresh Postgres database with
// the schema applied (on TEST_DATABASE_URL, else the machine's server on 127.0.0.1:5432, else a
// private cluster the package starts itself) and a Redis (TEST_REDIS_URL, else 127.0.0.1:6379,
// else a private redis-server), so `make test` needs nothing set up by hand.
package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/intentd/intentd/devstack"
	"github.com/intentd/intentd/migrations"
)

var (
	adminOnce sync.Once
	adminURL  string
	adminErr  error
)

// server finds a Postgres server to create test databases on.
func server() (string, error) {
	adminOnce.Do(func() {
		u := os.Getenv("TEST_DATABASE_URL")
		if u == "" {
			u = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
		}
		dir := filepath.Join(os.TempDir(), "intentd-test-pg")
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		pg, err := devstack.EnsurePostgres(ctx, devstack.PostgresOptions{URL: u, DataDir: dir, Port: 5439, Database: "postgres",
			Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
		if err != nil {
			adminErr = err
			return
		}
		adminURL = pg.URL()
	})
	return adminURL, adminErr
}

// DatabaseURL creates an empty database with the schema applied and returns its URL; the
// database is dropped when the test ends.
func DatabaseURL(t testing.TB) string {
	t.Helper()
	admin, err := server()
	if err != nil {
		t.Fatalf("no postgres for tests: %v", err)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("connect %s: %v", admin, err)
	}
	defer func() { _ = conn.Close(ctx) }()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "intentd_test_" + hex.EncodeToString(b)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	u, _ := url.Parse(admin)
	u.Path = "/" + name
	dbURL := u.String()
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := migrations.Apply(ctx, pool); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	pool.Close()
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), admin)
		if err != nil {
			return
		}
		defer func() { _ = c.Close(context.Background()) }()
		_, _ = c.Exec(context.Background(), fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name))
	})
	return dbURL
}

// Pool opens a pool on a fresh database.
func Pool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), DatabaseURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// PoolOn opens another pool on pool's database, of up to conns connections (0: as many as
// pool), closed when the test ends: a second process's pool, or one of a set size.
func PoolOn(t testing.TB, pool *pgxpool.Pool, conns int32) *pgxpool.Pool {
	t.Helper()
	cfg := pool.Config().Copy()
	if conns > 0 {
		cfg.MaxConns = conns
	}
	p, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// MostAcquired watches how many connections pool has taken at once, sampling every 200 µs, until
// the returned stop is called, which returns the most seen.
func MostAcquired(pool *pgxpool.Pool) (stop func() int32) {
	done, most := make(chan struct{}), make(chan int32, 1)
	go func() {
		tick := time.NewTicker(200 * time.Microsecond)
		defer tick.Stop()
		m := int32(0)
		for {
			select {
			case <-done:
				most <- m
				return
			case <-tick.C:
				m = max(m, pool.Stat().AcquiredConns())
			}
		}
	}()
	return func() int32 { close(done); return <-most }
}
