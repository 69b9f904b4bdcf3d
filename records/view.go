package records

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// ownerOnly are the v3 record's fields (in `data`) returned only to the integrator that owns
// the request, and only when it asks (includeAuthenticatedData=true): the spec's Authentication
// rule 3.
var ownerOnly = []string{"referrer", "platformFee", "apiKeyName", "blockedAddresses"}

// failReasonKeys are the `data` fields that read null where the status endpoint says N/A.
var failReasonKeys = []string{"failReason", "refundFailReason"}

// V3NullableData are the `data` fields V3 may write as null although the stored record never
// does (the fail reasons, the owner-only fields), and of those the ones it may leave out: what
// the OpenAPI document's v3 record says of them.
func V3NullableData() (nullable, omitted []string) {
	return append(slices.Clone(failReasonKeys), ownerOnly...), slices.Clone(ownerOnly)
}

// phasedObjects are the `data` objects whose phases (quoted, actual) the public SDK types as
// optional objects, never null: a phase not written is left out. Records stored before
// intent.Record omitted them hold `"actual": null`; V3 drops it.
var phasedObjects = []string{"fees", "feeSponsorship"}

// V3 is a stored record as GET /requests/v3 returns it: owner-only fields only when owner (the
// caller's integrator owns the request and asked for them), then present even when empty
// (apiKeyName and blockedAddresses null); failReason and refundFailReason null where they are
// N/A; a null phase of fees or feeSponsorship left out; refundTo null when the request has none
// (an open deposit address quoted without one: the public SDK's "Null when not specified").
// Numbers are kept exactly as stored.
func V3(stored []byte, owner bool) (json.RawMessage, error) {
	rec, err := decodeObject(stored)
	if err != nil {
		return nil, err
	}
	if v, ok := rec["refundTo"].(string); ok && v == "" {
		rec["refundTo"] = nil
	}
	data, _ := rec["data"].(map[string]any)
	if data == nil {
		data = map[string]any{}
		rec["data"] = data
	}
	for _, k := range failReasonKeys {
		if v, _ := data[k].(string); v == "" || v == "N/A" {
			data[k] = nil
		}
	}
	for _, k := range phasedObjects {
		if o, ok := data[k].(map[string]any); ok {
			for _, phase := range []string{"quoted", "actual"} {
				if v, has := o[phase]; has && v == nil {
					delete(o, phase)
				}
			}
		}
	}
	for _, k := range ownerOnly {
		if !owner {
			delete(data, k)
			continue
		}
		if _, ok := data[k]; !ok {
			data[k] = nil
		}
	}
	return json.Marshal(rec)
}

// decodeObject reads a stored record as a JSON object, numbers as json.Number.
func decodeObject(stored []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(stored))
	dec.UseNumber()
	var rec map[string]any
	if err := dec.Decode(&rec); err != nil {
		return nil, fmt.Errorf("stored record: %w", err)
	}
	if rec == nil {
		return nil, fmt.Errorf("stored record is not an object")
	}
	return rec, nil
}
