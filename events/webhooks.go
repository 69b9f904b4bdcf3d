package events

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"

	"github.com/intentd/intentd/store"
)

// ErrInvalid is a webhook change refused as posed (a bad URL, a reserved header, an overlap out
// of range); its message says why. The admin API answers it with 400.
var ErrInvalid = errors.New("invalid webhook change")

// ErrUnconfigured is a webhook change without WEBHOOK_SECRETS_KEY: no secret can be sealed.
var ErrUnconfigured = errors.New("webhooks are not configured (WEBHOOK_SECRETS_KEY is not set)")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// Limits of a webhook's configuration.
const (
	MaxHeaders           = 20
	MaxHeaderValue       = 1024
	DefaultRotateOverlap = 24 * time.Hour
	MaxRotateOverlap     = 7 * 24 * time.Hour
)

// reservedHeaders are set by the dispatcher on every delivery; a custom header cannot replace
// them.
var reservedHeaders = map[string]bool{
	"Content-Type": true, "Content-Length": true, "Content-Encoding": true, "Transfer-Encoding": true, "Host": true,
	"Connection": true, "User-Agent": true, "Te": true, "Trailer": true, "Upgrade": true, "Keep-Alive": true,
	http.CanonicalHeaderKey(HeaderTimestamp): true, http.CanonicalHeaderKey(HeaderSignature): true,
	http.CanonicalHeaderKey(HeaderSignaturePrevious): true, http.CanonicalHeaderKey(HeaderEvent): true,
	http.CanonicalHeaderKey(HeaderDelivery): true, http.CanonicalHeaderKey(HeaderEventID): true,
}

// WebhookStore is what configuring webhooks needs of the database.
type WebhookStore interface {
	SetWebhook(ctx context.Context, integratorID, keyID string, c store.WebhookChange, by store.Actor) (*store.Webhook, bool, error)
	RotateWebhookSecret(ctx context.Context, integratorID, keyID string, secret []byte, prefix string, overlap time.Duration,
		by store.Actor) (*store.Webhook, error)
}

// Admin configures API keys' webhooks: the one place the admin API and `intentd admin
// webhooks` go through, so both validate, generate and seal alike.
type Admin struct {
	Store  WebhookStore
	Sealer *Sealer // nil: every change is ErrUnconfigured
	Policy URLPolicy
}

// Settings is a change of a webhook: nil fields stay as they are.
type Settings struct {
	URL     *string
	Enabled *bool
	Headers *map[string]string // replaces every custom header; empty removes them
}

// Set creates or changes a key's webhook. A new webhook (it needs URL) gets a signing secret,
// returned here and never again; a change returns "".
func (a *Admin) Set(ctx context.Context, integratorID, keyID string, s Settings, by store.Actor) (*store.Webhook, string, error) {
	if a.Sealer == nil {
		return nil, "", ErrUnconfigured
	}
	var c store.WebhookChange
	if s.URL != nil {
		u := strings.TrimSpace(*s.URL)
		if err := a.Policy.CheckURL(ctx, u); err != nil {
			return nil, "", invalid("url: %v", err)
		}
		c.URL = &u
	}
	c.Enabled = s.Enabled
	if s.Headers != nil {
		h, err := canonicalHeaders(*s.Headers)
		if err != nil {
			return nil, "", err
		}
		c.HeaderNames = make([]string, 0, len(h))
		for name := range h {
			c.HeaderNames = append(c.HeaderNames, name)
		}
		sort.Strings(c.HeaderNames)
		if len(h) > 0 {
			if c.Headers, err = a.Sealer.SealHeaders(keyID, h); err != nil {
				return nil, "", err
			}
		}
	}
	if c.URL == nil && c.Enabled == nil && c.HeaderNames == nil {
		return nil, "", invalid("nothing to change: give url, enabled or headers")
	}
	secret, err := NewSecret()
	if err != nil {
		return nil, "", err
	}
	if c.Secret, err = a.Sealer.SealSecret(keyID, secret); err != nil {
		return nil, "", err
	}
	c.SecretPrefix = ShownPrefix(secret)
	w, created, err := a.Store.SetWebhook(ctx, integratorID, keyID, c, by)
	if errors.Is(err, store.ErrWebhookIncomplete) {
		return nil, "", invalid("a key without a webhook needs url")
	}
	if err != nil || !created {
		secret = ""
	}
	return w, secret, err
}

// Disable stops deliveries to a key's webhook (store.ErrNotFound when it has none): events
// are no longer queued for it, and deliveries already queued wait until it is enabled again.
func (a *Admin) Disable(ctx context.Context, integratorID, keyID string, by store.Actor) (*store.Webhook, error) {
	off := false
	w, _, err := a.Store.SetWebhook(ctx, integratorID, keyID, store.WebhookChange{Enabled: &off}, by)
	if errors.Is(err, store.ErrWebhookIncomplete) {
		err = store.ErrNotFound
	}
	return w, err
}

// Rotate gives a key's webhook a new signing secret, returned here and never again; the
// current one goes on signing beside it (X-Signature-SHA256-Previous) for overlap.
func (a *Admin) Rotate(ctx context.Context, integratorID, keyID string, overlap time.Duration, by store.Actor) (*store.Webhook, string, error) {
	if a.Sealer == nil {
		return nil, "", ErrUnconfigured
	}
	if overlap < 0 || overlap > MaxRotateOverlap {
		return nil, "", invalid("the overlap must be from 0 to %s", MaxRotateOverlap)
	}
	secret, err := NewSecret()
	if err != nil {
		return nil, "", err
	}
	sealed, err := a.Sealer.SealSecret(keyID, secret)
	if err != nil {
		return nil, "", err
	}
	w, err := a.Store.RotateWebhookSecret(ctx, integratorID, keyID, sealed, ShownPrefix(secret), overlap, by)
	if err != nil {
		return nil, "", err
	}
	return w, secret, nil
}

// canonicalHeaders validates custom headers and returns them by canonical name.
func canonicalHeaders(h map[string]string) (map[string]string, error) {
	if len(h) > MaxHeaders {
		return nil, invalid("headers: at most %d custom headers", MaxHeaders)
	}
	out := make(map[string]string, len(h))
	for k, v := range h {
		name := http.CanonicalHeaderKey(strings.TrimSpace(k))
		switch {
		case !httpguts.ValidHeaderFieldName(name):
			return nil, invalid("headers: %q is not a valid header name", k)
		case reservedHeaders[name]:
			return nil, invalid("headers: %s is set by the service on every delivery and cannot be replaced", name)
		case out[name] != "":
			return nil, invalid("headers: %s is given twice", name)
		case v == "" || !httpguts.ValidHeaderFieldValue(v) || len(v) > MaxHeaderValue:
			return nil, invalid("headers: the value of %s must be 1 to %d characters with no control characters", name, MaxHeaderValue)
		}
		out[name] = v
	}
	return out, nil
}
