package api

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/admin"
	"github.com/intentd/intentd/workflows"
)

// AdminRefunder sends a manual admin refund to a request's workflow and waits for it to be
// mined; admin.Refunder is the real one. Errors follow package admin (ErrInvalid, ErrNotFound,
// ErrNotRefundable, ErrTimeout).
type AdminRefunder interface {
	Refund(ctx context.Context, requestID string, req workflows.AdminRefund) (*workflows.AdminRefundResult, error)
}

// adminRefundTimeout bounds how long POST /admin/requests/:requestId/refund waits for the refund
// to be mined; past it the answer is 504 and the refund carries on in the workflow.
const adminRefundTimeout = 2 * time.Minute

// adminBodyLimit caps the refund body (a reason, an operator and an address).
const adminBodyLimit = 16 << 10

type adminRefundBody struct {
	Reason    string `json:"reason"`
	Operator  string `json:"operator"`
	Recipient string `json:"recipient"`
}

// adminAuthorized checks the Authorization: Bearer token against the configured SHA-256 in
// constant time. The token is never logged or echoed. (x-api-key, the integrators' credential,
// plays no part here: authenticate() only resolves it for the quote endpoints.)
func (s *Server) adminAuthorized(c *gin.Context) bool {
	scheme, token, ok := strings.Cut(c.GetHeader("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return false
	}
	sum := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(sum[:], s.AdminTokenSHA256) == 1
}

// adminRefund serves POST /admin/requests/:requestId/refund: a manual refund by support staff.
// Without a configured admin token hash the endpoint does not exist (404, as for any unknown
// path).
func (s *Server) adminRefund(c *gin.Context) {
	if len(s.AdminTokenSHA256) != sha256.Size || s.Admin == nil {
		c.JSON(http.StatusNotFound, gin.H{"message": "not found"})
		return
	}
	if !s.adminAuthorized(c) {
		s.Logger.Warn("admin refund: missing or invalid admin token", "remote", c.ClientIP())
		c.Header("WWW-Authenticate", `Bearer realm="intentd-admin"`)
		c.JSON(http.StatusUnauthorized, gin.H{"message": "a valid admin token is required (Authorization: Bearer <token>)"})
		return
	}
	requestID := c.Param("requestId")
	if !hash32.MatchString(requestID) {
		c.JSON(http.StatusNotFound, gin.H{"message": "request not found"})
		return
	}
	var body adminRefundBody
	dec := json.NewDecoder(http.MaxBytesReader(c.Writer, c.Request.Body, adminBodyLimit))
	dec.DisallowUnknownFields() // a misspelt "recipient" must not silently refund to the default
	if err := dec.Decode(&body); err != nil {
		c.JSON(http.StatusBadRequest, gin.H{"message": "body must be a JSON object {reason, operator, recipient?}: " + jsonProblem(err)})
		return
	}
	if dec.More() {
		c.JSON(http.StatusBadRequest, gin.H{"message": "body must be a single JSON object"})
		return
	}
	req, err := admin.Validate(requestID, workflows.AdminRefund{Operator: body.Operator, Reason: body.Reason, Recipient: body.Recipient})
	if err != nil {
		c.JSON(http.StatusBadRequest, gin.H{"message": err.Error()})
		return
	}

	logger := s.Logger.With("requestId", requestID, "operator", req.Operator)
	logger.Info("admin refund requested", "reason", req.Reason, "recipient", req.Recipient)
	ctx, cancel := context.WithTimeout(c.Request.Context(), adminRefundTimeout)
	defer cancel()
	res, err := s.Admin.Refund(ctx, requestID, req)
	var notRefundable *admin.NotRefundableError
	switch {
	case err == nil:
		logger.Info("admin refund mined", "txHash", res.TxHash, "chainId", res.ChainID, "amount", res.Amount)
		c.JSON(http.StatusOK, res)
	case errors.Is(err, admin.ErrInvalid):
		c.JSON(http.StatusBadRequest, gin.H{"message": err.Error()})
	case errors.Is(err, admin.ErrNotFound):
		c.JSON(http.StatusNotFound, gin.H{"message": "request not found, or no deposit seen for it yet"})
	case errors.As(err, &notRefundable) && notRefundable.Type == workflows.ErrTypeAdminRefundFailed:
		// Accepted, but the chain would not take the refund: nothing was paid.
		logger.Warn("admin refund not made", "why", notRefundable.Reason)
		c.JSON(http.StatusBadGateway, gin.H{"message": notRefundable.Reason})
	case errors.As(err, &notRefundable):
		logger.Info("admin refund refused", "why", notRefundable.Reason)
		c.JSON(http.StatusConflict, gin.H{"message": notRefundable.Reason})
	case errors.Is(err, admin.ErrNotRefundable):
		logger.Info("admin refund refused", "error", err)
		c.JSON(http.StatusConflict, gin.H{"message": "the request cannot be refunded now"})
	case errors.Is(err, admin.ErrTimeout) || errors.Is(err, context.DeadlineExceeded):
		logger.Warn("admin refund not completed in time", "error", err)
		c.JSON(http.StatusGatewayTimeout, gin.H{"message": fmt.Sprintf("the refund did not complete within %s; if the workflow "+
			"accepted it, it continues there: follow GET /intents/status/v3?requestId=%s", adminRefundTimeout, requestID)})
	case c.Request.Context().Err() != nil:
		// The caller went away; nothing can be answered. An accepted refund goes on.
		logger.Warn("admin refund: caller disconnected before it completed", "error", err)
		c.Status(499)
	default:
		logger.Error("admin refund failed", "error", err)
		c.JSON(http.StatusInternalServerError, gin.H{"message": "internal error"})
	}
}

// jsonProblem describes a body decoding error without echoing the body.
func jsonProblem(err error) string {
	var tooBig *http.MaxBytesError
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &tooBig):
		return fmt.Sprintf("larger than %d bytes", adminBodyLimit)
	case errors.Is(err, io.EOF):
		return "empty body"
	case errors.As(err, &syntax), errors.Is(err, io.ErrUnexpectedEOF):
		return "malformed JSON"
	case errors.As(err, &typ):
		return fmt.Sprintf("field %s must be a %s", typ.Field, typ.Type)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return strings.TrimPrefix(err.Error(), "json: ")
	default:
		return "malformed JSON"
	}
}
