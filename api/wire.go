package api

import (
	"time"

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

// authorizeBodyJSON is POST /authorize's body as the document describes it: the authorize step's
// post.body (the handler reads it as authorizeBody, its numbers by hand).
type authorizeBodyJSON struct {
	Type             string `json:"type" required:"true" enum:"nonce-mapping"`
	WalletChainID    uint64 `json:"walletChainId" required:"true" minimum:"1337" maximum:"1337" doc:"the perps exchange's chain"`
	Wallet           string `json:"wallet" required:"true" pattern:"^0x[0-9a-fA-F]{40}$" doc:"the message's signer: the request's user"`
	Depositor        string `json:"depositor" required:"true" pattern:"^0x[0-9a-fA-F]{40}$" doc:"the exchange account whose transfer carries the nonce"`
	Nonce            uint64 `json:"nonce" required:"true" minimum:"1" maximum:"9007199254740991" doc:"the deposit step's sendAsset nonce"`
	ID               string `json:"id" required:"true" pattern:"^0x[0-9a-fA-F]{64}$" doc:"the order id (protocol.v2.orderId), not the requestId"`
	SignatureChainID uint64 `json:"signatureChainId" required:"true" minimum:"1" maximum:"9007199254740991" doc:"the chain the message was signed on: its domain's chainId"`
	Referrer         string `json:"referrer,omitempty" doc:"ignored (the public SDK adds it)"`
}

// authorizedJSON is POST /authorize's answer: the binding that stands (the first one stored,
// when the same binding is posted again).
type authorizedJSON struct {
	Message          string `json:"message" doc:"Nonce mapping stored"`
	RequestID        string `json:"requestId"`
	OrderID          string `json:"orderId"`
	Wallet           string `json:"wallet"`
	Depositor        string `json:"depositor"`
	Nonce            uint64 `json:"nonce"`
	SignatureChainID uint64 `json:"signatureChainId" doc:"the chain of the signature stored first"`
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

// dashboardMeJSON is who is signed in to the dashboard, and the session's CSRF token.
type dashboardMeJSON struct {
	User       auth.DashboardUserView  `json:"user"`
	Role       auth.Role               `json:"role" enum:"owner,developer,support"`
	Integrator dashboardIntegratorJSON `json:"integrator"`
	CSRFToken  string                  `json:"csrfToken" doc:"send it as X-CSRF-Token on every change"`
}

// dashboardIntegratorJSON is the integrator a dashboard user belongs to.
type dashboardIntegratorJSON struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// dashboardUsersJSON is an integrator's dashboard users.
type dashboardUsersJSON struct {
	Users []auth.DashboardUserView `json:"users"`
}

// dashboardLinkJSON is a one-time sign-in link: its token, shown in this answer only.
type dashboardLinkJSON struct {
	Token     string    `json:"token" doc:"the link's token: shown here once; POST it to /dashboard/api/session/link"`
	Path      string    `json:"path" doc:"the dashboard's path with the token in its fragment, to put after the dashboard's origin"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// invitedJSON is an invited user and the one-time link they sign in with first.
type invitedJSON struct {
	User auth.DashboardUserView `json:"user"`
	Link dashboardLinkJSON      `json:"link"`
}

// dashboardKeysJSON is the integrator's keys as the dashboard lists them.
type dashboardKeysJSON struct {
	APIKeys []dashboardKeyJSON `json:"apiKeys"`
}

// dashboardKeyJSON is a key in the dashboard's list: for owners and developers with its details,
// for support its label only.
type dashboardKeyJSON struct {
	Label       string                   `json:"label"`
	ID          string                   `json:"id,omitempty"`
	Prefix      string                   `json:"prefix,omitempty"`
	Environment string                   `json:"environment,omitempty"`
	Tier        auth.Tier                `json:"tier,omitempty"`
	Limits      map[string]auth.RateView `json:"limits,omitempty"`
	Unlimited   bool                     `json:"unlimited,omitempty"`
	CreatedAt   *time.Time               `json:"createdAt,omitempty"`
	LastUsedAt  *time.Time               `json:"lastUsedAt,omitempty" doc:"absent: never used"`
	RevokedAt   *time.Time               `json:"revokedAt,omitempty" doc:"absent: live"`
}

// testQueuedJSON is the test delivery queued to a webhook.
type testQueuedJSON struct {
	DeliveryID int64 `json:"deliveryId"`
}
