package activities

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/screening"
	"github.com/intentd/intentd/store"
)

// blocklist is a screening list of addresses, from a file of its own.
func blocklist(t *testing.T, addresses ...string) *screening.List {
	t.Helper()
	path := filepath.Join(t.TempDir(), "blocklist.txt")
	text := "# test list\n"
	for _, a := range addresses {
		text += a + "\n"
	}
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	l, err := screening.Open(path, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	return l
}

// Issue 33, point 6 ("a blocked recipient at fill time (the list changed since the quote) is
// not paid"): on the devnet, a fill to a listed recipient, or for a listed depositor, is refused
// with BLOCKED_WALLET naming the address, and nothing is signed or stored. A fill signed before
// its recipient was listed is still the same once-only fill: a retry broadcasts the stored
// transaction, since it may already be on its way.
func TestAFillForAListedAddressIsNeverSignedButOneSignedBeforeIsSentAgain(t *testing.T) {
	ctx := context.Background()
	a, _, pool := solverOnDevnet(t, 100*time.Millisecond)
	fills := fillsOf(t, pool, 3, common.HexToAddress(chains.NativeAddress), "1000")
	depositor := "0x000000000000000000000000000000000000dEaD"
	for i := range fills {
		fills[i].Depositor = "0x00000000000000000000000000000000000b0b0b"
	}
	fills[1].Depositor = depositor
	signed, err := runSubmitFill(a, fills[2])
	require.NoError(t, err)

	a.Screening = blocklist(t, fills[0].Recipient, depositor, fills[2].Recipient)
	for i, want := range [][]string{{fills[0].Recipient}, {depositor}} {
		_, err := runSubmitFill(a, fills[i])
		require.Equal(t, string(intent.FailReasonBlockedWallet), failReasonOf(err), "fill %d: %v", i, err)
		require.Equal(t, want, BlockedAddresses(err), "fill %d names the listed address", i)
		_, err = store.New(pool).SolverTx(ctx, fills[i].RequestID, intent.TxKindFill)
		require.ErrorIs(t, err, intent.ErrNotFound, "fill %d was stored", i)
	}

	again, err := runSubmitFill(a, fills[2])
	require.NoError(t, err, "the retry of a fill signed before its recipient was listed")
	require.Equal(t, signed.TxHash, again.TxHash)
}
