package store

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/intentd/intentd/intent"
)

// The record's codec (goccy/go-json, recordjson.go) reads what encoding/json reads and writes
// the bytes encoding/json writes, for the records of every kind of request: a filled bridge as
// Postgres returns it, and the same with the parts other outcomes add (a duplicate deposit's
// links, a reverted fill, a refund's failure, text that JSON escapes).
func TestTheRecordsJSONIsEncodingJSONs(t *testing.T) {
	raw, err := os.ReadFile("testdata/record-eth-bridge.json")
	if err != nil {
		t.Fatal(err)
	}
	var want, got intent.Record
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	if err := decodeRecord(raw, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("decoded differently:\nencoding/json %+v\nrecord codec  %+v", want, got)
	}
	if want.Data.Fees == nil || want.Data.Route == nil || len(want.Data.InTxs) == 0 {
		t.Fatal("the testdata record is not a filled bridge's")
	}
	failed := want
	failed.Status, failed.Data.FailReason, failed.Data.RefundFailReason = intent.StatusFailure, intent.FailReasonNA, "MANUAL_REFUND_REQUIRED"
	failed.DuplicateDeposits = &intent.DuplicateDeposits{ParentRequestID: want.ID, RefundRequestIDs: []string{"0xrefund1", "0xrefund2"}}
	failed.Data.OutTxs = append(failed.Data.OutTxs, intent.TxItem{Type: "onchain", Status: "failure", TxHash: "0xbad", ChainID: 31338, Block: 9})
	failed.Data.Referrer = `<app & "partner">` + "\u2028 é \x01"
	failed.Data.FailedTxHash, failed.Data.FailedCallData = "0xbad", &intent.CallData{From: "0xsolver", To: "0xsettler", Data: "0xabcdef", Value: "7"}
	failed.Features = nil
	for name, rec := range map[string]intent.Record{"filled bridge": want, "failed, duplicate, escaped": failed, "empty": {}} {
		a, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		b, err := encodeRecord(&rec)
		if err != nil {
			t.Fatal(err)
		}
		if string(a) != string(b) {
			t.Fatalf("%s: encoded differently:\nencoding/json %s\nrecord codec  %s", name, a, b)
		}
		var back intent.Record
		if err := decodeRecord(b, &back); err != nil || !reflect.DeepEqual(back, rec) {
			t.Fatalf("%s: read back %+v (%v), want %+v", name, back, err, rec)
		}
	}
}
