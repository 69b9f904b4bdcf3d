// Package oracle is the attestation oracle: its own HTTP service that reads facts from chains
// (deposits, withdrawals, solver fills and refunds, withdrawal initiation on EVM chains; deposits
// and fills on Solana chains, solana.go), signs
// them as EIP-712 messages with the instance's single signer (a raw key or an AWS KMS key),
// gathers its peers' signatures when asked (aggregate.go, the spec's rules), and returns the
// signatures for settlement. It shares only the chain registry with the engine. Its wire contract (paths, types, error codes, typed data)
// and the engine's client live in oracle/oracleapi, which the engine imports instead of this
// package, so the engine never links the Gin server. docs/oracle.md describes the wire format.
package oracle

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/internal/httpclient"
	"github.com/intentd/intentd/internal/metrics"
	"github.com/intentd/intentd/internal/openapidoc"
	"github.com/intentd/intentd/oracle/oracleapi"
	"github.com/intentd/intentd/prices"
)

// maxBodyBytes bounds request bodies; attestation requests are a few hundred bytes.
const maxBodyBytes = 64 << 10

// Server is one oracle instance: configuration, chain registry, signer and the HTTP router.
// It holds no state worth persisting (the spec's "operationally stateless"): rate-limit
// counters and RPC clients are rebuilt on restart.
type Server struct {
	cfg      Config
	registry *chains.Registry
	logger   *slog.Logger
	signer   messageSigner
	apiKeys  apiKeySet
	limiter  *fixedWindowLimiter
	clients  readerSource
	// solana are the clients of the Solana chains (solana.go).
	solana solanaClients
	// perps are the clients of the perps exchange chains (perps.go).
	perps   perpsClients
	peers   *http.Client
	handler http.Handler

	endpoints   []*endpoint
	openAPIJSON []byte
	hub         map[uint64]bool
	// prices are the oracle's own USD prices (PRICE_SOURCE), by which it tiers a deposit's
	// confirmations (depth.go); nil without a source: every deposit waits its chain's full
	// confirmations.
	prices prices.Source
}

// vmFamily is the spec's VM family identifier of a chain: a perps exchange's names its
// exchange (oracleapi.PerpsFamily of the entry's exchange word).
func vmFamily(ch *chains.Chain) string {
	switch ch.VMType {
	case chains.VMTypeEVM:
		return oracleapi.VMFamilyEthereum
	case chains.VMTypeSVM:
		return oracleapi.VMFamilySolana
	case chains.VMTypePerps:
		return oracleapi.PerpsFamily(ch.Exchange)
	default:
		return string(ch.VMType)
	}
}

// NewServer builds the instance from a validated Config and the chain registry the config
// selects (Config.LoadChains). Gin's global mode is left to the command line (gin.SetMode), as
// it is process-wide.
func NewServer(cfg Config, registry *chains.Registry, logger *slog.Logger) (*Server, error) {
	if registry == nil {
		return nil, errors.New("oracle: chain registry is required")
	}
	if cfg.signer == nil {
		return nil, errors.New("oracle: configuration has no signer (build it with ConfigFromEnv)")
	}
	if cfg.RateLimitMax < 1 || cfg.RateLimitWindow <= 0 {
		return nil, errors.New("oracle: rate limit must allow at least one request per positive window")
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		cfg:      cfg,
		registry: registry,
		logger:   logger,
		signer:   cfg.signer,
		apiKeys:  apiKeySet{keys: cfg.APIKeys},
		limiter:  newFixedWindowLimiter(cfg.RateLimitMax, cfg.RateLimitWindow, nil),
		clients:  newClientPool(),
		// Each peer call is bounded by PEER_REQUEST_TIMEOUT_MS through its context.
		peers:     httpclient.New(0),
		endpoints: endpoints(),
		hub:       cfg.hub,
	}
	if err := s.openPrices(); err != nil {
		return nil, err
	}
	for _, w := range s.cfg.Warnings {
		logger.Warn("configuration warning", slog.String("warning", w))
	}
	doc, err := buildOpenAPI(s.endpoints)
	if err != nil {
		return nil, fmt.Errorf("oracle: OpenAPI document: %w", err)
	}
	if s.openAPIJSON, err = marshalOpenAPI(doc); err != nil {
		return nil, fmt.Errorf("oracle: OpenAPI document: %w", err)
	}
	s.handler = s.routes()
	return s, nil
}

// SignerAddress is the instance's signer, the address peers and settlement verify against.
func (s *Server) SignerAddress() common.Address { return s.signer.Address() }

// Handler is the oracle's HTTP handler, for tests (httptest) and for embedding.
func (s *Server) Handler() http.Handler { return s.handler }

// Run listens on addr (Config.Addr() when empty) and serves until ctx ends, then shuts down
// gracefully.
func (s *Server) Run(ctx context.Context, addr string) error {
	if addr == "" {
		addr = s.cfg.Addr()
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("oracle: listen %s: %w", addr, err)
	}
	return s.Serve(ctx, ln)
}

// Serve serves on an existing listener until ctx ends; in-flight requests get up to ten seconds
// to finish. It returns nil after a graceful shutdown. Taking a listener lets tests and
// supervisors bind port 0 and learn the address first.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := s.httpServer()
	defer s.clients.close()
	defer s.solana.close()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	s.logger.Info("oracle listening", slog.String("addr", ln.Addr().String()),
		slog.String("signer", s.SignerAddress().Hex()), slog.Int("chains", len(s.registry.Enabled())))
	select {
	case err := <-errc:
		return fmt.Errorf("oracle: serve: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("oracle: shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("oracle: serve: %w", err)
	}
	s.logger.Info("oracle stopped")
	return nil
}

// httpServer is the oracle's HTTP server. Every connection is bounded: the headers, the whole
// request (a trickled body is cut), the answer (above rpcTimeout, which bounds an attestation's
// chain reads, so an attestation always gets its answer out) and the wait of an idle keep-alive.
func (s *Server) httpServer() *http.Server {
	return &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      2 * rpcTimeout,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn),
	}
}

func (s *Server) routes() http.Handler {
	r := gin.New()
	// The limiter keys on the TCP peer: trusting X-Forwarded-For from anyone would let every
	// caller pick its own rate-limit key.
	_ = r.SetTrustedProxies(nil)
	r.Use(s.measure, s.recoverer, s.requestLog, s.rateLimit)

	r.GET("/", func(c *gin.Context) { c.Redirect(http.StatusFound, oracleapi.PathDocumentation) })
	r.GET(oracleapi.PathDocumentation, s.documentationPage)
	r.GET(oracleapi.PathDocumentation+"/openapi.json", s.openAPI)
	r.GET(oracleapi.PathDocumentation+"/assets/:file", s.documentationAsset)
	r.GET(oracleapi.PathLives, func(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"status": "ok"}) })
	r.GET(oracleapi.PathChains, s.listChains)
	for _, e := range s.endpoints {
		r.POST(e.path, s.handle(e))
	}
	r.NoRoute(func(c *gin.Context) {
		writeError(c, oracleapi.Errorf(oracleapi.CodeNotFound, "no route %s %s", c.Request.Method, c.Request.URL.Path))
	})
	return r
}

func writeError(c *gin.Context, e *oracleapi.Error) {
	c.Set(ctxErrorCode, e.Code)
	c.AbortWithStatusJSON(e.Status, e)
}

// ctxErrorCode holds the code of a failed request, for the metrics.
const ctxErrorCode = "errorCode"

// statusClientClosedRequest is the status the metrics give a request whose caller went away
// before the answer (nginx's 499); the caller, gone, is sent nothing it reads.
const statusClientClosedRequest = 499

// measure records every answer in the Prometheus metrics (internal/metrics), and the
// attestation endpoints' outcomes.
func (s *Server) measure(c *gin.Context) {
	start := time.Now()
	c.Next()
	route, status, code := c.FullPath(), c.Writer.Status(), c.GetString(ctxErrorCode)
	outcome := code
	if code != "" && errors.Is(c.Request.Context().Err(), context.Canceled) {
		// The caller went away before the answer (most often an aggregating peer that had the
		// signatures it needed and cancelled the rest): nobody reads the answer, and the failure
		// it names is the cancellation's, not the chain's. Counted as CHAIN_UNAVAILABLE, it was
		// one attestation in fifteen at 50 intents a second on a healthy devnet.
		status, code, outcome = statusClientClosedRequest, "", "canceled"
	}
	metrics.ObserveHTTP("oracle", route, c.Request.Method, status, code, time.Since(start))
	if c.Request.Method == http.MethodPost && route != "" {
		if outcome == "" {
			outcome = "ok"
		}
		metrics.OracleAttestations.WithLabelValues(route, outcome).Inc()
	}
}

// recoverer replaces gin.Recovery, which dumps request headers (x-api-key among them) to the log.
func (s *Server) recoverer(c *gin.Context) {
	defer func() {
		if rec := recover(); rec != nil {
			if err, ok := rec.(error); ok && errors.Is(err, http.ErrAbortHandler) {
				panic(rec)
			}
			s.logger.Error("handler panicked", slog.String("path", c.Request.URL.Path),
				slog.Any("panic", rec), slog.String("stack", string(debug.Stack())))
			writeError(c, oracleapi.Errorf(oracleapi.CodeInternal, "internal error"))
		}
	}()
	c.Next()
}

// requestLog logs method, path, status and the API key's label; never headers or bodies.
func (s *Server) requestLog(c *gin.Context) {
	start := time.Now()
	c.Next()
	level := slog.LevelInfo
	if strings.HasPrefix(c.Request.URL.Path, "/lives/") {
		level = slog.LevelDebug
	}
	attrs := []slog.Attr{
		slog.String("method", c.Request.Method),
		slog.String("path", c.Request.URL.Path),
		slog.Int("status", c.Writer.Status()),
		slog.Duration("duration", time.Since(start)),
		slog.String("client", c.RemoteIP()),
	}
	if label, ok := c.Get(ctxKeyLabel); ok {
		attrs = append(attrs, slog.Any("apiKey", label))
	}
	s.logger.LogAttrs(c.Request.Context(), level, "request", attrs...)
}

const ctxKeyLabel = "oracle.apiKeyLabel"

// rateLimitExempt lists the paths the spec leaves unlimited: the root, the documentation and
// its subpaths, and health checks.
func rateLimitExempt(path string) bool {
	return path == "/" ||
		path == oracleapi.PathDocumentation || strings.HasPrefix(path, oracleapi.PathDocumentation+"/") ||
		strings.HasPrefix(path, "/lives/")
}

// rateLimit applies the spec's unauthenticated limit: a fixed window per client IP, bypassed by
// a valid x-api-key.
func (s *Server) rateLimit(c *gin.Context) {
	if label, ok := s.apiKeys.match(c.GetHeader(oracleapi.HeaderAPIKey)); ok {
		c.Set(ctxKeyLabel, label)
		c.Next()
		return
	}
	if rateLimitExempt(c.Request.URL.Path) {
		c.Next()
		return
	}
	d := s.limiter.allow(clientKey(c.RemoteIP()))
	h := c.Writer.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(d.limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(d.remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(int64(math.Ceil(float64(d.reset.UnixMilli())/1000)), 10))
	if d.allowed {
		c.Next()
		return
	}
	wait := max(int64(math.Ceil(d.wait.Seconds())), 1)
	h.Set("Retry-After", strconv.FormatInt(wait, 10))
	writeError(c, oracleapi.Errorf(oracleapi.CodeRateLimited, "rate limit of %d requests per %s exceeded; retry after %d s or send an API key",
		d.limit, s.cfg.RateLimitWindow, wait))
}

func (s *Server) listChains(c *gin.Context) {
	out := oracleapi.ChainsResponse{Chains: []oracleapi.ChainInfo{}}
	for _, ch := range s.registry.Enabled() {
		out.Chains = append(out.Chains, oracleapi.ChainInfo{
			ID: ch.ID, Name: ch.Name, VMType: vmFamily(ch), Depository: ch.Depository, OutputSettler: ch.OutputSettler,
			Confirmations: max(ch.Confirmations, 1), Hub: s.hub[ch.ID],
		})
	}
	c.JSON(http.StatusOK, out)
}

// jsonProblem describes a decoding error without echoing the body back.
func jsonProblem(err error) string { return openapidoc.JSONProblem(err) }

// Probes are the oracle's readiness checks (internal/metrics): the RPC of every enabled chain
// answers with its head. An oracle with one chain down still attests the others; its /readyz
// names the chain so the operator sees which.
func (s *Server) Probes() []metrics.Probe {
	var out []metrics.Probe
	for _, ch := range s.registry.Enabled() {
		out = append(out, metrics.Probe{Name: fmt.Sprintf("chain-%d", ch.ID), Check: func(ctx context.Context) error {
			if ch.VMType == chains.VMTypeSVM {
				c, err := s.solana.get(ch)
				if err == nil {
					_, err = c.family.Head(ctx)
				}
				return err
			}
			if ch.VMType == chains.VMTypePerps {
				c, err := s.perps.get(ch)
				if err == nil {
					err = c.Ping(ctx)
				}
				return err
			}
			r, err := s.clients.get(ctx, ch)
			if err == nil {
				_, err = r.BlockNumber(ctx)
			}
			return err
		}})
	}
	return out
}
