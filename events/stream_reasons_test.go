package events_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/intentd/intentd/events"
	"github.com/intentd/intentd/intent"
)

// The spec (Events, rule 2): "The event kind named is request.status.updated. It carries
// failReason and refundFailReason with the same enums as the request record and the status
// endpoint", and issue 33, point 8: "websocket events carry failReason and refundFailReason as
// webhooks do". Each event on the stream has the webhook's two reasons for the same transition,
// N/A included; the owner's referrer stays off the stream.
func TestStreamEventsCarryFailReasonAndRefundFailReasonAsWebhooksDo(t *testing.T) {
	r := newRig(t, nil, events.HubOptions{})
	id := r.newRequest(t, "")
	c := dial(t, r.url, true)
	if m := c.next(t, 5*time.Second); m["type"] != "connection" {
		t.Fatalf("first message %v is not the ready message", m)
	}
	c.send(t, subscribe(id))
	if m := c.next(t, 5*time.Second); m["type"] != "subscribe" || m["status"] != "success" {
		t.Fatalf("subscribe answer %v", m)
	}
	reasons := func(what string, m map[string]any) (string, string) {
		t.Helper()
		data, _ := m["data"].(map[string]any)
		if m["event"] != intent.EventStatusUpdated || data == nil {
			t.Fatalf("%s: %v is not an event message", what, m)
		}
		if _, has := data["referrer"]; has {
			t.Errorf("%s: the stream carries the owner's referrer", what)
		}
		f, ok1 := data["failReason"].(string)
		rf, ok2 := data["refundFailReason"].(string)
		if !ok1 || !ok2 {
			t.Fatalf("%s: data %v lacks failReason or refundFailReason", what, data)
		}
		return f, rf
	}
	// webhook is what the webhook of the same state carries: the outbox's event, as delivered.
	webhook := func() (string, string) {
		t.Helper()
		_, ev, err := r.st.CurrentStatusEvent(context.Background(), id)
		if err != nil || ev == nil {
			t.Fatalf("current event: %v %v", ev, err)
		}
		b, _ := json.Marshal(ev)
		var w struct{ FailReason, RefundFailReason string }
		if err := json.Unmarshal(b, &w); err != nil {
			t.Fatal(err)
		}
		return w.FailReason, w.RefundFailReason
	}

	f, rf := reasons("the current state, waiting", c.next(t, 5*time.Second))
	if wf, wrf := webhook(); f != wf || rf != wrf || f != "N/A" || rf != "N/A" {
		t.Errorf("waiting: stream %s/%s, webhook %s/%s, want N/A/N/A on both", f, rf, wf, wrf)
	}
	if _, err := r.st.ApplyTransition(context.Background(), intent.Transition{RequestID: id, Version: 1,
		Status: intent.StatusFailure, FailReason: intent.FailReasonDepositedAmountTooLowToFill,
		RefundFailReason: intent.RefundFailReasonAmountTooLowToRefund, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	f, rf = reasons("failure", c.next(t, 5*time.Second))
	wf, wrf := webhook()
	if f != string(intent.FailReasonDepositedAmountTooLowToFill) || rf != string(intent.RefundFailReasonAmountTooLowToRefund) ||
		f != wf || rf != wrf {
		t.Errorf("failure: stream %s/%s, webhook %s/%s, want DEPOSITED_AMOUNT_TOO_LOW_TO_FILL/AMOUNT_TOO_LOW_TO_REFUND on both", f, rf, wf, wrf)
	}
}
