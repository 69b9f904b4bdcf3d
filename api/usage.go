package api

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/usage"
)

// countUsage counts every call once it is answered, by key, endpoint (its row's usage endpoint in
// the route table: the route pattern unless the row says otherwise; never the raw path), status
// and errorCode, in memory (package usage). It is the first middleware, so it sees the status of
// everything after it: a panic turned into a 500, a call refused before its handler. A call
// whose key did not resolve, or could not be looked up, counts as anonymous.
func (s *Server) countUsage() gin.HandlerFunc {
	return func(c *gin.Context) {
		c.Next()
		endpoint := c.FullPath()
		if rt := routeOf(endpoint); rt != nil {
			endpoint = rt.usageEndpoint()
		} else if endpoint == "" {
			endpoint = usage.Unrouted
		}
		s.Usage.Record(usageKeyID(c), endpoint, c.Writer.Status(), errorCodeOf(c))
	}
}

// usageKeyID is the id of the key a call is counted under, "" for none.
func usageKeyID(c *gin.Context) string {
	if k := apiKeyOf(c); k != nil {
		return k.ID
	}
	return ""
}

// integratorOf is the integrator that owns k ("" for no key): the one place that knows where a
// key keeps it.
func integratorOf(k *auth.Key) string {
	if k == nil {
		return ""
	}
	return k.Integrator.ID
}

// usageFinalFlush bounds the graceful stop's last flush of the usage counts.
const usageFinalFlush = 10 * time.Second

// startUsage runs the usage recorder's flush and prune loop until the returned stop is called;
// stop then flushes what the served calls counted (Run calls it once the server has shut down,
// so nothing a served call counted is lost on a graceful stop).
func (s *Server) startUsage() (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.Usage.Run(ctx) }()
	return func() {
		cancel()
		<-done
		fctx, fcancel := context.WithTimeout(context.Background(), usageFinalFlush)
		defer fcancel()
		if err := s.Usage.FlushAll(fctx); err != nil {
			s.Logger.Error("usage counts lost at stop", "error", err, "calls", s.Usage.Held())
		}
	}
}

// maxUsageKeys is the most keys one GET /metrics/usage may name (the spec's limit).
const maxUsageKeys = 50

// usageMetricJSON is one row of GET /metrics/usage. apiKey is the key's prefix: the key itself
// is never held, and the prefix is how the key is recognised in lists; apiKeyId is exact.
type usageMetricJSON struct {
	APIKey     string `json:"apiKey"`
	APIKeyID   string `json:"apiKeyId"`
	Timestamp  string `json:"timestamp"`
	Endpoint   string `json:"endpoint"`
	StatusCode int    `json:"statusCode"`
	ErrorCode  string `json:"errorCode,omitempty"`
	Count      int64  `json:"count"`
}

// usageMetrics is GET /metrics/usage: the call counts of the caller's key, or of the keys
// `apiKey` names (ids or values, all of the caller's integrator), summed by the granularity's
// buckets over the window. The route requires a key (requireKey).
func (s *Server) usageMetrics(c *gin.Context) {
	caller := apiKeyOf(c)
	q, e := parseUsageQuery(c, time.Now())
	if e != nil {
		abort(c, e)
		return
	}
	keys, e := s.usageKeys(c.Request.Context(), caller, q.values)
	if e != nil {
		abort(c, e)
		return
	}
	ids := make([]string, len(keys))
	prefixes := make(map[string]string, len(keys))
	for i, k := range keys {
		ids[i], prefixes[k.ID] = k.ID, k.Prefix
	}
	counts, err := s.Store.Usage(c.Request.Context(), store.UsageQuery{KeyIDs: ids, From: q.from, To: q.to, Step: q.granularity.Step()})
	if err != nil {
		abort(c, &Error{Code: CodeServiceUnavailable, Message: "usage metrics are temporarily unavailable", cause: err})
		return
	}
	out := make([]usageMetricJSON, len(counts))
	for i, n := range counts {
		out[i] = usageMetricJSON{APIKey: prefixes[n.KeyID], APIKeyID: n.KeyID, Timestamp: n.Time.Format(time.RFC3339),
			Endpoint: n.Endpoint, StatusCode: n.Status, ErrorCode: n.ErrorCode, Count: n.N}
	}
	c.JSON(http.StatusOK, usageJSON{Metrics: out})
}

// usageQuery is a parsed GET /metrics/usage: the granularity, the minutes from..to (both
// included) and the keys asked about (none: the caller's).
type usageQuery struct {
	granularity usage.Granularity
	from, to    time.Time
	values      []string
}

// parseUsageQuery reads granularity (default minutely), startTimestamp and endTimestamp (Unix
// seconds; end defaults to now, start to the granularity's default window before end) and
// apiKey (a comma-separated list of up to 50 distinct keys or key ids).
func parseUsageQuery(c *gin.Context, now time.Time) (usageQuery, *Error) {
	q := usageQuery{granularity: usage.Minutely, to: now}
	if g := c.Query("granularity"); g != "" {
		q.granularity = usage.Granularity(g)
		if !q.granularity.Valid() {
			return q, invalidInput("granularity must be minutely, hourly or daily")
		}
	}
	var e *Error
	if q.to, e = unixParam(c, "endTimestamp", now); e != nil {
		return q, e
	}
	if q.from, e = unixParam(c, "startTimestamp", q.to.Add(-q.granularity.DefaultWindow())); e != nil {
		return q, e
	}
	switch {
	case q.from.After(q.to):
		return q, invalidInput("startTimestamp is after endTimestamp")
	case q.to.Sub(q.from) > q.granularity.MaxWindow():
		return q, invalidInput("the window is wider than " + string(q.granularity) + " allows (" + q.granularity.MaxWindow().String() + ")")
	}
	q.from = q.from.Truncate(time.Minute) // the minute a window starts inside counts
	if raw, ok := c.GetQuery("apiKey"); ok {
		for v := range strings.SplitSeq(raw, ",") {
			v = strings.TrimSpace(v)
			if v == "" {
				return q, invalidInput("apiKey has an empty entry")
			}
			if !slices.Contains(q.values, v) {
				q.values = append(q.values, v)
			}
		}
		if len(q.values) > maxUsageKeys {
			return q, invalidInput("apiKey names more than " + strconv.Itoa(maxUsageKeys) + " keys")
		}
	}
	return q, nil
}

// unixParam reads the query parameter name as Unix seconds, def when absent.
func unixParam(c *gin.Context, name string, def time.Time) (time.Time, *Error) {
	raw := c.Query(name)
	if raw == "" {
		return def, nil
	}
	return parseUnix(name, raw)
}

// parseUnix reads raw, the value of parameter name, as Unix seconds.
func parseUnix(name, raw string) (time.Time, *Error) {
	sec, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || sec < 0 || sec > 1<<40 {
		return time.Time{}, invalidInput(name + " must be Unix seconds")
	}
	return time.Unix(sec, 0).UTC(), nil
}

// usageKeys resolves the keys a usage query asks about: the caller's own when values is empty,
// else each value as a key id (a UUID) or a key (matched by its hash). Every one must be the
// caller's or its integrator's: one that is not, or that is no key at all, is 403 without
// saying which, so the answer tells nothing about other integrators' keys.
func (s *Server) usageKeys(ctx context.Context, caller *auth.Key, values []string) ([]store.UsageKey, *Error) {
	if len(values) == 0 {
		return []store.UsageKey{{ID: caller.ID, Prefix: caller.Prefix}}, nil
	}
	var ids []string
	var hashes [][]byte
	for _, v := range values {
		if id, err := uuid.Parse(v); err == nil {
			ids = append(ids, id.String())
		} else {
			hashes = append(hashes, auth.Hash(v))
		}
	}
	found, err := s.Store.UsageKeys(ctx, ids, hashes)
	if err != nil {
		return nil, &Error{Code: CodeServiceUnavailable, Message: "the API keys could not be checked; retry shortly", cause: err}
	}
	owner := integratorOf(caller)
	var out []store.UsageKey
	for _, k := range found {
		if k.ID != caller.ID && (owner == "" || k.Integrator != owner) {
			return nil, errForeignKeys
		}
		if !slices.ContainsFunc(out, func(o store.UsageKey) bool { return o.ID == k.ID }) {
			out = append(out, k)
		}
	}
	if matched(ids, hashes, found) {
		return out, nil
	}
	return nil, errForeignKeys
}

// matched reports whether every id and hash asked about was found.
func matched(ids []string, hashes [][]byte, found []store.UsageKey) bool {
	for _, id := range ids {
		if !slices.ContainsFunc(found, func(k store.UsageKey) bool { return k.ID == id }) {
			return false
		}
	}
	for _, h := range hashes {
		if !slices.ContainsFunc(found, func(k store.UsageKey) bool { return string(k.Hash) == string(h) }) {
			return false
		}
	}
	return true
}

// errForeignKeys answers a usage query naming a key that is not the caller's integrator's.
var errForeignKeys = &Error{Code: CodeForbidden, Message: "apiKey names a key that is not yours"}
