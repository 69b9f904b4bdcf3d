package api

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/door"
	"github.com/intentd/intentd/intent"
)

// AdminRefunder sends a manual admin refund to a request's workflow and waits for it to be
// mined; door.Door is the real one. Errors follow package door (ErrInvalid, ErrNotFound,
// ErrNotRefundable, ErrRefundFailed, ErrTimeout).
type AdminRefunder interface {
	AdminRefund(ctx context.Context, requestID string, req intent.AdminRefund) (*intent.AdminRefundResult, error)
}

// adminRefundRoute is the manual refund's route.
const adminRefundRoute = "/admin/requests/:requestId/refund"

// adminRefundTimeout bounds how long POST /admin/requests/:requestId/refund waits for the refund
// to be mined; past it the answer is 504 and the refund carries on in the workflow.
const adminRefundTimeout = 2 * time.Minute

// adminBodyLimit caps the refund body (a reason, an operator and an address).
const adminBodyLimit = 16 << 10

type adminRefundBody struct {
	Reason    string `json:"reason" required:"true"`
	Operator  string `json:"operator" required:"true"`
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

// adminGuard stands before the handler of every admin route (the route table's rows of
// accessAdmin): adminGate, then Cache-Control: no-store on the answer.
func (s *Server) adminGuard() gin.HandlerFunc {
	return func(c *gin.Context) {
		if s.adminGate(c) {
			c.Header("Cache-Control", "no-store")
			c.Next()
		}
	}
}

// adminGate lets an admin request through, or answers it: 404 NOT_FOUND when no admin token is
// configured (the admin endpoints then do not exist), 401 UNAUTHORIZED without the right bearer
// token. Its log lines name the route.
func (s *Server) adminGate(c *gin.Context) bool {
	if len(s.AdminTokenSHA256) != sha256.Size {
		notFound(c)
		return false
	}
	// The client's IP as gin resolves it (X-Forwarded-For only from the trusted proxies): the
	// key of the failure budget and of every audit line.
	client := c.ClientIP()
	if wait := s.adminFailures.wait(client); wait > 0 {
		s.Logger.Warn("admin api: too many failed admin authentications", "client", client, "route", c.FullPath())
		c.Header("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
		abort(c, &Error{Code: CodeRateLimited, Message: fmt.Sprintf("too many failed admin authentications from this address; retry in %s", wait.Round(time.Second))})
		return false
	}
	if !s.adminAuthorized(c) {
		s.adminFailures.fail(client)
		s.Logger.Warn("admin api: missing or invalid admin token", "client", client, "route", c.FullPath())
		c.Header("WWW-Authenticate", `Bearer realm="intentd-admin"`)
		abort(c, &Error{Code: CodeUnauthorized, Message: "a valid admin token is required (Authorization: Bearer <token>)"})
		return false
	}
	return true
}

// adminRefund serves POST /admin/requests/:requestId/refund: a manual refund by support staff,
// behind adminGuard. Without a configured admin token hash, or without a refunder (Admin), the
// endpoint does not exist (404, as for any unknown path).
func (s *Server) adminRefund(c *gin.Context) {
	requestID := c.Param("requestId")
	if !intent.IsHash32(requestID) {
		abort(c, errRequestNotFound)
		return
	}
	var body adminRefundBody
	// The body is bounded to adminBodyLimit (bound); a misspelt "recipient" must not silently
	// refund to the default.
	dec := json.NewDecoder(c.Request.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		abort(c, invalidInput("body must be a JSON object {reason, operator, recipient?}: "+jsonProblem(err)))
		return
	}
	if dec.More() {
		abort(c, invalidInput("body must be a single JSON object"))
		return
	}
	req, err := door.ValidateAdminRefund(requestID, intent.AdminRefund{Operator: body.Operator, Reason: body.Reason, Recipient: body.Recipient})
	if err != nil {
		abort(c, invalidInput(err.Error()))
		return
	}

	logger := s.Logger.With("requestId", requestID, "operator", req.Operator, "client", c.ClientIP())
	logger.Info("admin refund requested", "reason", req.Reason, "recipient", req.Recipient)
	ctx, cancel := context.WithTimeout(c.Request.Context(), adminRefundTimeout)
	defer cancel()
	res, err := s.Admin.AdminRefund(ctx, requestID, req)
	if err == nil {
		logger.Info("admin refund mined", "txHash", res.TxHash, "chainId", res.ChainID, "amount", res.Amount)
		c.JSON(http.StatusOK, res)
		return
	}
	e := adminRefundError(err, requestID)
	if e.Code == CodeUnknownError && c.Request.Context().Err() != nil {
		// The caller went away; nothing can be answered. An accepted refund goes on.
		logger.Warn("admin refund: caller disconnected before it completed", "error", err)
		c.Status(499)
		return
	}
	level := slog.LevelInfo // refused: the operator's answer, not a fault of the engine
	switch {
	case e.Code == CodeUnknownError:
		level = slog.LevelError
	case e.Status() >= http.StatusInternalServerError:
		level = slog.LevelWarn
	}
	logger.Log(ctx, level, "admin refund not completed", "errorCode", e.Code, "why", e.Message, "error", err)
	abort(c, e)
}

// adminRefundError names what a failed admin refund means (package door's errors) by a code;
// its status follows from the code. The message is for the operator: the workflow's reason
// where it gave one, never the internal error, which is the cause.
func adminRefundError(err error, requestID string) *Error {
	e := &Error{Code: CodeUnknownError, Message: "internal error", cause: err}
	var refusal *door.NotRefundableError
	switch {
	case errors.Is(err, door.ErrInvalid):
		e.Code, e.Message = CodeInvalidInput, err.Error()
	case errors.Is(err, door.ErrNotFound):
		e.Code, e.Message = CodeRequestNotFound, "request not found, or no deposit seen for it yet"
	case errors.As(err, &refusal):
		e.Code, e.Message = CodeNotRefundable, refusal.Reason
		if errors.Is(err, door.ErrRefundFailed) {
			// Accepted, but the chain would not take the refund: nothing was paid.
			e.Code = CodeRefundFailed
		}
	case errors.Is(err, door.ErrNotRefundable):
		e.Code, e.Message = CodeNotRefundable, "the request cannot be refunded now"
	case errors.Is(err, door.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		e.Code, e.Message = CodeTimeout, fmt.Sprintf("the refund did not complete within %s; if the workflow "+
			"accepted it, it continues there: follow GET /intents/status/v3?requestId=%s", adminRefundTimeout, requestID)
	}
	return e
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
