package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// Issue 36, point 4: a Solana payment's attempt is kept before it is broadcast, once per
// request, kind and attempt. A second signing of the same attempt (a retry, another worker)
// gets the kept one back and is dropped; a replacement is attempt n+1 of a kept attempt n; the
// attempts read back in order with their blockhash and last valid block height.
func TestSolanaPaymentsAreKeptOncePerAttempt(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Pool(t)
	st := store.New(pool)
	id := fmt.Sprintf("0x%064x", 7)
	if _, err := pool.Exec(ctx, `INSERT INTO requests (id, status, "user", recipient, origin_chain_id,
		destination_chain_id, order_id, record) VALUES ($1, 'submitted', '0xu', 'r', 31337, 792703809, $1, '{}')`, id); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SolanaPayment(ctx, id, intent.TxKindFill); !errors.Is(err, intent.ErrNotFound) {
		t.Fatalf("nothing kept yet: %v, want intent.ErrNotFound", err)
	}
	if got, err := st.SolanaPaymentAttempts(ctx, id, intent.TxKindFill); err != nil || len(got) != 0 {
		t.Fatalf("no attempts yet: %v, %v", got, err)
	}
	pay := func(attempt int, sig string) store.SolanaPayment {
		return store.SolanaPayment{RequestID: id, Kind: intent.TxKindFill, Attempt: attempt, ChainID: 792703809,
			Signature: sig, Raw: []byte(sig), Blockhash: "bh-" + sig, LastValidBlockHeight: uint64(150 + attempt)}
	}
	first, kept, err := st.KeepSolanaPayment(ctx, pay(0, "sigA"))
	if err != nil || !kept || first.Signature != "sigA" || first.CreatedAt.IsZero() {
		t.Fatalf("the first signing: %+v, kept %v, %v", first, kept, err)
	}
	again, kept, err := st.KeepSolanaPayment(ctx, pay(0, "sigB"))
	if err != nil || kept || again.Signature != "sigA" || string(again.Raw) != "sigA" {
		t.Fatalf("a second signing of attempt 0: %+v, kept %v, %v; want the kept sigA back", again, kept, err)
	}
	if _, _, err := st.KeepSolanaPayment(ctx, pay(2, "sigC")); !errors.Is(err, store.ErrSolanaAttemptOutOfOrder) {
		t.Fatalf("attempt 2 without attempt 1: %v, want ErrSolanaAttemptOutOfOrder", err)
	}
	second, kept, err := st.KeepSolanaPayment(ctx, pay(1, "sigD"))
	if err != nil || !kept || second.Attempt != 1 {
		t.Fatalf("the replacement: %+v, kept %v, %v", second, kept, err)
	}
	latest, err := st.SolanaPayment(ctx, id, intent.TxKindFill)
	if err != nil || latest.Signature != "sigD" || latest.LastValidBlockHeight != 151 || latest.Blockhash != "bh-sigD" ||
		latest.ChainID != 792703809 {
		t.Fatalf("the latest: %+v, %v", latest, err)
	}
	all, err := st.SolanaPaymentAttempts(ctx, id, intent.TxKindFill)
	if err != nil || len(all) != 2 || all[0].Signature != "sigA" || all[1].Signature != "sigD" {
		t.Fatalf("the attempts: %+v, %v", all, err)
	}
	if _, err := st.SolanaPayment(ctx, id, intent.TxKindRefund); !errors.Is(err, intent.ErrNotFound) {
		t.Fatalf("the refund is another payment: %v, want intent.ErrNotFound", err)
	}
}
