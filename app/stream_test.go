package app

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/intentd/intentd/testkit/testenv"
)

// Review M4's caps are configuration with documented defaults (10 per IP, 2,000 per process,
// 10,000 across processes), validated at start, and the hub the API runs has them: the global
// one through REDIS_URL's Redis when it is set.
func TestWebsocketCapsAreConfiguredAndApplied(t *testing.T) {
	cfg, err := Load(env(required(nil)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Stream != (StreamLimits{PerClient: 10, PerProcess: 2000, Global: 10000}) {
		t.Fatalf("defaults: %+v", cfg.Stream)
	}
	cfg, err = Load(env(required(map[string]string{"WS_ANONYMOUS_PER_IP": "3", "WS_ANONYMOUS_PER_PROCESS": "50",
		"WS_ANONYMOUS_GLOBAL": "120", "REDIS_URL": testenv.RedisURL(t)})), nil)
	if err != nil {
		t.Fatal(err)
	}
	sys := &System{Config: cfg, Logger: slog.New(slog.DiscardHandler)}
	ctx, cancel := context.WithCancel(context.Background())
	o := sys.hubOptions(ctx)
	cancel()
	defer func() { _ = sys.redis.Close() }()
	if o.Anonymous.Connections != 3 || o.AnonymousPerProcess != 50 || o.Global == nil || o.Keyed.Connections != 500 {
		t.Fatalf("hub options %+v", o)
	}
	_, err = Load(env(required(map[string]string{"WS_ANONYMOUS_PER_IP": "0", "WS_ANONYMOUS_PER_PROCESS": "many",
		"WS_ANONYMOUS_GLOBAL": "-1"})), nil)
	for _, name := range []string{"WS_ANONYMOUS_PER_IP", "WS_ANONYMOUS_PER_PROCESS", "WS_ANONYMOUS_GLOBAL"} {
		if err == nil || !strings.Contains(err.Error(), name+":") {
			t.Errorf("a bad %s is not named: %v", name, err)
		}
	}
}
