package app

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/ratelimit"
	"github.com/intentd/intentd/testkit/testenv"
)

func TestRateLimitsDefaultToTheSpecsTableInProcess(t *testing.T) {
	cfg, err := Load(env(required(nil)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.RedisURL != "" || cfg.TrustedProxies != nil {
		t.Errorf("REDIS_URL %q, TRUSTED_PROXIES %v: want neither by default", cfg.RedisURL, cfg.TrustedProxies)
	}
	if !reflect.DeepEqual(cfg.RateLimits, ratelimit.DefaultPolicy()) {
		t.Errorf("limits %+v, want the default policy", cfg.RateLimits)
	}
}

func TestRateLimitSettingsAreRead(t *testing.T) {
	cfg, err := Load(env(required(map[string]string{
		"REDIS_URL": "redis://:hunter2@10.1.2.3:6379/2", "TRUSTED_PROXIES": "10.0.0.0/8, 192.0.2.1,2001:db8::/32",
		"RATE_LIMITS_ANONYMOUS": "quote=5/1m,status=20/1m", "RATE_LIMIT_UNKNOWN_KEY": "3/1m",
		"RATE_LIMIT_REQUESTS_SCHEDULE": "2026-10-01 50/1m 3/1s",
	})), nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.RedisURL != "redis://:hunter2@10.1.2.3:6379/2" || !reflect.DeepEqual(cfg.TrustedProxies, []string{"10.0.0.0/8", "192.0.2.1", "2001:db8::/32"}) {
		t.Errorf("REDIS_URL %q, TRUSTED_PROXIES %v", cfg.RedisURL, cfg.TrustedProxies)
	}
	p := cfg.RateLimits
	if p.Anonymous[ratelimit.Quote] != (auth.Rate{Count: 5, Period: time.Minute}) || p.Anonymous[ratelimit.Chains] != ratelimit.DefaultLimits()[ratelimit.Chains] {
		t.Errorf("anonymous: %+v, want quote 5/1m over the default tier's", p.Anonymous)
	}
	if p.UnknownKey != (auth.Rate{Count: 3, Period: time.Minute}) || len(p.RequestsSchedule) != 1 {
		t.Errorf("unknown key %+v, schedule %+v", p.UnknownKey, p.RequestsSchedule)
	}
	for _, s := range []string{fmt.Sprint(cfg), cfg.LogValue().String()} {
		if strings.Contains(s, "hunter2") {
			t.Fatalf("the Redis password is printed: %s", s)
		}
	}
	off, err := Load(env(required(map[string]string{"RATE_LIMITS_ANONYMOUS": "off"})), nil)
	if err != nil || off.RateLimits.Anonymous != nil || off.RateLimits.Default == nil {
		t.Fatalf("off: %+v %v", off.RateLimits, err)
	}
}

func TestBadRateLimitSettingsAreNamed(t *testing.T) {
	_, err := Load(env(required(map[string]string{
		"REDIS_URL": "http://:hunter2@10.1.2.3:6379", "TRUSTED_PROXIES": "10.0.0.0/8,10.0.0.0/33,proxy.internal",
		"RATE_LIMITS_ANONYMOUS": "quotes=5/1m", "RATE_LIMIT_UNKNOWN_KEY": "lots", "RATE_LIMIT_REQUESTS_SCHEDULE": "October 50/1m 3/1s",
	})), nil)
	if err == nil {
		t.Fatal("bad settings accepted")
	}
	for _, name := range []string{"REDIS_URL", "TRUSTED_PROXIES", "RATE_LIMITS_ANONYMOUS", "RATE_LIMIT_UNKNOWN_KEY", "RATE_LIMIT_REQUESTS_SCHEDULE"} {
		if !strings.Contains(err.Error(), name+":") {
			t.Errorf("error does not name %s:\n%v", name, err)
		}
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("the error quotes REDIS_URL's password: %v", err)
	}
	if !strings.Contains(err.Error(), "10.0.0.0/33") || !strings.Contains(err.Error(), "proxy.internal") {
		t.Errorf("TRUSTED_PROXIES' bad entries are not named: %v", err)
	}
}

// TestTheAPIServerIsLimited: the API the processes run has the configured limits, shared
// through REDIS_URL's Redis when it is set, and trusts TRUSTED_PROXIES only.
func TestTheAPIServerIsLimited(t *testing.T) {
	reg, err := chains.NewRegistry(devnet.ChainConfigs(map[uint64]string{31337: "http://127.0.0.1:1", 31338: "http://127.0.0.1:1"}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, redisURL := range []string{"", testenv.RedisURL(t)} {
		cfg, err := Load(env(required(map[string]string{"REDIS_URL": redisURL, "TRUSTED_PROXIES": "10.0.0.0/8"})), nil)
		if err != nil {
			t.Fatal(err)
		}
		sys := &System{Config: cfg, Logger: slog.New(slog.DiscardHandler), Chains: chains.NewClients(reg, evm.VM())}
		srv := sys.APIServer(ctx)
		if srv.Limits == nil || srv.Limits.Shared() != (redisURL != "") || !reflect.DeepEqual(srv.TrustedProxies, []string{"10.0.0.0/8"}) {
			t.Errorf("REDIS_URL %q: limits %v (shared %v), proxies %v", redisURL, srv.Limits, srv.Limits != nil && srv.Limits.Shared(), srv.TrustedProxies)
		}
		if sys.redis != nil {
			_ = sys.redis.Close()
		}
	}
}
