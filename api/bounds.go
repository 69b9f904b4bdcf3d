package api

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/quote"
)

// Timeouts bound the API's connections and the time of each request, so that a slow or idle
// client, or a chain RPC that never answers, cannot hold a connection, a goroutine or the
// caller's wait without limit. A zero field takes its default.
type Timeouts struct {
	// ReadHeader bounds reading a request's headers (default 5 s).
	ReadHeader time.Duration
	// Read bounds reading the whole request, headers and body (default 15 s): a client that
	// trickles its body is cut there.
	Read time.Duration
	// Write bounds the time from the end of the headers to the end of the answer (default 30 s,
	// above Request: a handler that meets its deadline always gets its answer out). A route
	// with a longer deadline extends its own write deadline by as much.
	Write time.Duration
	// Idle bounds how long a keep-alive connection waits for its next request (default 60 s).
	Idle time.Duration
	// Request is each handler's deadline (default 10 s): every chain call, database query and
	// Temporal call on the request path runs under it, so a hung RPC is answered 503 in time.
	// Routes that legitimately wait longer have their own (the route table's deadline).
	Request time.Duration
}

// DefaultTimeouts are the API's timeouts unless Server.Timeouts says otherwise.
var DefaultTimeouts = Timeouts{ReadHeader: 5 * time.Second, Read: 15 * time.Second, Write: 30 * time.Second,
	Idle: 60 * time.Second, Request: 10 * time.Second}

func (t Timeouts) orDefaults() Timeouts {
	d := DefaultTimeouts
	for _, f := range []struct{ v, def *time.Duration }{{&t.ReadHeader, &d.ReadHeader}, {&t.Read, &d.Read},
		{&t.Write, &d.Write}, {&t.Idle, &d.Idle}, {&t.Request, &d.Request}} {
		if *f.v <= 0 {
			*f.v = *f.def
		}
	}
	return t
}

// HTTPServer is the API's HTTP server on addr with its connection timeouts (Run serves it;
// tests serve it on a listener of their own).
func (s *Server) HTTPServer(addr string) *http.Server { return s.server(addr, s.Handler()) }

// AdminHTTPServer is the admin API's HTTP server on addr (AdminHandler), with the same timeouts.
func (s *Server) AdminHTTPServer(addr string) *http.Server { return s.server(addr, s.AdminHandler()) }

func (s *Server) server(addr string, h http.Handler) *http.Server {
	t := s.Timeouts.orDefaults()
	return &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: t.ReadHeader, ReadTimeout: t.Read,
		WriteTimeout: t.Write, IdleTimeout: t.Idle}
}

// bound bounds each request's body and time. A body whose declared length is over the route's
// limit (its row's bodyLimit in the route table, else quote.MaxBodyBytes) is answered 400
// INVALID_INPUT at once, unread, and the connection closed; any other body is read through
// http.MaxBytesReader, so a chunked one is cut at the limit too. The handler runs under the
// route's deadline (Timeouts.Request, or its row's), and a longer deadline moves the
// connection's write deadline along with it.
func (s *Server) bound() gin.HandlerFunc {
	t := s.Timeouts.orDefaults()
	return func(c *gin.Context) {
		rt := routeOf(c.FullPath())
		limit := int64(quote.MaxBodyBytes)
		if rt != nil && rt.bodyLimit > 0 {
			limit = rt.bodyLimit
		}
		if c.Request.ContentLength > limit {
			c.Header("Connection", "close")
			abort(c, invalidInput(fmt.Sprintf("body larger than %d bytes", limit)))
			return
		}
		c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, limit)

		deadline := t.Request
		if rt != nil && rt.deadline > 0 {
			deadline = rt.deadline
			// Not every writer has a deadline (a test's recorder); then there is none to move.
			_ = http.NewResponseController(c.Writer).SetWriteDeadline(time.Now().Add(deadline + t.Write))
		}
		ctx, cancel := context.WithTimeout(c.Request.Context(), deadline)
		defer cancel()
		c.Request = c.Request.WithContext(ctx)
		c.Next()
	}
}
