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

// The order's bytes fields write a Solana origin's base58 keys as the hex of their 32 bytes, and
// an EVM chain's addresses as they are.
func TestOrderAddressWritesASolanaKeyAsTheHexOfItsBytes(t *testing.T) {
	sol, _ := solanaChains.Get(solana.ChainID)
	eth, _ := solanaChains.Get(31337)
	for _, c := range []struct {
		ch      *chains.Chain
		in, out string
	}{
		{sol, solana.NativeAddress, "0x0000000000000000000000000000000000000000000000000000000000000000"},
		{sol, solana.USDCAddress, "0xc6fa7af3bedbad3a3d65f36aabc97431b1bbe4c2d2f6e0e47ca60203452f5d61"},
		{eth, "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"},
	} {
		if got, err := orderAddress(c.ch, c.in); err != nil || got != c.out {
			t.Errorf("%s on chain %d: %s, %v, want %s", c.in, c.ch.ID, got, err, c.out)
		}
	}
	if _, err := orderAddress(sol, "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"); err == nil {
		t.Error("an EVM address on the Solana chain was written into the order")
	}
}
