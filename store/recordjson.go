package store

import (
	gojson "github.com/goccy/go-json"

	"github.com/intentd/intentd/intent"
)

// A request's record (about 12 kB of JSON once filled) is decoded and encoded again at each of
// its transitions, four or more per intent, and at the settlement of its fees: with
// encoding/json that took half a millisecond each time and was the largest JSON cost of the
// engine under load (BENCHMARKS.md). goccy/go-json, a drop-in replacement already in the
// module graph (gin's optional codec), does the same in a fifth of the time, to the same bytes
// and the same values (TestTheRecordsJSONIsEncodingJSONs). Everything else keeps encoding/json.

// decodeRecord decodes a stored record.
func decodeRecord(raw []byte, rec *intent.Record) error { return gojson.Unmarshal(raw, rec) }

// encodeRecord encodes a record to store.
func encodeRecord(rec *intent.Record) ([]byte, error) { return gojson.Marshal(rec) }
