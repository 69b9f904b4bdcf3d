package store_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// Spec, Events: "POST /quote and POST /quote/v2 do not emit events"; every status change
// emits request.status.updated, the move to depositing included, each written with its
// transition and heard by a listener on commit, in order, with the status endpoint's N/A and
// UNKNOWN rules; a stale transition (an older version) emits nothing.
func TestEveryStatusChangeEmitsOneEventAndQuotesNone(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Pool(t)
	st := store.New(pool)
	heard := make(chan store.StatusNotice, 16)
	lctx, stop := context.WithCancel(ctx)
	defer stop()
	listening := make(chan struct{}, 1)
	go func() {
		_ = st.ListenStatus(lctx, func() { listening <- struct{}{} }, func(n store.StatusNotice) { heard <- n })
	}()
	<-listening

	q := intent.NewQuote{Record: intent.Record{ID: testRequestID, Status: intent.StatusWaiting, User: "0xu", Recipient: "0xr",
		Data: intent.RecordData{Referrer: "acme"}},
		OrderID: "0xorder", ExpiresAt: time.Now().Add(time.Minute), Origin: 31337, Dest: 31338, VolumeUSD: decimal.NewFromInt(1)}
	if err := st.InsertQuote(ctx, q); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM outbox`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("a quote wrote %d outbox rows (%v), want none", n, err)
	}
	at := time.UnixMilli(1774993296121).UTC()
	steps := []struct {
		status intent.Status
		fail   intent.FailReason
		want   intent.FailReason
	}{
		{intent.StatusWaiting, "", intent.FailReasonNA},
		{intent.StatusDepositing, "", intent.FailReasonNA},
		{intent.StatusPending, "", intent.FailReasonNA},
		{intent.StatusFailure, "", intent.FailReasonUnknown},
		{intent.StatusRefund, "DEPOSITED_AMOUNT_TOO_LOW_TO_FILL", "DEPOSITED_AMOUNT_TOO_LOW_TO_FILL"},
	}
	for i, s := range steps {
		tr := intent.Transition{RequestID: testRequestID, Version: int64(i + 1), Status: s.status, FailReason: s.fail,
			At: at.Add(time.Duration(i) * time.Second)}
		if i == 2 {
			tr.Txs = []intent.Tx{{Direction: intent.TxIn, ChainID: 31337, Hash: "0xdeposit", LogIndex: 0}}
		}
		if _, err := st.ApplyTransition(ctx, tr); err != nil {
			t.Fatal(err)
		}
	}
	// A late, older write: no event.
	if applied, err := st.ApplyTransition(ctx, intent.Transition{RequestID: testRequestID, Version: 2, Status: intent.StatusPending,
		At: at}); err != nil || applied {
		t.Fatalf("stale transition: applied=%v %v", applied, err)
	}
	events, err := st.OutboxEventsSince(ctx, time.Time{}, 100)
	if err != nil || len(events) != len(steps) {
		t.Fatalf("%d events, want %d (one per status change): %v", len(events), len(steps), err)
	}
	for i, e := range events {
		ev := e.Event
		if ev.Status != steps[i].status || ev.FailReason != steps[i].want || ev.RefundFailReason != intent.RefundFailReasonNA ||
			ev.RequestID != testRequestID || ev.OriginChainID != 31337 || ev.DestinationChainID != 31338 ||
			ev.UpdatedAt != at.Add(time.Duration(i)*time.Second).UnixMilli() || ev.Referrer == nil || *ev.Referrer != "acme" ||
			ev.DepositAddress != nil || ev.Details != nil || ev.TxHashes == nil {
			raw, _ := json.Marshal(ev)
			t.Errorf("event %d: %s", i, raw)
		}
		if i >= 2 && (len(ev.InTxHashes) != 1 || ev.InTxHashes[0] != "0xdeposit") {
			t.Errorf("event %d: inTxHashes %v", i, ev.InTxHashes)
		}
		select {
		case got := <-heard:
			if got.ID != e.ID || got.Event == nil || got.Event.Status != ev.Status {
				t.Errorf("notification %d: %+v, want event %d (%s)", i, got, e.ID, ev.Status)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("notification %d not heard", i)
		}
	}
	id, cur, err := st.CurrentStatusEvent(ctx, testRequestID)
	if err != nil || id != events[len(events)-1].ID || cur.Status != intent.StatusRefund {
		t.Fatalf("current event: %d %+v %v", id, cur, err)
	}
}
