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

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/openapidoc"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/records"
	"github.com/intentd/intentd/web"
)

// The API's OpenAPI 3.1 document (GET /documentation/openapi.json) and its interactive
// reference (GET /documentation), generated from the Go types the handlers decode and encode
// (internal/openapidoc): each row of the route table (routes.go) is an operation, naming those
// types, the error codes it answers with (their statuses come from the one table, errors.go),
// and who may call it. A test drives the operations against the running API validating every
// answer against this document.

// Paths of the reference.
const (
	docsRoute       = "/documentation"
	docsJSONRoute   = "/documentation/openapi.json"
	docsAssetsRoute = "/documentation/assets/:file"
)

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
func codesFor(o route) []string {
	codes := []string{CodeInvalidInput, CodeUnknownError}
	switch o.access {
	case accessNone:
		if o.bucket != "" { // health checks are never limited; the reference is, as "other"
			codes = append(codes, CodeRateLimited)
		}
	case accessPublic:
		codes = append(codes, CodeRateLimited)
	case accessKey:
		codes = append(codes, CodeRateLimited, CodeUnauthorized, CodeServiceUnavailable)
	case accessAdmin:
		codes = append(codes, CodeRateLimited, CodeUnauthorized, CodeNotFound)
	case accessDashboard:
		codes = append(codes, CodeRateLimited, CodeUnauthorized, CodeForbidden, CodeServiceUnavailable)
	case accessDashboardSignIn:
		codes = append(codes, CodeRateLimited, CodeServiceUnavailable)
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
				"dashboardSession": &openapi3.SecuritySchemeRef{Value: &openapi3.SecurityScheme{Type: "apiKey", In: "cookie", Name: DashboardCookie,
					Description: "The integrator dashboard's session (docs/dashboard.md), set by its sign-ins: an HttpOnly, Secure, " +
						"SameSite=Strict cookie of path /dashboard. Every change (a method other than GET) also carries X-CSRF-Token."}},
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
	// originGasOverhead is decoded raw, to be refused by name when it is not a whole number;
	// on the wire it is an integer (or null, read as absent) within its bounds.
	if p, ok := req.Properties["originGasOverhead"]; ok && p.Value != nil {
		p.Value.Type = &openapi3.Types{openapi3.TypeInteger, openapi3.TypeNull}
	} else {
		return nil, fmt.Errorf("QuoteRequest has no originGasOverhead property")
	}
	doc.Components.Schemas["QuoteRequest"] = openapi3.NewSchemaRef("", req)
	v3, err := recordV3Schema()
	if err != nil {
		return nil, err
	}
	doc.Components.Schemas["RequestV3"] = openapi3.NewSchemaRef("", v3)
	for _, o := range (&Server{}).routeTable() {
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

func (o route) build() (*openapi3.Operation, error) {
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
	case accessDashboard:
		op.Security = &openapi3.SecurityRequirements{{"dashboardSession": []string{}}}
		if o.method != http.MethodGet {
			op.Parameters = append(op.Parameters, &openapi3.ParameterRef{Value: &openapi3.Parameter{Name: DashboardCSRFHeader,
				In: openapi3.ParameterInHeader, Description: "the session's CSRF token (GET /dashboard/api/me): without it, 403",
				Schema: openapi3.NewStringSchema().NewRef()}})
		}
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

// documentation is the interactive reference: the OpenAPI viewer embedded in the binary (package
// web), reading docsJSONRoute.
var documentation = openapidoc.MustViewer(web.Docs(), "intentd API", docsRoute)

// serveDocumentationPage is GET /documentation, the interactive reference.
func serveDocumentationPage(c *gin.Context) { documentation.ServePage(c.Writer) }

// serveDocumentationAsset is GET /documentation/assets/:file, the viewer's script, stylesheet
// and licence.
func serveDocumentationAsset(c *gin.Context) {
	if !documentation.ServeAsset(c.Writer, c.Param("file")) {
		notFound(c)
	}
}

// serveOpenAPIJSON is GET /documentation/openapi.json, the document (built when the router is:
// Handler).
func (s *Server) serveOpenAPIJSON(c *gin.Context) { openapidoc.ServeJSON(c.Writer, s.openAPI) }
