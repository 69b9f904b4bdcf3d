package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/openapidoc"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/ratelimit"
	"github.com/intentd/intentd/store"
)

// The route table: every route of both listeners is one row of routeTable, and everything the
// API knows about a route besides its handler's code is in that row. Nothing else lists routes;
// each part that needs a route fact derives it from the table:
//   - the routers: Handler registers the rows of the public listener, AdminHandler those of the
//     admin listener (access accessAdmin), each behind the guard its access asks for (requireKey,
//     adminGuard, dashboardGuard);
//   - the OpenAPI document: OpenAPI describes every row (openapi.go);
//   - the rate limits: limitRequests counts a call against its row's bucket (routeOf);
//   - the usage counts: countUsage counts a call under its row's usage endpoint;
//   - bound, measure and deprecateV2 read the row's body limit, deadline, quote outcomes and
//     deprecation.
//
// A new route is a new row in routeTable and nowhere else. TestEveryRouteIsARowOfTheTable fails
// on a route registered beside the table; routeIndex refuses rows that do not hold together.

// access is who may call a route, and where it is served.
type access int

const (
	accessPublic access = iota // x-api-key optional (higher limits, ownership)
	accessKey                  // x-api-key required: requireKey answers 401 without a live key
	accessAdmin                // the admin bearer token (adminGuard), on the admin listener only
	accessNone                 // no credential (health and the reference)
	// accessDashboard: the integrator dashboard's session cookie, and on a change its CSRF token
	// (dashboardGuard); under /dashboard/api/ on the public listener. The handler checks the
	// user's role.
	accessDashboard
	// accessDashboardSignIn: the dashboard's sign-ins, which start a session (no credential yet;
	// their attempts are limited per email and per client: admitSignIn).
	accessDashboardSignIn
)

// route is one row of the table: how the route is served and counted, then how it is documented.
// Rows that share a path share its per-path facts (bucket, usage, bodyLimit, deadline,
// quoteOutcomes, v2): the middleware finds a call's row by its route pattern (gin's FullPath),
// which names no method.
type route struct {
	method, path string // gin's path, with :params
	handler      gin.HandlerFunc
	access       access
	// bucket is the rate-limit bucket the route's calls count against (one of
	// ratelimit.Buckets); "" for a route that is not limited (health checks, the admin API,
	// which has its own failure budget). A route of the public API must have one.
	bucket string
	// usage is the endpoint GET /metrics/usage counts the route's calls under; the path when
	// empty. Counts are stored and answered by this name, so a route that moves keeps it.
	usage string
	// bodyLimit is the largest request body the route reads, in bytes; 0: quote.MaxBodyBytes (a
	// quote, the largest body the API takes). deadline is the handler's deadline when it waits
	// longer than Timeouts.Request; 0: Timeouts.Request (bound).
	bodyLimit int64
	deadline  time.Duration
	// quoteOutcomes: metrics.Quotes counts the route's outcomes (measure). v2: the deprecated
	// v2 records, with deprecation headers and a 410 after the sunset (deprecateV2).
	quoteOutcomes, v2 bool
	// served reports whether s serves the route; nil: always.
	served func(s *Server) bool

	// The route as the OpenAPI document describes it (openapi.go, build).
	tag, summary, desc string
	query              *openapidoc.Query   // parameters the handler binds with the same schemas
	params             openapi3.Parameters // parameters the handler reads by hand
	body               any                 // the request body's Go type (requestSchemas)
	bodyRef            string              // or a component schema
	bodyRequired       bool
	answers            []docAnswer
	errors             []string // codes besides the ones every route of its access may answer
	deprecated         bool
	errorBody          map[int]any // a status answered with a body of its own, not {message, errorCode}
}

// docAnswer is one documented answer that is not an error: a status and what its body is.
type docAnswer struct {
	status int
	desc   string
	body   any              // a value of the body's Go type; nil: no JSON body
	ref    string           // a component schema, instead of body
	media  string           // a content type other than JSON (the reference page)
	schema *openapi3.Schema // an explicit schema, instead of body
}

// routeTable is every route of the API, with s's handlers. The OpenAPI document and the route
// facts are read from the table of a zero Server (routeIndex, OpenAPI): building a row must not
// use s, only name its handlers.
//
// To add a route, add its row below: method and path, handler, access, bucket (a public route
// needs one: an existing group's, or a new ratelimit bucket with its limits), and what the
// document says of it (tag, summary, the Go types of its parameters, body and answers, the error
// codes it answers with besides its access's). The routers, the document, the rate limits and
// the usage counts follow; nothing else lists routes.
func (s *Server) routeTable() []route {
	tx := func(path, summary string, handler gin.HandlerFunc, body any) route {
		return route{method: "POST", path: path, handler: handler, access: accessPublic, bucket: ratelimit.Transactions,
			bodyLimit: txBodyLimit, tag: "transactions", summary: summary, body: body, bodyRequired: true,
			answers: []docAnswer{{status: 200, desc: "indexed", body: indexedJSON{}}, {status: 202, desc: "not mined yet: the scanner finds it when it is", body: messageJSON{}}},
			errors:  []string{CodeUnsupportedChain, CodeServiceUnavailable}}
	}
	txSingle := tx("/transactions/single", "Report a same-chain transaction", s.indexSingle, singleBody{})
	txSingle.answers[0].body = messageJSON{}
	quoteRoute := func(path string, mode quote.Mode, summary, desc string) route {
		return route{method: "POST", path: path, handler: s.quoteHandler(mode), access: accessPublic, bucket: ratelimit.Quote,
			quoteOutcomes: true, tag: "quotes", summary: summary, desc: desc, bodyRef: "QuoteRequest", bodyRequired: true,
			answers: []docAnswer{{status: 200, desc: "the quote", ref: "QuoteResponse"}},
			errors: []string{quote.CodeInvalidAddress, quote.CodeInvalidRecipient, quote.CodeUnsupportedChain, quote.CodeUnsupportedCurr,
				quote.CodeAmountTooLow, quote.CodeAmountTooHigh, quote.CodeDestinationTxFailed, quote.CodeSponsorBalanceTooLow,
				quote.CodeSanctionedWalletAddress, quote.CodeSolanaTxTooLarge, quote.CodeInsufficientFundsForRent, quote.CodeUnauthorizedQuote,
				quote.CodeServiceUnavailable, quote.CodePriceFetchFailed}}
	}
	status := func(path string, view statusView, summary string, body any, deprecated bool) route {
		return route{method: "GET", path: path, handler: s.intentStatus(view), access: accessPublic, bucket: ratelimit.Status,
			tag: "status", summary: summary, query: statusParams, deprecated: deprecated,
			answers: []docAnswer{{status: 200, desc: "the request's status", body: body}},
			errors:  []string{CodeRequestNotFound, CodeServiceUnavailable}}
	}
	v2 := func(path string) route {
		return route{method: "GET", path: path, handler: s.requestsV2, access: accessPublic, bucket: ratelimit.Requests, v2: true,
			tag: "requests", summary: "Request records, version 2 (deprecated)", deprecated: true,
			desc:   "Every answer carries Deprecation, Sunset and Link headers; after the sunset every call is 410.",
			params: stringParams(v2Params, nil), answers: []docAnswer{{status: 200, desc: "a page of v2 records", body: requestsV2JSON{}}},
			errors:    []string{CodeServiceUnavailable, CodeUnauthorized, CodeForbidden}, // the last two: a referrer filter's pairing
			errorBody: map[int]any{http.StatusTooManyRequests: v2RateLimitedJSON{}, http.StatusGone: v2GoneJSON{}}}
	}
	// removed are the endpoints the spec lists as removed (Versioning 4), each answered 404
	// REMOVED with a message naming what replaces it.
	removed := func(method, path, instead, replacement string) route {
		return route{method: method, path: path, handler: removedHandler(method, path, replacement), access: accessPublic,
			bucket: ratelimit.Other, tag: "removed", summary: "Removed: " + instead, deprecated: true, errors: []string{CodeRemoved}}
	}
	admin := func(method, path, summary string, handler gin.HandlerFunc, body any, ok int, resp any, codes ...string) route {
		r := route{method: method, path: path, handler: handler, access: accessAdmin, tag: "admin", summary: summary, body: body,
			bodyRequired: body != nil, answers: []docAnswer{{status: ok, desc: summary, body: resp}}, errors: append(codes, CodeServiceUnavailable)}
		if strings.HasPrefix(path, "/admin/integrators/:integratorId/keys/:keyId/webhook") {
			r.tag = "admin webhooks"
		}
		return r
	}
	// dash is a route of the integrator dashboard's JSON API (dashboard.go, docs/dashboard.md).
	dash := func(method, path, summary, desc string, handler gin.HandlerFunc, body any, ok int, resp any, codes ...string) route {
		r := route{method: method, path: "/dashboard/api" + path, handler: handler, access: accessDashboard, bucket: ratelimit.Other,
			bodyLimit: dashboardBodyLimit, tag: "dashboard", summary: summary, desc: desc, body: body, bodyRequired: body != nil,
			answers: []docAnswer{{status: ok, desc: summary, body: resp}}, errors: append(codes, CodeServiceUnavailable)}
		if strings.HasPrefix(path, "/keys") {
			r.tag = "dashboard keys"
		}
		return r
	}
	signIn := func(path, summary, desc string, handler gin.HandlerFunc, body any) route {
		r := dash("POST", path, summary, desc, handler, body, 200, dashboardMeJSON{}, CodeUnauthorized)
		r.access = accessDashboardSignIn
		return r
	}
	const dkey, dhook = "/keys/:keyId", "/keys/:keyId/webhook"
	const owners, keyRoles = "Owners only.", "Owners and developers; support is 403."
	const integrator, key, webhook = "/admin/integrators/:integratorId", "/admin/integrators/:integratorId/keys/:keyId",
		"/admin/integrators/:integratorId/keys/:keyId/webhook"
	const signature = "protocol data in POST /quote/v2 (includeProtocolData): recompute the order id from orderData"

	refund := admin("POST", adminRefundRoute, "Manual refund of a request", s.adminRefund, adminRefundBody{}, 200, intent.AdminRefundResult{},
		CodeRequestNotFound, CodeNotRefundable, CodeRefundFailed, CodeTimeout)
	// The refund waits up to adminRefundTimeout for the refund to be mined, and answers 504
	// itself when that passes. Without a refunder the route does not exist.
	refund.bodyLimit, refund.deadline = adminBodyLimit, adminRefundTimeout+10*time.Second
	refund.served = func(s *Server) bool { return s.Admin != nil }

	return []route{
		{method: "GET", path: "/lives", handler: lives, access: accessNone, tag: "health", summary: "Liveness",
			answers: []docAnswer{{status: 200, desc: "serving", body: livesJSON{}}}},
		{method: "GET", path: docsRoute, handler: serveDocumentationPage, access: accessNone, bucket: ratelimit.Other,
			tag: "documentation", summary: "This reference",
			desc:    "Swagger UI, embedded in the binary: the page loads its script and stylesheet from /documentation/assets/ and this document, nothing from elsewhere.",
			answers: []docAnswer{{status: 200, desc: "the interactive reference: a page with no outside assets", media: "text/html"}}},
		{method: "GET", path: docsAssetsRoute, handler: serveDocumentationAsset, access: accessNone, bucket: ratelimit.Other,
			tag: "documentation", summary: "The reference's script, stylesheet and licence",
			desc:    "Named by their content's hash (the page names them), so cached for good; the licence is revalidated.",
			answers: []docAnswer{{status: 200, desc: "the asset: text/javascript, text/css or text/plain", media: "*/*"}},
			errors:  []string{CodeNotFound}},
		{method: "GET", path: dashboardAppRoute, handler: serveDashboardApp, access: accessNone, bucket: ratelimit.Other,
			tag: "dashboard", summary: "The integrator dashboard",
			desc:    "The web app, embedded in the binary: the page loads its script and stylesheet from /dashboard/assets/ and talks to /dashboard/api/, nothing from elsewhere. Its pages are addressed by the fragment (#/keys, #/requests); a sign-in link is /dashboard/#link=<token>.",
			answers: []docAnswer{{status: 200, desc: "the app's page", media: "text/html"}}},
		{method: "GET", path: dashboardAppSlash, handler: serveDashboardApp, access: accessNone, bucket: ratelimit.Other,
			tag: "dashboard", summary: "The integrator dashboard (where a sign-in link lands)",
			answers: []docAnswer{{status: 200, desc: "the app's page", media: "text/html"}}},
		{method: "GET", path: dashboardAssetsRoute, handler: serveDashboardAsset, access: accessNone, bucket: ratelimit.Other,
			tag: "dashboard", summary: "The dashboard's script, stylesheet and licences",
			desc:    "Named by their content's hash (the page names them), so cached for good; the licences are revalidated.",
			answers: []docAnswer{{status: 200, desc: "the asset: text/javascript, text/css or text/plain", media: "*/*"}},
			errors:  []string{CodeNotFound}},
		{method: "GET", path: docsJSONRoute, handler: s.serveOpenAPIJSON, access: accessNone, bucket: ratelimit.Other,
			tag: "documentation", summary: "The OpenAPI document",
			answers: []docAnswer{{status: 200, desc: "this document", schema: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeObject}}}}},

		{method: "GET", path: "/chains", handler: s.listChains, access: accessPublic, bucket: ratelimit.Chains,
			tag: "catalog", summary: "Chains", query: chainsParams,
			desc:    "The enabled chains in the public SDK's shape: what its configureDynamicChains reads.",
			answers: []docAnswer{{status: 200, desc: "the chains", body: chainsJSON{}}}},
		// GET /config/v2 reads balances on two chains: a bucket of its own, not the catalog's.
		{method: "GET", path: "/config/v2", handler: s.configV2, access: accessPublic, bucket: ratelimit.Config,
			tag: "catalog", summary: "What a bridge between two chains is bound by", query: configV2Params,
			desc:    "The fee, the solver's balance and capacity per request on the destination, and with user the user's balance and the most they can bridge.",
			answers: []docAnswer{{status: 200, desc: "the route's configuration", body: configV2JSON{}}},
			errors:  []string{CodeUnsupportedChain, CodeUnsupportedCurrency, CodeServiceUnavailable, CodePriceFetchFailed}},
		{method: "GET", path: "/currencies/v2", handler: s.currenciesV2, access: accessPublic, bucket: ratelimit.Catalog,
			tag: "catalog", summary: "Search currencies (parameters)", query: currenciesParams,
			answers: []docAnswer{{status: 200, desc: "the matching currencies, a flat list", body: []currencyV2JSON{}}}},
		{method: "POST", path: "/currencies/v2", handler: s.currenciesV2, access: accessPublic, bucket: ratelimit.Catalog,
			tag: "catalog", summary: "Search currencies (the SDK's body)", body: currenciesQuery{},
			desc:    "The public SDK's request body; an empty body is the empty search. Unknown fields are ignored.",
			answers: []docAnswer{{status: 200, desc: "the matching currencies, a flat list", body: []currencyV2JSON{}}}},
		{method: "GET", path: "/prices/rates", handler: s.pricesRates, access: accessPublic, bucket: ratelimit.Catalog,
			tag: "catalog", summary: "USD prices of the listed currencies",
			desc:    "One whole unit of each symbol in USD, as the quotes price it, as JSON numbers.",
			answers: []docAnswer{{status: 200, desc: "symbol to USD", body: map[string]json.Number{}}}, errors: []string{CodePriceFetchFailed}},
		{method: "GET", path: "/withdrawals/status", handler: s.withdrawalStatus, access: accessPublic, bucket: ratelimit.Withdrawals,
			tag: "catalog", summary: "The return of a request's deposit", query: withdrawalsParams,
			answers: []docAnswer{{status: 200, desc: "the withdrawal's status", body: withdrawalStatusJSON{}}},
			errors:  []string{CodeRequestNotFound, CodeServiceUnavailable}},
		{method: "GET", path: "/integrators/quote-data", handler: s.integratorQuoteData, access: accessKey, bucket: ratelimit.Integrators,
			tag: "catalog", summary: "What the caller's quotes are priced with",
			answers: []docAnswer{{status: 200, desc: "the integrator's fee profile", body: quoteDataJSON{}}}},

		quoteRoute("/quote/v2", quote.ModeQuoteV2, "Quote", "The current quote endpoint: steps to execute, fees, details and with includeProtocolData the order."),
		quoteRoute("/quote", quote.ModeQuoteLegacy, "Quote (version 1)", "As /quote/v2 without protocol data."),
		quoteRoute("/price", quote.ModePrice, "Price", "Fees and details only: no steps, nothing stored."),
		tx("/transactions/index", "Report a deposit transaction", s.indexTransaction, indexBody{}),
		txSingle,
		status("/intents/status/v3", statusV3, "Status of a request", statusV3JSON{}, false),
		status("/intents/status/v2", statusV2, "Status of a request (version 2)", statusV2JSON{}, false),
		status("/intents/status", statusV1, "Status of a request (legacy)", statusV1JSON{}, true),
		{method: "GET", path: "/requests/v3", handler: s.requestsV3, access: accessKey, bucket: ratelimit.RequestsV3,
			tag: "requests", summary: "Request records",
			desc:   "Every parameter is applied or refused; filters is a JSON array of groups (docs/api.md).",
			params: stringParams(v3ParamNames(), v3Unsupported), answers: []docAnswer{{status: 200, desc: "a page of v3 records", schema: requestsV3Schema()}},
			errors: []string{CodeForbidden}},
		// /requests/v2 and its older alias /requests share one bucket, so alternating between
		// them never doubles the limit.
		v2("/requests/v2"),
		v2("/requests"),
		{method: "GET", path: "/metrics/usage", handler: s.usageMetrics, access: accessKey, bucket: ratelimit.Metrics,
			tag: "usage", summary: "Call counts of the caller's keys", query: usageParams,
			answers: []docAnswer{{status: 200, desc: "counts by minute, hour or day", body: usageJSON{}}}, errors: []string{CodeForbidden}},
		{method: "GET", path: wsRoute, handler: s.websocketStream, access: accessPublic, bucket: ratelimit.WS,
			served: func(s *Server) bool { return s.Stream != nil },
			tag:    "events", summary: "Websocket stream of request.status.updated", query: wsParams, desc: wsDescription,
			answers: []docAnswer{{status: http.StatusSwitchingProtocols, desc: "upgraded: the stream's messages follow (see the description)"}},
			errors:  []string{CodeUnauthorized, CodeServiceUnavailable}},
		// Deposit addresses (docs/deposit-addresses.md), under the limits of every route the spec
		// names none for (ratelimit.Other).
		{method: "GET", path: "/deposit-addresses/v1", handler: s.depositAddressV1, access: accessPublic, bucket: ratelimit.Other,
			tag: "deposit addresses", summary: "A deposit address", query: depositAddressParams,
			desc:    "By address or by the requestId it was created for (exactly one), in the public SDK's shape.",
			answers: []docAnswer{{status: 200, desc: "the deposit address", body: depositAddressV1JSON{}}},
			errors:  []string{CodeDepositAddressNotFound, CodeServiceUnavailable}},
		{method: "GET", path: "/deposit-addresses/v2", handler: s.depositAddressV2, access: accessPublic, bucket: ratelimit.Other,
			tag: "deposit addresses", summary: "A deposit address with its deposit and sweep history", query: depositAddressParams,
			desc:    "The lookup of version 1; the address with what the engine keeps of it, and every payment seen arriving at it with the request it funds and the sweep that moved it.",
			answers: []docAnswer{{status: 200, desc: "the deposit address and its history", body: depositAddressV2JSON{}}},
			errors:  []string{CodeDepositAddressNotFound, CodeServiceUnavailable}},
		{method: "POST", path: "/deposit-addresses/:depositAddressId/disable/v2", handler: s.disableDepositAddress, access: accessKey,
			bucket: ratelimit.Other, tag: "deposit addresses", summary: "Disable a deposit address",
			desc:    "Only the key the address was quoted with; payments to a disabled address are no longer watched. Disabling twice keeps the first time.",
			answers: []docAnswer{{status: 200, desc: "the deposit address, disabled", body: depositAddressJSON{}}},
			errors:  []string{CodeForbidden, CodeDepositAddressNotFound, CodeServiceUnavailable}},
		{method: "POST", path: "/transactions/deposit-address/reindex", handler: s.reindexDepositAddress, access: accessPublic,
			bucket: ratelimit.DepositAddressReindex, bodyLimit: txBodyLimit, tag: "deposit addresses", summary: "Reindex a deposit address",
			desc: "Reads the address's balance of each listed currency (or the one given) on targetChainId (default chainId) and routes, as the watch would, each one no recorded payment accounts for: how native value a contract moved to the address is recovered. One reindex of an address per chain a minute. An address quoted with an API key is reindexed only with that key.",
			body: reindexBody{}, bodyRequired: true,
			answers:   []docAnswer{{status: 200, desc: "the currencies checked, and those whose balance was routed", body: reindexedJSON{}}},
			errors:    []string{CodeUnsupportedChain, quote.CodeInvalidAddress, CodeForbidden, CodeDepositAddressNotFound, CodeServiceUnavailable},
			errorBody: map[int]any{http.StatusTooManyRequests: reindexRateLimitedJSON{}}},
		{method: "POST", path: "/execute", handler: s.execute, access: accessPublic, bucket: ratelimit.Other, bodyLimit: executeBodyLimit,
			tag: "execution", summary: "Execute a gasless transaction",
			desc: "Relays the user's signed call (EIP-7702 authorizations and a batch through the delegated account) for a quote's deposit; " +
				"the relayer pays the gas, backed by the integrator's sponsorship balance (docs/gasless.md). Requires x-api-key. " +
				"Errors answer {error} (a failed simulation {error, message, requestId, details}), never {message, errorCode}.",
			body: executeBody{}, bodyRequired: true,
			answers:   []docAnswer{{status: 200, desc: "relaying", body: executeAnswer{}}},
			errorBody: map[int]any{400: executeError{}, 401: executeError{}, 404: executeError{}, 409: executeError{}, 500: executeError{}, 503: executeError{}}},
		// The authorize step of a withdrawal from the perps exchange (docs/api.md, "POST
		// /authorize"). Its handler counts it (limits.go): its (key, wallet) bucket needs the body.
		{method: "POST", path: "/authorize", handler: s.authorize, access: accessPublic, bucket: ratelimit.Authorize,
			bodyLimit: authorizeBodyLimit, tag: "execution", summary: "Bind a perps withdrawal's transfer nonce to its order",
			desc: "The authorize step's post: the body is the step's post.body, the signature of its sign data (the NonceMapping " +
				"message, domain ServiceNonceMapping v2 on chain signatureChainId) the query parameter signature. The signer must be " +
				"wallet, the request's user; the order a withdrawal from chain 1337. Posting the same binding again answers the one stored.",
			params: openapi3.Parameters{&openapi3.ParameterRef{Value: &openapi3.Parameter{Name: "signature", In: openapi3.ParameterInQuery,
				Required: true, Description: "the EIP-712 signature of the step's sign data: 0x and 65 bytes of hex (v 27/28 or 0/1)",
				Schema: openapi3.NewSchemaRef("", openapidoc.String(`^0x[0-9a-fA-F]{130}$`, ""))}}},
			body: authorizeBodyJSON{}, bodyRequired: true,
			answers: []docAnswer{{status: 200, desc: "the binding that stands", body: authorizedJSON{}}},
			errors:  []string{CodeInvalidSignature, CodeForbidden, CodeRequestNotFound, CodeNonceMappingConflict, CodeServiceUnavailable}},
		removed("POST", "/execute/swap", "use the quote's steps", "POST /quote/v2 (then execute its steps)"),
		removed("GET", "/requests/:requestId/signature", "use the quote's protocol data (includeProtocolData)", signature),
		removed("GET", "/requests/:requestId/signature/v2", "use the quote's protocol data (includeProtocolData)", signature),

		refund,
		admin("POST", "/admin/deposit-addresses/:depositAddressId/disable", "Disable any deposit address", s.adminDisableDepositAddress,
			adminChange{}, 200, depositAddressJSON{}, CodeDepositAddressNotFound),
		admin("GET", "/admin/integrators", "List integrators", s.adminListIntegrators, nil, 200, integratorsJSON{}),
		admin("POST", "/admin/integrators", "Create an integrator", s.adminCreateIntegrator, integratorBody{}, 201, auth.IntegratorView{}),
		admin("GET", integrator, "Show an integrator", s.adminShowIntegrator, nil, 200, auth.IntegratorView{}, CodeIntegratorNotFound),
		admin("PATCH", integrator, "Change an integrator", s.adminUpdateIntegrator, integratorBody{}, 200, auth.IntegratorView{}, CodeIntegratorNotFound),
		admin("POST", integrator+"/sponsorship/top-ups", "Top up the sponsorship balance", s.adminMoveSponsorBalance(true),
			sponsorshipBody{}, 200, auth.IntegratorView{}, CodeIntegratorNotFound),
		admin("POST", integrator+"/sponsorship/adjustments", "Adjust the sponsorship balance", s.adminMoveSponsorBalance(false),
			sponsorshipBody{}, 200, auth.IntegratorView{}, CodeIntegratorNotFound, CodeSponsorBalanceNegative),
		admin("GET", integrator+"/keys", "List an integrator's keys", s.adminListKeys, nil, 200, apiKeysJSON{}, CodeIntegratorNotFound),
		admin("POST", integrator+"/keys", "Create a key", s.adminCreateKey, keyBody{}, 201, createdKeyJSON{}, CodeIntegratorNotFound),
		admin("GET", key, "Show a key", s.adminShowKey, nil, 200, auth.KeyView{}, CodeAPIKeyNotFound),
		admin("PATCH", key, "Rename a key or set its limits", s.adminUpdateKey, keyBody{}, 200, auth.KeyView{}, CodeAPIKeyNotFound),
		admin("POST", key+"/revoke", "Revoke a key", s.adminRevokeKey, adminChange{}, 200, auth.KeyView{}, CodeAPIKeyNotFound),
		// The webhook of each API key (docs/events.md, "Webhooks").
		admin("GET", webhook, "Show a key's webhook", s.adminShowWebhook, nil, 200, store.WebhookView{}, CodeWebhookNotFound),
		withAnswer(admin("PUT", webhook, "Set a key's webhook", s.adminSetWebhook, webhookBody{}, 200, webhookJSON{}, CodeAPIKeyNotFound, CodeWebhooksUnavailable),
			docAnswer{status: 201, desc: "created, with its signing secret (shown once)", body: webhookJSON{}}),
		admin("POST", webhook+"/disable", "Disable a key's webhook", s.adminDisableWebhook, adminChange{}, 200, webhookJSON{}, CodeWebhookNotFound),
		admin("POST", webhook+"/rotate", "Rotate a webhook's signing secret", s.adminRotateWebhook, rotateBody{}, 200, webhookJSON{},
			CodeWebhookNotFound, CodeWebhooksUnavailable),
		withQuery(admin("GET", webhook+"/deliveries", "A webhook's delivery log", s.adminWebhookDeliveries, nil, 200, deliveriesJSON{}, CodeAPIKeyNotFound),
			deliveriesParams),
		admin("POST", webhook+"/deliveries/:deliveryId/resend", "Send one delivery again", s.adminResendDelivery, adminChange{}, 202, queuedJSON{},
			CodeWebhookNotFound),
		admin("POST", webhook+"/resend", "Send every delivery since a time again", s.adminResendSince, resendBody{}, 202, queuedJSON{},
			CodeAPIKeyNotFound),
		// The integrator dashboard's accounts, from the admin API (admin_dashboard.go).
		admin("GET", integrator+"/dashboard-users", "List an integrator's dashboard users", s.adminListDashboardUsers, nil, 200,
			dashboardUsersJSON{}, CodeIntegratorNotFound),
		admin("POST", integrator+"/dashboard-users", "Create a dashboard user", s.adminCreateDashboardUser, dashboardUserBody{}, 201,
			auth.DashboardUserView{}, CodeIntegratorNotFound, CodeDashboardUserExists),
		admin("PATCH", integrator+"/dashboard-users/:userId", "Mark a dashboard user as an operator", s.adminSetDashboardOperator,
			dashboardOperatorBody{}, 200, auth.DashboardUserView{}, CodeDashboardUserNotFound),
		admin("POST", integrator+"/dashboard-users/:userId/links", "Issue a one-time sign-in link", s.adminDashboardLink, adminChange{}, 201,
			dashboardLinkJSON{}, CodeDashboardUserNotFound),

		// The integrator dashboard (dashboard.go, dashboard_webhooks.go; docs/dashboard.md).
		signIn("/session", "Sign in with email and password",
			"Sets the session cookie intentd_dashboard. A wrong email and a wrong password answer alike. At most 5 attempts per email and 20 per client in 15 minutes (429 with Retry-After).",
			s.dashboardSignIn, signInBody{}),
		signIn("/session/link", "Sign in with a one-time link",
			"The token of a link an owner or an operator issued: used once, within 30 minutes. Sets the session cookie.",
			s.dashboardLinkSignIn, linkSignInBody{}),
		dash("DELETE", "/session", "Sign out", "Ends the session and clears its cookie.", s.dashboardSignOut, nil, 204, nil),
		dash("GET", "/me", "Who is signed in", "The user, their role and integrator, and the session's CSRF token (X-CSRF-Token on every change).",
			s.dashboardMe, nil, 200, dashboardMeJSON{}),
		dash("PUT", "/me/password", "Set your password", "currentPassword is needed when you have one; your other sessions end.",
			s.dashboardSetPassword, passwordBody{}, 200, auth.DashboardUserView{}),
		dash("GET", "/team", "The team", owners, s.dashboardTeam, nil, 200, dashboardUsersJSON{}),
		dash("POST", "/team", "Invite a user", owners+" Answers the new user and a one-time sign-in link for them, shown once.",
			s.dashboardInvite, inviteBody{}, 201, invitedJSON{}, CodeDashboardUserExists),
		dash("PATCH", "/team/:userId", "Change a user's role", owners+" The last owner stays an owner.", s.dashboardSetRole, roleBody{}, 200,
			auth.DashboardUserView{}, CodeDashboardUserNotFound, CodeLastOwner),
		dash("DELETE", "/team/:userId", "Remove a user", owners+" Their sessions end. The last owner stays.", s.dashboardRemoveUser, nil, 204, nil,
			CodeDashboardUserNotFound, CodeLastOwner),
		dash("GET", "/keys", "The integrator's keys", "Owners and developers see each key's details; support the labels only.",
			s.dashboardKeys, nil, 200, dashboardKeysJSON{}),
		dash("POST", "/keys", "Create a key", keyRoles+" The key's value is in this answer only.", s.dashboardCreateKey, dashboardKeyBody{}, 201,
			createdKeyJSON{}),
		dash("PATCH", dkey, "Rename a key", keyRoles, s.dashboardRenameKey, dashboardKeyBody{}, 200, auth.KeyView{}, CodeAPIKeyNotFound),
		dash("POST", dkey+"/revoke", "Revoke a key", keyRoles+" For good: every API process refuses it within seconds.", s.dashboardRevokeKey,
			nil, 200, auth.KeyView{}, CodeAPIKeyNotFound),
		dash("GET", dhook, "A key's webhook", keyRoles, s.dashboardShowWebhook, nil, 200, store.WebhookView{}, CodeWebhookNotFound),
		withAnswer(dash("PUT", dhook, "Set a key's webhook", keyRoles+" URL, custom headers (their values are never shown again), enabled.",
			s.dashboardSetWebhook, dashboardWebhookBody{}, 200, webhookJSON{}, CodeAPIKeyNotFound, CodeWebhooksUnavailable),
			docAnswer{status: 201, desc: "created, with its signing secret (shown once)", body: webhookJSON{}}),
		dash("POST", dhook+"/rotate", "Rotate a webhook's signing secret", keyRoles+" The new secret is in this answer only.",
			s.dashboardRotateWebhook, dashboardRotateBody{}, 200, webhookJSON{}, CodeWebhookNotFound, CodeWebhooksUnavailable).optionalBody(),
		dash("POST", dhook+"/test", "Send a test delivery", keyRoles+" Queues a webhook.test event, signed and sent as any other; it shows in the delivery log.",
			s.dashboardTestWebhook, nil, 202, testQueuedJSON{}, CodeWebhookNotFound),
		withQuery(dash("GET", dhook+"/deliveries", "A webhook's delivery log", keyRoles, s.dashboardWebhookDeliveries, nil, 200, deliveriesJSON{},
			CodeAPIKeyNotFound), deliveriesParams),
		withV3Params(dash("GET", "/requests", "The integrator's requests", "GET /requests/v3's parameters (apiKeyId, not apiKey), over every key of the integrator; answers as /requests/v3.",
			s.dashboardRequests, nil, 200, nil, CodeAPIKeyNotFound)),
		dash("GET", "/search", "Search the requests", "q: a request id, a transaction hash or a deposit address; every request of the integrator it matches.",
			s.dashboardSearch, nil, 200, searchJSON{}),
		dash("GET", "/requests/:requestId", "A request's page", "The v3 record and every transaction, linked to its chain's explorer when one is configured.",
			s.dashboardRequest, nil, 200, requestPageJSON{}, CodeRequestNotFound),
		dash("GET", "/views", "The views of the requests", "The built-in views (failed, refunds) first, then the team's saved views.",
			s.dashboardViews, nil, 200, viewsJSON{}),
		dash("POST", "/views", "Save a view", "Shared by every user of the integrator; audited (view.create).", s.dashboardCreateView, viewBody{}, 201,
			store.DashboardView{}),
		dash("PATCH", "/views/:viewId", "Change a saved view", "The fields given change; a built-in view is 409 VIEW_BUILTIN.", s.dashboardUpdateView,
			viewBody{}, 200, store.DashboardView{}, CodeViewNotFound, CodeViewBuiltin),
		dash("DELETE", "/views/:viewId", "Delete a saved view", "A built-in view is 409 VIEW_BUILTIN.", s.dashboardDeleteView, nil, 204, nil,
			CodeViewNotFound, CodeViewBuiltin),
		dash("GET", "/observability", "Calls, errors and 429s over a range",
			"from and to (Unix seconds), granularity minutely|hourly|daily (defaults and widest ranges as GET /metrics/usage's), apiKeyId; summed from the usage counts over the integrator's keys. Support sees keys by label only.",
			s.dashboardObservability, nil, 200, observabilityJSON{}, CodeAPIKeyNotFound),
		dash("GET", "/balance", "The sponsorship balance and its history", "Owners and developers; support is 403. Amounts in whole millionths of a USD; limit (1 to 200, default 50) and before (an entry's id) page the history, newest first.",
			s.dashboardBalance, nil, 200, balanceJSON{}),
		dash("POST", dhook+"/deliveries/:deliveryId/resend", "Send one delivery again", keyRoles, s.dashboardResendDelivery, nil, 202,
			queuedJSON{}, CodeWebhookNotFound),
	}
}

// optionalBody is r with a body it may go without.
func (r route) optionalBody() route { r.bodyRequired = false; return r }

func withAnswer(r route, a docAnswer) route { r.answers = append(r.answers, a); return r }

// withV3Params is r with GET /requests/v3's parameters and answer.
func withV3Params(r route) route {
	r.params = stringParams(v3ParamNames(), v3Unsupported)
	r.answers = []docAnswer{{status: 200, desc: "a page of v3 records", schema: requestsV3Schema()}}
	return r
}

func withQuery(r route, q *openapidoc.Query) route { r.query = q; return r }

// lives is GET /lives, the health check.
func lives(c *gin.Context) { c.JSON(http.StatusOK, livesJSON{Status: "ok"}) }

// removedHandler answers a removed endpoint: 404 REMOVED, naming what replaces it.
func removedHandler(method, path, replacement string) gin.HandlerFunc {
	return func(c *gin.Context) {
		abort(c, &Error{Code: CodeRemoved, Message: method + " " + path + " was removed; use " + replacement})
	}
}

// register adds to r the rows of the table s serves on one listener (the admin listener's: the
// rows of accessAdmin; the public one's: every other), each behind the guard of its access.
func (s *Server) register(r gin.IRoutes, adminListener bool) {
	for _, rt := range s.routeTable() {
		if (rt.access == accessAdmin) != adminListener || (rt.served != nil && !rt.served(s)) {
			continue
		}
		switch rt.access {
		case accessKey:
			r.Handle(rt.method, rt.path, s.requireKey(), rt.handler)
		case accessAdmin:
			r.Handle(rt.method, rt.path, s.adminGuard(), rt.handler)
		case accessDashboard:
			r.Handle(rt.method, rt.path, s.dashboardGuard(), rt.handler)
		case accessDashboardSignIn:
			r.Handle(rt.method, rt.path, dashboardNoStore, rt.handler)
		default:
			r.Handle(rt.method, rt.path, rt.handler)
		}
	}
}

// routeIndex is every row of the table by path, read from a zero Server's table once: what the
// middleware knows of a call's route (routeOf). A table that does not hold together (indexRoutes)
// is a bug the tests catch at once: every router and the document build the index, and panic.
var routeIndex = sync.OnceValue(func() map[string]*route {
	index, err := indexRoutes((&Server{}).routeTable())
	if err != nil {
		panic("api: the route table: " + err.Error())
	}
	return index
})

// indexRoutes is rows by path. It refuses rows that cannot be served as written (route.check),
// two rows of one method and path, and rows of one path that disagree on a per-path fact.
func indexRoutes(rows []route) (map[string]*route, error) {
	index := make(map[string]*route, len(rows))
	seen := map[string]bool{}
	for i := range rows {
		rt := &rows[i]
		if err := rt.check(); err != nil {
			return nil, fmt.Errorf("%s %s: %w", rt.method, rt.path, err)
		}
		if seen[rt.method+" "+rt.path] {
			return nil, fmt.Errorf("%s %s is in the table twice", rt.method, rt.path)
		}
		seen[rt.method+" "+rt.path] = true
		if prev, ok := index[rt.path]; ok {
			if prev.pathFacts() != rt.pathFacts() {
				return nil, fmt.Errorf("the routes of %s disagree on their access, bucket, usage, bounds or outcomes: %+v and %+v",
					rt.path, prev.pathFacts(), rt.pathFacts())
			}
			continue
		}
		index[rt.path] = rt
	}
	return index, nil
}

// pathFacts are the facts of a route that rows of one path must share.
type pathFacts struct {
	bucket, usage     string
	bodyLimit         int64
	deadline          time.Duration
	quoteOutcomes, v2 bool
	admin             bool
}

func (rt *route) pathFacts() pathFacts {
	return pathFacts{bucket: rt.bucket, usage: rt.usageEndpoint(), bodyLimit: rt.bodyLimit, deadline: rt.deadline,
		quoteOutcomes: rt.quoteOutcomes, v2: rt.v2, admin: rt.access == accessAdmin}
}

// check refuses a row that cannot be served as written.
func (rt *route) check() error {
	dashboard := rt.access == accessDashboard || rt.access == accessDashboardSignIn
	switch {
	case rt.handler == nil:
		return fmt.Errorf("no handler")
	case rt.access == accessAdmin && rt.bucket != "":
		return fmt.Errorf("the admin API is not rate limited (its failure budget is adminGuard's), yet the row names bucket %q", rt.bucket)
	case (rt.access == accessPublic || rt.access == accessKey || dashboard) && rt.bucket == "":
		return fmt.Errorf("a route of the public API needs a rate-limit bucket")
	case rt.bucket != "" && !slices.Contains(ratelimit.Buckets(), rt.bucket):
		return fmt.Errorf("%q is no rate-limit bucket", rt.bucket)
	case rt.access == accessAdmin && !strings.HasPrefix(rt.path, "/admin/"),
		rt.access != accessAdmin && strings.HasPrefix(rt.path, "/admin/"):
		return fmt.Errorf("the admin API's routes, and only they, are under /admin/")
	case dashboard != strings.HasPrefix(rt.path, "/dashboard/api/"):
		return fmt.Errorf("the dashboard's routes, and only they, are under /dashboard/api/")
	}
	return nil
}

// usageEndpoint is the endpoint the route's calls are counted under.
func (rt *route) usageEndpoint() string {
	if rt.usage != "" {
		return rt.usage
	}
	return rt.path
}

// routeOf is the row of the route whose pattern is path (gin's FullPath), nil for a path the API
// does not serve ("").
func routeOf(path string) *route { return routeIndex()[path] }

// bucketOf is the rate-limit bucket of the route whose pattern is path: ratelimit.Other for a
// path the API does not serve, "" for a route that is not limited.
func bucketOf(path string) string {
	if rt := routeOf(path); rt != nil {
		return rt.bucket
	}
	return ratelimit.Other
}
