// Package api is the HTTP face of the engine (Gin): quotes, chain listing, transaction hints and
// request status. Handlers read from the Postgres read model and reach Temporal only through
// the deposit router, so status polling never replays a workflow. One error shape per
// endpoint family; no stack trace or internal error text ever reaches a response.
package api

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/internal/refresh"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/store"
)

// Indexer routes the deposits of a transaction a client reported.
type Indexer interface {
	IndexTransaction(ctx context.Context, chainID uint64, tx common.Hash) (int, error)
}

// Server holds the API's dependencies.
type Server struct {
	Store   *store.Store
	Chains  *evm.Pool
	Quotes  *quote.Engine
	Indexer Indexer
	Logger  *slog.Logger
	// Admin serves POST /admin/requests/:requestId/refund (manual refunds by support staff),
	// which exists only when AdminTokenSHA256 (the SHA-256 of the admin bearer token) is set.
	Admin            AdminRefunder
	AdminTokenSHA256 []byte

	keys *refresh.Cache[string, *store.APIKey]
}

// apiKeyFresh is how long a resolved API key is reused before it is looked up again, and so how
// long a revoked key keeps working at most.
const apiKeyFresh = 30 * time.Second

// Handler builds the router.
func (s *Server) Handler() http.Handler {
	s.keys = refresh.New(s.lookupKey, refresh.Options{Fresh: apiKeyFresh, MaxAge: apiKeyFresh, ErrorTTL: 5 * time.Second})
	r := gin.New()
	r.Use(s.recoverer(), s.logRequests(), s.authenticate())
	r.GET("/lives", func(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"status": "ok"}) })
	r.GET("/chains", s.listChains)
	r.POST("/quote/v2", s.quoteHandler(quote.ModeQuoteV2))
	r.POST("/quote", s.quoteHandler(quote.ModeQuoteLegacy))
	r.POST("/price", s.quoteHandler(quote.ModePrice))
	r.POST("/transactions/index", s.indexTransaction)
	r.POST("/transactions/single", s.indexSingle)
	r.GET("/intents/status/v3", s.intentStatus(statusV3))
	r.GET("/intents/status/v2", s.intentStatus(statusV2))
	r.GET("/intents/status", s.intentStatus(statusV1))
	r.POST("/admin/requests/:requestId/refund", s.adminRefund)
	r.NoRoute(func(c *gin.Context) { c.JSON(http.StatusNotFound, gin.H{"message": "not found"}) })
	return r
}

// Run serves until ctx ends, then shuts down gracefully.
func (s *Server) Run(ctx context.Context, addr string) error {
	srv := &http.Server{Addr: addr, Handler: s.Handler(), ReadHeaderTimeout: 5 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	}
}

const (
	ctxAPIKey          = "apiKey"
	ctxAPIKeyUnchecked = "apiKeyUnchecked"
)

// authenticate resolves an optional x-api-key. A key that does not resolve is treated as no key
// here; endpoints that require one say so themselves. A key that could not be looked up (the
// database did not answer) is not "no key": it is marked (keyUnchecked), so that an endpoint
// for which the key matters answers 503 and the client retries, instead of serving the
// request as anonymous (a referrer refused with 401, a quote stored without its owner).
func (s *Server) authenticate() gin.HandlerFunc {
	return func(c *gin.Context) {
		if k := c.GetHeader("x-api-key"); k != "" {
			key, err := s.keys.Get(c.Request.Context(), string(store.HashAPIKey(k)))
			switch {
			case err != nil:
				s.Logger.Error("api key lookup failed", "error", err)
				c.Set(ctxAPIKeyUnchecked, true)
			case key != nil:
				c.Set(ctxAPIKey, key)
			}
		}
		c.Next()
	}
}

// keyUnchecked reports whether the request's x-api-key could not be looked up.
func keyUnchecked(c *gin.Context) bool { return c.GetBool(ctxAPIKeyUnchecked) }

// lookupKey resolves a key by its hash (the cache never holds a key in plain text). An unknown
// key resolves to nil, which is cached like a known one so guessing keys costs no queries.
func (s *Server) lookupKey(ctx context.Context, hash string) (*store.APIKey, error) {
	key, err := s.Store.APIKeyByHash(ctx, []byte(hash))
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	return key, err
}

func apiKeyOf(c *gin.Context) *store.APIKey {
	if v, ok := c.Get(ctxAPIKey); ok {
		return v.(*store.APIKey)
	}
	return nil
}

func (s *Server) recoverer() gin.HandlerFunc {
	return func(c *gin.Context) {
		defer func() {
			if rec := recover(); rec != nil {
				s.Logger.Error("panic in handler", "path", c.FullPath(), "panic", rec)
				c.AbortWithStatusJSON(http.StatusInternalServerError, gin.H{"message": "internal error", "errorCode": quote.CodeUnknownError})
			}
		}()
		c.Next()
	}
}

func (s *Server) logRequests() gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		s.Logger.Debug("request", "method", c.Request.Method, "path", c.FullPath(), "status", c.Writer.Status(),
			"duration", time.Since(start))
	}
}
