package quote

import "fmt"

// Error codes of the quote endpoints. The spec lists the first group; the spec leaves the
// complete list open, so validation failures use INVALID_INPUT, unknown chains
// UNSUPPORTED_CHAIN and amounts below the fees AMOUNT_TOO_LOW (see docs/api.md).
const (
	CodeAmountTooHigh      = "AMOUNT_TOO_HIGH"
	CodeInvalidAddress     = "INVALID_ADDRESS"
	CodeInvalidRecipient   = "INVALID_RECIPIENT"
	CodeUnsupportedCurr    = "UNSUPPORTED_CURRENCY"
	CodeUnauthorizedQuote  = "UNAUTHORIZED_QUOTE"
	CodeServiceUnavailable = "SERVICE_UNAVAILABLE"
	CodePriceFetchFailed   = "PRICE_FETCH_FAILED"
	CodeUnknownError       = "UNKNOWN_ERROR"
	CodeInvalidInput       = "INVALID_INPUT"
	CodeUnsupportedChain   = "UNSUPPORTED_CHAIN"
	CodeAmountTooLow       = "AMOUNT_TOO_LOW"
	// CodeDestinationTxFailed: the simulated destination fill reverts. The spec leaves its HTTP
	// status open; it is 400 because the request as posed cannot be filled.
	CodeDestinationTxFailed = "DESTINATION_TX_FAILED"
)

// Error is a quote failure in the spec's shape {message, errorCode}, with the HTTP status the
// API answers with.
type Error struct {
	Status  int    `json:"-"`
	Code    string `json:"errorCode"`
	Message string `json:"message"`
	cause   error  // for the log only; never in a response
}

// Cause is the internal error behind the failure, for logging.
func (e *Error) Cause() error { return e.cause }

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

func invalid(code, format string, args ...any) *Error {
	return &Error{Status: 400, Code: code, Message: fmt.Sprintf(format, args...)}
}

func unavailable(cause error, format string, args ...any) *Error {
	return &Error{Status: 503, Code: CodeServiceUnavailable, Message: fmt.Sprintf(format, args...), cause: cause}
}

func unknown(cause error, format string, args ...any) *Error {
	return &Error{Status: 500, Code: CodeUnknownError, Message: fmt.Sprintf(format, args...), cause: cause}
}
