package api

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/gorilla/websocket"

	"github.com/intentd/intentd/events"
)

// wsRoute is the websocket stream of request.status.updated (docs/events.md, "Websocket
// stream"). There is no dedicated port: a deployment that wants the public service's
// `wss://ws.<host>/` maps that host's root to this route at its proxy.
const wsRoute = "/ws"

// upgrader accepts connections from any origin: the stream carries what the status endpoint
// serves to anyone who knows a requestId, and a key travels in the URL (?apiKey=), never in a
// cookie a browser would attach for another site.
var upgrader = websocket.Upgrader{ReadBufferSize: 4096, WriteBufferSize: 4096,
	CheckOrigin: func(*http.Request) bool { return true }}

// streamFullRetry is the Retry-After of a connection without a key refused by the anonymous caps.
const streamFullRetry = "30"

// websocketStream is GET /ws: an optional key (x-api-key, or ?apiKey=; resolved by
// authenticate), the upgrade counted against the caller's ws bucket (limitRequests), its
// connections against its limit in this process (per key, or per IP and /64) and, without a key,
// against this process's and every process's caps of such connections (events.Hub.Admit), then
// the upgrade; the connection is served by the hub on a goroutine of its own, so the request (its
// usage count, its log line) ends at the upgrade. A key that is no live key is 401 and one that
// could not be checked 503, before any upgrade: a client never streams as anonymous by mistake.
func (s *Server) websocketStream(c *gin.Context) {
	if !websocket.IsWebSocketUpgrade(c.Request) {
		abort(c, invalidInput("GET /ws is a websocket: send Connection: Upgrade and Upgrade: websocket"))
		return
	}
	client := events.Client{IP: c.ClientIP()}
	if presentedKey(c) != "" {
		switch key := apiKeyOf(c); {
		case keyUnchecked(c):
			abort(c, errKeyUnchecked)
			return
		case key == nil:
			abort(c, &Error{Code: CodeUnauthorized, Message: "apiKey is not a valid API key"})
			return
		default:
			client.KeyID = key.ID
		}
	}
	release, err := s.Stream.Admit(c.Request.Context(), client)
	switch {
	case errors.Is(err, events.ErrTooManyConnections):
		abort(c, &Error{Code: CodeRateLimited, Message: "too many websocket connections from this caller; close one first"})
		return
	case errors.Is(err, events.ErrStreamFull):
		c.Header("Retry-After", streamFullRetry)
		abort(c, &Error{Code: CodeServiceUnavailable, Message: "the websocket stream holds as many connections without an API key as it may; " +
			"retry later, or connect with an API key"})
		return
	case err != nil:
		abort(c, &Error{Code: CodeServiceUnavailable, Message: "the websocket stream is restarting; reconnect"})
		return
	}
	ws, err := upgrader.Upgrade(c.Writer, c.Request, nil)
	if err != nil { // answered by the upgrader (400)
		release()
		return
	}
	go s.Stream.Serve(ws, client, release)
}
