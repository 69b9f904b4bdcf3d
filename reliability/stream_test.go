package reliability

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/events"
	"github.com/intentd/intentd/store"
)

// streamWatch follows every intent of a run on the websocket stream (GET /ws), as clients
// would: one connection per intent, with an integrator's key (anonymous callers hold 10
// connections per IP), subscribed after the quote and before the deposit, open until the run's
// checks. The "Done when": every websocket subscriber saw every transition, while the
// worker is killed and Postgres crashed under the API's listener.
type streamWatch struct {
	url string // ws://…/ws?apiKey=…

	mu   sync.Mutex
	subs map[string]*streamSub // by requestId
}

// streamSub is one subscriber: the statuses it received, in order.
type streamSub struct {
	ws       *websocket.Conn
	mu       sync.Mutex
	statuses []string
	ended    error // why reading stopped, before the checks closed it
}

// watchStream makes the key the subscribers connect with (before any fault).
func (r *rig) watchStream(t *testing.T) *streamWatch {
	t.Helper()
	ctx := context.Background()
	st, by := store.New(r.pool), store.Actor{Name: "reliability", Via: store.ViaCLI}
	in, err := st.CreateIntegrator(ctx, auth.Integrator{Name: "stream watcher"}, by)
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := st.CreateAPIKey(ctx, store.NewKey{IntegratorID: in.ID, Label: "stream"}, by)
	if err != nil {
		t.Fatal(err)
	}
	w := &streamWatch{url: "ws" + strings.TrimPrefix(r.API.BaseURL, "http") + "/ws?apiKey=" + key,
		subs: map[string]*streamSub{}}
	t.Cleanup(func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		for _, s := range w.subs {
			_ = s.ws.Close()
		}
	})
	return w
}

// follow subscribes to requestID, retrying for up to 90 s (Postgres may be down: the key is
// then refused 503 until it can be checked), and reads its events in the background.
func (w *streamWatch) follow(ctx context.Context, requestID string) error {
	deadline := time.Now().Add(90 * time.Second)
	for {
		err := w.subscribe(requestID)
		if err == nil || time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		sleep(ctx, 500*time.Millisecond)
	}
}

func (w *streamWatch) subscribe(requestID string) error {
	ws, resp, err := websocket.DefaultDialer.Dial(w.url, nil)
	if err != nil {
		if resp != nil {
			return fmt.Errorf("websocket: HTTP %d", resp.StatusCode)
		}
		return fmt.Errorf("websocket: %w", err)
	}
	if err := ws.WriteJSON(map[string]any{"type": "subscribe", "event": "request.status.updated",
		"filters": map[string]any{"id": requestID}}); err != nil {
		_ = ws.Close()
		return err
	}
	for _, want := range []string{"connection", "subscribe"} {
		_ = ws.SetReadDeadline(time.Now().Add(10 * time.Second))
		var m struct{ Type, Status string }
		if err := ws.ReadJSON(&m); err != nil || m.Type != want || m.Status == "error" {
			_ = ws.Close()
			return fmt.Errorf("websocket: %+v, %v (want the %s message)", m, err, want)
		}
	}
	_ = ws.SetReadDeadline(time.Time{})
	s := &streamSub{ws: ws}
	w.mu.Lock()
	w.subs[requestID] = s
	w.mu.Unlock()
	go func() {
		for {
			var m events.Message
			if err := ws.ReadJSON(&m); err != nil {
				s.mu.Lock()
				s.ended = err
				s.mu.Unlock()
				return
			}
			if m.Event == "request.status.updated" && m.Data.RequestID == requestID {
				s.mu.Lock()
				s.statuses = append(s.statuses, string(m.Data.Status))
				s.mu.Unlock()
			}
		}
	}()
	return nil
}

// check compares what each subscriber received with the request's outbox, in id order: after
// the current state sent at the subscribe (absent when it could not be read then), every
// transition once, in order. It waits up to 15 s for the last events to arrive, and fails the
// test on any difference; it logs one RELIABILITY-WS line.
func (w *streamWatch) check(ctx context.Context, t *testing.T, pool *pgxpool.Pool, ids []string) {
	outbox := map[string][]string{}
	rows, err := pool.Query(ctx, `SELECT request_id, payload->>'status' FROM outbox WHERE request_id = ANY($1) ORDER BY id`, ids)
	if err != nil {
		t.Errorf("outbox: %v", err)
		return
	}
	for rows.Next() {
		var id, status string
		if err := rows.Scan(&id, &status); err != nil {
			t.Errorf("outbox: %v", err)
			return
		}
		outbox[id] = append(outbox[id], status)
	}
	rows.Close()
	complete, missing, wrong, disconnected, events := 0, 0, 0, 0, 0
	for _, id := range ids {
		w.mu.Lock()
		s := w.subs[id]
		w.mu.Unlock()
		if s == nil {
			missing++
			t.Errorf("request %s had no websocket subscriber", id)
			continue
		}
		want := outbox[id]
		var got []string
		var ended error
		for deadline := time.Now().Add(15 * time.Second); ; {
			s.mu.Lock()
			got, ended = slices.Clone(s.statuses), s.ended
			s.mu.Unlock()
			// Complete is the outbox's events at the end of what it received (after the current
			// state at the subscribe, when it was sent): a count alone is not enough, since that
			// state plus all but the last transition has the outbox's length too (the last
			// intents to end are still being relayed when the checks begin).
			if (len(got) >= len(want) && slices.Equal(got[len(got)-len(want):], want)) || len(got) > len(want)+1 ||
				time.Now().After(deadline) || ended != nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		events += len(got)
		extra := len(got) - len(want) // the current state at the subscribe
		switch {
		case ended != nil:
			disconnected++
			t.Errorf("request %s: the subscriber was disconnected (%v) after %v; the outbox has %v", id, ended, got, want)
		case (extra == 0 || extra == 1) && slices.Equal(got[extra:], want):
			complete++
		default:
			wrong++
			t.Errorf("request %s: the subscriber received %v; the outbox has %v", id, got, want)
		}
	}
	t.Logf("RELIABILITY-WS subscribers=%d complete=%d missing_subscribers=%d wrong=%d disconnected=%d events=%d",
		len(ids), complete, missing, wrong, disconnected, events)
}
