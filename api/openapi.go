package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/openapidoc"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/records"
	"github.com/intentd/intentd/store"
)

// The API's OpenAPI 3.1 document (GET /documentation/openapi.json) and its interactive
// reference (GET /documentation), generated from the Go types the handlers decode and encode
// (internal/openapidoc): the operations below name those types, the error codes each answers
// with (their statuses come from the one table, errors.go), and who may call them. A test
// enumerates the router's routes and fails on one without an operation here, and drives the
// operations against the running API validating every answer against this document.

// Paths of the reference.
const (
	docsRoute     = "/documentation"
	docsJSONRoute = "/documentation/openapi.json"
)

// access is who may call an operation.
type access int

const (
	accessPublic access = iota // x-api-key optional (higher limits, ownership)
	accessKey                  // x-api-key required
	accessAdmin                // the admin bearer token
	accessNone                 // no credential (health and the reference)
)

// docAnswer is one documented answer that is not an error: a status and what its body is.
type docAnswer struct {
	status int
	desc   string
	body   any              // a value of the body's Go type; nil: no JSON body
	ref    string           // a component schema, instead of body
	media  string           // a content type other than JSON (the reference page)
	schema *openapi3.Schema // an explicit schema, instead of body
}

// operation is one route of the router as the document describes it.
type operation struct {
	method, path       string // gin's path, with :params
	tag, summary, desc string
	query              *openapidoc.Query   // parameters the handler binds with the same schemas
	params             openapi3.Parameters // parameters the handler reads by hand
	body               any                 // the request body's Go type (requestSchemas)
	bodyRef            string              // or a component schema
	bodyRequired       bool
	answers            []docAnswer
	errors             []string // codes besides the ones every route of its access may answer
	access             access
	deprecated         bool
	errorBody          map[int]any // a status answered with a body of its own, not {message, errorCode}
}

// ops is every route of the API. A route added to the router without one here fails
// TestEveryRouteIsDocumented.
func ops() []operation {
	tx := func(path, summary string, body any) operation {
		return operation{method: "POST", path: path, tag: "transactions", summary: summary, body: body, bodyRequired: true,
			answers: []docAnswer{{status: 200, desc: "indexed", body: indexedJSON{}}, {status: 202, desc: "not mined yet: the scanner finds it when it is", body: messageJSON{}}},
			errors:  []string{CodeUnsupportedChain, CodeServiceUnavailable}}
	}
	txSingle := tx("/transactions/single", "Report a same-chain transaction", singleBody{})
	txSingle.answers[0].body = messageJSON{}
	quoteOp := func(path, summary, desc string) operation {
		return operation{method: "POST", path: path, tag: "quotes", summary: summary, desc: desc, bodyRef: "QuoteRequest", bodyRequired: true,
			answers: []docAnswer{{status: 200, desc: "the quote", ref: "QuoteResponse"}},
			errors: []string{quote.CodeInvalidAddress, quote.CodeInvalidRecipient, quote.CodeUnsupportedChain, quote.CodeUnsupportedCurr,
				quote.CodeAmountTooLow, quote.CodeAmountTooHigh, quote.CodeDestinationTxFailed, quote.CodeSponsorBalanceTooLow,
				quote.CodeSanctionedWalletAddress, quote.CodeUnauthorizedQuote, quote.CodeServiceUnavailable, quote.CodePriceFetchFailed}}
	}
	status := func(path, summary string, body any, deprecated bool) operation {
		return operation{method: "GET", path: path, tag: "status", summary: summary, query: statusParams, deprecated: deprecated,
			answers: []docAnswer{{status: 200, desc: "the request's status", body: body}},
			errors:  []string{CodeRequestNotFound, CodeServiceUnavailable}}
	}
	v2 := func(path string) operation {
		return operation{method: "GET", path: path, tag: "requests", summary: "Request records, version 2 (deprecated)", deprecated: true,
			desc:   "Every answer carries Deprecation, Sunset and Link headers; after the sunset every call is 410.",
			params: stringParams(v2Params, nil), answers: []docAnswer{{status: 200, desc: "a page of v2 records", body: requestsV2JSON{}}},
			errors: []string{CodeServiceUnavailable, CodeUnauthorized, CodeForbidden}, // the last two: a referrer filter's pairing
			errorBody: map[int]any{http.StatusTooManyRequests: v2RateLimitedJSON{}, http.StatusGone: v2GoneJSON{}}}
	}
	removed := func(method, path, instead string) operation {
		return operation{method: method, path: path, tag: "removed", summary: "Removed: " + instead, deprecated: true, errors: []string{CodeRemoved}}
	}
	admin := func(method, path, summary string, body any, ok int, resp any, codes ...string) operation {
		o := operation{method: method, path: path, tag: "admin", summary: summary, body: body, bodyRequired: body != nil, access: accessAdmin,
			answers: []docAnswer{{status: ok, desc: summary, body: resp}}, errors: append(codes, CodeServiceUnavailable)}
		if strings.HasPrefix(path, "/admin/integrators/:integratorId/keys/:keyId/webhook") {
			o.tag = "admin webhooks"
		}
		return o
	}
	const integrator, key, webhook = "/admin/integrators/:integratorId", "/admin/integrators/:integratorId/keys/:keyId",
		"/admin/integrators/:integratorId/keys/:keyId/webhook"
	return []operation{
		{method: "GET", path: "/lives", tag: "health", summary: "Liveness", access: accessNone, answers: []docAnswer{{status: 200, desc: "serving", body: livesJSON{}}}},
		{method: "GET", path: docsRoute, tag: "documentation", summary: "This reference", access: accessNone,
			answers: []docAnswer{{status: 200, desc: "the interactive reference: a page with no outside assets", media: "text/html"}}},
		{method: "GET", path: docsJSONRoute, tag: "documentation", summary: "The OpenAPI document", access: accessNone,
			answers: []docAnswer{{status: 200, desc: "this document", schema: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeObject}}}}},

		{method: "GET", path: "/chains", tag: "catalog", summary: "Chains", query: chainsParams,
			desc:    "The enabled chains in the public SDK's shape: what its configureDynamicChains reads.",
			answers: []docAnswer{{status: 200, desc: "the chains", body: chainsJSON{}}}},
		{method: "GET", path: "/config/v2", tag: "catalog", summary: "What a bridge between two chains is bound by", query: configV2Params,
			desc:    "The fee, the solver's balance and capacity per request on the destination, and with user the user's balance and the most they can bridge.",
			answers: []docAnswer{{status: 200, desc: "the route's configuration", body: configV2JSON{}}},
			errors:  []string{CodeUnsupportedChain, CodeUnsupportedCurrency, CodeServiceUnavailable, CodePriceFetchFailed}},
		{method: "GET", path: "/currencies/v2", tag: "catalog", summary: "Search currencies (parameters)", query: currenciesParams,
			answers: []docAnswer{{status: 200, desc: "the matching currencies, a flat list", body: []currencyV2JSON{}}}},
		{method: "POST", path: "/currencies/v2", tag: "catalog", summary: "Search currencies (the SDK's body)", body: currenciesQuery{},
			desc:    "The public SDK's request body; an empty body is the empty search. Unknown fields are ignored.",
			answers: []docAnswer{{status: 200, desc: "the matching currencies, a flat list", body: []currencyV2JSON{}}}},
		{method: "GET", path: "/prices/rates", tag: "catalog", summary: "USD prices of the listed currencies",
			desc:    "One whole unit of each symbol in USD, as the quotes price it, as JSON numbers.",
			answers: []docAnswer{{status: 200, desc: "symbol to USD", body: map[string]json.Number{}}}, errors: []string{CodePriceFetchFailed}},
		{method: "GET", path: "/withdrawals/status", tag: "catalog", summary: "The return of a request's deposit", query: withdrawalsParams,
			answers: []docAnswer{{status: 200, desc: "the withdrawal's status", body: withdrawalStatusJSON{}}},
			errors:  []string{CodeRequestNotFound, CodeServiceUnavailable}},
		{method: "GET", path: "/integrators/quote-data", tag: "catalog", summary: "What the caller's quotes are priced with", access: accessKey,
			answers: []docAnswer{{status: 200, desc: "the integrator's fee profile", body: quoteDataJSON{}}}},

		quoteOp("/quote/v2", "Quote", "The current quote endpoint: steps to execute, fees, details and with includeProtocolData the order."),
		quoteOp("/quote", "Quote (version 1)", "As /quote/v2 without protocol data."),
		quoteOp("/price", "Price", "Fees and details only: no steps, nothing stored."),
		tx("/transactions/index", "Report a deposit transaction", indexBody{}),
		txSingle,
		status("/intents/status/v3", "Status of a request", statusV3JSON{}, false),
		status("/intents/status/v2", "Status of a request (version 2)", statusV2JSON{}, false),
		status("/intents/status", "Status of a request (legacy)", statusV1JSON{}, true),
		{method: "GET", path: "/requests/v3", tag: "requests", summary: "Request records", access: accessKey,
			desc:   "Every parameter is applied or refused; filters is a JSON array of groups (docs/api.md).",
			params: stringParams(v3ParamNames(), v3Unsupported), answers: []docAnswer{{status: 200, desc: "a page of v3 records", schema: requestsV3Schema()}},
			errors: []string{CodeForbidden}},
		v2("/requests/v2"),
		v2("/requests"),
		{method: "GET", path: "/metrics/usage", tag: "usage", summary: "Call counts of the caller's keys", access: accessKey, query: usageParams,
			answers: []docAnswer{{status: 200, desc: "counts by minute, hour or day", body: usageJSON{}}}, errors: []string{CodeForbidden}},
		{method: "GET", path: wsRoute, tag: "events", summary: "Websocket stream of request.status.updated", query: wsParams, desc: wsDescription,
			answers: []docAnswer{{status: http.StatusSwitchingProtocols, desc: "upgraded: the stream's messages follow (see the description)"}},
			errors:  []string{CodeUnauthorized, CodeServiceUnavailable}},
		removed("POST", "/execute/swap", "use the quote's steps"),
		removed("GET", "/requests/:requestId/signature", "use the quote's protocol data (includeProtocolData)"),
		removed("GET", "/requests/:requestId/signature/v2", "use the quote's protocol data (includeProtocolData)"),

		admin("POST", adminRefundRoute, "Manual refund of a request", adminRefundBody{}, 200, intent.AdminRefundResult{},
			CodeRequestNotFound, CodeNotRefundable, CodeRefundFailed, CodeTimeout),
		admin("GET", "/admin/integrators", "List integrators", nil, 200, integratorsJSON{}),
		admin("POST", "/admin/integrators", "Create an integrator", integratorBody{}, 201, auth.IntegratorView{}),
		admin("GET", integrator, "Show an integrator", nil, 200, auth.IntegratorView{}, CodeIntegratorNotFound),
		admin("PATCH", integrator, "Change an integrator", integratorBody{}, 200, auth.IntegratorView{}, CodeIntegratorNotFound),
		admin("POST", integrator+"/sponsorship/top-ups", "Top up the sponsorship balance", sponsorshipBody{}, 200, auth.IntegratorView{}, CodeIntegratorNotFound),
		admin("POST", integrator+"/sponsorship/adjustments", "Adjust the sponsorship balance", sponsorshipBody{}, 200, auth.IntegratorView{},
			CodeIntegratorNotFound, CodeSponsorBalanceNegative),
		admin("GET", integrator+"/keys", "List an integrator's keys", nil, 200, apiKeysJSON{}, CodeIntegratorNotFound),
		admin("POST", integrator+"/keys", "Create a key", keyBody{}, 201, createdKeyJSON{}, CodeIntegratorNotFound),
		admin("GET", key, "Show a key", nil, 200, auth.KeyView{}, CodeAPIKeyNotFound),
		admin("PATCH", key, "Rename a key or set its limits", keyBody{}, 200, auth.KeyView{}, CodeAPIKeyNotFound),
		admin("POST", key+"/revoke", "Revoke a key", adminChange{}, 200, auth.KeyView{}, CodeAPIKeyNotFound),
		admin("GET", webhook, "Show a key's webhook", nil, 200, store.WebhookView{}, CodeWebhookNotFound),
		withAnswer(admin("PUT", webhook, "Set a key's webhook", webhookBody{}, 200, webhookJSON{}, CodeAPIKeyNotFound, CodeWebhooksUnavailable),
			docAnswer{status: 201, desc: "created, with its signing secret (shown once)", body: webhookJSON{}}),
		admin("POST", webhook+"/disable", "Disable a key's webhook", adminChange{}, 200, webhookJSON{}, CodeWebhookNotFound),
		admin("POST", webhook+"/rotate", "Rotate a webhook's signing secret", rotateBody{}, 200, webhookJSON{}, CodeWebhookNotFound, CodeWebhooksUnavailable),
		withQuery(admin("GET", webhook+"/deliveries", "A webhook's delivery log", nil, 200, deliveriesJSON{}, CodeAPIKeyNotFound), deliveriesParams),
		admin("POST", webhook+"/deliveries/:deliveryId/resend", "Send one delivery again", adminChange{}, 202, queuedJSON{}, CodeWebhookNotFound),
		admin("POST", webhook+"/resend", "Send every delivery since a time again", resendBody{}, 202, queuedJSON{}, CodeAPIKeyNotFound),
	}
}

func withAnswer(o operation, a docAnswer) operation { o.answers = append(o.answers, a); return o }

func withQuery(o operation, q *openapidoc.Query) operation { o.query = q; return o }

// Parameters of the handlers that read them by hand, described for the document.
type statusQuery struct {
	RequestID string `query:"requestId,required" doc:"the request's id (a quote's requestId, a step's check)"`
}

type usageParamsDoc struct {
	Granularity    string `query:"granularity" enum:"minutely,hourly,daily" doc:"default minutely"`
	StartTimestamp int64  `query:"startTimestamp" minimum:"0" doc:"Unix seconds; default the granularity's window before endTimestamp"`
	EndTimestamp   int64  `query:"endTimestamp" minimum:"0" doc:"Unix seconds, included; default now"`
	APIKey         string `query:"apiKey" doc:"key ids or keys, comma-separated, at most 50; default the caller's key"`
}

type wsQuery struct {
	APIKey string `query:"apiKey" doc:"an API key (browsers cannot set headers on a websocket); optional"`
}

type deliveriesQuery struct {
	State     string `query:"state" enum:"pending,delivered,dead"`
	RequestID string `query:"requestId"`
	Limit     int    `query:"limit" minimum:"1" maximum:"200" doc:"default 50"`
	Before    int64  `query:"before" minimum:"1" doc:"the previous page's before: older deliveries"`
}

var (
	statusParams     = schemas.MustQuery(statusQuery{})
	usageParams      = schemas.MustQuery(usageParamsDoc{})
	wsParams         = schemas.MustQuery(wsQuery{})
	deliveriesParams = schemas.MustQuery(deliveriesQuery{})
)

// v3ParamNames are the parameters GET /requests/v3 reads: the lists its parser checks against.
func v3ParamNames() []string {
	var out []string
	for _, k := range append(slices.Clone(v3ListParams), v3SingleParams...) {
		out = append(out, string(k))
	}
	return append(out, v3OtherParams...)
}

// stringParams documents parameters a handler reads by name as strings; refused are named and
// documented as refused.
func stringParams(names, refused []string) openapi3.Parameters {
	var out openapi3.Parameters
	for _, n := range names {
		out = append(out, &openapi3.ParameterRef{Value: openapi3.NewQueryParameter(n).WithSchema(openapi3.NewStringSchema())})
	}
	for _, n := range refused {
		p := openapi3.NewQueryParameter(n).WithSchema(openapi3.NewStringSchema())
		p.Description, p.Deprecated = "in the public SDK's type, not applied by this API yet: refused with 400", true
		out = append(out, &openapi3.ParameterRef{Value: p})
	}
	return out
}

const wsDescription = `The public service's websocket protocol (docs/events.md). Send Connection: Upgrade.
Server to client: {"type":"connection","status":"ready","data":{"id":...}} once connected;
{"type":"subscribe","status":"success","data":{"event":"request.status.updated","filters":{"id":...}}} for each subscribe;
{"event":"request.status.updated","data":{status, inTxHashes, txHashes, updatedAt, originChainId, destinationChainId, requestId, failReason, refundFailReason, ...},"publishedAt":ms}
for the current state at once and every status change after, in order;
{"type":"unsubscribe","status":"success","data":{"event":"request.status.updated"}}.
Client to server: {"type":"subscribe","event":"request.status.updated","filters":{"id":"<requestId>"}} and
{"type":"unsubscribe",...} (a subscribe may be sent before the ready message). An error is
{"type":"<op>","status":"error","data":{"message":...}}.`

// codesFor are the error codes every operation of an access may answer with besides its own:
// a body over its limit or a malformed one (400), a panic (500), a rate limit (429), and the
// credential's failures.
func codesFor(o operation) []string {
	codes := []string{CodeInvalidInput, CodeUnknownError}
	switch o.access {
	case accessNone:
		if o.path != "/lives" { // health checks are never limited; the reference is, as "other"
			codes = append(codes, CodeRateLimited)
		}
	case accessPublic:
		codes = append(codes, CodeRateLimited)
	case accessKey:
		codes = append(codes, CodeRateLimited, CodeUnauthorized, CodeServiceUnavailable)
	case accessAdmin:
		codes = append(codes, CodeRateLimited, CodeUnauthorized, CodeNotFound)
	}
	return codes
}

var ginParam = regexp.MustCompile(`:([A-Za-z]+)`)

// openAPIPath is a gin path in OpenAPI's form (/a/:id → /a/{id}).
func openAPIPath(p string) string { return ginParam.ReplaceAllString(p, "{$1}") }

// OpenAPI builds the API's document.
func OpenAPI() (*openapi3.T, error) {
	doc := &openapi3.T{
		OpenAPI: "3.1.0",
		Info: &openapi3.Info{Title: "intentd API", Version: "1",
			Description: "Cross-chain intents: quote, execute the steps, follow the request. Every failure is {message, errorCode} " +
				"with the status docs/api.md's error table gives its code. Without an x-api-key, calls are limited per client IP."},
		Paths: openapi3.NewPaths(),
		Components: &openapi3.Components{
			Schemas: openapi3.Schemas{},
			SecuritySchemes: openapi3.SecuritySchemes{
				"apiKey": &openapi3.SecuritySchemeRef{Value: &openapi3.SecurityScheme{Type: "apiKey", In: "header", Name: "x-api-key",
					Description: "An integrator's API key: required where an operation says so, else optional (higher limits, ownership)."}},
				"adminToken": &openapi3.SecuritySchemeRef{Value: &openapi3.SecurityScheme{Type: "http", Scheme: "bearer",
					Description: "The admin bearer token (ADMIN_TOKEN). The admin operations (/admin/…) are served on the admin " +
						"listener only (ADMIN_ADDR, an internal address: 127.0.0.1:8081 by default), never on the public port, " +
						"where they answer 404; without a token configured there is no admin listener."}},
			},
		},
	}
	components := map[string]any{"QuoteResponse": quote.Response{}}
	for name, v := range components {
		s, err := schemas.Schema(v)
		if err != nil {
			return nil, err
		}
		doc.Components.Schemas[name] = openapi3.NewSchemaRef("", s)
	}
	req, err := requestSchemas.Schema(quote.Request{})
	if err != nil {
		return nil, err
	}
	doc.Components.Schemas["QuoteRequest"] = openapi3.NewSchemaRef("", req)
	v3, err := recordV3Schema()
	if err != nil {
		return nil, err
	}
	doc.Components.Schemas["RequestV3"] = openapi3.NewSchemaRef("", v3)
	for _, o := range ops() {
		op, err := o.build()
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", o.method, o.path, err)
		}
		doc.AddOperation(openAPIPath(o.path), o.method, op)
	}
	return doc, nil
}

// requestsV3Schema is GET /requests/v3's envelope, each request a RequestV3.
func requestsV3Schema() *openapi3.Schema {
	s := schemas.MustSchema(requestsV3JSON{})
	s.Properties["requests"].Value.Items = openapi3.NewSchemaRef("#/components/schemas/RequestV3", nil)
	return s
}

// recordV3Schema is a v3 record as records.V3 writes it: intent.Record with the fail reasons
// and the owner-only fields of data possibly null, and the owner-only ones possibly absent.
func recordV3Schema() (*openapi3.Schema, error) {
	s, err := schemas.Schema(intent.Record{})
	if err != nil {
		return nil, err
	}
	data := s.Properties["data"].Value
	nullable, omitted := records.V3NullableData()
	for _, k := range nullable {
		p, ok := data.Properties[k]
		if !ok { // a field the record type does not hold, written by the view only: any value
			p = openapi3.NewSchemaRef("", schemas.MustSchema(struct {
				V any `json:"v"`
			}{}).Properties["v"].Value)
			data.Properties[k] = p
		}
		if p.Value.Type != nil && !p.Value.Type.Includes(openapi3.TypeNull) {
			p.Value.Type = &openapi3.Types{(*p.Value.Type)[0], openapi3.TypeNull}
		}
	}
	data.Required = slices.DeleteFunc(data.Required, func(k string) bool { return slices.Contains(omitted, k) })
	return s, nil
}

func (o operation) build() (*openapi3.Operation, error) {
	op := &openapi3.Operation{Tags: []string{o.tag}, Summary: o.summary, Description: o.desc, Deprecated: o.deprecated,
		OperationID: strings.ToLower(o.method) + strings.NewReplacer("/", "-", ":", "", ".", "-").Replace(o.path),
		Responses:   openapi3.NewResponses()}
	op.Responses.Delete("default")
	for _, m := range ginParam.FindAllStringSubmatch(o.path, -1) {
		op.Parameters = append(op.Parameters, &openapi3.ParameterRef{Value: openapi3.NewPathParameter(m[1]).WithSchema(openapi3.NewStringSchema())})
	}
	if o.query != nil {
		op.Parameters = append(op.Parameters, o.query.Parameters()...)
	}
	op.Parameters = append(op.Parameters, o.params...)
	switch o.access {
	case accessPublic:
		op.Security = &openapi3.SecurityRequirements{{}, {"apiKey": []string{}}}
	case accessKey:
		op.Security = &openapi3.SecurityRequirements{{"apiKey": []string{}}}
	case accessAdmin:
		op.Security = &openapi3.SecurityRequirements{{"adminToken": []string{}}}
	default:
		op.Security = &openapi3.SecurityRequirements{}
	}
	if o.body != nil || o.bodyRef != "" {
		ref, err := schemaRef(requestSchemas, o.body, o.bodyRef)
		if err != nil {
			return nil, err
		}
		op.RequestBody = &openapi3.RequestBodyRef{Value: openapi3.NewRequestBody().WithRequired(o.bodyRequired).
			WithContent(openapi3.NewContentWithJSONSchemaRef(ref))}
	}
	for _, a := range o.answers {
		r := openapi3.NewResponse().WithDescription(a.desc)
		switch {
		case a.media != "":
			r.WithContent(openapi3.Content{a.media: openapi3.NewMediaType().WithSchema(openapi3.NewStringSchema())})
		case a.body != nil || a.ref != "" || a.schema != nil:
			ref := openapi3.NewSchemaRef("", a.schema)
			if a.schema == nil {
				var err error
				if ref, err = schemaRef(schemas, a.body, a.ref); err != nil {
					return nil, err
				}
			}
			r.WithContent(openapi3.NewContentWithJSONSchemaRef(ref))
		}
		op.Responses.Set(strconv.Itoa(a.status), &openapi3.ResponseRef{Value: r})
	}
	byStatus := map[int][]string{}
	for _, code := range append(codesFor(o), o.errors...) {
		st, ok := statuses[code]
		if !ok {
			return nil, fmt.Errorf("error code %s has no status in the table", code)
		}
		if !slices.Contains(byStatus[st], code) {
			byStatus[st] = append(byStatus[st], code)
		}
	}
	for st, codes := range byStatus {
		sort.Strings(codes)
		desc, schema := "Error: "+strings.Join(codes, ", "), errorSchema(codes)
		if v, ok := o.errorBody[st]; ok {
			s, err := schemas.Schema(v)
			if err != nil {
				return nil, err
			}
			schema = &openapi3.Schema{AnyOf: openapi3.SchemaRefs{openapi3.NewSchemaRef("", schema), openapi3.NewSchemaRef("", s)}}
		}
		op.Responses.Set(strconv.Itoa(st), &openapi3.ResponseRef{Value: openapi3.NewResponse().WithDescription(desc).
			WithContent(openapi3.NewContentWithJSONSchema(schema))})
	}
	for st, v := range o.errorBody {
		if _, ok := byStatus[st]; ok {
			continue
		}
		s, err := schemas.Schema(v)
		if err != nil {
			return nil, err
		}
		op.Responses.Set(strconv.Itoa(st), &openapi3.ResponseRef{Value: openapi3.NewResponse().WithDescription(http.StatusText(st)).
			WithContent(openapi3.NewContentWithJSONSchema(s))})
	}
	return op, nil
}

// schemaRef is the schema of v's type, or a reference to the component name.
func schemaRef(g openapidoc.Generator, v any, name string) (*openapi3.SchemaRef, error) {
	if name != "" {
		return openapi3.NewSchemaRef("#/components/schemas/"+name, nil), nil
	}
	s, err := g.Schema(v)
	if err != nil {
		return nil, err
	}
	return openapi3.NewSchemaRef("", s), nil
}

// errorSchema is the API's error body with its code one of codes.
func errorSchema(codes []string) *openapi3.Schema {
	s := schemas.MustSchema(Error{})
	s.Properties["errorCode"].Value.Enum = nil
	for _, c := range codes {
		s.Properties["errorCode"].Value.Enum = append(s.Properties["errorCode"].Value.Enum, c)
	}
	return s
}

// openAPIJSON is the document as served, built once.
var openAPIJSON = sync.OnceValue(func() []byte {
	doc, err := OpenAPI()
	if err != nil {
		panic(fmt.Sprintf("api: the OpenAPI document does not build: %v", err)) // a bug its tests catch
	}
	raw, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(fmt.Sprintf("api: the OpenAPI document does not encode: %v", err))
	}
	return raw
})

var documentationPage = openapidoc.Page("intentd API", docsJSONRoute)

// documentationRoutes serves the reference page and the document.
func (s *Server) documentationRoutes(r gin.IRouter) {
	raw := openAPIJSON()
	r.GET(docsRoute, func(c *gin.Context) { openapidoc.ServePage(c.Writer, documentationPage) })
	r.GET(docsJSONRoute, func(c *gin.Context) { openapidoc.ServeJSON(c.Writer, raw) })
}
