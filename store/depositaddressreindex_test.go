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

// Issue 35, point 5: a reindex "reads the address's balance … and, for each non-zero one not
// already accounted for by a recorded payment, records a payment". What the recorded payments
// account for is, per currency of the chain, the sum of those no sweep has moved yet: a swept
// payment's money has left the address, another chain's is not in this chain's balance.
func TestTheUnsweptPaymentsAtAnAddressAccountForItsBalancePerCurrency(t *testing.T) {
	ctx := context.Background()
	st := store.New(testenv.Pool(t))
	at := time.Date(2026, 11, 27, 11, 0, 0, 0, time.UTC)
	a := intent.DepositAddress{ID: "0x" + "e1" + repeat("0", 62), Address: "0xAbCdEf00000000000000000000000000000000e1", ChainID: 31337,
		Type: intent.DepositAddressStrict, OrderID: "0x02", Depositor: "0xUSER", RequestID: "0xre1", Currency: "0x0000000000000000000000000000000000000000",
		RefundTo: "0xUSER", Route: json.RawMessage(`{}`), CreatedAt: at}
	require.NoError(t, st.InsertDepositAddress(ctx, a))
	got, err := st.UnsweptDepositAddressAmounts(ctx, a.ID, 31337)
	require.NoError(t, err)
	require.Empty(t, got, "nothing recorded")

	const eth, usdc = "0x0000000000000000000000000000000000000000", "0x3F88d0F5403139753a203e6F36BFaE0CeAE3bF42"
	for i, tr := range []intent.DepositAddressTransfer{
		{ChainID: 31337, TxHash: "0xE1", LogIndex: -1, Currency: eth, Amount: "100000000000000000000000", BlockNumber: 3}, // above int64
		{ChainID: 31337, TxHash: "0xE2", LogIndex: -2, Currency: eth, Amount: "5", BlockNumber: 4},
		{ChainID: 31337, TxHash: "0xE3", LogIndex: 2, Currency: usdc, Amount: "7", BlockNumber: 4},
		{ChainID: 31337, TxHash: "0xE4", LogIndex: -1, Currency: eth, Amount: "11", BlockNumber: 2},
		{ChainID: 31338, TxHash: "0xE5", LogIndex: -1, Currency: eth, Amount: "13", BlockNumber: 4},
	} {
		tr.AddressID, tr.Sender, tr.SeenAt = a.ID, "0xS", at.Add(time.Duration(i)*time.Second)
		_, err := st.RecordDepositAddressTransfer(ctx, tr)
		require.NoError(t, err)
	}
	// The payment of block 2 is routed and swept (its sweep mined in block 2).
	_, err = st.RouteDepositAddressTransfer(ctx, 31337, "0xE4", -1, "0xre1")
	require.NoError(t, err)
	n, err := st.RecordDepositAddressSweep(ctx, 31337, a.Address, eth, "11", "0xSWEEP", 2)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)

	got, err = st.UnsweptDepositAddressAmounts(ctx, a.ID, 31337)
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.Equal(t, "100000000000000000000005", got[eth].String())
	require.Equal(t, "7", got["0x3f88d0f5403139753a203e6f36bfae0ceae3bf42"].String(), "by the currency in lower case")
	got, err = st.UnsweptDepositAddressAmounts(ctx, a.ID, 31338)
	require.NoError(t, err)
	require.Equal(t, "13", got[eth].String(), "each chain its own")
}

// Issue 35, point 5: the reindex has "its own limit (429 when reindexed too recently)", here
// 60 s per address and chain. The cooldown lives in Postgres, so two API processes (two stores
// on one database) admit one reindex between them; another chain, or another address, is not
// held back; once the cooldown has passed the address is admitted again.
func TestAnAddressIsReindexedOncePerChainWithinTheCooldownAcrossProcesses(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Pool(t)
	one, two := store.New(pool), store.New(pool)
	at := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	var ids []string
	for i, addr := range []string{"0xAbCdEf00000000000000000000000000000000f1", "0xAbCdEf00000000000000000000000000000000f2"} {
		a := intent.DepositAddress{ID: "0x" + "f" + string(rune('1'+i)) + repeat("0", 62), Address: addr, ChainID: 31337,
			Type: intent.DepositAddressStrict, OrderID: "0x03", Depositor: "0xUSER", RequestID: "0xrf", Currency: "0x0000000000000000000000000000000000000000",
			RefundTo: "0xUSER", Route: json.RawMessage(`{}`), CreatedAt: at}
		require.NoError(t, one.InsertDepositAddress(ctx, a))
		ids = append(ids, a.ID)
	}
	const cooldown = time.Minute
	admit := func(st *store.Store, id string, chain uint64, now time.Time) bool {
		t.Helper()
		ok, err := st.AdmitDepositAddressReindex(ctx, id, chain, now, cooldown)
		require.NoError(t, err)
		return ok
	}
	require.True(t, admit(one, ids[0], 31337, at), "the first reindex")
	require.False(t, admit(two, ids[0], 31337, at.Add(time.Second)), "the same address at once, by another process")
	require.True(t, admit(two, ids[0], 31338, at), "another chain")
	require.True(t, admit(two, ids[1], 31337, at), "another address")
	require.False(t, admit(one, ids[0], 31337, at.Add(cooldown-time.Second)), "within the cooldown")
	require.True(t, admit(two, ids[0], 31337, at.Add(cooldown)), "once the cooldown has passed")
	require.False(t, admit(one, ids[0], 31337, at.Add(cooldown+time.Second)), "the cooldown starts again")
}
