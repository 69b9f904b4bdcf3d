package api

import (
	"fmt"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/quote"
)

// Error codes of the endpoints other than the quotes. Where a quote code means the same thing
// it is that code, so a client sees one vocabulary; docs/api.md lists every code.
const (
	CodeInvalidInput        = quote.CodeInvalidInput
	CodeUnsupportedChain    = quote.CodeUnsupportedChain
	CodeUnsupportedCurrency = quote.CodeUnsupportedCurr
	CodePriceFetchFailed    = quote.CodePriceFetchFailed
	CodeServiceUnavailable  = quote.CodeServiceUnavailable
	CodeUnknownError        = quote.CodeUnknownError
	// CodeNotFound is a path the API does not serve (also an endpoint that is switched off).
	CodeNotFound = "NOT_FOUND"
	// CodeRequestNotFound is a requestId the API has no request (or no workflow) for.
	CodeRequestNotFound = "REQUEST_NOT_FOUND"
	// CodeUnauthorized is a missing or wrong credential on an endpoint that requires one.
	CodeUnauthorized = "UNAUTHORIZED"
	// CodeForbidden is a credential that is valid but does not reach what was asked for (usage
	// metrics of another integrator's key).
	CodeForbidden = "FORBIDDEN"
	// CodeNotRefundable is an admin refund the request's workflow refuses.
	CodeNotRefundable = "NOT_REFUNDABLE"
	// CodeRefundFailed is an admin refund the workflow accepted but the chain would not take.
	CodeRefundFailed = "REFUND_FAILED"
	// CodeTimeout is an operation that did not complete in time; it may still complete.
	CodeTimeout = "TIMEOUT"
	// CodeRateLimited is a caller over a limit: a rate limit (limits.go), or failed admin
	// authentications; the answer carries Retry-After.
	CodeRateLimited = "RATE_LIMITED"
	// CodeGone is an endpoint past its sunset (GET /requests/v2 after 24 November 2026).
	CodeGone = "GONE"
	// CodeRemoved is an endpoint the API removed; the message names its replacement.
	CodeRemoved = "ENDPOINT_REMOVED"
	// CodeInvalidSignature is a signature that is malformed or not the signer's over the message
	// the request describes (POST /authorize).
	CodeInvalidSignature = "INVALID_SIGNATURE"
	// CodeNonceMappingConflict is a POST /authorize that contradicts a binding stored: the order
	// bound to another nonce, or the depositor's nonce to another order.
	CodeNonceMappingConflict = "NONCE_MAPPING_CONFLICT"
)

// statuses is the one table from an error code to the HTTP status it is answered with. The
// quote engine and the handlers name failures by code only, so a status is decided here and
// nowhere else; docs/api.md ("Errors") lists the same table, and a test keeps the two equal.
var statuses = map[string]int{
	quote.CodeInvalidInput:     http.StatusBadRequest,
	quote.CodeInvalidAddress:   http.StatusBadRequest,
	quote.CodeInvalidRecipient: http.StatusBadRequest,
	quote.CodeUnsupportedChain: http.StatusBadRequest,
	quote.CodeUnsupportedCurr:  http.StatusBadRequest,
	quote.CodeAmountTooLow:     http.StatusBadRequest,
	quote.CodeAmountTooHigh:    http.StatusBadRequest,
	// The spec leaves DESTINATION_TX_FAILED's status open: 400, because the request as posed
	// cannot be filled.
	quote.CodeDestinationTxFailed: http.StatusBadRequest,
	quote.CodeUnauthorizedQuote:   http.StatusUnauthorized,
	quote.CodeServiceUnavailable:  http.StatusServiceUnavailable,
	quote.CodePriceFetchFailed:    http.StatusServiceUnavailable,
	quote.CodeUnknownError:        http.StatusInternalServerError,
	CodeUnauthorized:              http.StatusUnauthorized,
	CodeForbidden:                 http.StatusForbidden,
	CodeNotFound:                  http.StatusNotFound,
	CodeRequestNotFound:           http.StatusNotFound,
	CodeNotRefundable:             http.StatusConflict,
	CodeRefundFailed:              http.StatusBadGateway,
	CodeTimeout:                   http.StatusGatewayTimeout,
	CodeIntegratorNotFound:        http.StatusNotFound,
	CodeAPIKeyNotFound:            http.StatusNotFound,
	CodeSponsorBalanceNegative:    http.StatusConflict,
	CodeRateLimited:               http.StatusTooManyRequests,
	CodeGone:                      http.StatusGone,
	CodeRemoved:                   http.StatusNotFound,
	CodeWebhookNotFound:           http.StatusNotFound,
	CodeWebhooksUnavailable:       http.StatusServiceUnavailable,
	CodeDepositAddressNotFound:    http.StatusNotFound,
	CodeInvalidSignature:          http.StatusBadRequest,
	CodeNonceMappingConflict:      http.StatusConflict,
	CodeDashboardUserNotFound:     http.StatusNotFound,
	CodeDashboardUserExists:       http.StatusConflict,
	CodeLastOwner:                 http.StatusConflict,
	CodeViewNotFound:              http.StatusNotFound,
	CodeViewBuiltin:               http.StatusConflict,

	// SPONSOR_BALANCE_TOO_LOW is the spec's failReason; as a quote answer it is 400, like the
	// other requests that cannot be served as posed.
	quote.CodeSponsorBalanceTooLow: http.StatusBadRequest,
	// SANCTIONED_WALLET_ADDRESS: an address on the screening blocklist; the public service's
	// code (the spec names none), 400 like the other addresses a quote cannot be made for.
	quote.CodeSanctionedWalletAddress: http.StatusBadRequest,
	// SOLANA_TX_TOO_LARGE: the spec's row, a Solana-origin quote whose compiled deposit
	// transaction exceeds 1232 bytes.
	quote.CodeSolanaTxTooLarge: http.StatusBadRequest,
	// INSUFFICIENT_FUNDS_FOR_RENT is the spec's failReason; as a quote answer (the output cannot
	// cover the rent of the recipient's new account on a Solana chain) it is 400.
	quote.CodeInsufficientFundsForRent: http.StatusBadRequest,
}

// Error is every failed answer of the API, rendered as {message, errorCode} with the status the
// table gives its code. The cause is what went wrong inside, for the log: it never reaches a
// response, so no internal address or driver message leaks to a client.
type Error struct {
	Code    string `json:"errorCode"`
	Message string `json:"message"`
	cause   error
}

// Status is the HTTP status of the error's code; a code missing from the table is a bug, and
// answers 500 rather than a guess.
func (e *Error) Status() int {
	if s, ok := statuses[e.Code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// Cause is the internal error behind the failure, for logging.
func (e *Error) Cause() error { return e.cause }

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// fromQuote is the API's answer to a quote failure: the engine's code and message, its cause.
func fromQuote(qerr *quote.Error) *Error {
	return &Error{Code: qerr.Code, Message: qerr.Message, cause: qerr.Cause()}
}

// abort answers c with e and stops the handler chain.
func abort(c *gin.Context, e *Error) {
	c.Set(ctxErrorCode, e.Code)
	c.AbortWithStatusJSON(e.Status(), e)
}

// ctxErrorCode holds the errorCode of a failed request, for the request log and usage counts.
const ctxErrorCode = "errorCode"

// errorCodeOf is the errorCode the request failed with, "" when it did not.
func errorCodeOf(c *gin.Context) string { return c.GetString(ctxErrorCode) }

// invalidInput is a 400 INVALID_INPUT with message: a malformed request.
func invalidInput(message string) *Error { return &Error{Code: CodeInvalidInput, Message: message} }

// errRequestNotFound answers a requestId with no request behind it, malformed or unknown alike.
var errRequestNotFound = &Error{Code: CodeRequestNotFound, Message: "request not found"}

// notFound is the answer to a path the API does not serve, and to one it serves only when
// configured: the two are indistinguishable on purpose.
func notFound(c *gin.Context) {
	abort(c, &Error{Code: CodeNotFound, Message: "not found"})
}
