package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/gin-gonic/gin"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/intentd/intentd/chains/perps"
	"github.com/intentd/intentd/door"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/store"
)

// checkError fails unless body is exactly {message, errorCode} with code and a message, answered
// with the status the table gives code.
func checkError(t *testing.T, what string, status int, body map[string]any, code string) {
	t.Helper()
	msg, _ := body["message"].(string)
	if body["errorCode"] != code || msg == "" || len(body) != 2 {
		t.Errorf("%s: %d %v, want {message, errorCode: %s}", what, status, body, code)
		return
	}
	if want, ok := statuses[code]; !ok || status != want {
		t.Errorf("%s: status %d for %s, the table says %d", what, status, code, want)
	}
}

// badCall is one bad request to the API and the error code it must be answered with; err, when
// set, is what the fake dependencies fail with.
type badCall struct {
	method, path, body string
	header             map[string]string
	code               string
	err                error
	// status, when set, is a route that answers in its own shape (POST /execute: {error}): the
	// answer's status, with an error string, instead of the table's code.
	status int
}

// Every route of the router, the unknown path and a panicking handler answer a bad request with
// {message, errorCode} and the status of the code's row in the table, and each answer is one the
// OpenAPI document describes for its operation. A route added without a bad request here fails
// the test.
func TestEveryRouteAnswersABadRequestWithMessageAndErrorCodeAndTheTablesStatus(t *testing.T) {
	const quoteBase = `"user":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266","originChainId":31337,"destinationChainId":31338,` +
		`"originCurrency":"0x0000000000000000000000000000000000000000","destinationCurrency":"0x0000000000000000000000000000000000000000","amount":"1"`
	// A database nothing listens on: every read fails as unreachable.
	deadDB, err := pgxpool.New(context.Background(), "postgres://intentd@127.0.0.1:1/none?connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(deadDB.Close)
	indexer := &fakeIndexer{}
	refunder := &fakeRefunder{}
	// The quote engine reads each address by its chain's family, so it has the chains (which it
	// never reaches for a request refused before pricing).
	pool := unreachableChains(t)
	s := &Server{Store: store.New(deadDB), Chains: pool.Registry(), Quotes: &quote.Engine{Chains: pool}, Indexer: indexer,
		Admin: refunder, AdminTokenSHA256: tokenHash(adminToken), Logger: slog.New(slog.DiscardHandler),
		Now: func() time.Time { return DefaultV2Deprecation().SunsetAt.Add(-time.Hour) }} // /requests/v2 still served
	h := s.Handler().(*gin.Engine)
	h.GET("/test/panic", func(*gin.Context) { panic("boom") })
	adm := s.AdminHandler().(*gin.Engine)
	// serve is the listener a path is sent to: the admin API's for /admin/…, else the public one.
	serve := func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/admin/") {
			adm.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
	}

	quoteCalls := func(path string) []badCall {
		var calls []badCall
		// The quote package's malformed bodies (TestDecodeRejectsMalformedBodiesWithInvalidInput).
		for _, body := range []string{"", "{", "[]", `{"amount": 1}`, `{"user": "x"} {}`, `{"recipent": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"}`, `{"originChainId": "x"}`} {
			calls = append(calls, badCall{method: "POST", path: path, body: body, code: quote.CodeInvalidInput})
		}
		return append(calls,
			badCall{method: "POST", path: path, body: `{` + quoteBase + `,"recipient":"0x12"}`, code: quote.CodeInvalidAddress},
			// Review L1: mixed case that is not the EIP-55 checksum (account 1's, one letter turned).
			badCall{method: "POST", path: path, body: `{` + quoteBase + `,"recipient":"0x70997970c51812dc3A010C7d01b50e0d17dc79C8"}`, code: quote.CodeInvalidAddress},
			badCall{method: "POST", path: path, body: `{` + quoteBase + `,"referrer":"acme"}`, code: quote.CodeUnauthorizedQuote},
			// Review L2: a key given twice, at any depth.
			badCall{method: "POST", path: path, body: `{` + quoteBase + `,"x":{"y":1,"y":2}}`, code: quote.CodeInvalidInput})
	}
	hint := `{"chainId": 31337, "txHash": "` + hintTx + `"}`
	single := `{"requestId": "` + hintReq + `", "chainId": "31337", "tx": "{\"txHash\":\"` + hintTx + `\"}"}`
	statusCalls := func(path string) []badCall {
		return []badCall{
			{method: "GET", path: path, code: CodeInvalidInput},
			{method: "GET", path: path + "?requestId=nope", code: CodeRequestNotFound},
			{method: "GET", path: path + "?requestId=" + hintReq, code: CodeServiceUnavailable},
		}
	}
	depositAddressCalls := func(path string) []badCall {
		return []badCall{
			{method: "GET", path: path, code: CodeInvalidInput},
			{method: "GET", path: path + "?address=0x70997970C51812dc3A010C7d01b50e0d17dc79C8&requestId=" + hintReq, code: CodeInvalidInput},
			{method: "GET", path: path + "?address=0x12", code: CodeInvalidInput},
			{method: "GET", path: path + "?address=0x70997970c51812dc3A010C7d01b50e0d17dc79C8", code: CodeInvalidInput},
			{method: "GET", path: path + "?requestId=" + hintReq, code: CodeServiceUnavailable},
		}
	}
	bearer := map[string]string{"Authorization": "Bearer " + adminToken}
	calls := map[string][]badCall{
		"GET /lives":                      {{method: "POST", path: "/lives", code: CodeNotFound}},
		"GET /documentation":              {{method: "POST", path: "/documentation", code: CodeNotFound}},
		"GET /documentation/openapi.json": {{method: "DELETE", path: "/documentation/openapi.json", code: CodeNotFound}},
		"GET /documentation/assets/:file": {{method: "GET", path: "/documentation/assets/nope.js", code: CodeNotFound}},
		"GET /dashboard":                  {{method: "POST", path: "/dashboard", code: CodeNotFound}},
		"GET /dashboard/":                 {{method: "PUT", path: "/dashboard/", code: CodeNotFound}},
		"GET /dashboard/assets/:file":     {{method: "GET", path: "/dashboard/assets/nope.js", code: CodeNotFound}},
		"GET /chains":                     {{method: "DELETE", path: "/chains", code: CodeNotFound}},
		"POST /quote/v2":                  quoteCalls("/quote/v2"),
		"POST /quote":                     quoteCalls("/quote"),
		"POST /price":                     quoteCalls("/price"),
		"GET /intents/status/v3":          statusCalls("/intents/status/v3"),
		"GET /intents/status/v2":          statusCalls("/intents/status/v2"),
		"GET /intents/status":             statusCalls("/intents/status"),
		"GET /test/panic":                 {{method: "GET", path: "/test/panic", code: CodeUnknownError}},
		"GET /metrics/usage": {
			{method: "GET", path: "/metrics/usage", code: CodeUnauthorized},
			{method: "GET", path: "/metrics/usage", header: map[string]string{"x-api-key": "ik_" + strings.Repeat("0", 64)}, code: CodeServiceUnavailable},
		},
		"GET /requests/v3": {
			{method: "GET", path: "/requests/v3", code: CodeUnauthorized},
			{method: "GET", path: "/requests/v3", header: map[string]string{"x-api-key": "ik_" + strings.Repeat("0", 64)}, code: CodeServiceUnavailable},
		},
		"GET /config/v2": {
			{method: "GET", path: "/config/v2", code: CodeInvalidInput},
			{method: "GET", path: "/config/v2?originChainId=31337&destinationChainId=x", code: CodeInvalidInput},
			{method: "GET", path: "/config/v2?originChainId=31337&destinationChainId=31338&user=0x12", code: CodeInvalidInput},
			{method: "GET", path: "/config/v2?originChainId=31337&destinationChainId=31338&user=0x70997970c51812dc3A010C7d01b50e0d17dc79C8", code: CodeInvalidInput},
			{method: "GET", path: "/config/v2?originChainId=1&destinationChainId=31338", code: CodeUnsupportedChain},
			{method: "GET", path: "/config/v2?originChainId=31337&destinationChainId=31338&currency=btc", code: CodeUnsupportedCurrency},
		},
		"GET /currencies/v2": {
			{method: "GET", path: "/currencies/v2?limit=0", code: CodeInvalidInput},
			{method: "GET", path: "/currencies/v2?chainIds=31337,x", code: CodeInvalidInput},
			{method: "GET", path: "/currencies/v2?address=0x3f88d0F5403139753a203e6F36BFaE0CeAE3bF42", code: CodeInvalidInput},
		},
		"POST /currencies/v2": {
			{method: "POST", path: "/currencies/v2", body: "{", code: CodeInvalidInput},
			{method: "POST", path: "/currencies/v2", body: `{"limit": "5"}`, code: CodeInvalidInput},
			{method: "POST", path: "/currencies/v2", body: `{"chainIds": 31337}`, code: CodeInvalidInput},
		},
		"GET /prices/rates": {{method: "POST", path: "/prices/rates", code: CodeNotFound}},
		"GET /withdrawals/status": {
			{method: "GET", path: "/withdrawals/status", code: CodeInvalidInput},
			{method: "GET", path: "/withdrawals/status?id=nope", code: CodeRequestNotFound},
			{method: "GET", path: "/withdrawals/status?id=" + hintReq, code: CodeServiceUnavailable},
		},
		"GET /integrators/quote-data": {
			{method: "GET", path: "/integrators/quote-data", code: CodeUnauthorized},
			{method: "GET", path: "/integrators/quote-data", header: map[string]string{"x-api-key": "ik_" + strings.Repeat("0", 64)}, code: CodeServiceUnavailable},
		},
		"GET /deposit-addresses/v1": depositAddressCalls("/deposit-addresses/v1"),
		"GET /deposit-addresses/v2": depositAddressCalls("/deposit-addresses/v2"),
		"POST /deposit-addresses/:depositAddressId/disable/v2": {
			{method: "POST", path: "/deposit-addresses/" + hintReq + "/disable/v2", code: CodeUnauthorized},
			{method: "POST", path: "/deposit-addresses/" + hintReq + "/disable/v2", header: map[string]string{"x-api-key": "ik_" + strings.Repeat("0", 64)}, code: CodeServiceUnavailable},
		},
		"POST /admin/deposit-addresses/:depositAddressId/disable": {
			{method: "POST", path: "/admin/deposit-addresses/" + hintReq + "/disable", body: `{}`, header: bearer, code: CodeInvalidInput},
			{method: "POST", path: "/admin/deposit-addresses/0x12/disable", body: `{"operator": "a"}`, header: bearer, code: CodeDepositAddressNotFound},
			{method: "POST", path: "/admin/deposit-addresses/" + hintReq + "/disable", body: `{"operator": "a"}`, header: bearer, code: CodeServiceUnavailable},
		},
		"GET /requests/v2":                      {{method: "GET", path: "/requests/v2?limit=0", code: CodeInvalidInput}},
		"GET /requests":                         {{method: "GET", path: "/requests?status=done", code: CodeInvalidInput}},
		"POST /execute/swap":                    {{method: "POST", path: "/execute/swap", body: "{}", code: CodeRemoved}},
		"GET /requests/:requestId/signature":    {{method: "GET", path: "/requests/0x01/signature", code: CodeRemoved}},
		"GET /requests/:requestId/signature/v2": {{method: "GET", path: "/requests/0x01/signature/v2", code: CodeRemoved}},
		"POST /authorize": {
			{method: "POST", path: "/authorize?signature=0x", body: "{", code: CodeInvalidInput},
			{method: "POST", path: authorizeCall(perps.AuthorizeBodyOf(withdrawalMapping(common.Hash{1})), "0x"+strings.Repeat("11", 65)).path,
				body: authorizeCall(perps.AuthorizeBodyOf(withdrawalMapping(common.Hash{1})), "").body, code: CodeInvalidSignature},
			{method: "POST", path: signedAuthorize(t, perpsKey, withdrawalMapping(common.Hash{1})).path,
				body: signedAuthorize(t, perpsKey, withdrawalMapping(common.Hash{1})).body, code: CodeServiceUnavailable},
		},
		"POST /execute": {
			{method: "POST", path: "/execute", body: `{}`, status: http.StatusUnauthorized},
			{method: "POST", path: "/execute", body: `{}`, header: map[string]string{"x-api-key": "ik_" + strings.Repeat("0", 64)},
				status: http.StatusServiceUnavailable},
		},
		"POST /transactions/index": {
			{method: "POST", path: "/transactions/index", body: "nope", code: CodeInvalidInput},
			{method: "POST", path: "/transactions/index", body: `{"chainId": 1, "txHash": "` + hintTx + `"}`, code: CodeUnsupportedChain},
			{method: "POST", path: "/transactions/index", body: hint, code: CodeServiceUnavailable, err: errors.New("rpc down")},
		},
		"POST /transactions/deposit-address/reindex": {
			{method: "POST", path: "/transactions/deposit-address/reindex", body: "nope", code: CodeInvalidInput},
			{method: "POST", path: "/transactions/deposit-address/reindex", body: `{"depositAddress": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "sweep": true}`, code: CodeInvalidInput},
			{method: "POST", path: "/transactions/deposit-address/reindex", body: `{"chainId": 1, "depositAddress": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"}`, code: CodeUnsupportedChain},
			{method: "POST", path: "/transactions/deposit-address/reindex", body: `{"chainId": 31337, "depositAddress": "0x12"}`, code: quote.CodeInvalidAddress},
			{method: "POST", path: "/transactions/deposit-address/reindex", body: `{"chainId": 31337, "depositAddress": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"}`, code: CodeServiceUnavailable},
		},
		"POST /transactions/single": {
			{method: "POST", path: "/transactions/single", body: `{"requestId": "r1"}`, code: CodeInvalidInput},
			{method: "POST", path: "/transactions/single", body: single, code: CodeServiceUnavailable, err: errors.New("rpc down")},
		},
		"POST /admin/requests/:requestId/refund": {
			{method: "POST", path: adminReqPath, body: goodBody, code: CodeUnauthorized},
			{method: "POST", path: adminReqPath, body: `{}`, header: bearer, code: CodeInvalidInput},
			{method: "POST", path: adminReqPath, body: `{"reason": "r", "operator": "a", "recipient": "0x70997970c51812dc3A010C7d01b50e0d17dc79C8"}`, header: bearer, code: CodeInvalidInput},
			{method: "POST", path: "/admin/requests/0x12/refund", body: goodBody, header: bearer, code: CodeRequestNotFound},
			{method: "POST", path: adminReqPath, body: goodBody, header: bearer, code: CodeRequestNotFound, err: door.ErrNotFound},
			{method: "POST", path: adminReqPath, body: goodBody, header: bearer, code: CodeInvalidInput, err: fmt.Errorf("%w: reason", door.ErrInvalid)},
			{method: "POST", path: adminReqPath, body: goodBody, header: bearer, code: CodeNotRefundable, err: &door.NotRefundableError{Reason: "paid"}},
			{method: "POST", path: adminReqPath, body: goodBody, header: bearer, code: CodeNotRefundable, err: door.ErrNotRefundable},
			{method: "POST", path: adminReqPath, body: goodBody, header: bearer, code: CodeTimeout, err: door.ErrTimeout},
			{method: "POST", path: adminReqPath, body: goodBody, header: bearer, code: CodeUnknownError, err: errors.New("dial tcp: refused")},
		},
	}
	const integrators, unknownID = "/admin/integrators", "/00000000-0000-4000-8000-000000000000"
	for key, cs := range map[string][]badCall{
		"GET /admin/integrators": {
			{method: "GET", path: integrators, code: CodeUnauthorized},
			{method: "GET", path: integrators, header: bearer, code: CodeServiceUnavailable},
		},
		"POST /admin/integrators": {
			{method: "POST", path: integrators, body: `{"name": "acme"}`, header: bearer, code: CodeInvalidInput},
			{method: "POST", path: integrators, body: `{"operator": "a", "name": " "}`, header: bearer, code: CodeInvalidInput},
		},
		"GET /admin/integrators/:integratorId": {{method: "GET", path: integrators + "/nope", header: bearer, code: CodeIntegratorNotFound}},
		"PATCH /admin/integrators/:integratorId": {
			{method: "PATCH", path: integrators + unknownID, body: `{"operator": "a", "nmae": "x"}`, header: bearer, code: CodeInvalidInput},
			{method: "PATCH", path: integrators + "/nope", body: `{"operator": "a", "name": "x"}`, header: bearer, code: CodeIntegratorNotFound},
		},
		"POST /admin/integrators/:integratorId/sponsorship/top-ups": {
			{method: "POST", path: integrators + unknownID + "/sponsorship/top-ups", body: `{"operator": "a", "amountUsd": 1.5}`, header: bearer, code: CodeInvalidInput},
			{method: "POST", path: integrators + unknownID + "/sponsorship/top-ups", body: `{"operator": "a", "amountUsd": "-1"}`, header: bearer, code: CodeInvalidInput},
		},
		"POST /admin/integrators/:integratorId/sponsorship/adjustments": {
			{method: "POST", path: integrators + unknownID + "/sponsorship/adjustments", body: `{"operator": "a", "amountUsd": "-1"}`, header: bearer, code: CodeInvalidInput},
			{method: "POST", path: integrators + "/nope/sponsorship/adjustments", body: `{"operator": "a", "amountUsd": "-1", "reason": "r"}`, header: bearer, code: CodeIntegratorNotFound},
		},
		"GET /admin/integrators/:integratorId/keys": {{method: "GET", path: integrators + "/nope/keys", header: bearer, code: CodeIntegratorNotFound}},
		"POST /admin/integrators/:integratorId/keys": {
			{method: "POST", path: integrators + unknownID + "/keys", body: `{"operator": "a", "label": "x", "tier": "gold"}`, header: bearer, code: CodeInvalidInput},
			{method: "POST", path: integrators + "/nope/keys", body: `{"operator": "a", "label": "x"}`, header: bearer, code: CodeIntegratorNotFound},
		},
		"GET /admin/integrators/:integratorId/keys/:keyId": {{method: "GET", path: integrators + unknownID + "/keys/nope", header: bearer, code: CodeAPIKeyNotFound}},
		"PATCH /admin/integrators/:integratorId/keys/:keyId": {
			{method: "PATCH", path: integrators + unknownID + "/keys" + unknownID, body: `{"operator": "a"}`, header: bearer, code: CodeInvalidInput},
			{method: "PATCH", path: integrators + unknownID + "/keys/nope", body: `{"operator": "a", "label": "x"}`, header: bearer, code: CodeAPIKeyNotFound},
		},
		"POST /admin/integrators/:integratorId/keys/:keyId/revoke": {
			{method: "POST", path: integrators + unknownID + "/keys" + unknownID + "/revoke", body: `{}`, header: bearer, code: CodeInvalidInput},
			{method: "POST", path: integrators + unknownID + "/keys/nope/revoke", body: `{"operator": "a"}`, header: bearer, code: CodeAPIKeyNotFound},
		},
		"GET /admin/integrators/:integratorId/keys/:keyId/webhook": {
			{method: "GET", path: integrators + "/nope/keys/nope/webhook", header: bearer, code: CodeWebhookNotFound},
		},
		"PUT /admin/integrators/:integratorId/keys/:keyId/webhook": {
			{method: "PUT", path: integrators + unknownID + "/keys" + unknownID + "/webhook", body: `{"operator": "a", "url": 5}`, header: bearer, code: CodeInvalidInput},
			{method: "PUT", path: integrators + unknownID + "/keys" + unknownID + "/webhook", body: `{"operator": "a", "url": "https://x.y"}`, header: bearer, code: CodeWebhooksUnavailable},
		},
		"POST /admin/integrators/:integratorId/keys/:keyId/webhook/disable": {
			{method: "POST", path: integrators + unknownID + "/keys" + unknownID + "/webhook/disable", body: `{}`, header: bearer, code: CodeInvalidInput},
		},
		"POST /admin/integrators/:integratorId/keys/:keyId/webhook/rotate": {
			{method: "POST", path: integrators + unknownID + "/keys" + unknownID + "/webhook/rotate", body: `{}`, header: bearer, code: CodeInvalidInput},
			{method: "POST", path: integrators + unknownID + "/keys" + unknownID + "/webhook/rotate", body: `{"operator": "a"}`, header: bearer, code: CodeWebhooksUnavailable},
		},
		"GET /admin/integrators/:integratorId/keys/:keyId/webhook/deliveries": {
			{method: "GET", path: integrators + unknownID + "/keys" + unknownID + "/webhook/deliveries?state=lost", header: bearer, code: CodeInvalidInput},
		},
		"POST /admin/integrators/:integratorId/keys/:keyId/webhook/deliveries/:deliveryId/resend": {
			{method: "POST", path: integrators + unknownID + "/keys" + unknownID + "/webhook/deliveries/x/resend", body: `{"operator": "a"}`, header: bearer, code: CodeWebhookNotFound},
		},
		"POST /admin/integrators/:integratorId/keys/:keyId/webhook/resend": {
			{method: "POST", path: integrators + unknownID + "/keys" + unknownID + "/webhook/resend", body: `{"operator": "a"}`, header: bearer, code: CodeInvalidInput},
		},
		"GET /admin/integrators/:integratorId/dashboard-users": {
			{method: "GET", path: integrators + "/nope/dashboard-users", header: bearer, code: CodeIntegratorNotFound},
			{method: "GET", path: integrators + unknownID + "/dashboard-users", header: bearer, code: CodeServiceUnavailable},
		},
		"POST /admin/integrators/:integratorId/dashboard-users": {
			{method: "POST", path: integrators + unknownID + "/dashboard-users", body: `{"email": "a@b.co", "role": "owner"}`, header: bearer, code: CodeInvalidInput},
			{method: "POST", path: integrators + unknownID + "/dashboard-users", body: `{"operator": "a", "email": "a@b.co", "role": "boss"}`, header: bearer, code: CodeInvalidInput},
			{method: "POST", path: integrators + unknownID + "/dashboard-users", body: `{"operator": "a", "email": "not an email", "role": "owner"}`, header: bearer, code: CodeInvalidInput},
			{method: "POST", path: integrators + "/nope/dashboard-users", body: `{"operator": "a", "email": "a@b.co", "role": "owner"}`, header: bearer, code: CodeIntegratorNotFound},
		},
		"PATCH /admin/integrators/:integratorId/dashboard-users/:userId": {
			{method: "PATCH", path: integrators + unknownID + "/dashboard-users/nope", body: `{"operator": "a"}`, header: bearer, code: CodeInvalidInput},
			{method: "PATCH", path: integrators + unknownID + "/dashboard-users/nope", body: `{"operator": "a", "isOperator": true}`, header: bearer, code: CodeDashboardUserNotFound},
		},
		"POST /admin/integrators/:integratorId/dashboard-users/:userId/links": {
			{method: "POST", path: integrators + unknownID + "/dashboard-users" + unknownID + "/links", body: `{}`, header: bearer, code: CodeInvalidInput},
			{method: "POST", path: integrators + unknownID + "/dashboard-users/nope/links", body: `{"operator": "a"}`, header: bearer, code: CodeDashboardUserNotFound},
		},
	} {
		calls[key] = cs
	}
	// The dashboard: without a session 401, with a session cookie the database cannot check 503;
	// the sign-ins refuse a malformed body, and answer 503 when the attempts cannot be counted.
	session := map[string]string{"Cookie": DashboardCookie + "=" + strings.Repeat("A", 43)}
	for _, rt := range s.routeTable() {
		switch rt.access {
		case accessDashboard:
			path := strings.NewReplacer(":keyId", unknownID[1:], ":userId", unknownID[1:], ":deliveryId", "1").Replace(rt.path)
			calls[rt.method+" "+rt.path] = []badCall{
				{method: rt.method, path: path, body: `{}`, code: CodeUnauthorized},
				{method: rt.method, path: path, body: `{}`, header: session, code: CodeServiceUnavailable},
			}
		case accessDashboardSignIn:
			good := `{"email": "a@b.co", "password": "p"}`
			if strings.HasSuffix(rt.path, "/link") {
				good = `{"token": "t"}`
			}
			calls[rt.method+" "+rt.path] = []badCall{
				{method: rt.method, path: rt.path, body: `{"email": 5}`, code: CodeInvalidInput},
				{method: rt.method, path: rt.path, body: `{"emial": "a@b.co"}`, code: CodeInvalidInput},
				{method: rt.method, path: rt.path, body: good, code: CodeServiceUnavailable},
			}
		}
	}
	checker := apiChecker(t)
	routes := map[string]bool{}
	for _, r := range append(h.Routes(), adm.Routes()...) {
		key := r.Method + " " + r.Path
		routes[key] = true
		if len(calls[key]) == 0 {
			t.Errorf("route %s has no bad request in this test", key)
		}
	}
	for key, cs := range calls {
		if !routes[key] {
			t.Errorf("%s is not a route", key)
		}
		for _, c := range cs {
			indexer.err, refunder.err = c.err, c.err
			r := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
			r.Header.Set("Content-Type", "application/json")
			for k, v := range c.header {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			serve(w, r)
			var body map[string]any
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
				t.Errorf("%s %s %s: %d %q is not JSON", c.method, c.path, c.body, w.Code, w.Body)
				continue
			}
			if c.status != 0 {
				if e, _ := body["error"].(string); w.Code != c.status || e == "" {
					t.Errorf("%s %s %s: %d %v, want %d {error}", c.method, c.path, c.body, w.Code, body, c.status)
				}
			} else {
				checkError(t, c.method+" "+c.path+" "+c.body, w.Code, body, c.code)
			}
			// The answer is one the OpenAPI document describes (the route's own method only: the
			// others are the router's 404).
			if method, path, _ := strings.Cut(key, " "); method == c.method && path != "/test/panic" {
				if err := checker.Check(context.Background(), r, openAPIPath(path), w.Code, w.Header(), w.Body.Bytes()); err != nil {
					t.Errorf("%s %s %s: %d %s does not match the OpenAPI document: %v", c.method, c.path, c.body, w.Code, w.Body, err)
				}
			}
		}
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/no/such/path", nil))
	var body map[string]any
	_ = json.Unmarshal(w.Body.Bytes(), &body)
	checkError(t, "unknown path", w.Code, body, CodeNotFound)
}

// docsErrorRow is a row of the error table in docs/api.md: | 400 | INVALID_INPUT | meaning |.
var docsErrorRow = regexp.MustCompile("^\\| (\\d{3}) \\| `?([A-Z_]+)`? \\|")

// The error table of docs/api.md is the table of statuses, row for row.
func TestTheDocsListEveryErrorCodeWithTheTablesStatus(t *testing.T) {
	raw, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "\n## Errors\n")
	if !ok {
		t.Fatal("docs/api.md has no section ## Errors")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	documented := map[string]int{}
	for line := range strings.SplitSeq(section, "\n") {
		if m := docsErrorRow.FindStringSubmatch(line); m != nil {
			documented[m[2]], _ = strconv.Atoi(m[1])
		}
	}
	if !maps.Equal(documented, statuses) {
		t.Fatalf("docs/api.md lists\n%v\nthe table is\n%v", documented, statuses)
	}
}

// Every error code the quote engine declares has a row in the table: a code without one would
// answer 500.
func TestEveryQuoteCodeHasAStatus(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "../quote/errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	ast.Inspect(f, func(node ast.Node) bool {
		spec, ok := node.(*ast.ValueSpec)
		if !ok || len(spec.Names) != 1 || !strings.HasPrefix(spec.Names[0].Name, "Code") || len(spec.Values) != 1 {
			return true
		}
		lit, ok := spec.Values[0].(*ast.BasicLit)
		if !ok {
			return true
		}
		n++
		if code, _ := strconv.Unquote(lit.Value); statuses[code] == 0 {
			t.Errorf("quote.%s (%s) has no status in the table", spec.Names[0].Name, code)
		}
		return true
	})
	if n < 12 {
		t.Fatalf("found %d quote codes in quote/errors.go; the test no longer reads them", n)
	}
}
