package api

import (
	"context"
	"time"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/events"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/records"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/usage"
)

// Store is what the API reads and changes in the database: the methods its handlers call, and
// those of the parts it builds over the same store (the key resolver, auth.Source; the usage
// recorder, usage.Store; the webhooks' admin, events.WebhookStore). *store.Store is the one
// implementation; the interface says what of it the API depends on, so that the API's needs are
// read here and not from the whole store.
type Store interface {
	auth.Source
	usage.Store
	events.WebhookStore

	// Requests: GET /intents/status/*, /withdrawals/status, /requests/v3 and /v2.
	Status(ctx context.Context, requestID string) (*store.StatusRow, error)
	Record(ctx context.Context, requestID string) (*intent.Record, error)
	SearchRecords(ctx context.Context, q records.Query) (*store.RecordPage, error)

	// Deposit addresses: GET /deposit-addresses/v1 and /v2, their disabling (public and admin).
	DepositAddressByAddress(ctx context.Context, address string) (*intent.DepositAddress, error)
	DepositAddressByRequest(ctx context.Context, requestID string) (*intent.DepositAddress, error)
	DepositAddressTransfers(ctx context.Context, addressID string) ([]intent.DepositAddressTransfer, error)
	DepositAddressCreator(ctx context.Context, id string) (string, error)
	DisableDepositAddress(ctx context.Context, id string, at time.Time) (*intent.DepositAddress, error)
	DisableDepositAddressAsAdmin(ctx context.Context, id string, at time.Time, by store.Actor) (*intent.DepositAddress, error)

	// Usage: GET /metrics/usage.
	Usage(ctx context.Context, q store.UsageQuery) ([]usage.Count, error)
	UsageKeys(ctx context.Context, ids []string, hashes [][]byte) ([]store.UsageKey, error)

	// POST /execute: the quote a gasless request executes, and its record's feature.
	QuoteByRequestID(ctx context.Context, requestID string) (*store.StoredQuote, error)
	AddRequestFeature(ctx context.Context, requestID, feature string) error
	InsertRelayRequest(ctx context.Context, id string, chainID uint64, from string, at time.Time) error

	// POST /authorize: the request of an order id, and the binding of a perps transfer's nonce.
	RequestByOrderID(ctx context.Context, orderID string) (*store.RequestRef, error)
	BindPerpsNonce(ctx context.Context, m store.PerpsNonceMapping) (*store.PerpsNonceMapping, error)

	// GET /integrators/quote-data.
	SponsorAccount(ctx context.Context, integratorID string) (intent.SponsorAccount, error)
	IntegratorVolume30d(ctx context.Context, integratorID string) (decimal.Decimal, error)

	// The admin API: integrators, their sponsorship balance, their keys.
	Integrators(ctx context.Context) ([]*auth.Integrator, error)
	Integrator(ctx context.Context, id string) (*auth.Integrator, error)
	CreateIntegrator(ctx context.Context, in auth.Integrator, by store.Actor) (*auth.Integrator, error)
	UpdateIntegrator(ctx context.Context, id string, u store.IntegratorUpdate, by store.Actor) (*auth.Integrator, error)
	TopUpSponsorBalance(ctx context.Context, id string, amount decimal.Decimal, by store.Actor) (*auth.Integrator, error)
	AdjustSponsorBalance(ctx context.Context, id string, delta decimal.Decimal, by store.Actor) (*auth.Integrator, error)
	APIKeys(ctx context.Context, integratorID string) ([]*auth.Key, error)
	APIKey(ctx context.Context, integratorID, keyID string) (*auth.Key, error)
	CreateAPIKey(ctx context.Context, in store.NewKey, by store.Actor) (value string, k *auth.Key, err error)
	RenameAPIKey(ctx context.Context, integratorID, keyID, label string, by store.Actor) (*auth.Key, error)
	SetAPIKeyLimits(ctx context.Context, integratorID, keyID string, tier auth.Tier, limits map[string]auth.Rate, by store.Actor) (*auth.Key, error)
	RevokeAPIKey(ctx context.Context, integratorID, keyID string, by store.Actor) (*auth.Key, error)

	// The admin API: webhooks (their changes through events.Admin, over events.WebhookStore).
	WebhookOf(ctx context.Context, integratorID, keyID string) (*store.Webhook, error)
	WebhookDeliveries(ctx context.Context, integratorID, keyID string, f store.DeliveryFilter) ([]store.DeliveryLog, error)
	ResendDeliveries(ctx context.Context, integratorID, keyID string, deliveryID int64, since time.Time, by store.Actor) (int64, error)

	// The integrator dashboard (dashboard.go): its users, sessions, one-time links, sign-in
	// attempts, and the test delivery of a key's webhook.
	CreateDashboardUser(ctx context.Context, integratorID, email string, role auth.Role, passwordHash string, by store.Actor) (*auth.DashboardUser, error)
	DashboardUsers(ctx context.Context, integratorID string) ([]*auth.DashboardUser, error)
	DashboardUserByEmail(ctx context.Context, email string) (*auth.DashboardUser, string, error)
	SetDashboardUserRole(ctx context.Context, integratorID, userID string, role auth.Role, by store.Actor) (*auth.DashboardUser, error)
	RemoveDashboardUser(ctx context.Context, integratorID, userID string, by store.Actor) error
	SetDashboardPassword(ctx context.Context, integratorID, userID, passwordHash string, keepSession []byte, by store.Actor) (*auth.DashboardUser, error)
	IssueDashboardLink(ctx context.Context, integratorID, userID string, tokenHash []byte, expiresAt time.Time, by store.Actor) error
	UseDashboardLink(ctx context.Context, tokenHash []byte) (*auth.DashboardUser, error)
	CreateDashboardSession(ctx context.Context, userID string, tokenHash []byte, expiresAt time.Time, remote string) error
	DashboardSession(ctx context.Context, tokenHash []byte) (*auth.DashboardUser, error)
	EndDashboardSession(ctx context.Context, tokenHash []byte) error
	AdmitSignInAttempt(ctx context.Context, subjects []string, limits []int, window time.Duration) ([]store.SignInCount, bool, error)
	ForgetSignInAttempts(ctx context.Context, subject string) error
	QueueTestDelivery(ctx context.Context, integratorID, keyID, event string, body []byte, by store.Actor) (int64, error)
	// The dashboard's requests surface (dashboard_requests.go).
	RequestTransactions(ctx context.Context, requestID string) ([]store.RequestTransaction, error)
	DashboardViews(ctx context.Context, integratorID string) ([]*store.DashboardView, error)
	CreateDashboardView(ctx context.Context, integratorID, createdBy string, v store.DashboardView, by store.Actor) (*store.DashboardView, error)
	UpdateDashboardView(ctx context.Context, integratorID, viewID string, edit func(*store.DashboardView) error, by store.Actor) (*store.DashboardView, error)
	DeleteDashboardView(ctx context.Context, integratorID, viewID string, by store.Actor) error
	SponsorshipHistory(ctx context.Context, integratorID string, limit int, before int64) ([]store.SponsorshipEntry, error)
	SetDashboardOperator(ctx context.Context, integratorID, userID string, operator bool, by store.Actor) (*auth.DashboardUser, error)
}

var _ Store = (*store.Store)(nil)
