package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Slots counts something every API process holds for a while (the websocket stream's anonymous
// connections) against one cap across the processes, in the Redis the rate limits share.
//
// Each process keeps its own count in one field of a Redis hash, under a random id of its own,
// and takes a slot with one script that forgets the processes no longer alive, sums the fields
// of the others and adds one to its own only if the sum is under the cap. A process rewrites its
// field from its count in memory (the truth) every SlotsOptions.Beat and counts as alive for
// SlotsOptions.TTL after: the slots of a process that died without releasing them are freed
// within TTL, and a release that Redis missed is corrected by the next beat.
//
// Without Redis (nil client), and while Redis does not answer, a process admits up to its share
// of the cap: the cap divided by the number of processes it last saw alive (itself alone if it
// never saw Redis answer). Like the rate limits, it fails open to a limit of its own rather than
// refusing everyone or admitting without bound; each slot so decided is counted (FailOpen).
type Slots struct {
	redis  *redis.Client // nil: in process only
	hash   string        // process id -> slots held
	alive  string        // sorted set: process id -> when it stops counting as alive (Redis ms)
	id     string
	cap    int
	ttl    time.Duration
	beat   time.Duration
	logger *slog.Logger

	held     atomic.Int64 // this process's slots
	procs    atomic.Int64 // the processes alive at Redis's last answer, at least 1
	pausedTo atomic.Int64 // Unix ns: Redis is not asked before then
	warnedAt atomic.Int64
	failOpen atomic.Uint64
}

// SlotsOptions configure Slots.
type SlotsOptions struct {
	// Redis is the rate limits' Redis; nil counts in this process only.
	Redis *redis.Client
	// Prefix starts the Redis keys, as Options.Prefix ("intentd:" when empty); Name follows it.
	Prefix, Name string
	// Cap is how many slots every process together holds at most.
	Cap int
	// Beat is how often a process writes its count (5 s when 0), TTL how long after its last
	// write it counts as alive (15 s when 0).
	Beat, TTL time.Duration
	Logger    *slog.Logger
}

// NewSlots returns the slots of o.Name; Run keeps this process's count alive in Redis.
func NewSlots(o SlotsOptions) *Slots {
	if o.Prefix == "" {
		o.Prefix = "intentd:"
	}
	if o.Beat <= 0 {
		o.Beat = 5 * time.Second
	}
	if o.TTL <= 0 {
		o.TTL = 3 * o.Beat
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	s := &Slots{redis: o.Redis, hash: o.Prefix + o.Name + ":held", alive: o.Prefix + o.Name + ":alive", id: hex.EncodeToString(b),
		cap: o.Cap, ttl: o.TTL, beat: o.Beat, logger: o.Logger}
	s.procs.Store(1)
	return s
}

// FailOpen is how many slots were decided in this process alone because Redis did not answer.
func (s *Slots) FailOpen() uint64 { return s.failOpen.Load() }

// Held is how many slots this process holds.
func (s *Slots) Held() int64 { return s.held.Load() }

// acquireScript: KEYS hash, alive; ARGV id, ttl ms, cap. Answers {taken (0|1), processes alive}.
var acquireScript = redis.NewScript(`
redis.replicate_commands()
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
local dead = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)
for _, p in ipairs(dead) do redis.call('HDEL', KEYS[1], p) end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZADD', KEYS[2], now + ttl, ARGV[1])
redis.call('PEXPIRE', KEYS[2], ttl)
local procs = redis.call('ZCARD', KEYS[2])
local total = 0
for _, v in ipairs(redis.call('HVALS', KEYS[1])) do total = total + tonumber(v) end
if total >= tonumber(ARGV[3]) then return {0, procs} end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('PEXPIRE', KEYS[1], ttl)
return {1, procs}
`)

// releaseScript: KEYS hash; ARGV id. A process forgotten as dead meanwhile has no field to lower.
var releaseScript = redis.NewScript(`
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 and redis.call('HINCRBY', KEYS[1], ARGV[1], -1) < 0 then
  redis.call('HSET', KEYS[1], ARGV[1], 0)
end
return 0
`)

// beatScript: KEYS hash, alive; ARGV id, ttl ms, held. Answers the processes alive.
var beatScript = redis.NewScript(`
redis.replicate_commands()
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[2], now + ttl, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
return redis.call('ZCOUNT', KEYS[2], now, '+inf')
`)

// leaveScript: KEYS hash, alive; ARGV id. A process that stops frees its slots at once.
var leaveScript = redis.NewScript(`
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 0
`)

// Acquire takes a slot and reports whether it got one; each slot taken is given back with
// Release.
func (s *Slots) Acquire(ctx context.Context) bool {
	held := s.held.Add(1) // counted before Redis is asked: a beat meanwhile over-counts, never under
	if s.redis != nil && time.Now().UnixNano() >= s.pausedTo.Load() {
		res, err := acquireScript.Run(ctx, s.redis, []string{s.hash, s.alive}, s.id, s.ttl.Milliseconds(), s.cap).Int64Slice()
		if err == nil && len(res) == 2 {
			s.procs.Store(max(res[1], 1))
			if res[0] == 1 {
				return true
			}
			s.held.Add(-1)
			return false
		}
		s.failed(ctx, err)
	}
	if s.redis != nil {
		s.failOpen.Add(1)
	}
	if held > int64(s.cap)/s.procs.Load() {
		s.held.Add(-1)
		return false
	}
	return true
}

// Release gives back a slot Acquire took.
func (s *Slots) Release(ctx context.Context) {
	s.held.Add(-1)
	if s.redis == nil || time.Now().UnixNano() < s.pausedTo.Load() {
		return
	}
	if err := releaseScript.Run(ctx, s.redis, []string{s.hash}, s.id).Err(); err != nil {
		s.failed(ctx, err) // the next beat writes the count
	}
}

// Run writes this process's count every Beat until ctx ends, then takes it out of Redis.
func (s *Slots) Run(ctx context.Context) {
	if s.redis == nil {
		return
	}
	t := time.NewTicker(s.beat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
			_ = leaveScript.Run(lctx, s.redis, []string{s.hash, s.alive}, s.id).Err()
			cancel()
			return
		case <-t.C:
			n, err := beatScript.Run(ctx, s.redis, []string{s.hash, s.alive}, s.id, s.ttl.Milliseconds(), s.held.Load()).Int64()
			if err != nil {
				s.failed(ctx, err)
				continue
			}
			s.procs.Store(max(n, 1))
			s.pausedTo.Store(0)
		}
	}
}

// failed pauses Redis for redisPause and warns at most every warnEvery, as the limiter does.
func (s *Slots) failed(ctx context.Context, err error) {
	if ctx.Err() != nil {
		return
	}
	now := time.Now().UnixNano()
	s.pausedTo.Store(now + int64(redisPause))
	last := s.warnedAt.Load()
	if now-last >= int64(warnEvery) && s.warnedAt.CompareAndSwap(last, now) {
		s.logger.Warn("shared connection cap: redis did not answer, capping this process at its share", "error", err,
			"share", int64(s.cap)/s.procs.Load())
	}
}
