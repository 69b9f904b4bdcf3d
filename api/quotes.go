package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/quote"
)

// postQuoteV2 serves POST /quote/v2. Every failure answers {message, errorCode}.
func (s *Server) postQuoteV2(c *gin.Context) {
	req, qerr := quote.Decode(c.Request.Body)
	if qerr != nil {
		c.JSON(qerr.Status, qerr)
		return
	}
	key := apiKeyOf(c)
	if req.Referrer != "" && key == nil {
		c.JSON(http.StatusUnauthorized, &quote.Error{Code: quote.CodeUnauthorizedQuote, Message: "referrer requires a valid x-api-key"})
		return
	}
	keyID := ""
	if key != nil {
		keyID = key.ID
	}
	resp, qerr := s.Quotes.Quote(c.Request.Context(), req, keyID)
	if qerr != nil {
		if qerr.Status >= 500 {
			s.Logger.Warn("quote failed", "errorCode", qerr.Code, "message", qerr.Message)
		}
		c.JSON(qerr.Status, qerr)
		return
	}
	c.JSON(http.StatusOK, resp)
}
