package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/records"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/workflows"
)

// The dashboard's requests surface (docs/dashboard.md, Requests): the integrator's requests
// searched as GET /requests/v3 searches them, a search by request id, transaction hash or deposit
// address, a request's page, and the views of the list (built-in and saved, shared by the
// team). Every role may use it; everything is scoped to the session's integrator's keys, and a
// request of another integrator is answered as one that does not exist.

// CodeViewBuiltin is a change to a built-in view, which is part of the API, not of the team's
// data.
const CodeViewBuiltin = "VIEW_BUILTIN"

// CodeViewNotFound is a view id that names none of the integrator's saved views.
const CodeViewNotFound = "VIEW_NOT_FOUND"

// integratorKeyIDs are the ids of every key of the session's integrator, revoked ones too (their
// requests are still the integrator's).
func (s *Server) integratorKeyIDs(c *gin.Context) ([]string, bool) {
	keys, err := s.Store.APIKeys(c.Request.Context(), dashboardUser(c).IntegratorID)
	if err != nil {
		s.dashboardStoreError(c, err, CodeIntegratorNotFound)
		return nil, false
	}
	ids := make([]string, len(keys))
	for i, k := range keys {
		ids[i] = k.ID
	}
	return ids, true
}

// dashboardRequests serves GET /dashboard/api/requests: GET /requests/v3's parameters, scoped to
// the integrator's keys; apiKeyId narrows to some of them (one that is not the integrator's is
// 404 API_KEY_NOT_FOUND). apiKey (a key's value) has no place in a browser and is refused.
func (s *Server) dashboardRequests(c *gin.Context) {
	v := c.Request.URL.Query()
	if v.Has("apiKey") {
		abort(c, invalidInput("apiKey is not a dashboard parameter: use apiKeyId"))
		return
	}
	p, e := parseV3(v)
	if e != nil {
		abort(c, e)
		return
	}
	ids, ok := s.integratorKeyIDs(c)
	if !ok {
		return
	}
	if len(p.keyIDs) > 0 {
		for _, id := range p.keyIDs {
			if !slices.Contains(ids, id) {
				abort(c, &Error{Code: CodeAPIKeyNotFound, Message: "apiKeyId " + strconv.Quote(id) + " is not one of your keys"})
				return
			}
		}
		ids = p.keyIDs
	}
	if len(ids) == 0 { // no key: no request is the integrator's
		c.JSON(http.StatusOK, requestsV3JSON{Requests: []json.RawMessage{}})
		return
	}
	p.query.APIKeyIDs = ids
	page, err := s.Store.SearchRecords(c.Request.Context(), p.query)
	if err != nil {
		abort(c, &Error{Code: CodeServiceUnavailable, Message: "the requests could not be read; retry shortly", cause: err})
		return
	}
	out := make([]json.RawMessage, 0, len(page.Rows))
	for _, r := range page.Rows {
		rec, err := records.V3(r.Record, p.private)
		if err != nil {
			abort(c, &Error{Code: CodeUnknownError, Message: "a stored request could not be read", cause: err})
			return
		}
		out = append(out, rec)
	}
	body := requestsV3JSON{Requests: out, Total: page.Total}
	if page.Next != nil {
		body.Continuation = page.Next.Encode()
	}
	c.JSON(http.StatusOK, body)
}

// searchMatchJSON is one request GET /dashboard/api/search found, and what it matched on.
type searchMatchJSON struct {
	RequestID string `json:"requestId"`
	Status    string `json:"status"`
	CreatedAt string `json:"createdAt"`
	MatchedOn string `json:"matchedOn" enum:"requestId,txHash,depositAddress"`
}

type searchJSON struct {
	Matches []searchMatchJSON `json:"matches"`
}

// maxSearchMatches bounds one search's answer: a hash or an address shared by more requests
// than this is no longer a search but a list, which GET /dashboard/api/requests pages.
const maxSearchMatches = 500

// dashboardSearch serves GET /dashboard/api/search?q=: every request of the integrator whose id,
// one of whose transactions' hashes, or whose deposit address is q. A 32-byte hex value may be
// a request id or an EVM transaction hash, so both are searched; a q of no known form is 400.
func (s *Server) dashboardSearch(c *gin.Context) {
	q := strings.TrimSpace(c.Query("q"))
	var groups []records.Group
	cond := func(k records.Key) bool {
		norm, err := records.NormalizeValue(k, q)
		if err != nil {
			return false
		}
		groups = append(groups, records.Group{{Key: k, Values: []string{norm}}})
		return true
	}
	if q != "" {
		cond(records.KeyID)
		if cond(records.KeyDepositTxHash) {
			cond(records.KeyFillTxHash)
			cond(records.KeyRefundTxHash)
		}
		cond(records.KeyDepositAddress)
	}
	if len(groups) == 0 {
		abort(c, invalidInput("q must be a request id, a transaction hash or a deposit address"))
		return
	}
	ids, ok := s.integratorKeyIDs(c)
	if !ok {
		return
	}
	out := searchJSON{Matches: []searchMatchJSON{}}
	if len(ids) > 0 {
		var rows []store.RecordRow
		rq := records.Query{Groups: groups, APIKeyIDs: ids, Sort: records.SortCreatedAt, Desc: true, Limit: records.MaxLimit}
		for len(rows) < maxSearchMatches {
			page, err := s.Store.SearchRecords(c.Request.Context(), rq)
			if err != nil {
				abort(c, &Error{Code: CodeServiceUnavailable, Message: "the requests could not be read; retry shortly", cause: err})
				return
			}
			rows = append(rows, page.Rows...)
			if page.Next == nil {
				break
			}
			rq.After = page.Next
		}
		for _, r := range rows {
			var rec struct {
				CreatedAt string `json:"createdAt"`
				Data      struct {
					DepositAddress string `json:"depositAddress"`
				} `json:"data"`
			}
			_ = json.Unmarshal(r.Record, &rec)
			on := "txHash"
			switch {
			case strings.EqualFold(r.ID, q):
				on = "requestId"
			case rec.Data.DepositAddress != "" && strings.EqualFold(rec.Data.DepositAddress, q):
				on = "depositAddress"
			}
			out.Matches = append(out.Matches, searchMatchJSON{RequestID: r.ID, Status: r.Status, CreatedAt: rec.CreatedAt, MatchedOn: on})
		}
	}
	c.JSON(http.StatusOK, out)
}

// requestTxJSON is one transaction of a request's page, linked to its chain's explorer when
// one is configured.
type requestTxJSON struct {
	Kind        string `json:"kind"`
	ChainID     uint64 `json:"chainId"`
	ChainName   string `json:"chainName"`
	Hash        string `json:"hash"`
	ExplorerURL string `json:"explorerUrl,omitempty"`
}

// requestFeesJSON is the fee breakdown as quoted against what the landed fill actually charged:
// the record's fees.quoted and fees.actual (each component a USD decimal string and an integer
// amount in the fee currency); actual is absent until a fill lands.
type requestFeesJSON struct {
	Quoted   json.RawMessage `json:"quoted,omitempty"`
	Actual   json.RawMessage `json:"actual,omitempty"`
	Currency json.RawMessage `json:"currency,omitempty"`
}

// workflowLinkJSON is the request's workflow in the Temporal Web UI.
type workflowLinkJSON struct {
	ID  string `json:"id"`
	URL string `json:"url"`
}

type requestPageJSON struct {
	Request      json.RawMessage   `json:"request"`
	Transactions []requestTxJSON   `json:"transactions"`
	Fees         requestFeesJSON   `json:"fees"`
	Workflow     *workflowLinkJSON `json:"workflow,omitempty"`
}

// dashboardRequest serves GET /dashboard/api/requests/{requestId}: the v3 record and every
// transaction. A request quoted with no key of the integrator is 404 REQUEST_NOT_FOUND, the
// same answer as a request that does not exist.
func (s *Server) dashboardRequest(c *gin.Context) {
	id, err := records.NormalizeValue(records.KeyID, c.Param("requestId"))
	if err != nil {
		abort(c, errRequestNotFound)
		return
	}
	ids, ok := s.integratorKeyIDs(c)
	if !ok {
		return
	}
	if len(ids) == 0 {
		abort(c, errRequestNotFound)
		return
	}
	page, err := s.Store.SearchRecords(c.Request.Context(), records.Query{Conds: []records.Cond{{Key: records.KeyID, Values: []string{id}}},
		APIKeyIDs: ids, Sort: records.SortCreatedAt, Desc: true, Limit: 1})
	if err != nil {
		abort(c, &Error{Code: CodeServiceUnavailable, Message: "the request could not be read; retry shortly", cause: err})
		return
	}
	if len(page.Rows) == 0 {
		abort(c, errRequestNotFound)
		return
	}
	row := page.Rows[0]
	rec, err := records.V3(row.Record, true)
	if err != nil {
		abort(c, &Error{Code: CodeUnknownError, Message: "a stored request could not be read", cause: err})
		return
	}
	txs, err := s.Store.RequestTransactions(c.Request.Context(), row.ID)
	if err != nil {
		abort(c, &Error{Code: CodeServiceUnavailable, Message: "the request could not be read; retry shortly", cause: err})
		return
	}
	out := requestPageJSON{Request: rec, Transactions: make([]requestTxJSON, len(txs))}
	for i, t := range txs {
		tx := requestTxJSON{Kind: t.Kind, ChainID: t.ChainID, Hash: t.Hash}
		if s.Chains != nil {
			if ch, err := s.Chains.Get(t.ChainID); err == nil {
				tx.ChainName = ch.Name
				if ch.ExplorerURL != "" {
					tx.ExplorerURL = strings.TrimRight(ch.ExplorerURL, "/") + "/tx/" + t.Hash
				}
			}
		}
		out.Transactions[i] = tx
	}
	var stored struct {
		Data struct {
			Fees requestFeesJSON `json:"fees"`
		} `json:"data"`
	}
	if err := json.Unmarshal(row.Record, &stored); err == nil {
		out.Fees = stored.Data.Fees
	}
	if s.TemporalUIURL != "" && dashboardUser(c).Operator {
		wf, ns := workflows.IntentWorkflowID(row.ID), s.TemporalNamespace
		if ns == "" {
			ns = "default" // Temporal's own default, as TEMPORAL_NAMESPACE's
		}
		out.Workflow = &workflowLinkJSON{ID: wf, URL: s.TemporalUIURL + "/namespaces/" + url.PathEscape(ns) +
			"/workflows/" + url.PathEscape(wf)}
	}
	c.JSON(http.StatusOK, out)
}

// Views.

// builtinViews are the views every integrator has, answered before the saved ones.
var builtinViews = []store.DashboardView{
	{ID: "failed", Name: "Failed", Icon: "alert", Colour: "#d14343", Query: map[string]json.RawMessage{"status": json.RawMessage(`"failure"`)}, Builtin: true},
	{ID: "refunds", Name: "Refunds", Icon: "undo", Colour: "#d9822b", Query: map[string]json.RawMessage{"status": json.RawMessage(`"refund"`)}, Builtin: true},
}

type viewsJSON struct {
	Views []store.DashboardView `json:"views"`
}

// viewBody is the body of POST /dashboard/api/views (every field but sort and columns needed)
// and of PATCH /dashboard/api/views/{viewId} (the fields given change).
type viewBody struct {
	Name    *string                    `json:"name"`
	Icon    *string                    `json:"icon"`
	Colour  *string                    `json:"colour"`
	Query   map[string]json.RawMessage `json:"query"`
	Sort    *string                    `json:"sort"`
	Columns []string                   `json:"columns"`
}

var (
	colourRE = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)
	iconRE   = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)
	columnRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9.]{0,63}$`)
)

// viewQueryParams are the parameters a view's query may hold: those of GET
// /dashboard/api/requests but the page position.
func viewQueryParam(name string) bool {
	if name == "continuation" || name == "apiKey" {
		return false
	}
	return slices.Contains(v3OtherParams, name) || slices.ContainsFunc(v3ListParams, func(k records.Key) bool { return string(k) == name }) ||
		slices.ContainsFunc(v3SingleParams, func(k records.Key) bool { return string(k) == name })
}

// checkViewQuery checks a view's query: each key a parameter of GET /dashboard/api/requests,
// each value a string or a list of strings, and the whole a search that parses.
func checkViewQuery(q map[string]json.RawMessage) *Error {
	v := url.Values{}
	for name, raw := range q {
		if !viewQueryParam(name) {
			return invalidInput("query: " + strconv.Quote(name) + " is not a parameter of GET /dashboard/api/requests")
		}
		var one string
		var many []string
		switch {
		case json.Unmarshal(raw, &one) == nil:
			v.Add(name, one)
		case json.Unmarshal(raw, &many) == nil && many != nil:
			v[name] = many
		default:
			return invalidInput("query: " + name + " must be a string or a list of strings")
		}
	}
	if _, e := parseV3(v); e != nil {
		return invalidInput("query: " + e.Message)
	}
	return nil
}

// apply checks b and writes what it gives into v.
func (b *viewBody) apply(v *store.DashboardView) *Error {
	if b.Name != nil {
		n := strings.TrimSpace(*b.Name)
		if l := utf8.RuneCountInString(n); l < 1 || l > 64 {
			return invalidInput("name must be 1 to 64 characters")
		}
		v.Name = n
	}
	if b.Icon != nil {
		if !iconRE.MatchString(*b.Icon) {
			return invalidInput("icon must be a short word (a-z, 0-9, -; at most 32)")
		}
		v.Icon = *b.Icon
	}
	if b.Colour != nil {
		if !colourRE.MatchString(*b.Colour) {
			return invalidInput("colour must be #rrggbb")
		}
		v.Colour = strings.ToLower(*b.Colour)
	}
	if b.Query != nil {
		if e := checkViewQuery(b.Query); e != nil {
			return e
		}
		v.Query = b.Query
	}
	if b.Sort != nil {
		if len(*b.Sort) > 64 {
			return invalidInput("sort must be at most 64 characters")
		}
		v.Sort = *b.Sort
	}
	if b.Columns != nil {
		if len(b.Columns) > 32 {
			return invalidInput("columns holds at most 32 names")
		}
		for _, col := range b.Columns {
			if !columnRE.MatchString(col) {
				return invalidInput("columns: " + strconv.Quote(col) + " is not a column name")
			}
		}
		v.Columns = b.Columns
	}
	return nil
}

func (s *Server) dashboardViews(c *gin.Context) {
	saved, err := s.Store.DashboardViews(c.Request.Context(), dashboardUser(c).IntegratorID)
	if err != nil {
		s.dashboardStoreError(c, err, CodeIntegratorNotFound)
		return
	}
	out := viewsJSON{Views: slices.Clone(builtinViews)}
	for _, v := range saved {
		out.Views = append(out.Views, *v)
	}
	c.JSON(http.StatusOK, out)
}

func (s *Server) dashboardCreateView(c *gin.Context) {
	var b viewBody
	if !readDashboardBody(c, &b) {
		return
	}
	if b.Name == nil || b.Icon == nil || b.Colour == nil || b.Query == nil {
		abort(c, invalidInput("give name, icon, colour and query"))
		return
	}
	var v store.DashboardView
	if e := b.apply(&v); e != nil {
		abort(c, e)
		return
	}
	u := dashboardUser(c)
	out, err := s.Store.CreateDashboardView(c.Request.Context(), u.IntegratorID, u.ID, v, dashboardActor(c))
	if err != nil {
		s.dashboardStoreError(c, err, CodeIntegratorNotFound)
		return
	}
	c.JSON(http.StatusCreated, out)
}

// builtinGate answers 409 VIEW_BUILTIN for a built-in view's id.
func builtinGate(c *gin.Context) bool {
	if slices.ContainsFunc(builtinViews, func(v store.DashboardView) bool { return v.ID == c.Param("viewId") }) {
		abort(c, &Error{Code: CodeViewBuiltin, Message: "a built-in view cannot be changed; save a new view instead"})
		return false
	}
	return true
}

// errViewInput carries a body's refusal out of the store's transaction.
type errViewInput struct{ e *Error }

func (e errViewInput) Error() string { return e.e.Message }

func (s *Server) dashboardUpdateView(c *gin.Context) {
	if !builtinGate(c) {
		return
	}
	var b viewBody
	if !readDashboardBody(c, &b) {
		return
	}
	// The body is checked before the store is asked, on an empty view, so that a bad body is
	// 400 whatever the view; apply runs again on the stored view inside the transaction.
	if e := b.apply(&store.DashboardView{}); e != nil {
		abort(c, e)
		return
	}
	out, err := s.Store.UpdateDashboardView(c.Request.Context(), dashboardUser(c).IntegratorID, c.Param("viewId"), func(v *store.DashboardView) error {
		if e := b.apply(v); e != nil {
			return errViewInput{e}
		}
		return nil
	}, dashboardActor(c))
	var bad errViewInput
	if errors.As(err, &bad) {
		abort(c, bad.e)
		return
	}
	if err != nil {
		s.dashboardStoreError(c, err, CodeViewNotFound)
		return
	}
	c.JSON(http.StatusOK, out)
}

func (s *Server) dashboardDeleteView(c *gin.Context) {
	if !builtinGate(c) {
		return
	}
	if err := s.Store.DeleteDashboardView(c.Request.Context(), dashboardUser(c).IntegratorID, c.Param("viewId"), dashboardActor(c)); err != nil {
		s.dashboardStoreError(c, err, CodeViewNotFound)
		return
	}
	c.Status(http.StatusNoContent)
}
