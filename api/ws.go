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

// websocketStream is GET /ws: an optional ?apiKey= (resolved as x-api-key is, by
// authenticate), the caller's connections counted against its limit in this process, then the
// upgrade; the connection is served by the hub on a goroutine of its own, so the request (its
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
	release, err := s.Stream.Admit(client)
	switch {
	case errors.Is(err, events.ErrTooManyConnections):
		abort(c, &Error{Code: CodeRateLimited, Message: "too many websocket connections from this caller; close one first"})
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
