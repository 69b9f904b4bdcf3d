package quote

import (
	"errors"
	"fmt"
	"testing"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/solana"
)

// A deposit over the chain's wire limit, however the family wraps it, is SOLANA_TX_TOO_LARGE
// with the spec's message (the measured size, the bytes over); any other failure to give the
// funding steps is the chain being unavailable. (api/solana_origin_test.go runs it through the
// handlers over the local chain.)
func TestFundingErrorMapsATransactionOverTheLimitToSolanaTxTooLarge(t *testing.T) {
	sol, err := solanaChains.Get(solana.ChainID)
	if err != nil {
		t.Fatal(err)
	}
	tooLarge := fmt.Errorf("deposit: %w", &chains.TxTooLargeError{Size: 1416, Limit: 1232})
	qerr := fundingError(sol, tooLarge)
	want := "Generated Solana transaction is 1416 bytes, 184 over Solana's 1232 byte limit, so it cannot be signed or broadcast."
	if qerr.Code != CodeSolanaTxTooLarge || qerr.Message != want || !errors.Is(qerr.Cause(), tooLarge) {
		t.Errorf("%v, want %s: %q", qerr, CodeSolanaTxTooLarge, want)
	}
	down := &chains.Error{Kind: chains.ErrUnavailable, ChainID: solana.ChainID, Op: "get latest blockhash", Err: errors.New("refused")}
	if qerr := fundingError(sol, down); qerr.Code != CodeServiceUnavailable {
		t.Errorf("a chain that could not be read: %v, want %s", qerr, CodeServiceUnavailable)
	}
}
