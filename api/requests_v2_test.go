package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/ratelimit"
)

// v2Call is one answer of a v2 test: status, headers and decoded body.
type v2Call struct {
	status int
	header http.Header
	body   map[string]any
}

func callV2(t *testing.T, h http.Handler, path, key string) v2Call {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, path, nil)
	if key != "" {
		r.Header.Set("x-api-key", key)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var body map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatalf("%s: %d %q is not JSON", path, w.Code, w.Body)
	}
	return v2Call{w.Code, w.Header(), body}
}

// checkDeprecationHeaders: Versioning 3, every response of GET /requests/v2 (2xx, 4xx, 5xx)
// carries Deprecation, Sunset and Link, listed in Access-Control-Expose-Headers.
func checkDeprecationHeaders(t *testing.T, what string, h http.Header) {
	t.Helper()
	if got := h.Get("Deprecation"); got != "@1784678400" { // 2026-07-22T00:00:00Z
		t.Errorf("%s: Deprecation %q, want @1784678400", what, got)
	}
	if got := h.Get("Sunset"); got != "Tue, 24 Nov 2026 00:00:00 GMT" {
		t.Errorf("%s: Sunset %q, want the HTTP-date of 24 November 2026", what, got)
	}
	link := h.Get("Link")
	for _, rel := range []string{`rel="deprecation"`, `rel="sunset"`, `</requests/v3>; rel="successor-version"`} {
		if !strings.Contains(link, rel) {
			t.Errorf("%s: Link %q lacks %s", what, link, rel)
		}
	}
	expose := strings.Join(h.Values("Access-Control-Expose-Headers"), ",")
	for _, name := range []string{"Deprecation", "Sunset", "Link"} {
		if !strings.Contains(expose, name) {
			t.Errorf("%s: Access-Control-Expose-Headers %q lacks %s", what, expose, name)
		}
	}
}

func TestRequestsV2DeprecationOnEveryAnswerAndGoneAfterTheSunset(t *testing.T) {
	rig := newUsageRig(t)
	id := seedRequest(t, rig.st, seedReq{user: addrN(9), origin: 1, dest: 10, deposit: hashN(0xd2), fill: hashN(0xf2)})
	clock := time.Date(2026, 11, 23, 23, 59, 59, 0, time.UTC)
	rig.srv.Now = func() time.Time { return clock }
	policy := ratelimit.DefaultPolicy()
	policy.Anonymous = map[string]auth.Rate{ratelimit.Requests: {Count: 3, Period: time.Hour}}
	rig.srv.Limits = ratelimit.New(ratelimit.Options{Policy: policy})
	h := rig.srv.Handler()

	for _, path := range []string{"/requests/v2", "/requests"} {
		ok := callV2(t, h, path+"?id="+id, "")
		checkDeprecationHeaders(t, path+" 200", ok.header)
		reqs, _ := ok.body["requests"].([]any)
		dep, _ := ok.body["deprecation"].(map[string]any)
		if ok.status != 200 || len(reqs) != 1 || dep["successor"] != "/requests/v3" || dep["sunsetAt"] != "2026-11-24T00:00:00Z" ||
			dep["deprecatedAt"] != "2026-07-22T00:00:00Z" || dep["migrationGuide"] == "" || dep["message"] == "" || dep["throttledFrom"] == "" {
			t.Fatalf("%s: %d %v, want the request and deprecation {message, deprecatedAt, throttledFrom, sunsetAt, successor, migrationGuide}", path, ok.status, ok.body)
		}
	}
	bad := callV2(t, h, "/requests/v2?limit=51", "")
	checkDeprecationHeaders(t, "400", bad.header)
	if bad.status != 400 {
		t.Errorf("limit=51: %d, want 400", bad.status)
	}
	// The third anonymous call of the hour was the 400; the fourth is over the shared bucket.
	limited := callV2(t, h, "/requests?id="+id, "")
	checkDeprecationHeaders(t, "429", limited.header)
	if limited.status != 429 || limited.header.Get("Retry-After") != "" || limited.body["successor"] != "/requests/v3" ||
		limited.body["migrationGuide"] == nil || limited.body["message"] == nil || len(limited.body) != 3 {
		t.Errorf("v2 over its limit: %d Retry-After %q %v, want 429 {message, successor, migrationGuide} without Retry-After",
			limited.status, limited.header.Get("Retry-After"), limited.body)
	}

	clock = time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	for _, path := range []string{"/requests/v2", "/requests"} {
		gone := callV2(t, h, path+"?id="+id, "")
		checkDeprecationHeaders(t, path+" 410", gone.header)
		if gone.status != 410 || gone.body["successor"] != "/requests/v3" || gone.body["migrationGuide"] == nil {
			t.Errorf("%s after the sunset: %d %v, want 410 with the successor", path, gone.status, gone.body)
		}
	}
	if v3 := callV2(t, h, "/requests/v3?id="+id, rig.a1.plain); v3.status != 200 || v3.header.Get("Deprecation") != "" {
		t.Errorf("/requests/v3 after v2's sunset: %d, Deprecation %q", v3.status, v3.header.Get("Deprecation"))
	}
}

func TestRequestsV2RecordShape(t *testing.T) {
	rig := newUsageRig(t)
	dep, fill := hashN(0xd3), hashN(0xf3)
	id := seedRequest(t, rig.st, seedReq{user: addrN(10), origin: 1, dest: 10, status: intent.StatusSubmitted, deposit: dep, fill: fill, key: &rig.a1})
	// The items of the record itself (the seeded row lists none): written as a transition would.
	if _, err := rig.st.Pool().Exec(context.Background(), `UPDATE requests SET record = jsonb_set(record, '{data,inTxs}',
		jsonb_build_array(jsonb_build_object('txHash', $2::text, 'fee', '21000', 'feeUsd', '0.06', 'block', 7, 'type', 'onchain',
		'chainId', 1, 'timestamp', 1700000000, 'status', 'success', 'data', null))) WHERE id = $1`, id, dep); err != nil {
		t.Fatal(err)
	}
	rig.srv.Now = func() time.Time { return time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC) }
	h := rig.srv.Handler()
	call := callV2(t, h, "/requests/v2?hash="+fill, "")
	reqs, _ := call.body["requests"].([]any)
	if call.status != 200 || len(reqs) != 1 {
		t.Fatalf("hash= (origin or destination tx): %d %v", call.status, call.body)
	}
	rec := reqs[0].(map[string]any)
	data := rec["data"].(map[string]any)
	in := data["inTxs"].([]any)[0].(map[string]any)
	fees, _ := data["fees"].(map[string]any)
	switch {
	case rec["status"] != "pending":
		t.Errorf("status %v: v2 reads submitted as pending", rec["status"])
	case rec["depositAddress"] != nil:
		t.Errorf("depositAddress %v, want null", rec["depositAddress"])
	case data["failReason"] != "N/A" || data["refundFailReason"] != "N/A":
		t.Errorf("fail reasons %v %v: v2 keeps N/A", data["failReason"], data["refundFailReason"])
	case in["hash"] != dep || in["txHash"] != nil || in["type"] != "onchain" || in["status"] != "success":
		t.Errorf("inTxs[0] %v: v2 names txHash hash", in)
	case fees == nil || fees["gas"] == nil || fees["fixed"] == nil || fees["price"] == nil || fees["gateway"] == nil:
		t.Errorf("data.fees %v, want {gas, fixed, price, gateway}", data["fees"])
	case data["subsidizedRequest"] != false || data["currencyObject"] == nil || data["orderData"] != nil:
		t.Errorf("data %v", data)
	}
	// The non-terminal visibility rule: with a chain filter, the submitted request is shown to
	// its own integrator's keys only.
	if n := len(callV2(t, h, "/requests/v2?originChainId=1", "").body["requests"].([]any)); n != 0 {
		t.Errorf("originChainId anonymous: %d requests, want the non-final one hidden", n)
	}
	if n := len(callV2(t, h, "/requests/v2?chainId=10", rig.g1.plain).body["requests"].([]any)); n != 0 {
		t.Errorf("chainId with another integrator's key: %d requests, want none", n)
	}
	if n := len(callV2(t, h, "/requests/v2?chainId=10", rig.a2.plain).body["requests"].([]any)); n != 1 {
		t.Errorf("chainId with the owning integrator's key: %d requests, want 1", n)
	}
	if n := len(callV2(t, h, "/requests/v2?status=pending&user="+addrN(10), "").body["requests"].([]any)); n != 1 {
		t.Errorf("status=pending covers submitted: %d", n)
	}
}

func TestRemovedEndpointsAnswer404NamingTheReplacement(t *testing.T) {
	rig := newUsageRig(t)
	rig.srv.Now = func() time.Time { return time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC) }
	h := rig.srv.Handler().(*gin.Engine)
	id := hashN(0x5)
	for _, c := range []struct{ method, path string }{{"POST", "/execute/swap"}, {"GET", "/requests/" + id + "/signature"},
		{"GET", "/requests/" + id + "/signature/v2"}} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(c.method, c.path, strings.NewReader("{}")))
		var body map[string]any
		_ = json.Unmarshal(w.Body.Bytes(), &body)
		if w.Code != 404 || body["errorCode"] != CodeRemoved || !strings.Contains(body["message"].(string), "was removed; use ") {
			t.Errorf("%s %s: %d %s, want 404 naming the replacement", c.method, c.path, w.Code, w.Body)
		}
	}
	for path, want := range map[string]int{"/requests/v2": 200, "/requests": 200, "/requests/v3": 401} {
		if got := callV2(t, h, path, "").status; got != want {
			t.Errorf("%s beside the removed routes: %d, want %d", path, got, want)
		}
	}
}
