package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/intentd/intentd/intent"
)

// StatusChannel is the Postgres NOTIFY channel of request.status.updated: every transition that
// writes an outbox row notifies it in the same transaction, so listeners hear of it when (and
// only when) it commits, in commit order. The payload is a StatusNotice.
const StatusChannel = "intentd_request_status"

// StatusNotice is the payload of a StatusChannel notification: the outbox row's id and the
// event. Event is nil when the event did not fit in a notification (Postgres caps a payload
// below 8000 bytes); the listener then reads it from the outbox by id.
type StatusNotice struct {
	ID        int64               `json:"id"`
	RequestID string              `json:"requestId"`
	APIKeyID  string              `json:"apiKeyId,omitempty"` // the key the request was quoted with
	Event     *intent.StatusEvent `json:"event,omitempty"`
}

// maxNotice is the largest notification payload sent whole (Postgres refuses 8000 bytes).
const maxNotice = 7000

// queueEvent queues in b, the writes of a transition's own transaction, the outbox row of a
// status event and the notification of StatusChannel that names it.
func queueEvent(b *pgx.Batch, ev intent.StatusEvent, keyID *string) error {
	payload, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	n := StatusNotice{RequestID: ev.RequestID, Event: &ev}
	if keyID != nil {
		n.APIKeyID = *keyID
	}
	notice, err := json.Marshal(n)
	if err != nil {
		return err
	}
	if len(notice)+20 > maxNotice { // the id takes up to 19 digits
		n.Event = nil
		notice, _ = json.Marshal(n)
	}
	// The row and its notification are one statement: the notice is sent with the row's id in
	// place of the 0 it was marshalled with (ID is its first field).
	rest, ok := strings.CutPrefix(string(notice), noticeHead)
	if !ok {
		return fmt.Errorf("status notice %.40q does not start with %q", notice, noticeHead)
	}
	b.Queue(`WITH o AS (INSERT INTO outbox (topic, request_id, payload, api_key_id) VALUES ($1, $2, $3, $4::uuid) RETURNING id)
		SELECT pg_notify($5, '{"id":' || o.id || $6) FROM o`,
		intent.EventStatusUpdated, ev.RequestID, payload, keyID, StatusChannel, rest)
	return nil
}

// noticeHead is how a StatusNotice with ID 0 begins.
const noticeHead = `{"id":0`

// OutboxEvent is one event of the outbox.
type OutboxEvent struct {
	ID        int64
	RequestID string
	APIKeyID  string // "" for a request quoted without a key
	Event     intent.StatusEvent
	CreatedAt time.Time
}

// OutboxEventByID reads one event (a notification too large to carry it names it by id).
func (s *Store) OutboxEventByID(ctx context.Context, id int64) (*OutboxEvent, error) {
	var e OutboxEvent
	var payload []byte
	if err := s.pool.QueryRow(ctx, `SELECT id, request_id, payload, created_at, coalesce(api_key_id::text, '')
		FROM outbox WHERE id = $1`, id).Scan(&e.ID, &e.RequestID, &payload, &e.CreatedAt, &e.APIKeyID); err != nil {
		return nil, readErr(err)
	}
	if err := json.Unmarshal(payload, &e.Event); err != nil {
		return nil, fmt.Errorf("outbox event %d: %w", id, err)
	}
	return &e, nil
}

// OutboxEventsSince reads the events written since t, in id order (a listener that lost its
// connection catches up with them; per request, ids are in commit order).
func (s *Store) OutboxEventsSince(ctx context.Context, t time.Time, limit int) ([]OutboxEvent, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, request_id, payload, created_at, coalesce(api_key_id::text, '')
		FROM outbox WHERE created_at >= $1 ORDER BY id LIMIT $2`, t, limit)
	if err != nil {
		return nil, unavailable(err)
	}
	defer rows.Close()
	var out []OutboxEvent
	for rows.Next() {
		var e OutboxEvent
		var payload []byte
		if err := rows.Scan(&e.ID, &e.RequestID, &payload, &e.CreatedAt, &e.APIKeyID); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(payload, &e.Event); err != nil {
			return nil, fmt.Errorf("outbox event %d: %w", e.ID, err)
		}
		out = append(out, e)
	}
	return out, unavailable(rows.Err())
}

// CurrentStatusEvent is a request's current state as an event, what a subscriber who arrives
// after a transition is sent at once, with the id of the outbox row it comes from: a
// notification of an id not newer than that is already included. A request whose events were
// all pruned, or that has none yet (a quote, status waiting), is read from its row, with id 0.
func (s *Store) CurrentStatusEvent(ctx context.Context, requestID string) (int64, *intent.StatusEvent, error) {
	var id int64
	var payload []byte
	err := s.pool.QueryRow(ctx, `SELECT id, payload FROM outbox WHERE request_id = $1 ORDER BY id DESC LIMIT 1`,
		requestID).Scan(&id, &payload)
	switch {
	case err == nil:
		var ev intent.StatusEvent
		if err := json.Unmarshal(payload, &ev); err != nil {
			return 0, nil, fmt.Errorf("outbox event %d: %w", id, err)
		}
		return id, &ev, nil
	case err != pgx.ErrNoRows:
		return 0, nil, unavailable(err)
	}
	row, err := s.Status(ctx, requestID)
	if err != nil {
		return 0, nil, err
	}
	ev := intent.NewStatusEvent(requestID, row.Status, row.FailReason, row.RefundFailReason, row.InTxHashes, row.TxHashes,
		row.UpdatedAt.UnixMilli(), row.OriginChainID, row.DestinationChainID)
	return 0, &ev, nil
}
