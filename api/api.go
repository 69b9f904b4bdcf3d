// Package api is the HTTP face of the engine (Gin): quotes, chain listing, transaction hints,
// request status, usage metrics, the websocket stream of status events (GET /ws) and the
// integrator dashboard's JSON API (/dashboard/api/…, dashboard.go), on the public listener; the admin API (/admin/…) on a listener of its own, an internal address
// (AdminHandler). Handlers read from the Postgres read model and reach
// Temporal only through the deposit router, so status polling never replays a workflow. Every
// failure is one Error type, answered as {message, errorCode} with the status one table gives
// its code (errors.go); no stack trace or internal error text ever reaches a response.
package api

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/perps"
	"github.com/intentd/intentd/events"
	opsmetrics "github.com/intentd/intentd/internal/metrics"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/ratelimit"
	"github.com/intentd/intentd/usage"
)

// Indexer delivers the deposits of a transaction a client reported (intents.Door), its id as the
// chain's family writes it.
type Indexer interface {
	IndexTransaction(ctx context.Context, chainID uint64, tx string) (int, error)
}

// Server holds the API's dependencies.
type Server struct {
	// Store is the database: what of it the API uses (store.go); a *store.Store.
	Store   Store
	Chains  *chains.Registry
	Quotes  *quote.Engine
	Indexer Indexer
	// Reindexer serves POST /transactions/deposit-address/reindex (deposits.Reindexer); nil
	// answers 503.
	Reindexer DepositAddressReindexer
	Logger    *slog.Logger
	// Admin serves POST /admin/requests/:requestId/refund (manual refunds by support staff),
	// which exists only when AdminTokenSHA256 (the SHA-256 of the admin bearer token) is set.
	Admin            AdminRefunder
	AdminTokenSHA256 []byte
	// AdminAddr is where Run serves the admin API (/admin/…: AdminHandler), a listener of its
	// own, never the public one: an internal address (ADMIN_ADDR, 127.0.0.1:8081 by default).
	// Empty, or without AdminTokenSHA256, Run serves no admin API.
	AdminAddr string
	// Limits are the rate limits (limits.go); nil: none, for tests that are not about them.
	Limits *ratelimit.Limiter
	// TrustedProxies (CIDRs or addresses) are the peers whose X-Forwarded-For names the
	// client; from any other peer it is ignored. Empty: no proxy is trusted.
	TrustedProxies []string
	// TemporalUIURL (TEMPORAL_UI_URL, e.g. http://127.0.0.1:8233) is the Temporal Web UI the
	// dashboard's request page links operators to, in TemporalNamespace; "": no link.
	TemporalUIURL     string
	TemporalNamespace string
	// Usage counts every call for GET /metrics/usage; Handler makes one flushing to Store with
	// the defaults when it is nil, and Run flushes it on the way out.
	Usage *usage.Recorder
	// Keys resolves x-api-key; nil means a resolver over Store with the default options (a
	// revoked key stops working within 5 s). Run writes its last-used times.
	Keys *auth.Resolver
	// Timeouts bound connections and requests; zero fields take DefaultTimeouts'.
	Timeouts Timeouts
	// V2 is the deprecation schedule of GET /requests/v2 and /requests; zero is the spec's
	// (DefaultV2Deprecation). Now is the clock it is judged by; time.Now when nil.
	V2  V2Deprecation
	Now func() time.Time
	// Webhooks seals the webhook secrets the admin API creates (WEBHOOK_SECRETS_KEY); nil: the
	// webhook changes answer 503 WEBHOOKS_NOT_CONFIGURED. WebhookPolicy is which URLs a
	// webhook may have.
	Webhooks      *events.Sealer
	WebhookPolicy events.URLPolicy
	// Perps names the perps exchange in the messages POST /authorize verifies (the NonceMapping
	// message's chainId string) when Chains has no perps chain naming it (chains.Chain.Exchange,
	// which wins); zero is the local exchange's naming (perps.Default).
	Perps perps.Exchange
	// SolverMaxFill is the solver's capacity per fill by symbol, in whole units
	// (SOLVER_MAX_FILL): GET /config/v2 caps capacityPerRequest with it. Nil: no cap.
	SolverMaxFill map[string]decimal.Decimal
	// Stream is the websocket stream of status events (GET /ws); its listener runs apart
	// (events.Hub.Run, started with the process). Nil: no /ws.
	Stream *events.Hub
	// Gasless starts the gasless requests of POST /execute (door.Door); nil answers 503.
	Gasless GaslessExecutor

	initOnce      sync.Once
	adminFailures *adminFailures
	openAPI       []byte // the OpenAPI document as served (openAPIJSON)
}

// init fills in the parts the routers share, once.
func (s *Server) init() {
	s.initOnce.Do(func() {
		if s.Keys == nil {
			s.Keys = auth.NewResolver(s.Store, auth.ResolverOptions{Logger: s.Logger})
		}
		if s.Usage == nil {
			s.Usage = usage.NewRecorder(s.Store, usage.Options{Logger: s.Logger})
		}
		s.adminFailures = newAdminFailures()
		s.openAPI = openAPIJSON()
	})
}

// Handler builds the public router: every route of the table (routes.go) but the admin API's
// (/admin/… is 404 here, as any path the API does not serve; AdminHandler serves it on a
// listener of its own). The table and the OpenAPI document are checked here, so that a bad row
// stops the process at start.
func (s *Server) Handler() http.Handler {
	s.init()
	routeIndex()
	r := gin.New()
	s.trustProxies(r)
	r.Use(s.measure(), s.countUsage(), s.recoverer(), s.logRequests(), s.deprecateV2(), s.bound(), s.authenticate(), s.limitRequests())
	s.register(r, false)
	r.NoRoute(notFound)
	return r
}

// AdminHandler builds the admin API's router (/admin/…: manual refunds, integrators, keys,
// sponsorship, webhooks: the table's rows of accessAdmin), behind the admin bearer token and its
// failure budget (adminGuard), with the public router's measuring, recovery, logging and bounds,
// and no rate limits or usage counting (its own credential). Run serves it on AdminAddr; it is
// never mounted on the public listener, so the admin API is reachable only where that internal
// address is.
func (s *Server) AdminHandler() http.Handler {
	s.init()
	routeIndex()
	r := gin.New()
	s.trustProxies(r)
	r.Use(s.measure(), s.recoverer(), s.logRequests(), s.bound())
	s.register(r, true)
	r.NoRoute(notFound)
	return r
}

// adminServed reports whether Run serves the admin API: an address for it, and a token.
func (s *Server) adminServed() bool { return s.AdminAddr != "" && len(s.AdminTokenSHA256) > 0 }

// Run serves the public API on addr, and the admin API on AdminAddr (adminServed), until ctx
// ends, then shuts both down gracefully: the calls in flight are answered, and then the usage
// they counted is flushed; the API keys' last-used times are written until then, and once more
// after the last request. Both listeners are opened before anything is served, so an address
// that cannot be listened on stops the process at start. The servers' timeouts are Timeouts'
// (HTTPServer, AdminHTTPServer).
func (s *Server) Run(ctx context.Context, addr string) error {
	servers := []*http.Server{s.HTTPServer(addr)}
	if s.adminServed() {
		servers = append(servers, s.AdminHTTPServer(s.AdminAddr))
	}
	listeners := make([]net.Listener, 0, len(servers))
	for _, srv := range servers {
		ln, err := net.Listen("tcp", srv.Addr)
		if err != nil {
			for _, l := range listeners {
				_ = l.Close()
			}
			return err
		}
		listeners = append(listeners, ln)
	}
	if s.adminServed() {
		s.Logger.Info("admin API listening", "addr", listeners[1].Addr().String())
	}
	stopUsage := s.startUsage()
	defer stopUsage()
	kctx, stopKeys := context.WithCancel(context.WithoutCancel(ctx))
	keysDone := make(chan struct{})
	go func() { defer close(keysDone); s.Keys.Run(kctx) }()
	defer func() { stopKeys(); <-keysDone }()
	errc := make(chan error, len(servers))
	for i, srv := range servers {
		go func() { errc <- srv.Serve(listeners[i]) }()
	}
	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, srv := range servers {
		if serr := srv.Shutdown(sctx); err == nil {
			err = serr
		}
	}
	return err
}

func (s *Server) recoverer() gin.HandlerFunc {
	return func(c *gin.Context) {
		defer func() {
			if rec := recover(); rec != nil {
				s.Logger.Error("panic in handler", "path", c.FullPath(), "panic", rec)
				abort(c, &Error{Code: CodeUnknownError, Message: "internal error"})
			}
		}()
		c.Next()
	}
}

// measure records every answer in the Prometheus metrics (internal/metrics): by route pattern,
// status and errorCode, with its latency, and the quote endpoints' outcomes (the rows with
// quoteOutcomes).
func (s *Server) measure() gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		route, code := c.FullPath(), errorCodeOf(c)
		opsmetrics.ObserveHTTP("api", route, c.Request.Method, c.Writer.Status(), code, time.Since(start))
		if rt := routeOf(route); rt != nil && rt.quoteOutcomes {
			outcome := code
			if outcome == "" {
				outcome = "ok"
			}
			opsmetrics.Quotes.WithLabelValues(route, outcome).Inc()
		}
	}
}

func (s *Server) logRequests() gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		s.Logger.Debug("request", "method", c.Request.Method, "path", c.FullPath(), "status", c.Writer.Status(),
			"errorCode", errorCodeOf(c), "duration", time.Since(start))
	}
}
