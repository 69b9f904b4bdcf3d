package oracleapi

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestErrorRetryable(t *testing.T) {
	cases := []struct {
		err  Error
		want bool
	}{
		{Error{Status: 0, Code: CodeNetworkError}, true},
		{Error{Status: 0, Code: CodeInvalidResponse}, true},
		{Error{Status: 0, Code: CodeClientMisconfigured}, false},
		{Error{Status: 409, Code: CodeNotConfirmed}, true},
		{Error{Status: 409, Code: "SOMETHING_ELSE"}, false},
		{Error{Status: 429, Code: CodeRateLimited}, true},
		{Error{Status: 500, Code: CodeInternal}, true},
		{Error{Status: 502}, true},
		{Error{Status: 503, Code: CodeChainUnavailable}, true},
		{Error{Status: 501, Code: CodeNotImplemented}, false},
		{Error{Status: 400, Code: CodeInvalidRequest}, false},
		{Error{Status: 400, Code: CodeUnknownChain}, false},
		{Error{Status: 404, Code: CodeTransactionNotFound}, false},
		{Error{Status: 404, Code: CodeNoDepositEvents}, false},
		{Error{Status: 422, Code: CodeTransactionReverted}, false},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, c.err.Retryable(), "%d %s", c.err.Status, c.err.Code)
	}
}
