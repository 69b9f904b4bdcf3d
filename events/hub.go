package events

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/gorilla/websocket"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/ratelimit"
	"github.com/intentd/intentd/store"
)

// StreamStore is what the websocket hub needs of the database (store.Store).
type StreamStore interface {
	ListenStatus(ctx context.Context, connected func(), notice func(store.StatusNotice)) error
	OutboxEventsSince(ctx context.Context, t time.Time, limit int) ([]store.OutboxEvent, error)
	OutboxEventByID(ctx context.Context, id int64) (*store.OutboxEvent, error)
	CurrentStatusEvent(ctx context.Context, requestID string) (int64, *intent.StatusEvent, error)
}

// Limits bound what one caller of the stream may hold: a caller without a key is counted by
// its IP (an IPv6 client by its /64, ratelimit.ClientKey, as the HTTP limits count it), a caller
// with one by its key, in this API process.
type Limits struct {
	// Connections is how many connections one IP (anonymous) or one key holds at once.
	Connections int
	// Subscriptions is how many requests one connection follows at once.
	Subscriptions int
	// Rate and Burst bound the messages a client sends (per second, token bucket); a message
	// over them is answered with an error and dropped, and MaxRefused of those in a row close
	// the connection (ClosePolicy).
	Rate  float64
	Burst int
	// KeyWide lets a subscribe without filters follow every request of the connection's key.
	KeyWide bool
}

// HubOptions tune a Hub; zero fields take DefaultHubOptions'.
type HubOptions struct {
	// SendQueue is how many messages wait for one connection at most. A connection whose queue
	// is full is a slow consumer: it is closed (CloseSlowConsumer) rather than buffered without
	// bound.
	SendQueue int
	// PingEvery is how often an idle connection is pinged; a peer that has answered nothing
	// (no pong, no message) for PongWait is dropped. WriteTimeout bounds one write.
	PingEvery    time.Duration
	PongWait     time.Duration
	WriteTimeout time.Duration
	// CatchUpSlack is how far before the last moment the listener was known to hear
	// notifications a catch-up replays the outbox from: it covers the transactions in flight
	// then (an outbox row's time is its transaction's start) and the clocks of the API and of
	// Postgres disagreeing.
	CatchUpSlack time.Duration
	// QuietRelisten restarts a listener that heard nothing for that long (a connection that
	// died without a word is otherwise noticed only when TCP gives up on it).
	QuietRelisten time.Duration
	// Anonymous and Keyed are the limits of connections without and with an API key.
	Anonymous, Keyed Limits
	// AnonymousPerProcess caps the connections without a key this process holds, whoever
	// holds them: a client that rotates addresses (or /64s) adds idle connections only up to it.
	// Keyed connections are not counted against it, so a flood of anonymous ones never refuses
	// an integrator.
	AnonymousPerProcess int
	// Global, when set, counts the connections without a key of every API process against one
	// cap (ratelimit.Slots, over the rate limits' Redis); nil: this process's cap alone.
	Global SharedCount
	// MaxRefused is how many messages over the rate in a row close a connection.
	MaxRefused int
	Logger     *slog.Logger
}

// DefaultHubOptions: 256 queued messages per connection, a ping every 25 s, a peer silent for
// 60 s dropped, a catch-up from 30 s before the listener was last known alive, a listener that
// heard nothing for 2 minutes restarted. Without a key:
// 10 connections per IP (per /64), 10 subscriptions each, 5 messages a second (burst 20), 2,000
// such connections per process; with one: 500 connections per key, 1,000 subscriptions each, 50
// messages a second (burst 200), and the stream of all the key's requests.
var DefaultHubOptions = HubOptions{
	SendQueue: 256, PingEvery: 25 * time.Second, PongWait: 60 * time.Second, WriteTimeout: 10 * time.Second,
	CatchUpSlack: 30 * time.Second, QuietRelisten: 2 * time.Minute, MaxRefused: 20, AnonymousPerProcess: 2000,
	Anonymous: Limits{Connections: 10, Subscriptions: 10, Rate: 5, Burst: 20},
	Keyed:     Limits{Connections: 500, Subscriptions: 1000, Rate: 50, Burst: 200, KeyWide: true},
}

func (o HubOptions) withDefaults() HubOptions {
	d := DefaultHubOptions
	if o.SendQueue <= 0 {
		o.SendQueue = d.SendQueue
	}
	for _, f := range []struct{ v, def *time.Duration }{{&o.PingEvery, &d.PingEvery}, {&o.PongWait, &d.PongWait},
		{&o.WriteTimeout, &d.WriteTimeout}, {&o.CatchUpSlack, &d.CatchUpSlack}, {&o.QuietRelisten, &d.QuietRelisten}} {
		if *f.v <= 0 {
			*f.v = *f.def
		}
	}
	if o.Anonymous == (Limits{}) {
		o.Anonymous = d.Anonymous
	}
	if o.Keyed == (Limits{}) {
		o.Keyed = d.Keyed
	}
	if o.MaxRefused <= 0 {
		o.MaxRefused = d.MaxRefused
	}
	if o.AnonymousPerProcess <= 0 {
		o.AnonymousPerProcess = d.AnonymousPerProcess
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Close codes the stream closes connections with (RFC 6455 §7.4).
const (
	// CloseSlowConsumer (1008, policy violation, reason "slow consumer") closes a connection
	// whose send queue is full: it did not read its messages fast enough. It may reconnect
	// and subscribe again; it then receives the current state of each request.
	CloseSlowConsumer = websocket.ClosePolicyViolation
	// ClosePolicy (1008) closes a connection that sent MaxRefused messages over its rate in a
	// row. (A message larger than MaxMessageBytes is closed 1009 by the websocket library.)
	ClosePolicy = websocket.ClosePolicyViolation
	// CloseGoingAway (1001) closes every connection when the API process stops (a rolling
	// restart): clients reconnect, to another process.
	CloseGoingAway = websocket.CloseGoingAway
)

// MaxMessageBytes is the largest message a client may send.
const MaxMessageBytes = 4096

// replayPage is how many outbox events one catch-up query reads.
const replayPage = 1000

// Hub is the websocket stream of one API process: it holds the connections and their
// subscriptions, and one LISTEN on store.StatusChannel (Run) that feeds them, so every API
// process serves every event whichever process's transaction wrote it.
//
// Events reach a subscriber in order and once: per request, outbox ids increase in commit
// order, and the hub forwards an event only if its id is newer than the last one it forwarded
// for that request. After the listener loses its connection it catches up from the outbox
// before it reads any new notification, so nothing committed in the gap is lost.
type Hub struct {
	store StreamStore
	opt   HubOptions

	mu        sync.RWMutex
	byRequest map[string]map[*conn]struct{}
	byKey     map[string]map[*conn]struct{}
	conns     map[*conn]struct{}
	holders   map[string]int // "ip:…" (an IPv4 address or an IPv6 /64) or "key:…" -> connections held
	anonymous int            // connections held without a key
	closing   bool

	// Owned by the listener's goroutine (Run): the last event id forwarded per request, and
	// the last moment the listener was known to hear notifications.
	last     map[string]forwarded
	aliveAt  time.Time
	evicted  time.Time
	relisten func() // restarts the listener (Run)

	heard atomic.Int64 // Unix ms of the last notification or catch-up (read by watchQuiet)

	stats HubStats
}

type forwarded struct {
	id int64
	at time.Time
}

// HubStats counts what a hub did since it started.
type HubStats struct {
	Connections     atomic.Int64 // open now
	Subscriptions   atomic.Int64 // held now
	Sent            atomic.Int64 // event messages queued to connections
	SlowConsumers   atomic.Int64 // connections closed because their queue was full
	CatchUps        atomic.Int64 // catch-ups after the listener (re)connected
	CatchUpReplayed atomic.Int64 // events read by catch-ups
	QuietRelistens  atomic.Int64 // listeners restarted because they heard nothing for QuietRelisten
	Anonymous       atomic.Int64 // connections without a key held now
	Refused         atomic.Int64 // connections refused because the anonymous caps were reached
}

// NewHub returns a hub over st; Run feeds it.
func NewHub(st StreamStore, o HubOptions) *Hub {
	h := &Hub{store: st, opt: o.withDefaults(), byRequest: map[string]map[*conn]struct{}{},
		byKey: map[string]map[*conn]struct{}{}, conns: map[*conn]struct{}{}, holders: map[string]int{},
		last: map[string]forwarded{}, aliveAt: time.Now(), relisten: func() {}}
	h.heard.Store(h.aliveAt.UnixMilli())
	return h
}

// Stats are the hub's counters.
func (h *Hub) Stats() *HubStats { return &h.stats }

// Run listens for status notifications until ctx ends, then closes every connection
// (CloseGoingAway). Whenever the hub cannot be sure it forwarded everything in order — a
// catch-up that failed, an event too large for its notification that could not be read — it
// restarts the listener, whose catch-up then replays what it might have missed, before any
// newer notification. So does a listener that heard nothing for QuietRelisten: its connection
// may have died silently, and an idle one costs one reconnect and one query.
func (h *Hub) Run(ctx context.Context) error {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval, b.MaxInterval, b.MaxElapsedTime = 100*time.Millisecond, 5*time.Second, 0
	for ctx.Err() == nil {
		lctx, cancel := context.WithCancel(ctx)
		failed := false
		h.relisten = func() { failed = true; cancel() }
		watchDone := make(chan struct{})
		go h.watchQuiet(lctx, cancel, watchDone)
		_ = h.store.ListenStatus(lctx, func() {
			if err := h.catchUp(lctx); err != nil {
				if ctx.Err() == nil {
					h.opt.Logger.Warn("websocket stream: catch-up from the outbox failed; listening again", "error", err)
				}
				h.relisten()
				return
			}
			b.Reset()
		}, h.notice)
		cancel()
		<-watchDone
		if failed && ctx.Err() == nil {
			select {
			case <-ctx.Done():
			case <-time.After(b.NextBackOff()):
			}
		}
	}
	h.closeAll()
	return ctx.Err()
}

// watchQuiet restarts the listener (cancel) once it has heard nothing for QuietRelisten.
func (h *Hub) watchQuiet(ctx context.Context, cancel func(), done chan<- struct{}) {
	defer close(done)
	tick := time.NewTicker(min(h.opt.QuietRelisten/4, 10*time.Second))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if time.Since(time.UnixMilli(h.heard.Load())) > h.opt.QuietRelisten {
				h.stats.QuietRelistens.Add(1)
				cancel()
				return
			}
		}
	}
}

// catchUp runs each time the LISTEN is in place, before any notification is read: it forwards
// the events written since shortly before the listener was last known to hear notifications
// (the first time: since the hub started, for the subscribers who came before the listener).
func (h *Hub) catchUp(ctx context.Context) error {
	since := h.aliveAt.Add(-h.opt.CatchUpSlack)
	listening := time.Now()
	h.stats.CatchUps.Add(1)
	limit := replayPage
	for {
		evs, err := h.store.OutboxEventsSince(ctx, since, limit)
		if err != nil {
			return err
		}
		h.stats.CatchUpReplayed.Add(int64(len(evs)))
		for _, e := range evs {
			ev := e.Event
			h.forward(ctx, store.StatusNotice{ID: e.ID, RequestID: e.RequestID, APIKeyID: e.APIKeyID, Event: &ev})
		}
		if len(evs) < limit {
			break
		}
		// Rows are in id order, and their times almost so: the next page starts at the last
		// row's time (rows read twice are dropped as already forwarded). A page whose rows all
		// share one time is read again, larger.
		next := evs[len(evs)-1].CreatedAt
		if !next.After(since) {
			limit *= 2
			continue
		}
		since, limit = next, replayPage
	}
	h.aliveAt = listening
	h.heard.Store(listening.UnixMilli())
	return nil
}

// notice forwards one notification (the listener's goroutine).
func (h *Hub) notice(n store.StatusNotice) {
	h.aliveAt = time.Now()
	h.heard.Store(h.aliveAt.UnixMilli())
	h.forward(context.Background(), n)
}

// forward sends an event to the connections that follow its request or its key, unless an
// event of that request at least as new was already forwarded.
func (h *Hub) forward(ctx context.Context, n store.StatusNotice) {
	now := time.Now()
	if f, ok := h.last[n.RequestID]; ok && n.ID <= f.id {
		return
	}
	prev, had := h.last[n.RequestID]
	h.last[n.RequestID] = forwarded{id: n.ID, at: now}
	h.evict(now)

	h.mu.RLock()
	reqConns, keyConns := h.byRequest[n.RequestID], map[*conn]struct{}(nil)
	if n.APIKeyID != "" {
		keyConns = h.byKey[n.APIKeyID]
	}
	if len(reqConns) == 0 && len(keyConns) == 0 {
		h.mu.RUnlock()
		return
	}
	targets := make([]*conn, 0, len(reqConns)+len(keyConns))
	for c := range reqConns {
		targets = append(targets, c)
	}
	for c := range keyConns {
		if _, dup := reqConns[c]; !dup {
			targets = append(targets, c)
		}
	}
	h.mu.RUnlock()

	if n.Event == nil { // too large for a notification: read it by id
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		e, err := h.store.OutboxEventByID(rctx, n.ID)
		cancel()
		if err != nil {
			// Not forwarded: the catch-up of a new listener replays it, in its place.
			h.opt.Logger.Warn("websocket stream: event not read; listening again", "outboxId", n.ID, "error", err)
			if had {
				h.last[n.RequestID] = prev
			} else {
				delete(h.last, n.RequestID)
			}
			h.relisten()
			return
		}
		n.Event = &e.Event
	}
	msg := eventMessage(n.Event)
	for _, c := range targets {
		c.deliver(n.RequestID, n.ID, msg)
	}
}

// evict forgets the last forwarded ids that no catch-up can replay again: those forwarded
// well before the listener was last known alive (checked at most once a minute).
func (h *Hub) evict(now time.Time) {
	if now.Sub(h.evicted) < time.Minute {
		return
	}
	h.evicted = now
	horizon := h.aliveAt.Add(-2 * h.opt.CatchUpSlack)
	for id, f := range h.last {
		if f.at.Before(horizon) {
			delete(h.last, id)
		}
	}
}

// Message is a message of the stream's server: an event ({event, data, publishedAt}), or, as a
// Go client decodes any message with it, a reply ({type, status, data}: Type and Status set,
// Data's fields the reply does not have left zero).
type Message struct {
	Type        string             `json:"type,omitempty"`
	Status      string             `json:"status,omitempty"`
	Event       string             `json:"event,omitempty"`
	Data        intent.StreamEvent `json:"data"`
	PublishedAt int64              `json:"publishedAt,omitempty"`
}

// eventMessage is a request.status.updated message, encoded once for every connection.
func eventMessage(ev *intent.StatusEvent) []byte {
	b, _ := json.Marshal(Message{Event: intent.EventStatusUpdated, Data: ev.Stream(), PublishedAt: time.Now().UnixMilli()})
	return b
}

// Client is who opened a connection: KeyID is the resolved API key's id, "" for none; IP the
// client's address (the API's ClientIP).
type Client struct {
	KeyID string
	IP    string
}

func (c Client) holder() string {
	if c.KeyID != "" {
		return "key:" + c.KeyID
	}
	return "ip:" + ratelimit.ClientKey(c.IP)
}

// Limits are the limits of c's connections.
func (h *Hub) Limits(c Client) Limits {
	if c.KeyID != "" {
		return h.opt.Keyed
	}
	return h.opt.Anonymous
}

// ErrTooManyConnections is Admit's answer to a client that holds its limit of connections.
var ErrTooManyConnections = errors.New("too many websocket connections")

// ErrStreamFull is Admit's answer to a client without a key when the anonymous connections of
// this process (AnonymousPerProcess), or of every process (Global), are at their cap.
var ErrStreamFull = errors.New("the websocket stream holds as many connections without a key as it may")

// SharedCount counts the connections without a key of every API process against one cap
// (ratelimit.Slots).
type SharedCount interface {
	// Acquire takes a slot and reports whether it got one.
	Acquire(ctx context.Context) bool
	// Release gives back a slot Acquire took.
	Release(ctx context.Context)
}

// ErrClosing is Admit's answer while the hub shuts down.
var ErrClosing = errors.New("the websocket stream is shutting down")

// Admit counts a connection of c against its limits before it is upgraded: its own (per key,
// or per IP and /64), then, without a key, this process's cap and the global one; Serve releases
// it when the connection ends (call release yourself if Serve is not reached). The global cap is
// one Redis round trip, asked outside the hub's lock and only for connections without a key.
func (h *Hub) Admit(ctx context.Context, c Client) (release func(), err error) {
	k, anonymous := c.holder(), c.KeyID == ""
	h.mu.Lock()
	switch {
	case h.closing:
		h.mu.Unlock()
		return nil, ErrClosing
	case h.holders[k] >= h.Limits(c).Connections:
		h.mu.Unlock()
		return nil, ErrTooManyConnections
	case anonymous && h.anonymous >= h.opt.AnonymousPerProcess:
		h.mu.Unlock()
		h.stats.Refused.Add(1)
		return nil, ErrStreamFull
	}
	h.holders[k]++
	if anonymous {
		h.anonymous++
		h.stats.Anonymous.Add(1)
	}
	h.mu.Unlock()
	unhold := func() {
		h.mu.Lock()
		if h.holders[k]--; h.holders[k] <= 0 {
			delete(h.holders, k)
		}
		if anonymous {
			h.anonymous--
			h.stats.Anonymous.Add(-1)
		}
		h.mu.Unlock()
	}
	global := anonymous && h.opt.Global != nil
	if global && !h.opt.Global.Acquire(ctx) {
		unhold()
		h.stats.Refused.Add(1)
		return nil, ErrStreamFull
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			unhold()
			if global {
				rctx, cancel := context.WithTimeout(context.Background(), time.Second)
				h.opt.Global.Release(rctx)
				cancel()
			}
		})
	}, nil
}

// subscribe registers c as a follower of a request ("" with keyID: of every request of the key).
func (h *Hub) subscribe(c *conn, requestID, keyID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m, idx := h.byRequest, requestID
	if requestID == "" {
		m, idx = h.byKey, keyID
	}
	set := m[idx]
	if set == nil {
		set = map[*conn]struct{}{}
		m[idx] = set
	}
	set[c] = struct{}{}
}

func (h *Hub) unsubscribe(c *conn, requestID, keyID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.unsubscribeLocked(c, requestID, keyID)
}

func (h *Hub) unsubscribeLocked(c *conn, requestID, keyID string) {
	m, idx := h.byRequest, requestID
	if requestID == "" {
		m, idx = h.byKey, keyID
	}
	if set := m[idx]; set != nil {
		delete(set, c)
		if len(set) == 0 {
			delete(m, idx)
		}
	}
}

func (h *Hub) register(c *conn) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closing {
		return false
	}
	h.conns[c] = struct{}{}
	h.stats.Connections.Add(1)
	return true
}

// unregister drops c and every subscription it held.
func (h *Hub) unregister(c *conn, requests []string, keyWide bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.conns[c]; !ok {
		return
	}
	delete(h.conns, c)
	h.stats.Connections.Add(-1)
	for _, r := range requests {
		h.unsubscribeLocked(c, r, "")
	}
	if keyWide {
		h.unsubscribeLocked(c, "", c.client.KeyID)
	}
}

// closeAll closes every connection as the process stops.
func (h *Hub) closeAll() {
	h.mu.Lock()
	h.closing = true
	all := make([]*conn, 0, len(h.conns))
	for c := range h.conns {
		all = append(all, c)
	}
	h.mu.Unlock()
	for _, c := range all {
		c.kill(CloseGoingAway, "server shutting down")
	}
}
