package quote

import "fmt"

// Error codes of the quote endpoints. The spec lists the first group; the spec leaves the
// complete list open, so validation failures use INVALID_INPUT, unknown chains
// UNSUPPORTED_CHAIN and amounts below the fees AMOUNT_TOO_LOW. The engine names the failure
// only: the API maps each code to its HTTP status in one table (api/errors.go, docs/api.md).
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
	// CodeDestinationTxFailed: the simulated destination fill reverts, so the request as posed
	// cannot be filled.
	CodeDestinationTxFailed = "DESTINATION_TX_FAILED"
	// CodeSponsorBalanceTooLow: the request sponsors fees (subsidizeFees) but the key's
	// integrator has no sponsorship wallet, or its balance does not cover the sponsored amount;
	// the spec's failReason of the same name is the fill-time answer.
	CodeSponsorBalanceTooLow = "SPONSOR_BALANCE_TOO_LOW"
	// CodeSanctionedWalletAddress: the user, recipient or refundTo is on the screening blocklist
	// (SCREENING_BLOCKLIST_FILE). The spec's table names no code for it; this is the public
	// service's.
	CodeSanctionedWalletAddress = "SANCTIONED_WALLET_ADDRESS"
	// CodeSolanaTxTooLarge: the deposit transaction a Solana-origin quote would hand out,
	// compiled and measured, exceeds the chain's 1232-byte wire limit (chains.TxTooLargeError);
	// the message gives the measured size and the bytes over. The spec's code, 400.
	CodeSolanaTxTooLarge = "SOLANA_TX_TOO_LARGE"
)

// Error is a quote failure: a code from the list above and a message fit for the client. It
// carries no transport detail, so the engine serves any front end; the API renders it as the
// spec's {message, errorCode} with the status its table gives the code.
type Error struct {
	Code    string
	Message string
	cause   error // for the log only; never in a response
}

// ErrorCode is the failure's code, for callers that read it without importing this package
// (the deposit-address watch: deposits.unquotedReason).
func (e *Error) ErrorCode() string { return e.Code }

// Cause is the internal error behind the failure, for logging.
func (e *Error) Cause() error { return e.cause }

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// failure is an error with code whose message is built from format.
func failure(code string, cause error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), cause: cause}
}

func invalid(code, format string, args ...any) *Error {
	return failure(code, nil, format, args...)
}

func unavailable(cause error, format string, args ...any) *Error {
	return failure(CodeServiceUnavailable, cause, format, args...)
}

func unknown(cause error, format string, args ...any) *Error {
	return failure(CodeUnknownError, cause, format, args...)
}
