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

// depositAddressQuote is a stored quote of request id funded by address a for amount.
func depositAddressQuote(id, orderID, amount string, a intent.DepositAddress, at time.Time) intent.NewQuote {
	eth := intent.Currency{ChainID: 31337, Address: a.Currency, Symbol: "ETH", Decimals: 18}
	return intent.NewQuote{OrderID: orderID, Origin: 31337, Dest: 31338, ExpiresAt: at.Add(10 * time.Minute),
		Record: intent.Record{ID: id, Status: intent.StatusWaiting, User: a.Depositor, Recipient: a.Depositor, RequestType: "intent",
			Features: []string{intent.FeatureDepositAddress}, CreatedAt: at.Format(time.RFC3339Nano), UpdatedAt: at.Format(time.RFC3339Nano),
			DepositAddress: &intent.RecordDepositAddress{Address: a.Address, Type: a.Type}},
		Execution: intent.Execution{RequestID: id, OrderID: orderID, CurrencyIn: eth, AmountIn: amount,
			Funding:        intent.Funding{Family: "evm", Strategy: intent.FundingDepositAddress},
			DepositAddress: &intent.ExecutionDepositAddress{ID: a.ID, Address: a.Address, Type: a.Type, OrderID: a.OrderID, Depositor: a.Depositor}}}
}

// Issue 35, point 4: "a regenerated quote runs under a new requestId; the original names it in
// `supersededByRequestId` and may stay `waiting`; `/requests/v3?depositAddress=` and
// `includeChildRequests` return every related request". The first payment at an open address
// that is not the quoted amount is routed to its requote, stored with it, and the quote-time
// request names the requote; a payment routed before keeps its request (the second requote of it
// is not stored); a later payment's requote supersedes nothing. Every requote is a child of the
// quote-time request and carries the address.
func TestARequotedFirstPaymentSupersedesTheQuoteTimeRequestALaterOneDoesNot(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Pool(t)
	st := store.New(pool)
	at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	a := intent.DepositAddress{ID: "0xda-open", Address: "0x00000000000000000000000000000000000000dB", ChainID: 31337,
		Type: intent.DepositAddressOpen, OrderID: "0xo0", Depositor: "0x00000000000000000000000000000000000000aa", RequestID: "0xq0",
		Currency: "0x0000000000000000000000000000000000000000", Route: json.RawMessage(`{}`), CreatedAt: at}
	require.NoError(t, st.InsertDepositAddressQuote(ctx, depositAddressQuote("0xq0", "0xo0", "100", a, at), a))
	for i, amount := range []string{"150", "80"} {
		_, err := st.RecordDepositAddressTransfer(ctx, intent.DepositAddressTransfer{ChainID: 31337, TxHash: []string{"0xp1", "0xp2"}[i],
			LogIndex: -1, AddressID: a.ID, BlockNumber: 5 + uint64(i), Sender: "0xs", Currency: a.Currency, Amount: amount, SeenAt: at})
		require.NoError(t, err)
	}

	o, err := st.OpenDepositAddressTransfer(ctx, 31337, "0xP1", -1)
	require.NoError(t, err)
	require.Equal(t, store.OpenTransfer{First: true, QuotedAmount: "100", QuotedCurrency: a.Currency}, o)

	routed, superseded, err := st.RouteRequotedDepositAddressTransfer(ctx, 31337, "0xp1", -1, depositAddressQuote("0xq1", "0xo1", "150", a, at))
	require.NoError(t, err)
	require.Equal(t, []string{"0xq1", "0xq0"}, []string{routed, superseded})
	// Routed again (a rescan, another chain's scanner): the payment keeps its request.
	routed, superseded, err = st.RouteRequotedDepositAddressTransfer(ctx, 31337, "0xp1", -1, depositAddressQuote("0xq1b", "0xo1b", "150", a, at))
	require.NoError(t, err)
	require.Equal(t, []string{"0xq1", ""}, []string{routed, superseded})
	_, err = st.QuoteByRequestID(ctx, "0xq1b")
	require.ErrorIs(t, err, intent.ErrNotFound)
	// The first payment requoted, the quote-time request's is taken: another payment's
	// RouteFirst answers none, its requote supersedes nothing.
	first, err := st.RouteFirstDepositAddressTransfer(ctx, 31337, "0xp2", -1)
	require.NoError(t, err)
	require.Empty(t, first)
	o, err = st.OpenDepositAddressTransfer(ctx, 31337, "0xp2", -1)
	require.NoError(t, err)
	require.False(t, o.First)
	routed, superseded, err = st.RouteRequotedDepositAddressTransfer(ctx, 31337, "0xp2", -1, depositAddressQuote("0xq2", "0xo2", "80", a, at))
	require.NoError(t, err)
	require.Equal(t, []string{"0xq2", ""}, []string{routed, superseded})

	rec, err := st.Record(ctx, "0xq0")
	require.NoError(t, err)
	require.Equal(t, intent.StatusWaiting, rec.Status)
	require.NotNil(t, rec.SupersededByRequestID)
	require.Equal(t, "0xq1", *rec.SupersededByRequestID)
	for _, id := range []string{"0xq1", "0xq2"} {
		rec, err := st.Record(ctx, id)
		require.NoError(t, err)
		require.Nil(t, rec.SupersededByRequestID)
		var parent, address string
		require.NoError(t, pool.QueryRow(ctx, `SELECT parent_request_id, deposit_address FROM requests WHERE id = $1`, id).Scan(&parent, &address))
		require.Equal(t, []string{"0xq0", a.Address}, []string{parent, address})
		q, err := st.QuoteByRequestID(ctx, id)
		require.NoError(t, err)
		require.Equal(t, a.OrderID, q.Execution.DepositAddress.OrderID, "the requote sweeps under the address's order")
	}
	history, err := st.DepositAddressTransfers(ctx, a.ID)
	require.NoError(t, err)
	require.Len(t, history, 2)
	require.Equal(t, []string{"0xq1", "0xq2"}, []string{history[0].RequestID, history[1].RequestID})
}
