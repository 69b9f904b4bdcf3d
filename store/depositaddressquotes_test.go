package store_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/auth"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// Issue 35, point 2: a deposit-address quote stores "the deposit_addresses row … with the quote;
// the request row's `deposit_address` column set (records filter `?depositAddress=` uses it)":
// the request, its order and the address land in one statement, so an address that cannot be
// stored (issued already) leaves no request behind. The key that made the quote is the address's
// creator ("" without one); an operator's disabling is audited and needs an actor.
func TestDepositAddressQuoteStoresTheRequestAndItsAddressTogether(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Pool(t)
	st := store.New(pool)
	by := store.Actor{Name: "test", Via: store.ViaCLI}
	in, err := st.CreateIntegrator(ctx, auth.Integrator{Name: "acme"}, by)
	require.NoError(t, err)
	_, key, err := st.CreateAPIKey(ctx, store.NewKey{IntegratorID: in.ID, Label: "exchange"}, by)
	require.NoError(t, err)

	at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	quoteOf := func(requestID, addressID, address, apiKeyID string) (intent.NewQuote, intent.DepositAddress) {
		a := intent.DepositAddress{ID: addressID, Address: address, ChainID: 31337, Type: intent.DepositAddressStrict, OrderID: "0xo" + requestID,
			Depositor: "0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266", RequestID: requestID, Currency: "0x0000000000000000000000000000000000000000",
			RefundTo: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", Route: json.RawMessage(`{"useDepositAddress":true}`), CreatedAt: at}
		q := intent.NewQuote{Record: intent.Record{ID: requestID, Status: intent.StatusWaiting, User: "0xu", Recipient: "0xr"},
			OrderID: a.OrderID, APIKeyID: apiKeyID, ExpiresAt: at.Add(time.Minute), Origin: 31337, Dest: 31338, VolumeUSD: decimal.NewFromInt(1)}
		return q, a
	}
	rows := func() (requests, quotes, addresses int) {
		require.NoError(t, pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM requests), (SELECT count(*) FROM quotes),
			(SELECT count(*) FROM deposit_addresses)`).Scan(&requests, &quotes, &addresses))
		return
	}

	const address = "0x5D82FbECe20F7A67540beFe0fB9DB5881E65E95f"
	q, a := quoteOf("0xr1", "0x"+repeat("a1", 32), address, key.ID)
	require.NoError(t, st.InsertDepositAddressQuote(ctx, q, a))
	var column string
	require.NoError(t, pool.QueryRow(ctx, `SELECT deposit_address FROM requests WHERE id = '0xr1'`).Scan(&column))
	require.Equal(t, address, column, "the records' depositAddress filter reads it (in lower case), as user and recipient are kept")
	got, err := st.DepositAddressByID(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, "0xr1", got.RequestID)
	require.Equal(t, "0xo0xr1", got.OrderID)
	require.Equal(t, "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", got.Depositor)
	require.Equal(t, intent.DepositAddressStrict, got.Type)
	require.JSONEq(t, `{"useDepositAddress":true}`, string(got.Route))
	stored, err := st.QuoteByRequestID(ctx, "0xr1")
	require.NoError(t, err)
	require.Equal(t, key.ID, stored.APIKeyID)

	// The same address again under another request: refused, and the request is not stored.
	q2, a2 := quoteOf("0xr2", "0x"+repeat("a2", 32), address, "")
	require.Error(t, st.InsertDepositAddressQuote(ctx, q2, a2))
	requests, quotes, addresses := rows()
	require.Equal(t, [3]int{1, 1, 1}, [3]int{requests, quotes, addresses}, "nothing of the refused quote")

	q3, a3 := quoteOf("0xr3", "0x"+repeat("a3", 32), "0x0000000000000000000000000000000000000003", "")
	require.NoError(t, st.InsertDepositAddressQuote(ctx, q3, a3))
	creator, err := st.DepositAddressCreator(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, key.ID, creator)
	creator, err = st.DepositAddressCreator(ctx, a3.ID)
	require.NoError(t, err)
	require.Empty(t, creator, "quoted without a key")
	_, err = st.DepositAddressCreator(ctx, "0x"+repeat("ff", 32))
	require.ErrorIs(t, err, store.ErrNotFound)

	_, err = st.DisableDepositAddressAsAdmin(ctx, a3.ID, at, store.Actor{})
	require.ErrorIs(t, err, store.ErrNoActor)
	_, err = st.DisableDepositAddressAsAdmin(ctx, "0x"+repeat("ff", 32), at, by)
	require.ErrorIs(t, err, store.ErrNotFound)
	d, err := st.DisableDepositAddressAsAdmin(ctx, a3.ID, at, store.Actor{Name: "alice", Via: store.ViaHTTP, Reason: "asked"})
	require.NoError(t, err)
	require.NotNil(t, d.DisabledAt)
	var before, after map[string]any
	require.NoError(t, pool.QueryRow(ctx, `SELECT before, after FROM admin_audit WHERE action = 'deposit_address.disable'
		AND target_type = 'deposit_address' AND target_id = 'a3a3a3a3-a3a3-a3a3-a3a3-a3a3a3a3a3a3'`).Scan(&before, &after))
	require.Equal(t, a3.ID, before["id"])
	require.Nil(t, before["disabledAt"])
	require.NotNil(t, after["disabledAt"])
}

// Issue 35, point 5: "v2-shaped surfaces, webhooks and the websocket carry
// `depositAddressType`": a deposit-address request's status events carry its depositAddress
// as v2 has it (depositTxHash null until the watcher writes it); other requests' carry null.
func TestStatusEventsOfADepositAddressRequestCarryItsAddress(t *testing.T) {
	ctx := context.Background()
	st := store.New(testenv.Pool(t))
	depositor := "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
	rec := intent.Record{ID: testRequestID, Status: intent.StatusWaiting, User: depositor, Recipient: depositor,
		Features: []string{intent.FeatureDepositAddress}, DepositAddress: &intent.RecordDepositAddress{
			Address: "0x5D82FbECe20F7A67540beFe0fB9DB5881E65E95f", Type: intent.DepositAddressOpen, Depositor: &depositor}}
	q := intent.NewQuote{Record: rec, OrderID: "0xorder", ExpiresAt: time.Now().Add(time.Minute), Origin: 31337, Dest: 31338,
		VolumeUSD: decimal.NewFromInt(1)}
	require.NoError(t, st.InsertDepositAddressQuote(ctx, q, intent.DepositAddress{ID: "0x" + repeat("b1", 32), Address: rec.DepositAddress.Address,
		ChainID: 31337, Type: intent.DepositAddressOpen, OrderID: "0xorder", Depositor: depositor, RequestID: testRequestID,
		Currency: "0x0000000000000000000000000000000000000000", Route: json.RawMessage(`{}`), CreatedAt: time.Now()}))
	_, err := st.ApplyTransition(ctx, intent.Transition{RequestID: testRequestID, Version: 1, Status: intent.StatusPending, At: time.Now()})
	require.NoError(t, err)
	events, err := st.OutboxEventsSince(ctx, time.Time{}, 10)
	require.NoError(t, err)
	require.Len(t, events, 1)
	raw, err := json.Marshal(events[0].Event.DepositAddress)
	require.NoError(t, err)
	require.JSONEq(t, `{"address":"0x5D82FbECe20F7A67540beFe0fB9DB5881E65E95f","depositAddressType":"open","depositor":"`+depositor+
		`","depositTxHash":null}`, string(raw))
}
