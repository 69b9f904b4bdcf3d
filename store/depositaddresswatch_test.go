package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// Issue 35, point 6: "an address's funds are never swept into another order", and a strict
// address funds one request. An address is the same on every chain of its family, so the
// scanners of two chains may route payments at one address at the same moment: of eight
// payments routed at once, exactly one funds the address's quote-time request, and asking again
// for each gives the same answer. A sweep the scanner sees is recorded on the routed payment of
// its chain and currency, once.
func TestTheFirstPaymentAtAnAddressFundsItsRequestOnce(t *testing.T) {
	ctx := context.Background()
	st := store.New(testenv.Pool(t))
	at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	a := intent.DepositAddress{ID: "0xda", Address: "0x00000000000000000000000000000000000000dA", ChainID: 31337,
		Type: intent.DepositAddressStrict, OrderID: "0x01", Depositor: "0xuser", RequestID: "0xr1", Currency: "0x0000000000000000000000000000000000000000",
		Route: json.RawMessage(`{}`), CreatedAt: at}
	require.NoError(t, st.InsertDepositAddress(ctx, a))
	const n = 8
	for i := range n {
		_, err := st.RecordDepositAddressTransfer(ctx, intent.DepositAddressTransfer{ChainID: 31337 + uint64(i%2), TxHash: fmt.Sprintf("0xT%d", i),
			LogIndex: -1, AddressID: a.ID, BlockNumber: 5, Sender: "0xs", Currency: a.Currency, Amount: "1", SeenAt: at})
		require.NoError(t, err)
	}
	routed := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r, err := st.RouteFirstDepositAddressTransfer(ctx, 31337+uint64(i%2), fmt.Sprintf("0xT%d", i), -1)
			require.NoError(t, err)
			routed[i] = r
		})
	}
	wg.Wait()
	first := -1
	for i, r := range routed {
		if r == "" {
			continue
		}
		require.Equal(t, "0xr1", r)
		require.Equal(t, -1, first, "two payments fund the request: %v", routed)
		first = i
	}
	require.NotEqual(t, -1, first, "no payment funds the request")
	for i := range n {
		r, err := st.RouteFirstDepositAddressTransfer(ctx, 31337+uint64(i%2), fmt.Sprintf("0xT%d", i), -1)
		require.NoError(t, err)
		require.Equal(t, routed[i], r, "payment %d asked again", i)
	}
	_, err := st.RouteFirstDepositAddressTransfer(ctx, 31337, "0xnone", -1)
	require.ErrorIs(t, err, intent.ErrNotFound)

	chain := 31337 + uint64(first%2)
	marked, err := st.RecordDepositAddressSweep(ctx, chain, "0x00000000000000000000000000000000000000DA", a.Currency, "1", "0xSWEEP", 6)
	require.NoError(t, err)
	require.EqualValues(t, 1, marked)
	marked, err = st.RecordDepositAddressSweep(ctx, chain, a.Address, a.Currency, "1", "0xsweep", 6)
	require.NoError(t, err)
	require.Zero(t, marked, "the sweep seen again")
	history, err := st.DepositAddressTransfers(ctx, a.ID)
	require.NoError(t, err)
	for _, h := range history {
		if h.TxHash == fmt.Sprintf("0xt%d", first) {
			require.Equal(t, "0xsweep", h.SweepTx)
		} else {
			require.Empty(t, h.SweepTx, "payment %s", h.TxHash)
		}
	}
}
