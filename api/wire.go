package api

import (
	"encoding/json"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/records"
	"github.com/intentd/intentd/store"
)

// The envelopes the handlers answer with, named so that the OpenAPI document is generated from
// the very types that are encoded (openapi.go).

// livesJSON is GET /lives's answer.
type livesJSON struct {
	Status string `json:"status" enum:"ok"`
}

// messageJSON is an answer that is only a message: a transaction hint's.
type messageJSON struct {
	Message string `json:"message"`
}

// indexedJSON is POST /transactions/index's answer: how many deposits the transaction held.
type indexedJSON struct {
	Message  string `json:"message"`
	Deposits int    `json:"deposits" minimum:"0"`
}

// requestsV3JSON is GET /requests/v3's envelope; each request is a v3 record as records.V3
// renders it (the document's RequestV3 schema).
type requestsV3JSON struct {
	Requests     []json.RawMessage `json:"requests"`
	Continuation string            `json:"continuation,omitempty"`
	Total        *int64            `json:"total,omitempty"`
}

// requestsV2JSON is GET /requests/v2's (and /requests') envelope.
type requestsV2JSON struct {
	Requests     []*records.V2Record `json:"requests"`
	Continuation string              `json:"continuation,omitempty"`
	Deprecation  v2DeprecationJSON   `json:"deprecation"`
}

// v2DeprecationJSON is the deprecation notice of every 200 of GET /requests/v2.
type v2DeprecationJSON struct {
	Message        string `json:"message"`
	DeprecatedAt   string `json:"deprecatedAt" format:"date-time"`
	ThrottledFrom  string `json:"throttledFrom" format:"date-time"`
	SunsetAt       string `json:"sunsetAt" format:"date-time"`
	Successor      string `json:"successor"`
	MigrationGuide string `json:"migrationGuide"`
}

// v2GoneJSON is GET /requests/v2's answer after its sunset.
type v2GoneJSON struct {
	ErrorCode      string `json:"errorCode" enum:"GONE"`
	Message        string `json:"message"`
	Successor      string `json:"successor"`
	MigrationGuide string `json:"migrationGuide"`
}

// v2RateLimitedJSON is GET /requests/v2's 429: the spec's body, no errorCode.
type v2RateLimitedJSON struct {
	Message        string `json:"message"`
	Successor      string `json:"successor"`
	MigrationGuide string `json:"migrationGuide"`
}

// usageJSON is GET /metrics/usage's answer.
type usageJSON struct {
	Metrics []usageMetricJSON `json:"metrics"`
}

// integratorsJSON is GET /admin/integrators's answer.
type integratorsJSON struct {
	Integrators []auth.IntegratorView `json:"integrators"`
}

// apiKeysJSON is GET /admin/integrators/{id}/keys's answer.
type apiKeysJSON struct {
	APIKeys []auth.KeyView `json:"apiKeys"`
}

// createdKeyJSON is a created key: its value, in this answer only, and the key.
type createdKeyJSON struct {
	Key    string       `json:"key" doc:"the key's value: shown here once, never again"`
	APIKey auth.KeyView `json:"apiKey"`
}

// webhookJSON is a key's webhook; secret only in the answers that create or rotate it.
type webhookJSON struct {
	Webhook store.WebhookView `json:"webhook"`
	Secret  string            `json:"secret,omitempty" doc:"the signing secret: only when the webhook is created or its secret rotated"`
}

// deliveriesJSON is a page of a webhook's delivery log; before pages on.
type deliveriesJSON struct {
	Deliveries []store.DeliveryLog `json:"deliveries"`
	Before     *int64              `json:"before,omitempty" doc:"the before parameter of the next page, when there may be one"`
}

// queuedJSON is how many deliveries a resend queued.
type queuedJSON struct {
	Queued int64 `json:"queued"`
}
