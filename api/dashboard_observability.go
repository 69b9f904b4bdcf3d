package api

import (
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/usage"
)

// GET /dashboard/api/observability (docs/dashboard.md, Observability): the integrator's call
// volume, errors by code and 429 pressure by endpoint and by key over a range, summed from the
// usage counts GET /metrics/usage reads (api_usage), for the dashboard's charts. Every role;
// support sees each key by its label only.

type obsBucketJSON struct {
	T           int64 `json:"t"` // the bucket's start, Unix seconds
	Calls       int64 `json:"calls"`
	Errors      int64 `json:"errors"`
	RateLimited int64 `json:"rateLimited"`
}

type obsCodeJSON struct {
	Code  string `json:"code"`
	Count int64  `json:"count"`
}

type obsEndpointJSON struct {
	Endpoint string `json:"endpoint"`
	Count    int64  `json:"count"`
}

type obsKeyJSON struct {
	APIKeyID string `json:"apiKeyId,omitempty"`
	Label    string `json:"label"`
	Count    int64  `json:"count"`
}

type observabilityJSON struct {
	From                  int64             `json:"from"`
	To                    int64             `json:"to"`
	Granularity           usage.Granularity `json:"granularity" enum:"minutely,hourly,daily"`
	Buckets               []obsBucketJSON   `json:"buckets"`
	ErrorsByCode          []obsCodeJSON     `json:"errorsByCode"`
	RateLimitedByEndpoint []obsEndpointJSON `json:"rateLimitedByEndpoint"`
	RateLimitedByKey      []obsKeyJSON      `json:"rateLimitedByKey"`
}

// observabilityRange reads granularity (default minutely), from and to (Unix seconds; to
// defaults to now, from to the granularity's default window before to), with the same
// defaults and widest windows as GET /metrics/usage.
func observabilityRange(c *gin.Context, now time.Time) (g usage.Granularity, from, to time.Time, e *Error) {
	g = usage.Minutely
	if raw := c.Query("granularity"); raw != "" {
		if g = usage.Granularity(raw); !g.Valid() {
			return g, from, to, invalidInput("granularity must be minutely, hourly or daily")
		}
	}
	if to, e = unixParam(c, "to", now); e != nil {
		return
	}
	if from, e = unixParam(c, "from", to.Add(-g.DefaultWindow())); e != nil {
		return
	}
	switch {
	case from.After(to):
		e = invalidInput("from is after to")
	case to.Sub(from) > g.MaxWindow():
		e = invalidInput("the range is wider than " + string(g) + " allows (" + g.MaxWindow().String() + ")")
	}
	return g, from.Truncate(time.Minute), to, e
}

func (s *Server) dashboardObservability(c *gin.Context) {
	g, from, to, e := observabilityRange(c, time.Now().UTC())
	if e != nil {
		abort(c, e)
		return
	}
	u := dashboardUser(c)
	keys, err := s.Store.APIKeys(c.Request.Context(), u.IntegratorID)
	if err != nil {
		s.dashboardStoreError(c, err, CodeIntegratorNotFound)
		return
	}
	labels := make(map[string]string, len(keys))
	ids := make([]string, 0, len(keys))
	for _, k := range keys {
		labels[k.ID] = k.Label
		ids = append(ids, k.ID)
	}
	if raw := c.Query("apiKeyId"); raw != "" {
		if _, ok := labels[raw]; !ok {
			abort(c, &Error{Code: CodeAPIKeyNotFound, Message: "apiKeyId is not one of your keys"})
			return
		}
		ids = []string{raw}
	}
	step := g.Step()
	out := observabilityJSON{From: from.Unix(), To: to.Unix(), Granularity: g, Buckets: []obsBucketJSON{},
		ErrorsByCode: []obsCodeJSON{}, RateLimitedByEndpoint: []obsEndpointJSON{}, RateLimitedByKey: []obsKeyJSON{}}
	// Every bucket of the range is answered, the empty ones as zeros, so a chart has no gaps.
	index := map[int64]int{}
	for t := from.Truncate(step); !t.After(to); t = t.Add(step) {
		index[t.Unix()] = len(out.Buckets)
		out.Buckets = append(out.Buckets, obsBucketJSON{T: t.Unix()})
	}
	var counts []usage.Count
	if len(ids) > 0 {
		if counts, err = s.Store.Usage(c.Request.Context(), store.UsageQuery{KeyIDs: ids, From: from, To: to, Step: step}); err != nil {
			abort(c, &Error{Code: CodeServiceUnavailable, Message: "usage metrics are temporarily unavailable", cause: err})
			return
		}
	}
	byCode, byEndpoint, byKey := map[string]int64{}, map[string]int64{}, map[string]int64{}
	for _, n := range counts {
		i, ok := index[n.Time.Unix()]
		if !ok {
			continue
		}
		b := &out.Buckets[i]
		b.Calls += n.N
		if n.Status >= http.StatusBadRequest {
			b.Errors += n.N
			code := n.ErrorCode
			if code == "" {
				code = "HTTP_" + strconv.Itoa(n.Status)
			}
			byCode[code] += n.N
		}
		if n.Status == http.StatusTooManyRequests {
			b.RateLimited += n.N
			byEndpoint[n.Endpoint] += n.N
			byKey[n.KeyID] += n.N
		}
	}
	for code, n := range byCode {
		out.ErrorsByCode = append(out.ErrorsByCode, obsCodeJSON{Code: code, Count: n})
	}
	slices.SortFunc(out.ErrorsByCode, func(a, b obsCodeJSON) int { return cmpCount(a.Count, b.Count, a.Code, b.Code) })
	for ep, n := range byEndpoint {
		out.RateLimitedByEndpoint = append(out.RateLimitedByEndpoint, obsEndpointJSON{Endpoint: ep, Count: n})
	}
	slices.SortFunc(out.RateLimitedByEndpoint, func(a, b obsEndpointJSON) int { return cmpCount(a.Count, b.Count, a.Endpoint, b.Endpoint) })
	details := u.Role.ManagesKeys()
	for id, n := range byKey {
		k := obsKeyJSON{Label: labels[id], Count: n}
		if details {
			k.APIKeyID = id
		}
		out.RateLimitedByKey = append(out.RateLimitedByKey, k)
	}
	slices.SortFunc(out.RateLimitedByKey, func(a, b obsKeyJSON) int { return cmpCount(a.Count, b.Count, a.Label, b.Label) })
	c.JSON(http.StatusOK, out)
}

// cmpCount orders the largest count first, then by name, so the answer is the same every time.
func cmpCount(a, b int64, an, bn string) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	case an < bn:
		return -1
	case an > bn:
		return 1
	}
	return 0
}
