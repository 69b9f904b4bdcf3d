package events

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
)

// webhookBody is what a webhook receives: {"event","timestamp","data"}, timestamp in Unix
// milliseconds of the event (the transition's time).
type webhookBody struct {
	Event     string             `json:"event"`
	Timestamp int64              `json:"timestamp"`
	Data      intent.StatusEvent `json:"data"`
}

// WebhookBody is the body of e as a webhook receives it: compact JSON as JavaScript's
// JSON.stringify writes it (no HTML escaping, no trailing newline), so a receiver that
// re-serialises the parsed body, as the public service's guide does, verifies the same bytes.
func WebhookBody(e store.OutboxEvent) ([]byte, error) {
	return compactJSON(webhookBody{Event: intent.EventStatusUpdated, Timestamp: e.Event.UpdatedAt, Data: e.Event})
}

// compactJSON marshals v without HTML escaping and without the encoder's newline.
func compactJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// TestEvent is the event of a test delivery (the dashboard's "send a test"): a receiver checks
// its signature as any other's, and may ignore it.
const TestEvent = "webhook.test"

// testBody is a test delivery's body: the shape of every webhook body, its data a message.
type testBody struct {
	Event     string            `json:"event"`
	Timestamp int64             `json:"timestamp"`
	Data      map[string]string `json:"data"`
}

// TestWebhookBody is the body of a test delivery made at.
func TestWebhookBody(at time.Time) ([]byte, error) {
	return compactJSON(testBody{Event: TestEvent, Timestamp: at.UnixMilli(),
		Data: map[string]string{"message": "a test delivery from intentd: the webhook is reachable and its signature can be checked"}})
}
