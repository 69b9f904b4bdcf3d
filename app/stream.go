package app

import (
	"context"
	"strconv"

	"github.com/intentd/intentd/events"
	"github.com/intentd/intentd/internal/envconf"
	"github.com/intentd/intentd/ratelimit"
	"github.com/intentd/intentd/store"
)

// StreamLimits bound the websocket stream's connections without an API key (review M4).
type StreamLimits struct {
	// PerClient (WS_ANONYMOUS_PER_IP, 10) is how many one IP holds at once, an IPv6 client
	// counted by its /64 as the HTTP limits count it.
	PerClient int
	// PerProcess (WS_ANONYMOUS_PER_PROCESS, 2000) is how many one API process holds at once.
	PerProcess int
	// Global (WS_ANONYMOUS_GLOBAL, 10000) is how many every API process together holds at once,
	// counted in REDIS_URL's Redis; without REDIS_URL, PerProcess alone bounds each process, and
	// while Redis does not answer a process takes its share of Global (ratelimit.Slots).
	Global int
}

// loadStream reads the websocket stream's caps of connections without a key.
func loadStream(v *envconf.Vars, c *Config) {
	d := events.DefaultHubOptions
	c.Stream.PerClient = v.IntRange("WS_ANONYMOUS_PER_IP", strconv.Itoa(d.Anonymous.Connections), 1, 10_000)
	c.Stream.PerProcess = v.IntRange("WS_ANONYMOUS_PER_PROCESS", strconv.Itoa(d.AnonymousPerProcess), 1, 1_000_000)
	c.Stream.Global = v.IntRange("WS_ANONYMOUS_GLOBAL", "10000", 1, 100_000_000)
	if c.Stream.PerClient > c.Stream.PerProcess {
		v.Bad("WS_ANONYMOUS_PER_IP", "%d exceeds WS_ANONYMOUS_PER_PROCESS (%d)", c.Stream.PerClient, c.Stream.PerProcess)
	}
}

// hubOptions are the websocket hub's options under the configured caps; the global cap counts
// through the rate limits' Redis, whose slots keep this process's count alive there until ctx
// ends.
func (s *System) hubOptions(ctx context.Context) events.HubOptions {
	o := events.DefaultHubOptions
	o.Logger = s.Logger.With("component", "websocket")
	o.Anonymous.Connections = s.Config.Stream.PerClient
	o.AnonymousPerProcess = s.Config.Stream.PerProcess
	if rc := s.redisClient(); rc != nil {
		slots := ratelimit.NewSlots(ratelimit.SlotsOptions{Redis: rc, Name: "ws-anonymous", Cap: s.Config.Stream.Global,
			Logger: o.Logger})
		go slots.Run(ctx)
		o.Global = slots
	}
	return o
}

// newHub is the API's websocket hub over st.
func (s *System) newHub(ctx context.Context, st *store.Store) *events.Hub {
	return events.NewHub(st, s.hubOptions(ctx))
}
