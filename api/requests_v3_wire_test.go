package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/intentd/intentd/intent"
)

// Issue 33, point 8: "GET /requests/v3 answers data.fees.actual (before a fill) and
// data.feeSponsorship.actual (when nothing was sponsored, even after success) as null, where the
// public SDK's types say object": @relayprotocol/relay-sdk 7.0.3, _types/src/types/api.d.ts,
// types `fees.actual?: {…}` and `feeSponsorship.actual?: {…}` (optional objects, not `| null`).
// A phase not written is left out: for a record written now, and for one stored before with
// `"actual": null`.
func TestRequestsV3LeavesOutAFeePhaseNotWrittenWhereTheSDKTypesAnObjectNotNull(t *testing.T) {
	rig := newUsageRig(t)
	quoted := intent.FeeComponents{Swap: intent.FeeAmount{USD: "0.01", Amount: "1", AmountFormatted: "0.000001"}}
	phase := &intent.SponsorshipPhase{SelectedComponents: []string{}, Components: map[string]intent.SponsoredComponent{},
		MaxSubsidizationAmount: "0"}
	for _, tc := range []struct {
		name   string
		record func(rec map[string]any)
	}{
		{"written now", func(map[string]any) {}},
		{"stored with null phases", func(rec map[string]any) {
			data := rec["data"].(map[string]any)
			data["fees"].(map[string]any)["actual"] = nil
			data["feeSponsorship"].(map[string]any)["actual"] = nil
		}},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			id := seedRequest(t, rig.st, seedReq{user: addrN(40), origin: 1, dest: 10, key: &rig.a1, status: intent.StatusSuccess})
			var stored []byte
			if err := rig.st.Pool().QueryRow(context.Background(), `SELECT record FROM requests WHERE id = $1`, id).Scan(&stored); err != nil {
				t.Fatal(err)
			}
			var r intent.Record
			if err := json.Unmarshal(stored, &r); err != nil {
				t.Fatal(err)
			}
			// A successful request that nobody sponsored, before its fill's actual side was written.
			r.Data.Fees = &intent.QuotedFees{Quoted: quoted}
			r.Data.FeeSponsorship = &intent.FeeSponsorship{Quoted: phase}
			body, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			var rec map[string]any
			if err := json.Unmarshal(body, &rec); err != nil {
				t.Fatal(err)
			}
			tc.record(rec)
			if body, err = json.Marshal(rec); err != nil {
				t.Fatal(err)
			}
			if _, err := rig.st.Pool().Exec(context.Background(), `UPDATE requests SET record = $2 WHERE id = $1`, id, body); err != nil {
				t.Fatal(err)
			}

			code, ids, out := search(t, rig, "id="+id, rig.a1)
			if code != 200 || len(ids) != 1 {
				t.Fatalf("search: %d %v", code, out)
			}
			data := out["requests"].([]any)[0].(map[string]any)["data"].(map[string]any)
			fees, _ := data["fees"].(map[string]any)
			if _, ok := fees["quoted"].(map[string]any); !ok {
				t.Fatalf("data.fees.quoted %v, want the quoted object", fees["quoted"])
			}
			if v, has := fees["actual"]; has {
				t.Errorf("data.fees.actual is present (%v): the SDK types it as an optional object, so before a fill it is left out", v)
			}
			fs, _ := data["feeSponsorship"].(map[string]any)
			if _, ok := fs["quoted"].(map[string]any); !ok {
				t.Fatalf("data.feeSponsorship.quoted %v, want the quoted object", fs["quoted"])
			}
			if v, has := fs["actual"]; has {
				t.Errorf("data.feeSponsorship.actual is present (%v): nothing was sponsored, so it is left out", v)
			}
		})
	}
}

// Review L1 (issue 33, point 7): "a mixed-case address that fails EIP-55 is refused … apply
// wherever addresses are parsed from clients (quotes, /price, filters) — consistently". A search
// by a mistyped address is 400 naming the rule, not an empty page; all lower and all upper case
// still search.
func TestRequestsSearchByAnAddressWithMixedCaseThatFailsEIP55IsRefused(t *testing.T) {
	rig := newUsageRig(t)
	rig.srv.Now = func() time.Time { return time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC) } // /requests/v2 still served
	const good = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"                              // the devnet's account 1, checksummed
	last := strings.LastIndexAny(good, "abcdefABCDEF")
	typo := good[:last] + string(good[last]^0x20) + good[last+1:]
	id := seedRequest(t, rig.st, seedReq{user: good, origin: 1, dest: 10, key: &rig.a1})
	for _, q := range []string{"user=" + typo, "recipient=" + typo, "currencyInAddress=" + typo,
		"filters=" + url.QueryEscape(`[{"user":"`+typo+`"}]`)} {
		code, _, body := search(t, rig, q, rig.a1)
		if msg, _ := body["message"].(string); code != 400 || body["errorCode"] != "INVALID_INPUT" || !strings.Contains(msg, "EIP-55") {
			t.Errorf("GET /requests/v3?%s: %d %v, want 400 INVALID_INPUT naming EIP-55", q, code, body)
		}
	}
	if code, body := get(t, rig.url, "/requests/v2?user="+typo, rig.a1.plain); code != 400 || !strings.Contains(fmt.Sprint(body["message"]), "EIP-55") {
		t.Errorf("GET /requests/v2?user=%s: %d %v, want 400 naming EIP-55", typo, code, body)
	}
	for _, ok := range []string{good, strings.ToLower(good), "0x" + strings.ToUpper(good[2:])} {
		code, ids, body := search(t, rig, "user="+ok, rig.a1)
		if code != 200 {
			t.Fatalf("GET /requests/v3?user=%s: %d %v", ok, code, body)
		}
		sameIDs(t, "user="+ok, ids, id)
	}
}
