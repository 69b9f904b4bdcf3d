package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/intentd/intentd/intent"
)

// Webhook is an API key's webhook endpoint. Secret, PreviousSecret and Headers (JSON of the
// custom headers, name to value) are sealed (the events package seals and opens them); the
// store never sees a secret in the clear.
type Webhook struct {
	APIKeyID          string
	URL               string
	Enabled           bool
	HeaderNames       []string
	Headers           []byte
	Secret            []byte
	SecretPrefix      string
	PreviousSecret    []byte
	PreviousExpiresAt *time.Time
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// WebhookView is what the admin API and the audit trail show of a webhook: never a secret, and
// of the custom headers their names only.
type WebhookView struct {
	APIKeyID           string     `json:"apiKeyId"`
	URL                string     `json:"url"`
	Enabled            bool       `json:"enabled"`
	HeaderNames        []string   `json:"headerNames"`
	SecretPrefix       string     `json:"secretPrefix"`
	PreviousSecretEnds *time.Time `json:"previousSecretExpiresAt"`
	CreatedAt          time.Time  `json:"createdAt"`
	UpdatedAt          time.Time  `json:"updatedAt"`
}

// View is the webhook without its secrets.
func (w *Webhook) View() WebhookView {
	h := w.HeaderNames
	if h == nil {
		h = []string{}
	}
	var ends *time.Time
	if w.PreviousSecret != nil && w.PreviousExpiresAt != nil {
		ends = w.PreviousExpiresAt
	}
	return WebhookView{APIKeyID: w.APIKeyID, URL: w.URL, Enabled: w.Enabled, HeaderNames: h, SecretPrefix: w.SecretPrefix,
		PreviousSecretEnds: ends, CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt}
}

const webhookCols = `api_key_id::text, url, enabled, header_names, headers, secret, secret_prefix, previous_secret,
	previous_expires_at, created_at, updated_at`

func scanWebhook(row pgx.Row) (*Webhook, error) {
	var w Webhook
	if err := row.Scan(&w.APIKeyID, &w.URL, &w.Enabled, &w.HeaderNames, &w.Headers, &w.Secret, &w.SecretPrefix,
		&w.PreviousSecret, &w.PreviousExpiresAt, &w.CreatedAt, &w.UpdatedAt); err != nil {
		return nil, err
	}
	return &w, nil
}

// keyOfIntegrator checks, in tx, that keyID is one of integratorID's keys (ErrNotFound if not).
func keyOfIntegrator(ctx context.Context, tx pgx.Tx, integratorID, keyID string) error {
	if !isUUID(integratorID) || !isUUID(keyID) {
		return ErrNotFound
	}
	var ok bool
	if err := tx.QueryRow(ctx, `SELECT true FROM api_keys WHERE id = $1 AND integrator_id = $2`, keyID, integratorID).
		Scan(&ok); err != nil {
		return readErr(err)
	}
	return nil
}

// WebhookChange is a change of a key's webhook. Nil fields are left as they are; a new webhook
// needs URL and Secret.
type WebhookChange struct {
	URL     *string
	Enabled *bool
	// HeaderNames and Headers (sealed) replace the custom headers when HeaderNames is not nil
	// (empty: none).
	HeaderNames  []string
	Headers      []byte
	Secret       []byte // sealed; only for a webhook that does not exist yet
	SecretPrefix string
}

// ErrWebhookIncomplete refuses a first configuration without a URL.
var ErrWebhookIncomplete = errors.New("store: a new webhook needs a url")

// SetWebhook creates or changes integratorID's key keyID's webhook, audited; created reports
// whether it was new (then its secret was c.Secret).
func (s *Store) SetWebhook(ctx context.Context, integratorID, keyID string, c WebhookChange, by Actor) (w *Webhook, created bool, err error) {
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		if err := keyOfIntegrator(ctx, tx, integratorID, keyID); err != nil {
			return err
		}
		before, err := scanWebhook(tx.QueryRow(ctx, `SELECT `+webhookCols+` FROM webhooks WHERE api_key_id = $1 FOR UPDATE`, keyID))
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			if c.URL == nil || c.Secret == nil {
				return ErrWebhookIncomplete
			}
			created = true
			names := c.HeaderNames
			if names == nil {
				names = []string{}
			}
			enabled := c.Enabled == nil || *c.Enabled
			w, err = scanWebhook(tx.QueryRow(ctx, `INSERT INTO webhooks (api_key_id, url, enabled, header_names, headers, secret,
				secret_prefix) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING `+webhookCols, keyID, *c.URL, enabled, names,
				c.Headers, c.Secret, c.SecretPrefix))
			if err != nil {
				return err
			}
			return audit(ctx, tx, by, "webhook.create", "api_key", keyID, nil, w.View())
		case err != nil:
			return err
		}
		next := *before
		if c.URL != nil {
			next.URL = *c.URL
		}
		if c.Enabled != nil {
			next.Enabled = *c.Enabled
		}
		if c.HeaderNames != nil {
			next.HeaderNames, next.Headers = c.HeaderNames, c.Headers
		}
		w, err = scanWebhook(tx.QueryRow(ctx, `UPDATE webhooks SET url = $2, enabled = $3, header_names = $4, headers = $5,
			updated_at = now() WHERE api_key_id = $1 RETURNING `+webhookCols, keyID, next.URL, next.Enabled, next.HeaderNames,
			next.Headers))
		if err != nil {
			return err
		}
		action := "webhook.update"
		if before.Enabled && !w.Enabled {
			action = "webhook.disable"
		}
		return audit(ctx, tx, by, action, "api_key", keyID, before.View(), w.View())
	})
	return w, created, err
}

// RotateWebhookSecret replaces the key's webhook secret with secret (sealed), audited; the
// current one goes on signing, in its own header, for overlap.
func (s *Store) RotateWebhookSecret(ctx context.Context, integratorID, keyID string, secret []byte, prefix string,
	overlap time.Duration, by Actor) (*Webhook, error) {
	var w *Webhook
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := keyOfIntegrator(ctx, tx, integratorID, keyID); err != nil {
			return err
		}
		before, err := scanWebhook(tx.QueryRow(ctx, `SELECT `+webhookCols+` FROM webhooks WHERE api_key_id = $1 FOR UPDATE`, keyID))
		if err != nil {
			return readErr(err)
		}
		w, err = scanWebhook(tx.QueryRow(ctx, `UPDATE webhooks SET previous_secret = CASE WHEN $4 > 0 THEN secret END,
			previous_expires_at = CASE WHEN $4 > 0 THEN now() + make_interval(secs => $4) END,
			secret = $2, secret_prefix = $3, updated_at = now() WHERE api_key_id = $1 RETURNING `+webhookCols,
			keyID, secret, prefix, overlap.Seconds()))
		if err != nil {
			return err
		}
		return audit(ctx, tx, by, "webhook.rotate", "api_key", keyID, before.View(), w.View())
	})
	return w, err
}

// WebhookOf reads integratorID's key keyID's webhook.
func (s *Store) WebhookOf(ctx context.Context, integratorID, keyID string) (*Webhook, error) {
	if !isUUID(integratorID) || !isUUID(keyID) {
		return nil, ErrNotFound
	}
	w, err := scanWebhook(s.pool.QueryRow(ctx, `SELECT `+webhookCols+` FROM webhooks w WHERE api_key_id = $1
		AND EXISTS (SELECT 1 FROM api_keys k WHERE k.id = w.api_key_id AND k.integrator_id = $2)`, keyID, integratorID))
	if err != nil {
		return nil, readErr(err)
	}
	return w, nil
}

// SealedWebhook is what a webhook holds sealed: its secrets and custom headers, by its key.
type SealedWebhook struct {
	APIKeyID       string
	Secret         []byte
	PreviousSecret []byte // nil: none
	Headers        []byte // nil: none
}

// SealedWebhooks lists up to limit webhooks' sealed values, in key id order after the key id
// after ("" from the first): the pages `intentd admin webhooks reseal` walks.
func (s *Store) SealedWebhooks(ctx context.Context, after string, limit int) ([]SealedWebhook, error) {
	rows, err := s.pool.Query(ctx, `SELECT api_key_id::text, secret, previous_secret, headers FROM webhooks
		WHERE $1 = '' OR api_key_id > $1::uuid ORDER BY api_key_id LIMIT $2`, after, limit)
	if err != nil {
		return nil, unavailable(err)
	}
	defer rows.Close()
	var out []SealedWebhook
	for rows.Next() {
		var w SealedWebhook
		if err := rows.Scan(&w.APIKeyID, &w.Secret, &w.PreviousSecret, &w.Headers); err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, unavailable(rows.Err())
}

// ResealWebhook replaces a webhook's sealed values, was, by next (the same values sealed again),
// audited as webhook.reseal. It changes nothing and reports false when the webhook no longer
// holds was (a change or a rotation came first: the next pass sees the new values).
func (s *Store) ResealWebhook(ctx context.Context, was, next SealedWebhook, by Actor) (bool, error) {
	var done bool
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		w, err := scanWebhook(tx.QueryRow(ctx, `UPDATE webhooks SET secret = $5, previous_secret = $6, headers = $7
			WHERE api_key_id = $1 AND secret = $2 AND previous_secret IS NOT DISTINCT FROM $3
				AND headers IS NOT DISTINCT FROM $4
			RETURNING `+webhookCols, was.APIKeyID, was.Secret, was.PreviousSecret, was.Headers, next.Secret,
			next.PreviousSecret, next.Headers))
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		done = true
		return audit(ctx, tx, by, "webhook.reseal", "api_key", was.APIKeyID, nil, w.View())
	})
	return done, err
}

// FanOutEvents moves up to limit outbox events to the webhook deliveries of their keys, in id
// order, and marks them delivered; body builds the body a webhook receives. Only one
// dispatcher fans out at a time (a transaction-scoped advisory lock; the others skip), so the
// deliveries of one request are created in the order of its events. It returns how many
// events it moved (0 also when another dispatcher holds the lock).
func (s *Store) FanOutEvents(ctx context.Context, limit int, body func(OutboxEvent) ([]byte, error)) (int, error) {
	n := 0
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var locked bool
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, fanOutLock).Scan(&locked); err != nil || !locked {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT o.id, o.request_id, o.payload, o.created_at, o.api_key_id::text, w.api_key_id IS NOT NULL
			FROM outbox o LEFT JOIN webhooks w ON w.api_key_id = o.api_key_id AND w.enabled
			WHERE o.delivered_at IS NULL ORDER BY o.id LIMIT $1`, limit)
		if err != nil {
			return err
		}
		var ids []int64
		var dOutbox []int64
		var dKey, dRequest []string
		var dBody [][]byte
		for rows.Next() {
			var e OutboxEvent
			var payload []byte
			var key *string
			var hooked bool
			if err := rows.Scan(&e.ID, &e.RequestID, &payload, &e.CreatedAt, &key, &hooked); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, e.ID)
			if !hooked {
				continue
			}
			if err := json.Unmarshal(payload, &e.Event); err != nil {
				rows.Close()
				return fmt.Errorf("outbox event %d: %w", e.ID, err)
			}
			b, err := body(e)
			if err != nil {
				rows.Close()
				return err
			}
			dOutbox, dKey, dRequest, dBody = append(dOutbox, e.ID), append(dKey, *key), append(dRequest, e.RequestID), append(dBody, b)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(dOutbox) > 0 {
			if _, err := tx.Exec(ctx, `INSERT INTO webhook_deliveries (outbox_id, api_key_id, request_id, event, body)
				SELECT o, k::uuid, r, $5, b FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bytea[]) WITH ORDINALITY AS t(o, k, r, b, i)
				ORDER BY i`, dOutbox, dKey, dRequest, dBody, intent.EventStatusUpdated); err != nil {
				return err
			}
		}
		if len(ids) > 0 {
			if _, err := tx.Exec(ctx, `UPDATE outbox SET delivered_at = now() WHERE id = ANY($1)`, ids); err != nil {
				return err
			}
		}
		n = len(ids)
		return nil
	})
	return n, unavailable(err)
}

// fanOutLock is the advisory lock id of the fan-out ("fanout" in ASCII).
const fanOutLock = 0x66616e6f7574

// Delivery is a webhook delivery claimed by a dispatcher, with what it needs to send it.
type Delivery struct {
	ID        int64
	OutboxID  int64
	APIKeyID  string
	RequestID string
	Event     string
	Body      []byte
	Attempt   int // this attempt's number, from 1
	CreatedAt time.Time
	Webhook   Webhook
}

// ClaimDeliveries leases up to limit due deliveries for owner until now + lease: each the
// oldest pending delivery of its request and key (so a request's events go out in order), of
// an enabled webhook, with no live lease, and at most perKey leased per key at a time (a slow
// receiver holds at most perKey of the dispatchers' slots). A delivery whose lease runs out is
// due again: its dispatcher died or hung, and another takes it over.
func (s *Store) ClaimDeliveries(ctx context.Context, owner string, limit, perKey int, lease time.Duration) ([]Delivery, error) {
	// Per key with an enabled webhook, up to perKey due heads in the order they came due, less
	// the key's deliveries leased now; then the earliest of all, up to limit. Each key is read
	// through its own index range, so one key's deep backlog neither slows the claim nor keeps
	// another key's deliveries waiting.
	rows, err := s.pool.Query(ctx, `WITH due AS (
			SELECT c.id, c.next_attempt_at FROM webhooks w
			CROSS JOIN LATERAL (
				SELECT count(*) AS n FROM webhook_deliveries l
				WHERE l.api_key_id = w.api_key_id AND l.state = 'pending' AND l.lease_until IS NOT NULL AND l.lease_until > now()
			) i
			CROSS JOIN LATERAL (
				SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
				WHERE d.api_key_id = w.api_key_id AND d.state = 'pending' AND d.next_attempt_at <= now()
					AND (d.lease_until IS NULL OR d.lease_until <= now())
					AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p WHERE p.request_id = d.request_id
						AND p.state = 'pending' AND p.id < d.id)
				ORDER BY d.next_attempt_at, d.id
				LIMIT greatest($3 - i.n, 0)
			) c
			WHERE w.enabled
		), chosen AS (
			SELECT id FROM due ORDER BY next_attempt_at, id LIMIT $2
		)
		UPDATE webhook_deliveries d SET lease_until = now() + make_interval(secs => $4), lease_owner = $1,
			attempts = d.attempts + 1
		FROM chosen c, webhooks w
		WHERE d.id = c.id AND w.api_key_id = d.api_key_id AND d.state = 'pending'
			AND (d.lease_until IS NULL OR d.lease_until <= now())
		RETURNING d.id, d.outbox_id, d.api_key_id::text, d.request_id, d.event, d.body, d.attempts, d.created_at,
			w.url, w.headers, w.secret, w.previous_secret, w.previous_expires_at`, owner, limit, perKey, lease.Seconds())
	if err != nil {
		return nil, unavailable(err)
	}
	defer rows.Close()
	var out []Delivery
	for rows.Next() {
		var d Delivery
		if err := rows.Scan(&d.ID, &d.OutboxID, &d.APIKeyID, &d.RequestID, &d.Event, &d.Body, &d.Attempt, &d.CreatedAt,
			&d.Webhook.URL, &d.Webhook.Headers, &d.Webhook.Secret, &d.Webhook.PreviousSecret, &d.Webhook.PreviousExpiresAt); err != nil {
			return nil, err
		}
		d.Webhook.APIKeyID = d.APIKeyID
		out = append(out, d)
	}
	return out, unavailable(rows.Err())
}

// Attempt is how one delivery attempt ended.
type Attempt struct {
	StartedAt  time.Time
	StatusCode int // 0: no answer
	Error      string
	Latency    time.Duration
}

// Delivery states.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryDead      = "dead"
)

// FinishAttempt records an attempt of a delivery owner holds and moves the delivery on: to
// state (DeliveryDelivered, DeliveryDead) or, pending, to its next attempt at next. It reports
// false, changing nothing but the attempt's log line, when owner no longer holds the lease
// (another dispatcher took the delivery over; its outcome stands).
func (s *Store) FinishAttempt(ctx context.Context, owner string, d Delivery, a Attempt, state string, next time.Time) (bool, error) {
	var code *int
	if a.StatusCode != 0 {
		code = &a.StatusCode
	}
	var errText *string
	if a.Error != "" {
		errText = &a.Error
	}
	// One statement, so one round trip: the attempt's log line, and the delivery moved on if
	// owner still holds it.
	var held bool
	err := s.pool.QueryRow(ctx, `WITH logged AS (
			INSERT INTO webhook_attempts (delivery_id, attempt, started_at, status_code, error, latency_ms)
			VALUES ($1, $8, $9, $5, $6, $7) ON CONFLICT DO NOTHING
		), moved AS (
			UPDATE webhook_deliveries SET state = $3, next_attempt_at = $4, lease_until = NULL, lease_owner = NULL,
				last_status_code = $5, last_error = $6, last_latency_ms = $7,
				finished_at = CASE WHEN $3 = 'pending' THEN NULL ELSE now() END
			WHERE id = $1 AND lease_owner = $2 AND state = 'pending' RETURNING id
		)
		SELECT count(*) = 1 FROM moved`, d.ID, owner, state, next, code, errText, a.Latency.Milliseconds(), d.Attempt,
		a.StartedAt).Scan(&held)
	return held, unavailable(err)
}

// PruneEvents deletes up to limit outbox rows fanned out before outboxBefore and deliveries
// finished before deliveriesBefore (their attempts with them); it returns how many rows went.
func (s *Store) PruneEvents(ctx context.Context, outboxBefore, deliveriesBefore time.Time, limit int) (int64, error) {
	a, err := s.pool.Exec(ctx, `DELETE FROM outbox WHERE id IN (SELECT id FROM outbox WHERE delivered_at < $1 LIMIT $2)`,
		outboxBefore, limit)
	if err != nil {
		return 0, unavailable(err)
	}
	b, err := s.pool.Exec(ctx, `DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries
		WHERE finished_at < $1 LIMIT $2)`, deliveriesBefore, limit)
	if err != nil {
		return a.RowsAffected(), unavailable(err)
	}
	return a.RowsAffected() + b.RowsAffected(), nil
}

// EventBacklog is what the dispatcher has still to do: outbox events not fanned out yet, and
// pending and dead deliveries.
type EventBacklog struct {
	Outbox  int64
	Pending int64
	Dead    int64
}

// EventBacklog counts the backlog (for metrics and tests).
func (s *Store) EventBacklog(ctx context.Context) (EventBacklog, error) {
	var b EventBacklog
	err := s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM outbox WHERE delivered_at IS NULL),
		(SELECT count(*) FROM webhook_deliveries WHERE state = 'pending'),
		(SELECT count(*) FROM webhook_deliveries WHERE state = 'dead')`).Scan(&b.Outbox, &b.Pending, &b.Dead)
	return b, unavailable(err)
}

// DeliveryLog is one delivery as the delivery log shows it, with its attempts.
type DeliveryLog struct {
	ID             int64             `json:"id"`
	EventID        int64             `json:"eventId"`
	RequestID      string            `json:"requestId"`
	Event          string            `json:"event"`
	State          string            `json:"state"`
	Attempts       int               `json:"attempts"`
	NextAttemptAt  *time.Time        `json:"nextAttemptAt"`
	LastStatusCode *int              `json:"lastStatusCode"`
	LastError      *string           `json:"lastError"`
	LastLatencyMs  *int              `json:"lastLatencyMs"`
	ResendOf       *int64            `json:"resendOf"`
	CreatedAt      time.Time         `json:"createdAt"`
	FinishedAt     *time.Time        `json:"finishedAt"`
	AttemptLog     []DeliveryAttempt `json:"attemptLog"`
}

// DeliveryAttempt is one line of a delivery's attempt log.
type DeliveryAttempt struct {
	Attempt    int       `json:"attempt"`
	StartedAt  time.Time `json:"startedAt"`
	StatusCode *int      `json:"statusCode"`
	Error      *string   `json:"error"`
	LatencyMs  int       `json:"latencyMs"`
}

// DeliveryFilter selects a key's deliveries for the log: newest first, below BeforeID when set,
// in State when set, of RequestID when set.
type DeliveryFilter struct {
	BeforeID  int64
	State     string
	RequestID string
	Limit     int
}

// WebhookDeliveries reads the delivery log of integratorID's key keyID.
func (s *Store) WebhookDeliveries(ctx context.Context, integratorID, keyID string, f DeliveryFilter) ([]DeliveryLog, error) {
	if !isUUID(integratorID) || !isUUID(keyID) {
		return nil, ErrNotFound
	}
	if f.Limit <= 0 || f.Limit > 200 {
		f.Limit = 50
	}
	rows, err := s.pool.Query(ctx, `SELECT d.id, d.outbox_id, d.request_id, d.event, d.state, d.attempts,
			CASE WHEN d.state = 'pending' THEN d.next_attempt_at END, d.last_status_code, d.last_error, d.last_latency_ms,
			d.resend_of, d.created_at, d.finished_at,
			coalesce((SELECT json_agg(json_build_object('attempt', a.attempt, 'startedAt', a.started_at, 'statusCode', a.status_code,
				'error', a.error, 'latencyMs', a.latency_ms) ORDER BY a.attempt) FROM webhook_attempts a WHERE a.delivery_id = d.id), '[]')
		FROM webhook_deliveries d JOIN api_keys k ON k.id = d.api_key_id AND k.integrator_id = $2
		WHERE d.api_key_id = $1 AND ($3 = 0 OR d.id < $3) AND ($4 = '' OR d.state = $4) AND ($5 = '' OR d.request_id = $5)
		ORDER BY d.id DESC LIMIT $6`, keyID, integratorID, f.BeforeID, f.State, f.RequestID, f.Limit)
	if err != nil {
		return nil, unavailable(err)
	}
	defer rows.Close()
	out := []DeliveryLog{}
	for rows.Next() {
		var l DeliveryLog
		var attempts []byte
		if err := rows.Scan(&l.ID, &l.EventID, &l.RequestID, &l.Event, &l.State, &l.Attempts, &l.NextAttemptAt,
			&l.LastStatusCode, &l.LastError, &l.LastLatencyMs, &l.ResendOf, &l.CreatedAt, &l.FinishedAt, &attempts); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(attempts, &l.AttemptLog); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, unavailable(rows.Err())
}

// ResendDeliveries queues again, as new deliveries after everything pending, either one
// delivery (deliveryID > 0) or every event delivered to the key since since (one delivery per
// event, in event order), audited. It returns the new deliveries' count.
func (s *Store) ResendDeliveries(ctx context.Context, integratorID, keyID string, deliveryID int64, since time.Time, by Actor) (int64, error) {
	var n int64
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := keyOfIntegrator(ctx, tx, integratorID, keyID); err != nil {
			return err
		}
		var tag interface{ RowsAffected() int64 }
		var err error
		if deliveryID > 0 {
			tag, err = tx.Exec(ctx, `INSERT INTO webhook_deliveries (outbox_id, api_key_id, request_id, event, body, resend_of)
				SELECT outbox_id, api_key_id, request_id, event, body, id FROM webhook_deliveries WHERE id = $1 AND api_key_id = $2`,
				deliveryID, keyID)
		} else {
			tag, err = tx.Exec(ctx, `INSERT INTO webhook_deliveries (outbox_id, api_key_id, request_id, event, body, resend_of)
				SELECT DISTINCT ON (outbox_id) outbox_id, api_key_id, request_id, event, body, id FROM webhook_deliveries
				WHERE api_key_id = $1 AND created_at >= $2 AND resend_of IS NULL ORDER BY outbox_id, id`, keyID, since)
		}
		if err != nil {
			return err
		}
		if n = tag.RowsAffected(); n == 0 && deliveryID > 0 {
			return ErrNotFound
		}
		detail := map[string]any{"deliveryId": deliveryID, "since": since, "queued": n}
		if deliveryID == 0 {
			delete(detail, "deliveryId")
		} else {
			delete(detail, "since")
		}
		return audit(ctx, tx, by, "webhook.resend", "api_key", keyID, nil, detail)
	})
	return n, err
}
