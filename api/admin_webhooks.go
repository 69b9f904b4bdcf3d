package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/events"
	"github.com/intentd/intentd/store"
)

// Error codes of the webhook admin API.
const (
	// CodeWebhookNotFound is a key with no webhook configured (or a delivery that is not one
	// of its webhook's).
	CodeWebhookNotFound = "WEBHOOK_NOT_FOUND"
	// CodeWebhooksUnavailable is a webhook change on an API without WEBHOOK_SECRETS_KEY: it
	// cannot seal a secret.
	CodeWebhooksUnavailable = "WEBHOOKS_NOT_CONFIGURED"
)

// The webhook of each API key (docs/events.md, "Webhooks"), under the admin routes of the key
// (rows of the route table, routes.go): show, set, disable, rotate the secret, read the delivery
// log, re-send one delivery or everything since a time.

func (s *Server) adminShowWebhook(c *gin.Context) {
	w, err := s.Store.WebhookOf(c.Request.Context(), c.Param("integratorId"), c.Param("keyId"))
	s.adminAnswer(c, err, CodeWebhookNotFound, func() any { return w.View() })
}

// webhookBody is the body of PUT …/webhook: the fields given change, the others stay.
type webhookBody struct {
	adminChange
	URL     *string            `json:"url"`
	Enabled *bool              `json:"enabled"`
	Headers *map[string]string `json:"headers"`
}

// adminSetWebhook creates (201, with the signing secret, shown in this answer only) or changes
// (200) a key's webhook.
func (s *Server) adminSetWebhook(c *gin.Context) {
	var b webhookBody
	if !readAdminBody(c, &b, &b.adminChange) {
		return
	}
	by := b.actor(c)
	w, secret, err := s.webhookAdmin().Set(c.Request.Context(), c.Param("integratorId"), c.Param("keyId"),
		events.Settings{URL: b.URL, Enabled: b.Enabled, Headers: b.Headers}, by)
	if secret != "" {
		s.adminChanged(c, err, CodeAPIKeyNotFound, http.StatusCreated, "webhook.create", by,
			func() any { return webhookJSON{Webhook: w.View(), Secret: secret} })
		return
	}
	s.adminChanged(c, err, CodeAPIKeyNotFound, http.StatusOK, "webhook.update", by, func() any { return webhookJSON{Webhook: w.View()} })
}

// webhookAdmin configures webhooks with the API's sealer and URL policy.
func (s *Server) webhookAdmin() *events.Admin {
	return &events.Admin{Store: s.Store, Sealer: s.Webhooks, Policy: s.WebhookPolicy}
}

func (s *Server) adminDisableWebhook(c *gin.Context) {
	var b adminChange
	if !readAdminBody(c, &b, &b) {
		return
	}
	by := b.actor(c)
	w, err := s.webhookAdmin().Disable(c.Request.Context(), c.Param("integratorId"), c.Param("keyId"), by)
	s.adminChanged(c, err, CodeWebhookNotFound, http.StatusOK, "webhook.disable", by, func() any { return webhookJSON{Webhook: w.View()} })
}

// rotateBody is the body of POST …/webhook/rotate: how long the current secret goes on signing
// (in X-Signature-SHA256-Previous) beside the new one; default a day, 0 ends it at once.
type rotateBody struct {
	adminChange
	OverlapSeconds *int64 `json:"overlapSeconds"`
}

// adminRotateWebhook answers {webhook, secret}: the new secret, shown in this answer only.
func (s *Server) adminRotateWebhook(c *gin.Context) {
	var b rotateBody
	if !readAdminBody(c, &b, &b.adminChange) {
		return
	}
	overlap := events.DefaultRotateOverlap
	if b.OverlapSeconds != nil {
		overlap = time.Duration(*b.OverlapSeconds) * time.Second
	}
	by := b.actor(c)
	w, secret, err := s.webhookAdmin().Rotate(c.Request.Context(), c.Param("integratorId"), c.Param("keyId"), overlap, by)
	s.adminChanged(c, err, CodeWebhookNotFound, http.StatusOK, "webhook.rotate", by,
		func() any { return webhookJSON{Webhook: w.View(), Secret: secret} })
}

// adminWebhookDeliveries is the delivery log, newest first: ?state=pending|delivered|dead,
// ?requestId=, ?limit= (1–200, default 50), ?before=<delivery id> for the next page.
func (s *Server) adminWebhookDeliveries(c *gin.Context) {
	s.webhookDeliveries(c, c.Param("integratorId"), s.adminAnswer)
}

// webhookDeliveries answers the delivery log of integratorID's key (path parameter keyId),
// through answer (the admin API's or the dashboard's): the admin and the dashboard routes share it.
func (s *Server) webhookDeliveries(c *gin.Context, integratorID string, answer func(*gin.Context, error, string, func() any)) {
	f := store.DeliveryFilter{State: c.Query("state"), RequestID: c.Query("requestId"), Limit: 50}
	switch f.State {
	case "", store.DeliveryPending, store.DeliveryDelivered, store.DeliveryDead:
	default:
		abort(c, invalidInput("state must be pending, delivered or dead"))
		return
	}
	if v := c.Query("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 200 {
			abort(c, invalidInput("limit must be from 1 to 200"))
			return
		}
		f.Limit = n
	}
	if v := c.Query("before"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			abort(c, invalidInput("before must be a delivery id"))
			return
		}
		f.BeforeID = n
	}
	list, err := s.Store.WebhookDeliveries(c.Request.Context(), integratorID, c.Param("keyId"), f)
	answer(c, err, CodeAPIKeyNotFound, func() any {
		out := deliveriesJSON{Deliveries: list}
		if len(list) == f.Limit {
			out.Before = &list[len(list)-1].ID
		}
		return out
	})
}

// deliveryID is the path's deliveryId, or 0 after answering 404 for one that is no id.
func deliveryID(c *gin.Context) int64 {
	id, err := strconv.ParseInt(c.Param("deliveryId"), 10, 64)
	if err != nil || id < 1 {
		abort(c, &Error{Code: CodeWebhookNotFound, Message: "not found"})
		return 0
	}
	return id
}

// adminResendDelivery queues one delivery again, after everything pending of its request.
func (s *Server) adminResendDelivery(c *gin.Context) {
	var b adminChange
	if !readAdminBody(c, &b, &b) {
		return
	}
	id := deliveryID(c)
	if id == 0 {
		return
	}
	by := b.actor(c)
	n, err := s.Store.ResendDeliveries(c.Request.Context(), c.Param("integratorId"), c.Param("keyId"), id, time.Time{}, by)
	s.adminChanged(c, err, CodeWebhookNotFound, http.StatusAccepted, "webhook.resend", by, func() any { return queuedJSON{Queued: n} })
}

// resendBody is the body of POST …/webhook/resend: every event delivered (or not) to the key
// since since (RFC 3339) is queued again, in order.
type resendBody struct {
	adminChange
	Since *time.Time `json:"since"`
}

func (s *Server) adminResendSince(c *gin.Context) {
	var b resendBody
	if !readAdminBody(c, &b, &b.adminChange) {
		return
	}
	if b.Since == nil {
		abort(c, invalidInput("since (an RFC 3339 time) is required"))
		return
	}
	by := b.actor(c)
	n, err := s.Store.ResendDeliveries(c.Request.Context(), c.Param("integratorId"), c.Param("keyId"), 0, *b.Since, by)
	s.adminChanged(c, err, CodeAPIKeyNotFound, http.StatusAccepted, "webhook.resend", by, func() any { return queuedJSON{Queued: n} })
}
