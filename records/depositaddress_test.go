package records

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/intentd/intentd/intent"
)

// Issue 35, point 5: "records carry `depositAddress {address, type, depositor, depositTxHash,
// recoveryAddress}` and feature `deposit_address`; v2-shaped surfaces … carry
// `depositAddressType`". A stored record of a deposit-address request reads in v3 as stored, with
// refundTo null when the quote named none (an open address: no automatic refund), and in v2 with
// the type named depositAddressType, its depositTxHash once the watcher wrote it; a request paid
// into the depository has none in either.
func TestDepositAddressOfARecordInV3AndV2(t *testing.T) {
	depositor, tx, recovery := "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "0x"+strings.Repeat("a", 64), "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
	rec := intent.Record{ID: "0x01", Status: intent.StatusWaiting, Features: []string{intent.FeatureDepositAddress},
		DepositAddress: &intent.RecordDepositAddress{Address: "0x5D82FbECe20F7A67540beFe0fB9DB5881E65E95f", Type: intent.DepositAddressOpen,
			Depositor: &depositor, DepositTxHash: &tx, RecoveryAddress: &recovery}}
	stored, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := V3(stored, false)
	if err != nil {
		t.Fatal(err)
	}
	var v3 map[string]any
	if err := json.Unmarshal(raw, &v3); err != nil {
		t.Fatal(err)
	}
	da, _ := v3["depositAddress"].(map[string]any)
	if len(da) != 5 || da["address"] != rec.DepositAddress.Address || da["type"] != "open" || da["depositor"] != depositor ||
		da["depositTxHash"] != tx || da["recoveryAddress"] != recovery {
		t.Fatalf("v3 depositAddress %v", v3["depositAddress"])
	}
	if r, ok := v3["refundTo"]; !ok || r != nil {
		t.Fatalf("v3 refundTo %v (present %v), want null", r, ok)
	}
	if f, _ := v3["features"].([]any); len(f) != 1 || f[0] != "deposit_address" {
		t.Fatalf("features %v", v3["features"])
	}

	v2, err := V2(stored, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(v2.DepositAddress)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"address":"0x5D82FbECe20F7A67540beFe0fB9DB5881E65E95f","depositAddressType":"open","depositor":"` + depositor +
		`","depositTxHash":"` + tx + `"}`; string(out) != want {
		t.Fatalf("v2 depositAddress %s, want %s", out, want)
	}

	plain, _ := json.Marshal(intent.Record{ID: "0x02", RefundTo: depositor, Features: []string{}})
	raw, err = V3(plain, false)
	if err != nil {
		t.Fatal(err)
	}
	v3 = nil
	if err := json.Unmarshal(raw, &v3); err != nil {
		t.Fatal(err)
	}
	if _, has := v3["depositAddress"]; has || v3["refundTo"] != depositor {
		t.Fatalf("a depository request's v3 record %v: want no depositAddress, its refundTo", v3)
	}
	if v2, err := V2(plain, nil); err != nil || v2.DepositAddress != nil {
		t.Fatalf("a depository request's v2 depositAddress %+v, %v: want null", v2, err)
	}
}
