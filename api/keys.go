package api

import (
	"errors"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/auth"
)

const (
	ctxAPIKey          = "apiKey"
	ctxAPIKeyUnchecked = "apiKeyUnchecked"
)

// authenticate resolves an optional x-api-key (auth.Resolver). A value that is no live key is
// treated as no key here; endpoints that require one say so themselves (requireKey, the quote
// engine's referrer and sponsorship rules). A key that could not be looked up (the database
// did not answer) is not "no key": it is marked (keyUnchecked), so that an endpoint for which
// the key matters answers 503 and the client retries, instead of serving the request as
// anonymous (a referrer refused with 401, a quote stored without its owner). The websocket
// stream takes its key as ?apiKey= (browsers cannot set a header on a websocket), so on that
// route the query parameter stands in for a missing header. A key this process has never found
// live is counted against the IP's unknown-key limit before it is looked up (lookupGate). The
// key value is never logged.
func (s *Server) authenticate() gin.HandlerFunc {
	return func(c *gin.Context) {
		if v := presentedKey(c); v != "" {
			ctx := c.Request.Context()
			var gate *lookupGate
			if s.limited(c) {
				gate = &lookupGate{limits: s.Limits, ip: c.ClientIP()}
				ctx = auth.WithLookupGate(ctx, gate.check)
			}
			key, err := s.Keys.Resolve(ctx, v)
			if gate != nil && gate.counted.Load() {
				c.Set(ctxLookupCounted, true)
			}
			var refused *lookupRefused
			switch {
			case errors.As(err, &refused):
				s.answerLimits(c, refused.results, bucketOf(c.FullPath()))
				return
			case err != nil:
				s.Logger.Error("api key lookup failed", "path", c.FullPath(), "error", err)
				c.Set(ctxAPIKeyUnchecked, true)
			case key != nil:
				c.Set(ctxAPIKey, key)
			}
		}
		c.Next()
	}
}

// presentedKey is the key a request presents: x-api-key, or on GET /ws the apiKey parameter.
func presentedKey(c *gin.Context) string {
	v := c.GetHeader("x-api-key")
	if v == "" && c.FullPath() == wsRoute {
		v = c.Query("apiKey")
	}
	return v
}

// keyUnchecked reports whether the request's x-api-key could not be looked up.
func keyUnchecked(c *gin.Context) bool { return c.GetBool(ctxAPIKeyUnchecked) }

// apiKeyOf is the request's resolved key, nil when it sent none or one that is no live key.
func apiKeyOf(c *gin.Context) *auth.Key {
	if v, ok := c.Get(ctxAPIKey); ok {
		return v.(*auth.Key)
	}
	return nil
}

// errKeyUnchecked answers a request whose key matters but could not be looked up: retryable.
var errKeyUnchecked = &Error{Code: CodeServiceUnavailable, Message: "the API key could not be checked; retry shortly"}

// requireKey guards an endpoint that requires an API key (the spec's Authentication table:
// GET /requests/v3, POST /execute, GET /metrics/usage): no key, or one that is no live key, is
// 401 UNAUTHORIZED; a key that could not be checked is 503 SERVICE_UNAVAILABLE, never served as
// anonymous. Register it before the handler: r.GET(path, s.requireKey(), handler).
func (s *Server) requireKey() gin.HandlerFunc {
	return func(c *gin.Context) {
		switch {
		case keyUnchecked(c):
			abort(c, errKeyUnchecked)
		case apiKeyOf(c) == nil:
			abort(c, &Error{Code: CodeUnauthorized, Message: "a valid x-api-key is required"})
		default:
			c.Next()
		}
	}
}
