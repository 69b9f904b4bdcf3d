package api

import (
	"testing"
	"time"

	"github.com/intentd/intentd/intent"
)

// Review L20 (issue 33, point 7): "api/requests_v2.go: referrer filter requires the same key
// pairing as v3" (the spec's Authentication rule 3: "A referrer filter must be paired with apiKey
// or apiKeyId, and every supplied key must belong to the caller"). Without it, GET
// /requests/v2?referrer=X, keyless, tells anyone which requests carry the owner-only referrer.
func TestRequestsV2ReferrerFilterNeedsTheKeyPairingOfV3(t *testing.T) {
	rig := newUsageRig(t)
	rig.srv.Now = func() time.Time { return time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC) } // before the sunset
	h := rig.srv.Handler()
	id := seedRequest(t, rig.st, seedReq{user: addrN(50), origin: 1, dest: 10, key: &rig.a1, referrer: "acme-app",
		status: intent.StatusSuccess})
	for _, tc := range []struct {
		what, query, key string
		status           int
		code             string
	}{
		{"no key at all", "referrer=acme-app", "", 400, CodeInvalidInput},
		{"apiKey named, but no caller key", "referrer=acme-app&apiKey=" + rig.a1.plain, "", 401, CodeUnauthorized},
		{"caller keyed, no apiKey", "referrer=acme-app", rig.a1.plain, 400, CodeInvalidInput},
		{"another integrator's apiKey", "referrer=acme-app&apiKey=" + rig.a1.plain, rig.g1.plain, 403, CodeForbidden},
		{"an apiKey that is no key", "referrer=acme-app&apiKey=ik_" + "00000000000000000000000000000000000000000000000000000000000000aa", rig.a1.plain, 403, CodeForbidden},
	} {
		call := callV2(t, h, "/requests/v2?"+tc.query, tc.key)
		if call.status != tc.status || call.body["errorCode"] != tc.code {
			t.Errorf("%s: %d %v, want %d %s", tc.what, call.status, call.body, tc.status, tc.code)
		}
	}
	// Paired with the caller's own key, or a key of its integrator: the filter applies.
	for _, caller := range []usageKey{rig.a1, rig.a2} {
		call := callV2(t, h, "/requests/v2?referrer=acme-app&apiKey="+rig.a1.plain, caller.plain)
		reqs, _ := call.body["requests"].([]any)
		if call.status != 200 || len(reqs) != 1 || reqs[0].(map[string]any)["id"] != id {
			t.Errorf("paired, called with %s: %d %v", caller.Label, call.status, call.body)
		}
	}
}
