package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/records"
)

// GET /requests/v3 (docs/api.md): the request records, newest first by default, searched by the
// parameters below and the `filters` language, a page at a time by keyset continuation. The
// route requires a key (requireKey). Every parameter is applied or refused: an unknown
// parameter, a malformed value or a key the caller does not own is an error, never a filter
// quietly dropped.

// v3ListParams are the parameters that take one value or a comma-separated list (an OR), each
// the records.Key of the same name.
var v3ListParams = []records.Key{records.KeyID, records.KeyOrderID, records.KeyDepositTxHash, records.KeyFillTxHash,
	records.KeyRefundTxHash, records.KeyUser, records.KeyRecipient, records.KeyDepositAddress, records.KeyOriginChainID,
	records.KeyDestinationChainID, records.KeyChainID, records.KeyStatus, records.KeyFailReason,
	records.KeyRefundFailReason, records.KeyCurrencyInChainID, records.KeyCurrencyInAddress,
	records.KeyCurrencyInSymbol, records.KeyCurrencyOutChainID, records.KeyCurrencyOutAddress,
	records.KeyCurrencyOutSymbol}

// v3SingleParams take exactly one value (a comma may be part of it).
var v3SingleParams = []records.Key{records.KeyTerm, records.KeyReferrer, records.KeyRequestType}

// v3OtherParams are the rest of the parameters GET /requests/v3 reads.
var v3OtherParams = []string{"limit", "continuation", "includeTotal", "includeAuthenticatedData", "includeChildRequests",
	"apiKey", "apiKeyId", "filters", "features", "sortBy", "sortDirection", "startTimestamp", "endTimestamp",
	"startBlock", "endBlock", "amountUsdMin", "amountUsdMax", "privateChainsToInclude"}

// v3Unsupported are parameters of the public SDK's type this API cannot apply yet: refused,
// so that no client believes its results filtered by them.
var v3Unsupported = []string{"appFeesAmountUsdMin", "appFeesAmountUsdMax", "fillTimeMin", "fillTimeMax"}

// v3Search is a parsed GET /requests/v3.
type v3Search struct {
	query   records.Query
	keys    []string // apiKey values
	keyIDs  []string // apiKeyId values
	refers  bool     // a referrer condition, at the top or in filters
	private bool     // includeAuthenticatedData
}

func (s *Server) requestsV3(c *gin.Context) {
	caller := apiKeyOf(c)
	p, e := parseV3(c.Request.URL.Query())
	if e != nil {
		abort(c, e)
		return
	}
	ids, e := s.searchKeys(c.Request.Context(), caller, p.keys, p.keyIDs)
	if e != nil {
		abort(c, e)
		return
	}
	if p.refers && len(ids) == 0 {
		abort(c, invalidInput("a referrer filter must be paired with apiKey or apiKeyId"))
		return
	}
	p.query.APIKeyIDs = ids
	page, err := s.Store.SearchRecords(c.Request.Context(), p.query)
	if err != nil {
		abort(c, &Error{Code: CodeServiceUnavailable, Message: "the requests could not be read; retry shortly", cause: err})
		return
	}
	owner := integratorOf(caller)
	out := make([]json.RawMessage, 0, len(page.Rows))
	for _, r := range page.Rows {
		v, err := records.V3(r.Record, p.private && owner != "" && r.Integrator == owner)
		if err != nil {
			abort(c, &Error{Code: CodeUnknownError, Message: "a stored request could not be read", cause: err})
			return
		}
		out = append(out, v)
	}
	body := requestsV3JSON{Requests: out, Total: page.Total}
	if page.Next != nil {
		body.Continuation = page.Next.Encode()
	}
	c.JSON(http.StatusOK, body)
}

// parseV3 reads every parameter of GET /requests/v3 into a query (the keys still to resolve).
func parseV3(v url.Values) (*v3Search, *Error) {
	known := map[string]bool{}
	for _, k := range v3ListParams {
		known[string(k)] = true
	}
	for _, k := range v3SingleParams {
		known[string(k)] = true
	}
	for _, k := range v3OtherParams {
		known[k] = true
	}
	for name := range v {
		if slices.Contains(v3Unsupported, name) {
			return nil, invalidInput(name + " is not supported by this API")
		}
		if !known[name] {
			return nil, invalidInput("unknown query parameter " + strconv.Quote(name))
		}
	}
	p := &v3Search{query: records.Query{Sort: records.SortCreatedAt, Desc: true, Limit: records.DefaultLimit}}
	q := &p.query
	var e *Error
	for _, k := range v3ListParams {
		if e = addCond(q, k, v[string(k)], true); e != nil {
			return nil, e
		}
	}
	for _, k := range v3SingleParams {
		if e = addCond(q, k, v[string(k)], false); e != nil {
			return nil, e
		}
	}
	if v.Has("referrer") {
		p.refers = true
	}
	if q.Limit, e = intParam(v, "limit", records.DefaultLimit); e != nil {
		return nil, e
	}
	bools := map[string]*bool{"includeTotal": &q.Total, "includeAuthenticatedData": &p.private,
		"includeChildRequests": &q.IncludeChildren}
	for name, dst := range bools {
		if *dst, e = boolParam(v, name); e != nil {
			return nil, e
		}
	}
	switch sb := v.Get("sortBy"); sb {
	case "", "createdAt":
	case "updatedAt", "amountUsd":
		q.Sort = records.SortField(sb)
	default:
		return nil, invalidInput("sortBy must be createdAt, updatedAt or amountUsd")
	}
	switch v.Get("sortDirection") {
	case "", "desc":
	case "asc":
		q.Desc = false
	default:
		return nil, invalidInput("sortDirection must be asc or desc")
	}
	if raw := v.Get("continuation"); raw != "" {
		cur, err := records.DecodeCursor(raw)
		if err != nil {
			return nil, invalidInput(err.Error())
		}
		q.After = cur
	}
	if e = parseRanges(v, q); e != nil {
		return nil, e
	}
	if raw := v.Get("features"); raw != "" {
		for f := range strings.SplitSeq(raw, ",") {
			if f = strings.TrimSpace(f); f == "" {
				return nil, invalidInput("features has an empty entry")
			}
			q.Features = append(q.Features, f)
		}
	}
	if v.Has("filters") {
		groups, err := records.ParseFilters(v.Get("filters"))
		if err != nil {
			return nil, invalidInput(err.Error())
		}
		q.Groups = groups
		for _, g := range groups {
			if slices.ContainsFunc(g, func(c records.Cond) bool { return c.Key == records.KeyReferrer }) {
				p.refers = true
			}
		}
	}
	if p.keys, e = listParam(v, "apiKey"); e != nil {
		return nil, e
	}
	if p.keyIDs, e = listParam(v, "apiKeyId"); e != nil {
		return nil, e
	}
	for i, id := range p.keyIDs {
		u, err := uuid.Parse(id)
		if err != nil {
			return nil, invalidInput("apiKeyId " + strconv.Quote(id) + " is not a UUID")
		}
		p.keyIDs[i] = u.String()
	}
	if n := len(dedupe(append(slices.Clone(p.keys), p.keyIDs...))); n > records.MaxAPIKeys {
		return nil, invalidInput("apiKey and apiKeyId name more than " + strconv.Itoa(records.MaxAPIKeys) + " keys")
	}
	if err := q.Validate(); err != nil {
		return nil, invalidInput(err.Error())
	}
	return p, nil
}

// addCond adds the condition of parameter k: its values (repeated parameters, and comma lists
// when list) ORed.
func addCond(q *records.Query, k records.Key, raw []string, list bool) *Error {
	if len(raw) == 0 {
		return nil
	}
	cond := records.Cond{Key: k}
	for _, r := range raw {
		parts := []string{r}
		if list {
			parts = strings.Split(r, ",")
		}
		for _, part := range parts {
			if strings.TrimSpace(part) == "" {
				return invalidInput(string(k) + " is empty")
			}
			norm, err := records.NormalizeValue(k, part)
			if err != nil {
				return invalidInput(err.Error())
			}
			if !slices.Contains(cond.Values, norm) {
				cond.Values = append(cond.Values, norm)
			}
		}
	}
	q.Conds = append(q.Conds, cond)
	return nil
}

// parseRanges reads the inclusive ranges: creation time (update time when sorted by it, as the
// public SDK's type says), the origin deposit's block and the USD amount.
func parseRanges(v url.Values, q *records.Query) *Error {
	for _, r := range []struct {
		name string
		dst  **time.Time
	}{{"startTimestamp", &q.CreatedFrom}, {"endTimestamp", &q.CreatedTo}} {
		if raw := v.Get(r.name); raw != "" {
			t, e := parseUnix(r.name, raw)
			if e != nil {
				return e
			}
			*r.dst = &t
		}
	}
	q.TimesAreUpdates = q.Sort == records.SortUpdatedAt
	for _, r := range []struct {
		name string
		dst  **uint64
	}{{"startBlock", &q.BlockFrom}, {"endBlock", &q.BlockTo}} {
		if raw := v.Get(r.name); raw != "" {
			n, err := strconv.ParseUint(raw, 10, 63)
			if err != nil {
				return invalidInput(r.name + " must be a block number")
			}
			*r.dst = &n
		}
	}
	for _, r := range []struct {
		name string
		dst  **decimal.Decimal
	}{{"amountUsdMin", &q.AmountUSDMin}, {"amountUsdMax", &q.AmountUSDMax}} {
		if raw := v.Get(r.name); raw != "" {
			d, err := decimal.NewFromString(raw)
			if err != nil || d.IsNegative() || len(raw) > 40 {
				return invalidInput(r.name + " must be a non-negative decimal")
			}
			*r.dst = &d
		}
	}
	return nil
}

// intParam reads a whole number, def when absent.
func intParam(v url.Values, name string, def int) (int, *Error) {
	raw := v.Get(name)
	if raw == "" {
		return def, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil {
		return 0, invalidInput(name + " must be a whole number")
	}
	return n, nil
}

// boolParam reads true or false; absent is false.
func boolParam(v url.Values, name string) (bool, *Error) {
	switch v.Get(name) {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	}
	return false, invalidInput(name + " must be true or false")
}

// listParam reads a comma-separated list (repeated parameters too), refusing empty entries.
func listParam(v url.Values, name string) ([]string, *Error) {
	var out []string
	for _, raw := range v[name] {
		for part := range strings.SplitSeq(raw, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				return nil, invalidInput(name + " has an empty entry")
			}
			out = append(out, part)
		}
	}
	return dedupe(out), nil
}

func dedupe(s []string) []string {
	out := s[:0:0]
	for _, x := range s {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// searchKeys resolves the keys a search names (apiKey values and apiKeyId ids) to their ids;
// each must be the caller's or its integrator's: one that is not, or that is no key, is 403,
// and a lookup that failed is 503 (the filter is never dropped).
func (s *Server) searchKeys(ctx context.Context, caller *auth.Key, values, ids []string) ([]string, *Error) {
	if len(values) == 0 && len(ids) == 0 {
		return nil, nil
	}
	all := append(slices.Clone(ids), values...)
	keys, e := s.usageKeys(ctx, caller, all)
	if e != nil {
		return nil, e
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.ID
	}
	return out, nil
}
