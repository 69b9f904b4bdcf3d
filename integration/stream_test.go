package integration

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/gorilla/websocket"

	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/events"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/testkit/e2e"
)

// streamSubscribe opens GET /ws on the stack's API and subscribes to requestID; it returns the
// connection after the subscribe's answer.
func streamSubscribe(t *testing.T, s *stack, requestID string) *websocket.Conn {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(s.API.BaseURL, "http")+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	if err := ws.WriteJSON(map[string]any{"type": "subscribe", "event": "request.status.updated",
		"filters": map[string]any{"id": requestID}}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"connection", "subscribe"} {
		if m := streamNext(t, ws, 5*time.Second); m.Type != want || m.Status == "error" {
			t.Fatalf("got %+v, want the %s message", m, want)
		}
	}
	return ws
}

func streamNext(t *testing.T, ws *websocket.Conn, d time.Duration) events.Message {
	t.Helper()
	_ = ws.SetReadDeadline(time.Now().Add(d))
	var m events.Message
	if err := ws.ReadJSON(&m); err != nil {
		t.Fatalf("websocket read: %v", err)
	}
	return m
}

// "subscriber sees every transition of a real intent in order": a websocket subscriber to a
// real ETH bridge receives the current state (waiting) at once, then one message per status
// change the outbox recorded, in the outbox's order, to success with both transactions; a
// subscriber who arrives after the fill gets success at once.
func TestStreamSubscriberSeesEveryTransitionOfARealIntent(t *testing.T) {
	s := startStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	acct := devnet.TestAccounts()[6]
	q, err := s.API.Quote(ctx, map[string]any{"user": acct.Address.Hex(), "originChainId": 31337, "destinationChainId": 31338,
		"originCurrency": common.Address{}.Hex(), "destinationCurrency": common.Address{}.Hex(),
		"amount": "100000000000000000", "tradeType": "EXACT_INPUT"})
	if err != nil {
		t.Fatal(err)
	}
	ws := streamSubscribe(t, s, q.RequestID)
	if m := streamNext(t, ws, 5*time.Second); m.Event != "request.status.updated" || m.Data.Status != "waiting" ||
		m.Data.RequestID != q.RequestID || m.PublishedAt == 0 {
		t.Fatalf("current state after the quote: %+v", m)
	}
	wallet := &e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}
	receipt, err := wallet.ExecuteSteps(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if code, err := s.API.Do(ctx, http.MethodPost, "/transactions/index",
		map[string]any{"chainId": 31337, "txHash": receipt.TxHash.Hex()}, nil); err != nil || code != http.StatusOK {
		t.Fatalf("transaction hint: %d %v", code, err)
	}
	var got []string
	var last events.Message
	for last.Data.Status != intent.StatusSuccess {
		last = streamNext(t, ws, 60*time.Second)
		if last.Data.RequestID != q.RequestID {
			t.Fatalf("an event of another request: %+v", last)
		}
		got = append(got, string(last.Data.Status))
	}
	if len(last.Data.InTxHashes) != 1 || len(last.Data.TxHashes) != 1 {
		t.Fatalf("success without both transactions: %+v", last.Data)
	}
	// Every transition the outbox recorded, none more, in its order.
	rows, err := s.Sys.Pool.Query(ctx, `SELECT payload->>'status' FROM outbox WHERE request_id = $1 ORDER BY id`, q.RequestID)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for rows.Next() {
		var st string
		if err := rows.Scan(&st); err != nil {
			t.Fatal(err)
		}
		want = append(want, st)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("the stream sent %v, the outbox recorded %v", got, want)
	}
	t.Logf("the stream sent %v", got)

	late := streamSubscribe(t, s, q.RequestID)
	start := time.Now()
	if m := streamNext(t, late, 5*time.Second); m.Data.Status != "success" || time.Since(start) > time.Second {
		t.Fatalf("a late subscriber got %+v after %s", m, time.Since(start))
	}
}
