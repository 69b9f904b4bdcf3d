package store_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// Issue 35: an issued deposit address is found by its id, its address in any case and its
// request; a payment seen twice keeps one row and what became of it; a payment is routed to
// one request once; a disabled address is no longer watched.
func TestDepositAddressesAndTheirTransfersAreKeptOnce(t *testing.T) {
	ctx := context.Background()
	st := store.New(testenv.Pool(t))
	at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	a := intent.DepositAddress{ID: "0x" + "d1" + repeat("0", 62), Address: "0xAbCdEf0000000000000000000000000000000001", ChainID: 31337,
		Type: intent.DepositAddressOpen, OrderID: "0x01", Depositor: "0xUSER", RequestID: "0xr1", Currency: "0x0000000000000000000000000000000000000000",
		Route: json.RawMessage(`{"destinationChainId":31338}`), CreatedAt: at}
	require.NoError(t, st.InsertDepositAddress(ctx, a))
	dup := a
	dup.ID = "0x" + "d2" + repeat("0", 62)
	require.Error(t, st.InsertDepositAddress(ctx, dup), "one address, one row")

	for _, find := range []func() (*intent.DepositAddress, error){
		func() (*intent.DepositAddress, error) { return st.DepositAddressByID(ctx, a.ID) },
		func() (*intent.DepositAddress, error) {
			return st.DepositAddressByAddress(ctx, "0xABCDEF0000000000000000000000000000000001")
		},
		func() (*intent.DepositAddress, error) { return st.DepositAddressByRequest(ctx, "0xr1") },
	} {
		got, err := find()
		require.NoError(t, err)
		require.Equal(t, a.ID, got.ID)
		require.Equal(t, "0xabcdef0000000000000000000000000000000001", got.Address)
		require.Equal(t, intent.DepositAddressOpen, got.Type)
		require.Empty(t, got.RefundTo, "open without refundTo: no automatic refund")
	}
	_, err := st.DepositAddressByAddress(ctx, "0x0000000000000000000000000000000000000009")
	require.ErrorIs(t, err, intent.ErrNotFound)

	tr := intent.DepositAddressTransfer{ChainID: 31337, TxHash: "0xT1", LogIndex: -1, AddressID: a.ID, BlockNumber: 5,
		Sender: "0xS", Currency: a.Currency, Amount: "1000", SeenAt: at}
	created, err := st.RecordDepositAddressTransfer(ctx, tr)
	require.NoError(t, err)
	require.True(t, created)
	created, err = st.RecordDepositAddressTransfer(ctx, tr)
	require.NoError(t, err)
	require.False(t, created, "a payment seen again keeps its row")

	got, err := st.RouteDepositAddressTransfer(ctx, 31337, "0xt1", -1, "0xr2")
	require.NoError(t, err)
	require.Equal(t, "0xr2", got)
	got, err = st.RouteDepositAddressTransfer(ctx, 31337, "0xT1", -1, "0xr3")
	require.NoError(t, err)
	require.Equal(t, "0xr2", got, "routed once")
	swept, err := st.RecordDepositAddressSweep(ctx, 31337, a.Address, a.Currency, "1000", "0xSWEEP", 5)
	require.NoError(t, err)
	require.EqualValues(t, 1, swept)
	byReq, err := st.DepositAddressByRequest(ctx, "0xr2")
	require.NoError(t, err)
	require.Equal(t, a.ID, byReq.ID, "a later request it funds finds its address")
	history, err := st.DepositAddressTransfers(ctx, a.ID)
	require.NoError(t, err)
	require.Len(t, history, 1)
	require.Equal(t, "0xsweep", history[0].SweepTx)

	watched, err := st.WatchedDepositAddresses(ctx, time.Time{})
	require.NoError(t, err)
	require.Len(t, watched, 1)
	d, err := st.DisableDepositAddress(ctx, a.ID, at.Add(time.Hour))
	require.NoError(t, err)
	require.NotNil(t, d.DisabledAt)
	watched, err = st.WatchedDepositAddresses(ctx, time.Time{})
	require.NoError(t, err)
	require.Empty(t, watched)
}

func repeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}
