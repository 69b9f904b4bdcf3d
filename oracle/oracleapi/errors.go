package oracleapi

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
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
	// CodeNoMatchingEvent: the transaction holds no event of the kind the endpoint attests (a
	// withdrawal, the fill of the order, the refund of the id) from the configured contract.
	CodeNoMatchingEvent = "NO_MATCHING_EVENT"
	// CodeExpectationMismatch: the fill or refund exists but pays another recipient or currency,
	// or less than the minimum; `force` with a valid key attests it anyway.
	CodeExpectationMismatch = "EXPECTATION_MISMATCH"
	// CodeUnauthorized: `force` without a valid x-api-key.
	CodeUnauthorized = "UNAUTHORIZED"
	// CodeAlreadyWithdrawn: withdrawal initiation of a deposit whose withdrawal id is spent.
	CodeAlreadyWithdrawn = "ALREADY_WITHDRAWN"
	// CodeOrderAlreadyFilled: withdrawal initiation of a deposit whose order has a fill on
	// one of the oracle's chains: its recipient was paid, so the deposit is not the
	// depositor's to take back.
	CodeOrderAlreadyFilled = "ORDER_ALREADY_FILLED"
	// CodeWithdrawalNotInitiated: the depository has not executed the withdrawal id (in a block
	// deep enough); it may later.
	CodeWithdrawalNotInitiated = "WITHDRAWAL_NOT_INITIATED"
	CodeChainUnavailable       = "CHAIN_UNAVAILABLE"
	CodeRateLimited            = "RATE_LIMITED"
	CodeNotImplemented         = "NOT_IMPLEMENTED"
	CodeNotFound               = "NOT_FOUND"
	CodeInternal               = "INTERNAL_ERROR"

	// CodeTooManyEvents: the facts asked for would take more than MaxMessagesPerAnswer
	// messages; the caller names the one it wants (a deposit's logIndex or orderId). The
	// transaction will not change, so asking again the same way is refused again.
	CodeTooManyEvents = "TOO_MANY_EVENTS"

	// CodeNetworkError, CodeInvalidResponse, CodeClientMisconfigured and CodeResponseTooLarge
	// are produced by the Client only, with Status 0: no usable HTTP answer arrived.
	// CodeClientMisconfigured means the request could not even be built (a malformed base URL),
	// so it is never taken for the oracle's INVALID_REQUEST, which is about a request the oracle
	// received. CodeResponseTooLarge is an answer larger than the Client reads (1 MiB): asked
	// again, the same facts give the same answer, so it is not retried.
	CodeNetworkError        = "NETWORK_ERROR"
	CodeInvalidResponse     = "INVALID_RESPONSE"
	CodeClientMisconfigured = "CLIENT_MISCONFIGURED"
	CodeResponseTooLarge    = "RESPONSE_TOO_LARGE"
)

// errorStatus is the one code → status table: Errorf takes the status from it, and the server
// answers with no other code.
var errorStatus = map[string]int{
	CodeInvalidRequest:         http.StatusBadRequest,
	CodeUnknownChain:           http.StatusBadRequest,
	CodeTransactionNotFound:    http.StatusNotFound,
	CodeNotConfirmed:           http.StatusConflict,
	CodeTransactionReverted:    http.StatusUnprocessableEntity,
	CodeNoDepositEvents:        http.StatusNotFound,
	CodeNoMatchingEvent:        http.StatusNotFound,
	CodeExpectationMismatch:    http.StatusUnprocessableEntity,
	CodeUnauthorized:           http.StatusUnauthorized,
	CodeAlreadyWithdrawn:       http.StatusConflict,
	CodeOrderAlreadyFilled:     http.StatusConflict,
	CodeWithdrawalNotInitiated: http.StatusNotFound,
	CodeTooManyEvents:          http.StatusUnprocessableEntity,
	CodeChainUnavailable:       http.StatusServiceUnavailable,
	CodeRateLimited:            http.StatusTooManyRequests,
	CodeNotImplemented:         http.StatusNotImplemented,
	CodeNotFound:               http.StatusNotFound,
	CodeInternal:               http.StatusInternalServerError,
}

// ServerCodes lists the codes the oracle answers with, sorted, so tests can check that every
// one is documented and that callers classify every one.
func ServerCodes() []string { return slices.Sorted(maps.Keys(errorStatus)) }

// ClientCodes lists the codes only the Client produces (with Status 0).
func ClientCodes() []string {
	return []string{CodeNetworkError, CodeInvalidResponse, CodeClientMisconfigured, CodeResponseTooLarge}
}

// Error is the oracle's one error type: the server renders it as the error body and the Client
// returns it, so both sides classify failures the same way. Status 0 means no usable HTTP
// answer (a transport failure, an unreadable or untrustworthy body, or a request the Client
// could not build).
type Error struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
	// RetryAfter is the server's Retry-After hint (429), zero when absent.
	RetryAfter time.Duration `json:"-"`
}

// Errorf returns the error of code with its status from the one code → status table (500 for a
// code missing from it), so the server never pairs a code with another status.
func Errorf(code, format string, args ...any) *Error {
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
// limiting, server and chain outages, transport failures and unreadable answers are; other
// client errors, a request the Client could not build and an answer too large to read are
// not. It is the protocol's answer; the engine's policy (which errors end a request, which
// wait for an operator) is decided where the errors enter the engine, in activities.
func (e *Error) Retryable() bool {
	switch {
	case e.Code == CodeClientMisconfigured, e.Code == CodeResponseTooLarge:
		return false
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

// AsError returns the *Error in err's chain, so callers holding a wrapped error can still
// classify it.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}
