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
			c.JSON(qerr.Status, qerr)
			return
		}
		// The key decides whether a referrer is allowed, who owns the stored request and the
		// revenue share; one that could not be checked is not guessed at.
		if keyUnchecked(c) {
			qerr = &quote.Error{Status: http.StatusServiceUnavailable, Code: quote.CodeServiceUnavailable,
				Message: "the API key could not be checked; retry shortly"}
			c.JSON(qerr.Status, qerr)
			return
		}
		var caller quote.Caller
		if key := apiKeyOf(c); key != nil {
			caller = quote.Caller{APIKeyID: key.ID, BusinessVerified: key.BusinessVerified, PayoutAddress: key.PayoutAddress}
		}
		resp, qerr := s.Quotes.Quote(c.Request.Context(), req, caller, mode)
		if qerr != nil {
			if qerr.Status >= 500 {
				s.Logger.Warn("quote failed", "path", c.FullPath(), "errorCode", qerr.Code, "message", qerr.Message, "cause", qerr.Cause())
			}
			c.JSON(qerr.Status, qerr)
			return
		}
		c.JSON(http.StatusOK, resp)
	}
}
