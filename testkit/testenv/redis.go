package testenv

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

var (
	redisOnce sync.Once
	redisURL  string
	redisErr  error
)

// RedisURL is a Redis for tests, shared by the tests of a run: TEST_REDIS_URL, else the
// machine's server on 127.0.0.1:6379 when it answers, else a private redis-server the package
// starts from the machine's binary (it ends with the test process). Tests sharing it keep
// their keys apart by a prefix of their own.
func RedisURL(t testing.TB) string {
	t.Helper()
	redisOnce.Do(func() {
		if u := os.Getenv("TEST_REDIS_URL"); u != "" {
			redisURL, redisErr = u, pingRedis(u)
			return
		}
		if u := "redis://127.0.0.1:6379/0"; pingRedis(u) == nil {
			redisURL = u
			return
		}
		var r *Redis
		if r, redisErr = startRedis(); redisErr == nil {
			redisURL = r.URL
		}
	})
	if redisErr != nil {
		t.Fatalf("no redis for tests: %v", redisErr)
	}
	return redisURL
}

// RedisClient is a client of RedisURL, closed when the test ends.
func RedisClient(t testing.TB) *redis.Client {
	t.Helper()
	opt, err := redis.ParseURL(RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opt)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// Redis is a private redis-server, for a test that stops it.
type Redis struct {
	URL string
	cmd *exec.Cmd
}

// StartRedis starts a private redis-server on a free port, stopped when the test ends.
func StartRedis(t testing.TB) *Redis {
	t.Helper()
	r, err := startRedis()
	if err != nil {
		t.Fatalf("redis-server: %v", err)
	}
	t.Cleanup(r.Stop)
	return r
}

// Stop kills the server and waits for it to exit.
func (r *Redis) Stop() {
	if r.cmd.ProcessState == nil {
		_ = r.cmd.Process.Kill()
		_ = r.cmd.Wait()
	}
}

func startRedis() (*Redis, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("neither TEST_REDIS_URL nor 127.0.0.1:6379 answers, and there is no redis-server to start: %w", err)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	cmd.SysProcAttr = dieWithParent()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	r := &Redis{URL: fmt.Sprintf("redis://127.0.0.1:%d/0", port), cmd: cmd}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err = pingRedis(r.URL); err == nil {
			return r, nil
		}
		if time.Now().After(deadline) {
			r.Stop()
			return nil, fmt.Errorf("redis-server on port %d did not answer in 10 s: %w", port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func pingRedis(u string) error {
	opt, err := redis.ParseURL(u)
	if err != nil {
		return err
	}
	opt.DialTimeout, opt.MaxRetries = 500*time.Millisecond, -1
	c := redis.NewClient(opt)
	defer func() { _ = c.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return c.Ping(ctx).Err()
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}
