package api

import (
	"context"
	"math"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/ratelimit"
)

// limitRequests counts every request against its rate limits (package ratelimit): per API key,
// or per client IP without one, in the bucket of its route group (its row's in the route table).
// Over a limit it answers 429 RATE_LIMITED with Retry-After; every limited answer carries the
// IETF RateLimit-Policy and RateLimit fields (draft-ietf-httpapi-ratelimit-headers), so a client
// can slow down before it is refused. /lives (health checks) is not limited, nor is the admin
// API, which is served on a listener of its own without this middleware (its own credential, and
// its own limit on failed attempts); POST /authorize is counted by its handler, the only one that
// knows the wallet its (key, wallet) bucket is counted by.
func (s *Server) limitRequests() gin.HandlerFunc {
	return func(c *gin.Context) {
		if !s.limited(c) {
			c.Next()
			return
		}
		if s.limit(c, s.callerOf(c), bucketOf(c.FullPath())) {
			c.Next()
		}
	}
}

// callerOf is who the request counts against: its key, or its client IP (and whether it
// presented a key that is no live key, not counted yet).
func (s *Server) callerOf(c *gin.Context) ratelimit.Caller {
	key := callerKey(c)
	return ratelimit.Caller{Key: key, IP: c.ClientIP(),
		UnknownKey: key == nil && !keyUnchecked(c) && presentedKey(c) != "" && !c.GetBool(ctxLookupCounted)}
}

// limited reports whether limitRequests counts the request: every route with a bucket in the
// route table (routes.go), and every path the API does not serve (ratelimit.Other).
func (s *Server) limited(c *gin.Context) bool {
	bucket := bucketOf(c.FullPath())
	return s.Limits != nil && bucket != "" && bucket != ratelimit.Authorize
}

// ctxLookupCounted marks a request whose presented key was counted against its IP's unknown-key
// bucket before it was looked up (lookupGate): limitRequests does not count it again.
const ctxLookupCounted = "apiKeyLookupCounted"

// lookupGate counts a presented key that the API process has never found live against the
// caller's unknown-key bucket before the database is asked about it (review L3; the resolver asks
// it, auth.LookupGate, once per lookup however many requests share it). Over the bucket, the
// lookup is refused (lookupRefused) and the request answered 429 without a query: an IP that has
// used up its guesses costs no lookup at all, however many random ik_… keys it sends, and a flood
// of them never reaches the lookups' semaphore. A key found live before is not counted (a known
// key is never refused for its neighbours' guesses); a key's first use on a process costs one
// guess, once. It holds no gin.Context: a shared lookup may outlive the request that started it.
type lookupGate struct {
	limits  *ratelimit.Limiter
	ip      string
	counted atomic.Bool
}

// lookupRefused is the gate's refusal: the unknown-key bucket's results, for the 429.
type lookupRefused struct{ results []ratelimit.Result }

func (e *lookupRefused) Error() string { return "key lookup refused: unknown-key rate limit" }

func (g *lookupGate) check(ctx context.Context) error {
	results := g.limits.AllowLookup(ctx, g.ip)
	if len(results) == 0 {
		return nil
	}
	g.counted.Store(true)
	if results[len(results)-1].Allowed {
		return nil
	}
	return &lookupRefused{results: results}
}

// limit counts caller's request to bucket and reports whether it is admitted; when it is not,
// the request has been answered 429.
func (s *Server) limit(c *gin.Context, caller ratelimit.Caller, bucket string) bool {
	return s.answerLimits(c, s.Limits.Allow(c.Request.Context(), caller, bucket), bucket)
}

// answerLimits sets the rate-limit fields of results on the answer and reports whether the
// request is admitted; when it is not, it answers 429 (the deprecated v2's body on its bucket).
func (s *Server) answerLimits(c *gin.Context, results []ratelimit.Result, bucket string) bool {
	if len(results) == 0 {
		return true
	}
	h := c.Writer.Header()
	h.Add("Access-Control-Expose-Headers", "RateLimit-Policy, RateLimit, Retry-After")
	policy, state := make([]byte, 0, 64), make([]byte, 0, 64)
	for i, r := range results {
		if i > 0 {
			policy, state = append(policy, ", "...), append(state, ", "...)
		}
		policy = strconv.AppendInt(append(strconv.AppendQuote(policy, r.Bucket), ";q="...), int64(r.Rate.Count), 10)
		policy = strconv.AppendInt(append(policy, ";w="...), ceilSeconds(r.Rate.Period), 10)
		reset := r.ResetAfter
		if !r.Allowed {
			reset = r.RetryAfter
		}
		state = strconv.AppendInt(append(strconv.AppendQuote(state, r.Bucket), ";r="...), int64(r.Remaining), 10)
		state = strconv.AppendInt(append(state, ";t="...), ceilSeconds(reset), 10)
	}
	h.Set("RateLimit-Policy", string(policy))
	h.Set("RateLimit", string(state))
	last := results[len(results)-1]
	if last.Allowed {
		return true
	}
	wait := max(ceilSeconds(last.RetryAfter), 1)
	message := "rate limit reached for " + last.Bucket + " (" + strconv.Itoa(last.Rate.Count) + " per " +
		strconv.FormatInt(ceilSeconds(last.Rate.Period), 10) + " s)"
	if bucket == ratelimit.Requests { // deprecated v2: the spec's body, no Retry-After
		s.v2RateLimited(c, message)
		return false
	}
	h.Set("Retry-After", strconv.FormatInt(wait, 10))
	abort(c, &Error{Code: CodeRateLimited, Message: message + "; retry in " + strconv.FormatInt(wait, 10) + " s"})
	return false
}

// ceilSeconds is d in whole seconds, rounded up: the fields' unit.
func ceilSeconds(d time.Duration) int64 { return int64(math.Ceil(d.Seconds())) }

// callerKey is the request's API key as the limiter sees it: its tier, its own limits, and
// Unlimited for the dev key.
func callerKey(c *gin.Context) *auth.Key { return apiKeyOf(c) }
