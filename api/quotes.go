package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/quote"
)

// quoteHandler serves one of the quote endpoints (POST /quote/v2, POST /quote, POST /price).
// Every failure answers {message, errorCode}; a 5xx is logged with its cause, which never
// reaches the body. An x-api-key that could not be looked up is 503 SERVICE_UNAVAILABLE.
func (s *Server) quoteHandler(mode quote.Mode) gin.HandlerFunc {
	return func(c *gin.Context) {
		req, qerr := quote.Decode(c.Request.Body)
		if qerr != nil {
			abort(c, fromQuote(qerr))
			return
		}
		// The key decides whether a referrer is allowed, who owns the stored request and the
		// revenue share; one that could not be checked is not guessed at.
		if keyUnchecked(c) {
			abort(c, errKeyUnchecked)
			return
		}
		resp, qerr := s.Quotes.Quote(c.Request.Context(), req, quote.CallerOf(apiKeyOf(c)), mode)
		if qerr != nil {
			e := fromQuote(qerr)
			if e.Status() >= http.StatusInternalServerError {
				s.Logger.Warn("quote failed", "path", c.FullPath(), "errorCode", e.Code, "message", e.Message, "cause", e.Cause())
			}
			abort(c, e)
			return
		}
		c.JSON(http.StatusOK, resp)
	}
}
