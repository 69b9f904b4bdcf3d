package api

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/events"
)

// The webhook of each key, from the dashboard (owners and developers): the admin API's code
// paths (events.Admin, the store's webhook methods), with the integrator of the session and the
// signed-in user as the audit trail's actor.

// dashboardAnswer answers a store read or change of the dashboard: view() with status, or the
// error.
func (s *Server) dashboardAnswer(status int) func(c *gin.Context, err error, notFoundCode string, view func() any) {
	return func(c *gin.Context, err error, notFoundCode string, view func() any) {
		if err != nil {
			s.dashboardStoreError(c, err, notFoundCode)
			return
		}
		c.JSON(status, view())
	}
}

func (s *Server) dashboardShowWebhook(c *gin.Context) {
	if !keysGate(c) {
		return
	}
	w, err := s.Store.WebhookOf(c.Request.Context(), dashboardUser(c).IntegratorID, c.Param("keyId"))
	s.dashboardAnswer(http.StatusOK)(c, err, CodeWebhookNotFound, func() any { return w.View() })
}

// dashboardWebhookBody is the body of PUT /dashboard/api/keys/:keyId/webhook: the fields given
// change, the others stay.
type dashboardWebhookBody struct {
	URL     *string            `json:"url"`
	Enabled *bool              `json:"enabled"`
	Headers *map[string]string `json:"headers"`
}

// dashboardSetWebhook creates (201, with the signing secret, shown in this answer only) or
// changes (200) a key's webhook.
func (s *Server) dashboardSetWebhook(c *gin.Context) {
	if !keysGate(c) {
		return
	}
	var b dashboardWebhookBody
	if !readDashboardBody(c, &b) {
		return
	}
	w, secret, err := s.webhookAdmin().Set(c.Request.Context(), dashboardUser(c).IntegratorID, c.Param("keyId"),
		events.Settings{URL: b.URL, Enabled: b.Enabled, Headers: b.Headers}, dashboardActor(c))
	if secret != "" {
		s.dashboardAnswer(http.StatusCreated)(c, err, CodeAPIKeyNotFound, func() any { return webhookJSON{Webhook: w.View(), Secret: secret} })
		return
	}
	s.dashboardAnswer(http.StatusOK)(c, err, CodeAPIKeyNotFound, func() any { return webhookJSON{Webhook: w.View()} })
}

// dashboardRotateBody is the optional body of POST …/webhook/rotate: how long the current
// secret goes on signing beside the new one (default a day, 0 ends it at once).
type dashboardRotateBody struct {
	OverlapSeconds *int64 `json:"overlapSeconds"`
}

// dashboardRotateWebhook answers {webhook, secret}: the new secret, shown in this answer only.
func (s *Server) dashboardRotateWebhook(c *gin.Context) {
	if !keysGate(c) {
		return
	}
	// The body is optional: without one the overlap is the default.
	var b dashboardRotateBody
	if c.Request.ContentLength != 0 && !readDashboardBody(c, &b) {
		return
	}
	overlap := events.DefaultRotateOverlap
	if b.OverlapSeconds != nil {
		overlap = time.Duration(*b.OverlapSeconds) * time.Second
	}
	w, secret, err := s.webhookAdmin().Rotate(c.Request.Context(), dashboardUser(c).IntegratorID, c.Param("keyId"), overlap, dashboardActor(c))
	s.dashboardAnswer(http.StatusOK)(c, err, CodeWebhookNotFound, func() any { return webhookJSON{Webhook: w.View(), Secret: secret} })
}

// dashboardTestWebhook queues a test delivery (events.TestEvent) to the key's webhook: the
// dispatcher signs and sends it as any other, and it shows in the delivery log.
func (s *Server) dashboardTestWebhook(c *gin.Context) {
	if !keysGate(c) {
		return
	}
	body, err := events.TestWebhookBody(time.Now())
	if err != nil {
		s.dashboardStoreError(c, err, CodeWebhookNotFound)
		return
	}
	id, err := s.Store.QueueTestDelivery(c.Request.Context(), dashboardUser(c).IntegratorID, c.Param("keyId"), events.TestEvent, body,
		dashboardActor(c))
	s.dashboardAnswer(http.StatusAccepted)(c, err, CodeWebhookNotFound, func() any { return testQueuedJSON{DeliveryID: id} })
}

// dashboardWebhookDeliveries is the delivery log, as the admin API's (webhookDeliveries).
func (s *Server) dashboardWebhookDeliveries(c *gin.Context) {
	if !keysGate(c) {
		return
	}
	s.webhookDeliveries(c, dashboardUser(c).IntegratorID, s.dashboardAnswer(http.StatusOK))
}

// dashboardResendDelivery queues one delivery again, after everything pending of its request.
func (s *Server) dashboardResendDelivery(c *gin.Context) {
	if !keysGate(c) {
		return
	}
	id := deliveryID(c)
	if id == 0 {
		return
	}
	n, err := s.Store.ResendDeliveries(c.Request.Context(), dashboardUser(c).IntegratorID, c.Param("keyId"), id, time.Time{}, dashboardActor(c))
	s.dashboardAnswer(http.StatusAccepted)(c, err, CodeWebhookNotFound, func() any { return queuedJSON{Queued: n} })
}
