package api

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/records"
)

// GET /requests/v2 and its older alias GET /requests (deprecated, docs/api.md): the v2 record,
// its parameters, and on every answer the deprecation headers; after the sunset both paths
// answer 410. They share one rate bucket (ratelimit.Requests), whose 429 body names the
// successor instead of a Retry-After.

// V2Deprecation is the schedule of /requests/v2 (the spec's Versioning: deprecated 22 July
// 2026, retired 24 November 2026), configuration with those defaults.
type V2Deprecation struct {
	DeprecatedAt time.Time
	SunsetAt     time.Time
	// MigrationGuide is where the Link header and the bodies send a client to migrate.
	MigrationGuide string
}

// DefaultV2Deprecation is the spec's schedule.
func DefaultV2Deprecation() V2Deprecation {
	return V2Deprecation{DeprecatedAt: time.Date(2026, 7, 22, 0, 0, 0, 0, time.UTC),
		SunsetAt: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC), MigrationGuide: DefaultMigrationGuide}
}

// DefaultMigrationGuide is the migration section of this API's reference.
const DefaultMigrationGuide = "docs/api.md#get-requestsv2-and-requests-deprecated"

// v2Successor is the endpoint that replaces /requests/v2.
const v2Successor = "/requests/v3"

func (s *Server) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Server) v2Schedule() V2Deprecation {
	if s.V2.SunsetAt.IsZero() {
		return DefaultV2Deprecation()
	}
	return s.V2
}

// deprecateV2 puts the deprecation headers on every answer of the v2 paths (the route table's
// rows with v2; set before anything can answer, so a 4xx, a 429 or a 5xx carries them too), and
// after the sunset answers 410 itself.
func (s *Server) deprecateV2() gin.HandlerFunc {
	return func(c *gin.Context) {
		if rt := routeOf(c.FullPath()); rt == nil || !rt.v2 {
			c.Next()
			return
		}
		d := s.v2Schedule()
		h := c.Writer.Header()
		h.Set("Deprecation", "@"+strconv.FormatInt(d.DeprecatedAt.Unix(), 10))
		h.Set("Sunset", d.SunsetAt.UTC().Format(http.TimeFormat))
		h.Set("Link", "<"+d.MigrationGuide+`>; rel="deprecation", <`+d.MigrationGuide+`>; rel="sunset", <`+
			v2Successor+`>; rel="successor-version"`)
		h.Add("Access-Control-Expose-Headers", "Deprecation, Sunset, Link")
		if !s.now().Before(d.SunsetAt) {
			c.Set(ctxErrorCode, CodeGone)
			c.AbortWithStatusJSON(http.StatusGone, v2GoneJSON{ErrorCode: CodeGone,
				Message:   c.FullPath() + " was retired on " + d.SunsetAt.UTC().Format(time.DateOnly) + "; use " + v2Successor,
				Successor: v2Successor, MigrationGuide: d.MigrationGuide})
			return
		}
		c.Next()
	}
}

// v2RateLimited answers a v2 call over its limit: the spec's body, {message, successor,
// migrationGuide}, and no Retry-After.
func (s *Server) v2RateLimited(c *gin.Context, message string) {
	c.Writer.Header().Del("Retry-After")
	c.Set(ctxErrorCode, CodeRateLimited)
	c.AbortWithStatusJSON(http.StatusTooManyRequests, v2RateLimitedJSON{Message: message + "; /requests/v2 is deprecated, move to " + v2Successor,
		Successor: v2Successor, MigrationGuide: s.v2Schedule().MigrationGuide})
}

// v2Params are the parameters GET /requests/v2 reads.
var v2Params = []string{"limit", "continuation", "user", "hash", "originChainId", "destinationChainId", "chainId",
	"privateChainsToInclude", "id", "orderId", "includeOrderData", "startTimestamp", "endTimestamp", "startBlock",
	"endBlock", "referrer", "depositAddress", "includeChildRequests", "includeAuthenticatedData", "status", "apiKey",
	"sortBy", "sortDirection"}

// v2Statuses are the statuses each value of v2's status filter stands for (its `pending`
// covers the fill under way).
var v2Statuses = map[string][]string{
	"success": {"success"}, "failure": {"failure"}, "refund": {"refund"}, "depositing": {"depositing"},
	"pending": {"pending", "submitted", "delayed"},
}

func (s *Server) requestsV2(c *gin.Context) {
	v := c.Request.URL.Query()
	q, orderData, e := parseV2(v)
	if e != nil {
		abort(c, e)
		return
	}
	caller := apiKeyOf(c)
	owner := integratorOf(caller)
	if e := s.v2ReferrerPairing(c, v, caller); e != nil {
		abort(c, e)
		return
	}
	if v.Has("originChainId") || v.Has("destinationChainId") || v.Has("chainId") {
		q.NonTerminalVisibleTo = &owner // non-final requests only to their own integrator's keys
	}
	if raw := v.Get("apiKey"); raw != "" {
		found, err := s.Store.UsageKeys(c.Request.Context(), nil, [][]byte{auth.Hash(raw)})
		if err != nil {
			abort(c, &Error{Code: CodeServiceUnavailable, Message: "the API key could not be checked; retry shortly", cause: err})
			return
		}
		q.APIKeyIDs = []string{"00000000-0000-0000-0000-000000000000"} // no key: nothing matches
		if len(found) == 1 {
			q.APIKeyIDs = []string{found[0].ID}
		}
	}
	page, err := s.Store.SearchRecords(c.Request.Context(), *q)
	if err != nil {
		abort(c, &Error{Code: CodeServiceUnavailable, Message: "the requests could not be read; retry shortly", cause: err})
		return
	}
	out := make([]*records.V2Record, 0, len(page.Rows))
	for _, r := range page.Rows {
		var order json.RawMessage
		// Order data only when asked, and never for another integrator's request that is not
		// final.
		if orderData && len(r.OrderData) > 0 && (intent.Status(r.Status).Terminal() || (owner != "" && r.Integrator == owner)) {
			order = r.OrderData
		}
		rec, err := records.V2(r.Record, order)
		if err != nil {
			abort(c, &Error{Code: CodeUnknownError, Message: "a stored request could not be read", cause: err})
			return
		}
		out = append(out, rec)
	}
	d := s.v2Schedule()
	body := requestsV2JSON{Requests: out, Deprecation: v2DeprecationJSON{
		Message:      "GET /requests/v2 is deprecated and is retired on " + d.SunsetAt.UTC().Format(time.DateOnly) + "; move to " + v2Successor,
		DeprecatedAt: d.DeprecatedAt.UTC().Format(time.RFC3339), ThrottledFrom: d.DeprecatedAt.UTC().Format(time.RFC3339),
		SunsetAt: d.SunsetAt.UTC().Format(time.RFC3339), Successor: v2Successor, MigrationGuide: d.MigrationGuide}}
	if page.Next != nil {
		body.Continuation = page.Next.Encode()
	}
	c.JSON(http.StatusOK, body)
}

// v2ReferrerPairing applies v3's rule to v2's referrer filter (the spec's Authentication rule 3;
// review L20): the referrer is owner-only, so filtering on it without the pairing would tell
// anyone which requests carry a referrer. A referrer filter needs apiKey, a caller with a key
// (x-api-key; v2 is otherwise keyless), and every apiKey the caller's or its integrator's.
func (s *Server) v2ReferrerPairing(c *gin.Context, v url.Values, caller *auth.Key) *Error {
	if !v.Has("referrer") {
		return nil
	}
	if v.Get("apiKey") == "" {
		return invalidInput("a referrer filter must be paired with apiKey")
	}
	if caller == nil {
		return &Error{Code: CodeUnauthorized, Message: "a referrer filter needs the caller's API key (x-api-key)"}
	}
	_, e := s.searchKeys(c.Request.Context(), caller, v["apiKey"], nil)
	return e
}

// parseV2 reads GET /requests/v2's parameters into a search; orderData is includeOrderData.
func parseV2(v url.Values) (q *records.Query, orderData bool, e *Error) {
	for name := range v {
		if !slices.Contains(v2Params, name) {
			return nil, false, invalidInput("unknown query parameter " + strconv.Quote(name))
		}
	}
	q = &records.Query{Sort: records.SortCreatedAt, Desc: true}
	if q.Limit, e = intParam(v, "limit", records.DefaultLimit); e != nil {
		return nil, false, e
	}
	for param, key := range map[string]records.Key{"user": records.KeyV2User, "hash": records.KeyTxHash, "id": records.KeyID,
		"orderId": records.KeyOrderID, "depositAddress": records.KeyDepositAddress} {
		if e = addCond(q, key, v[param], false); e != nil {
			return nil, false, e
		}
	}
	// originChainId and destinationChainId override chainId.
	if v.Has("originChainId") || v.Has("destinationChainId") {
		for _, k := range []records.Key{records.KeyOriginChainID, records.KeyDestinationChainID} {
			if e = addCond(q, k, v[string(k)], false); e != nil {
				return nil, false, e
			}
		}
	} else if e = addCond(q, records.KeyChainID, v["chainId"], false); e != nil {
		return nil, false, e
	}
	if v.Has("referrer") {
		if e = addCond(q, records.KeyReferrer, v["referrer"], false); e != nil {
			return nil, false, e
		}
	}
	if st := v.Get("status"); st != "" {
		statuses, ok := v2Statuses[st]
		if !ok {
			return nil, false, invalidInput("status must be success, failure, refund, pending or depositing")
		}
		q.Conds = append(q.Conds, records.Cond{Key: records.KeyStatus, Values: statuses})
	}
	var private bool
	for name, dst := range map[string]*bool{"includeOrderData": &orderData, "includeChildRequests": &q.IncludeChildren,
		"includeAuthenticatedData": &private} {
		if *dst, e = boolParam(v, name); e != nil {
			return nil, false, e
		}
	}
	switch sb := v.Get("sortBy"); sb {
	case "", "createdAt":
	case "updatedAt":
		q.Sort = records.SortUpdatedAt
	default:
		return nil, false, invalidInput("sortBy must be createdAt or updatedAt")
	}
	switch v.Get("sortDirection") {
	case "", "desc":
	case "asc":
		q.Desc = false
	default:
		return nil, false, invalidInput("sortDirection must be asc or desc")
	}
	if raw := v.Get("continuation"); raw != "" {
		cur, err := records.DecodeCursor(raw)
		if err != nil {
			return nil, false, invalidInput(err.Error())
		}
		q.After = cur
	}
	times := url.Values{"startTimestamp": v["startTimestamp"], "endTimestamp": v["endTimestamp"],
		"startBlock": v["startBlock"], "endBlock": v["endBlock"]}
	if e = parseRanges(times, q); e != nil {
		return nil, false, e
	}
	q.TimesAreUpdates = false // v2's timestamps are on the creation time
	q.WithOrderData = orderData
	if err := q.Validate(); err != nil {
		return nil, false, invalidInput(err.Error())
	}
	return q, orderData, nil
}
