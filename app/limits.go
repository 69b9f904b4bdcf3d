package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/intentd/intentd/internal/envconf"
	"github.com/intentd/intentd/ratelimit"
)

// loadRateLimits reads the rate limits' settings (docs/api.md, "Rate limits"): REDIS_URL,
// TRUSTED_PROXIES, and the limits of callers without a key (RATE_LIMITS_ANONYMOUS: bucket=rate
// pairs over the default tier's, or off), of unknown keys per IP (RATE_LIMIT_UNKNOWN_KEY) and
// the monthly steps of GET /requests/v2 (RATE_LIMIT_REQUESTS_SCHEDULE).
func loadRateLimits(v *envconf.Vars, c *Config) {
	if c.RedisURL = strings.TrimSpace(v.Get("REDIS_URL", "")); c.RedisURL != "" {
		if _, err := redis.ParseURL(c.RedisURL); err != nil {
			// The parser's message may quote the URL, and so its password.
			v.Bad("REDIS_URL", "is not a redis:// or rediss:// URL (redis://[user:password@]host:port/db)")
		}
	}
	entries, _ := envconf.List{Sep: ",", Item: "proxy"}.Parse(v.Get("TRUSTED_PROXIES", ""))
	for _, e := range entries {
		if _, err := netip.ParsePrefix(e.Value); err != nil {
			if _, err := netip.ParseAddr(e.Value); err != nil {
				v.Bad("TRUSTED_PROXIES", "%v", e.Errorf("is neither a CIDR (10.0.0.0/8) nor an IP address"))
				continue
			}
		}
		c.TrustedProxies = append(c.TrustedProxies, e.Value)
	}
	p := ratelimit.DefaultPolicy()
	switch s := strings.TrimSpace(v.Get("RATE_LIMITS_ANONYMOUS", "")); s {
	case "off":
		p.Anonymous = nil
	default:
		over, err := ratelimit.ParseLimits(s)
		if err != nil {
			v.Bad("RATE_LIMITS_ANONYMOUS", "%v (or off)", err)
		}
		for b, r := range over {
			p.Anonymous[b] = r
		}
	}
	var err error
	if p.UnknownKey, err = ratelimit.ParseRate(v.Get("RATE_LIMIT_UNKNOWN_KEY", "10/1m")); err != nil {
		v.Bad("RATE_LIMIT_UNKNOWN_KEY", "%v", err)
	}
	if p.RequestsSchedule, err = ratelimit.ParseSchedule(v.Get("RATE_LIMIT_REQUESTS_SCHEDULE", "")); err != nil {
		v.Bad("RATE_LIMIT_REQUESTS_SCHEDULE", "%v", err)
	}
	c.RateLimits = p
}

// redisClient is the rate limiter's client of url. The limiter fails open when Redis is slow
// or down, so a request waits on Redis a fraction of a second at most, not go-redis's
// defaults of seconds; a URL's own dial_timeout, read_timeout, … win.
func redisClient(url string) (*redis.Client, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, err
	}
	set := func(d *time.Duration, to time.Duration) {
		if *d == 0 {
			*d = to
		}
	}
	set(&opt.DialTimeout, 250*time.Millisecond)
	set(&opt.ReadTimeout, 100*time.Millisecond)
	set(&opt.WriteTimeout, 100*time.Millisecond)
	set(&opt.PoolTimeout, 100*time.Millisecond)
	if opt.MaxRetries == 0 {
		opt.MaxRetries = 1
	}
	if opt.DialerRetries == 0 {
		opt.DialerRetries = 1
	}
	return redis.NewClient(opt), nil
}

// redisLog takes go-redis's own log lines (a failed dial each time it tries an unreachable
// Redis) into the process's structured log at DEBUG: the limiter reports an outage itself, at
// WARN once every 10 s.
type redisLog struct{ logger *slog.Logger }

func (r redisLog) Printf(ctx context.Context, format string, v ...any) {
	r.logger.DebugContext(ctx, fmt.Sprintf(format, v...))
}
