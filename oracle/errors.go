package oracle

import (
	"fmt"
	"net/http"
	"time"
)

// Error codes of the oracle's error bodies {"message", "code"}. Callers branch on the code, never
// on the message; errorStatus maps each code to its HTTP status in one place.
const (
	CodeInvalidRequest      = "INVALID_REQUEST"
	CodeUnknownChain        = "UNKNOWN_CHAIN"
	CodeTransactionNotFound = "TRANSACTION_NOT_FOUND"
	CodeNotConfirmed        = "TRANSACTION_NOT_CONFIRMED"
	CodeTransactionReverted = "TRANSACTION_REVERTED"
	CodeNoDepositEvents     = "NO_DEPOSIT_EVENTS"
	CodeChainUnavailable    = "CHAIN_UNAVAILABLE"
	CodeRateLimited         = "RATE_LIMITED"
	CodeNotImplemented      = "NOT_IMPLEMENTED"
	CodeNotFound            = "NOT_FOUND"
	CodeInternal            = "INTERNAL_ERROR"

	// CodeNetworkError and CodeInvalidResponse are produced by the Client only, with Status 0:
	// no usable HTTP answer arrived.
	CodeNetworkError    = "NETWORK_ERROR"
	CodeInvalidResponse = "INVALID_RESPONSE"
)

var errorStatus = map[string]int{
	CodeInvalidRequest:      http.StatusBadRequest,
	CodeUnknownChain:        http.StatusBadRequest,
	CodeTransactionNotFound: http.StatusNotFound,
	CodeNotConfirmed:        http.StatusConflict,
	CodeTransactionReverted: http.StatusUnprocessableEntity,
	CodeNoDepositEvents:     http.StatusNotFound,
	CodeChainUnavailable:    http.StatusServiceUnavailable,
	CodeRateLimited:         http.StatusTooManyRequests,
	CodeNotImplemented:      http.StatusNotImplemented,
	CodeNotFound:            http.StatusNotFound,
	CodeInternal:            http.StatusInternalServerError,
}

// Error is the oracle's one error type: the server renders it as the error body and the Client
// returns it, so both sides classify failures the same way. Status 0 means no usable HTTP
// answer (transport failure or an unreadable body).
type Error struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
	// RetryAfter is the server's Retry-After hint (429), zero when absent.
	RetryAfter time.Duration `json:"-"`
}

func newError(code, format string, args ...any) *Error {
	status, ok := errorStatus[code]
	if !ok {
		status = http.StatusInternalServerError
	}
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Error formats status, code and message for logs and wrapped errors.
func (e *Error) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("oracle: %s: %s", e.Code, e.Message)
	}
	return fmt.Sprintf("oracle: %d %s: %s", e.Status, e.Code, e.Message)
}

// Retryable says whether the same request may succeed later: not-yet-confirmed deposits, rate
// limiting, server and chain outages and transport failures are; other client errors are not,
// so a workflow stops retrying a request that can never succeed.
func (e *Error) Retryable() bool {
	switch {
	case e.Status == 0:
		return true
	case e.Status == http.StatusConflict:
		return e.Code == CodeNotConfirmed
	case e.Status == http.StatusTooManyRequests:
		return true
	case e.Status == http.StatusNotImplemented:
		return false // an endpoint this build lacks stays missing however often it is called
	case e.Status >= 500:
		return true
	default:
		return false
	}
}
