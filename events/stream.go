package events

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"golang.org/x/time/rate"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
)

// The stream's protocol is the public service's (docs/events.md, "Websocket stream"):
//
//	server: {"type":"connection","status":"ready","data":{"id":"…"}}
//	client: {"type":"subscribe","event":"request.status.updated","filters":{"id":"0x…"}}
//	server: {"type":"subscribe","status":"success","data":{"event":"request.status.updated","filters":{"id":"0x…"}}}
//	server: {"event":"request.status.updated","data":{…},"publishedAt":1765989801309}   (the current state, then every change)
//	client: {"type":"unsubscribe","event":"request.status.updated","filters":{"id":"0x…"}}
//	server: {"type":"unsubscribe","status":"success","data":{"event":"request.status.updated"}}
//	server: {"type":"<op>","status":"error","data":{"message":"…"}}                       (any refused message)

// clientMessage is a message a client sends.
type clientMessage struct {
	Type    string          `json:"type"`
	Event   string          `json:"event"`
	Filters json.RawMessage `json:"filters"`
}

type filters struct {
	ID *string `json:"id"`
}

type reply struct {
	Type   string `json:"type"`
	Status string `json:"status"`
	Data   any    `json:"data"`
}

type subscribed struct {
	Event   string          `json:"event"`
	Filters json.RawMessage `json:"filters,omitempty"`
}

type errorData struct {
	Message string `json:"message"`
}

// sub is one request a connection follows. Until its current state is queued (ready), events
// forwarded for it wait in pending; after, only events newer than the current state's id go.
type sub struct {
	ready   bool
	minID   int64
	pending []pendingEvent
}

type pendingEvent struct {
	id  int64
	msg []byte
}

// conn is one websocket connection: a reader (Serve's goroutine) that handles the client's
// messages and a writer that drains the bounded send queue and pings.
type conn struct {
	hub     *Hub
	ws      *websocket.Conn
	id      string
	client  Client
	limits  Limits
	send    chan []byte
	done    chan struct{}
	killed  sync.Once
	mu      sync.Mutex // guards subs, keyWide
	subs    map[string]*sub
	keyWide bool
}

// Serve runs the stream on an upgraded connection until it ends; release (from Admit) is
// called then. The ready message is queued before the first client message is read, so a
// subscribe sent before the client saw it (the public SDK sends it from its open handler) is
// answered after it, as if it had waited.
func (h *Hub) Serve(ws *websocket.Conn, client Client, release func()) {
	defer release()
	c := &conn{hub: h, ws: ws, id: connID(), client: client, limits: h.Limits(client),
		send: make(chan []byte, h.opt.SendQueue), done: make(chan struct{}), subs: map[string]*sub{}}
	if !h.register(c) {
		_ = ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(CloseGoingAway, "server shutting down"),
			time.Now().Add(time.Second))
		_ = ws.Close()
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer func() {
		cancel()
		c.mu.Lock()
		requests := make([]string, 0, len(c.subs))
		for r := range c.subs {
			requests = append(requests, r)
		}
		h.stats.Subscriptions.Add(-int64(len(c.subs)))
		keyWide := c.keyWide
		c.mu.Unlock()
		h.unregister(c, requests, keyWide)
		c.kill(websocket.CloseNormalClosure, "")
	}()
	go c.write()
	c.reply(reply{Type: "connection", Status: "ready", Data: map[string]string{"id": c.id}})
	c.read(ctx)
}

// read handles the client's messages until the connection ends.
func (c *conn) read(ctx context.Context) {
	o := c.hub.opt
	c.ws.SetReadLimit(MaxMessageBytes)
	alive := func() { _ = c.ws.SetReadDeadline(time.Now().Add(o.PongWait)) }
	alive()
	c.ws.SetPongHandler(func(string) error { alive(); return nil })
	limiter := rate.NewLimiter(rate.Limit(c.limits.Rate), c.limits.Burst)
	refused := 0
	for {
		_, data, err := c.ws.ReadMessage()
		if err != nil {
			if errors.Is(err, websocket.ErrReadLimit) {
				c.kill(ClosePolicy, "message too large")
			}
			return
		}
		alive()
		var m clientMessage
		parsed := json.Unmarshal(data, &m) == nil && m.Type != ""
		op := m.Type
		if !parsed {
			op = "error"
		}
		if !limiter.Allow() {
			if refused++; refused >= o.MaxRefused {
				c.kill(ClosePolicy, "message rate exceeded")
				return
			}
			c.fail(op, "message rate exceeded: slow down")
			continue
		}
		refused = 0
		if !parsed {
			c.fail(op, "a message is a JSON object with a type")
			continue
		}
		switch m.Type {
		case "subscribe":
			c.subscribe(ctx, m)
		case "unsubscribe":
			c.unsubscribe(m)
		default:
			c.fail(m.Type, "unknown message type (subscribe or unsubscribe)")
		}
	}
}

// target reads a message's filters: the request id it names, or "" for none (the key's
// every request). A message without filters on a connection without a key is refused.
func (c *conn) target(m clientMessage) (string, string) {
	if m.Event != intent.EventStatusUpdated {
		return "", "unknown event (request.status.updated is the only one)"
	}
	if len(m.Filters) == 0 || string(m.Filters) == "null" {
		if !c.limits.KeyWide || c.client.KeyID == "" {
			return "", "filters.id is required: only a connection with an API key may follow all of its requests"
		}
		return "", ""
	}
	var f filters
	if err := json.Unmarshal(m.Filters, &f); err != nil || f.ID == nil {
		return "", "filters.id is required"
	}
	id := strings.ToLower(*f.ID)
	if !intent.IsHash32(id) {
		return "", "filters.id is not a request id (0x and 64 hex digits)"
	}
	return id, ""
}

// subscribe answers a subscribe, then queues the request's current state, then the events
// that were forwarded meanwhile and are newer than that state.
func (c *conn) subscribe(ctx context.Context, m clientMessage) {
	requestID, problem := c.target(m)
	if problem != "" {
		c.fail("subscribe", problem)
		return
	}
	ack := reply{Type: "subscribe", Status: "success", Data: subscribed{Event: m.Event, Filters: m.Filters}}
	c.mu.Lock()
	if requestID == "" {
		already := c.keyWide
		c.keyWide = true
		c.mu.Unlock()
		if !already {
			c.hub.subscribe(c, "", c.client.KeyID)
		}
		c.reply(ack)
		return
	}
	if _, ok := c.subs[requestID]; ok {
		c.mu.Unlock()
		c.reply(ack)
		return
	}
	if len(c.subs) >= c.limits.Subscriptions {
		c.mu.Unlock()
		c.fail("subscribe", "too many subscriptions on this connection")
		return
	}
	s := &sub{}
	c.subs[requestID] = s
	c.mu.Unlock()
	c.hub.stats.Subscriptions.Add(1)
	c.hub.subscribe(c, requestID, "")
	c.reply(ack)

	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	id, ev, err := c.hub.store.CurrentStatusEvent(rctx, requestID)
	cancel()
	switch {
	case errors.Is(err, store.ErrNotFound):
		// Not quoted yet: its events follow when it is.
	case err != nil:
		c.hub.opt.Logger.Warn("websocket stream: current state not read", "requestId", requestID, "error", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.subs[requestID] != s { // unsubscribed meanwhile
		return
	}
	if ev != nil {
		c.sent(c.enqueue(eventMessage(ev)))
		s.minID = id
	}
	for _, p := range s.pending {
		if p.id > s.minID {
			c.sent(c.enqueue(p.msg))
			s.minID = p.id
		}
	}
	s.ready, s.pending = true, nil
}

func (c *conn) unsubscribe(m clientMessage) {
	requestID, problem := c.target(m)
	if problem != "" {
		c.fail("unsubscribe", problem)
		return
	}
	c.mu.Lock()
	if requestID == "" {
		was := c.keyWide
		c.keyWide = false
		c.mu.Unlock()
		if was {
			c.hub.unsubscribe(c, "", c.client.KeyID)
		}
	} else {
		_, was := c.subs[requestID]
		delete(c.subs, requestID)
		c.mu.Unlock()
		if was {
			c.hub.stats.Subscriptions.Add(-1)
			c.hub.unsubscribe(c, requestID, "")
		}
	}
	c.reply(reply{Type: "unsubscribe", Status: "success", Data: subscribed{Event: m.Event}})
}

// deliver queues an event forwarded by the hub (the listener's goroutine): to a request the
// connection follows, after its current state; or to the key's stream.
func (c *conn) deliver(requestID string, id int64, msg []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.subs[requestID]; ok {
		switch {
		case !s.ready:
			if len(s.pending) >= c.hub.opt.SendQueue {
				c.slow()
				return
			}
			s.pending = append(s.pending, pendingEvent{id, msg})
		case id > s.minID:
			s.minID = id
			c.sent(c.enqueue(msg))
		}
		return
	}
	if c.keyWide {
		c.sent(c.enqueue(msg))
	}
}

func (c *conn) sent(ok bool) {
	if ok {
		c.hub.stats.Sent.Add(1)
	}
}

// enqueue puts a message on the send queue without waiting: a full queue closes the
// connection as a slow consumer.
func (c *conn) enqueue(msg []byte) bool {
	select {
	case <-c.done:
		return false
	default:
	}
	select {
	case c.send <- msg:
		return true
	default:
		c.slow()
		return false
	}
}

func (c *conn) slow() {
	c.hub.stats.SlowConsumers.Add(1)
	c.hub.opt.Logger.Info("websocket stream: slow consumer disconnected", "conn", c.id, "queue", c.hub.opt.SendQueue)
	c.kill(CloseSlowConsumer, "slow consumer: send queue full")
}

func (c *conn) reply(r reply) {
	b, _ := json.Marshal(r)
	_ = c.enqueue(b)
}

func (c *conn) fail(op, message string) {
	c.reply(reply{Type: op, Status: "error", Data: errorData{Message: message}})
}

// write drains the send queue and pings, until the connection is killed or a write fails.
func (c *conn) write() {
	o := c.hub.opt
	ping := time.NewTicker(o.PingEvery)
	defer ping.Stop()
	for {
		select {
		case <-c.done: // killed: nothing more goes out before the close frame
			return
		default:
		}
		select {
		case <-c.done:
			return
		case msg := <-c.send:
			_ = c.ws.SetWriteDeadline(time.Now().Add(o.WriteTimeout))
			if err := c.ws.WriteMessage(websocket.TextMessage, msg); err != nil {
				c.kill(websocket.CloseAbnormalClosure, "")
				return
			}
		case <-ping.C:
			if err := c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(o.WriteTimeout)); err != nil {
				c.kill(websocket.CloseAbnormalClosure, "")
				return
			}
		}
	}
}

// kill ends the connection once: it sends a close frame with code and reason (none for
// CloseAbnormalClosure, which is never sent) without waiting on the caller's goroutine, and
// closes the socket, which ends the reader. The close frame waits, for up to WriteTimeout, for
// a write under way: a slow consumer's writer is blocked until its client reads, and the
// client must then find the close frame after its messages, not a broken connection.
func (c *conn) kill(code int, reason string) {
	c.killed.Do(func() {
		close(c.done)
		go func() {
			if code != websocket.CloseAbnormalClosure {
				_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason),
					time.Now().Add(c.hub.opt.WriteTimeout))
			}
			_ = c.ws.Close()
		}()
	})
}

// connID is a connection's id in the ready message (for debugging, as the public service's).
func connID() string {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	b := make([]byte, 11)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = digits[int(b[i])%len(digits)]
	}
	return string(b)
}
