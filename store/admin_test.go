package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

const testRequestID = "0x1111111111111111111111111111111111111111111111111111111111111111"

func newStoreWithRequest(t *testing.T) *store.Store {
	t.Helper()
	pool := testenv.Pool(t)
	if _, err := pool.Exec(context.Background(), `INSERT INTO requests (id, status, "user", recipient, origin_chain_id,
		destination_chain_id, order_id, record) VALUES ($1, 'pending', '0xu', '0xr', 31337, 31338, '0xorder', '{}')`,
		testRequestID); err != nil {
		t.Fatal(err)
	}
	return store.New(pool)
}

func TestAdminRefundAuditIsIdempotent(t *testing.T) {
	ctx := context.Background()
	st := newStoreWithRequest(t)

	if got, err := st.AdminRefunds(ctx, testRequestID); err != nil || len(got) != 0 {
		t.Fatalf("before any refund: %v %v", got, err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a := intent.AdminRefundAudit{ID: "update-1", RequestID: testRequestID, Operator: "alice", Reason: "fill stuck",
		Recipient: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", RequestedAt: at}
	for i := 0; i < 2; i++ { // a retried activity records the same update twice
		if err := st.RecordAdminRefund(ctx, a); err != nil {
			t.Fatalf("record #%d: %v", i, err)
		}
	}
	// The second record of the same id must not overwrite the first.
	changed := a
	changed.Reason = "something else"
	if err := st.RecordAdminRefund(ctx, changed); err != nil {
		t.Fatal(err)
	}
	// A second refund asked later, with the default recipient and no time given.
	if err := st.RecordAdminRefund(ctx, intent.AdminRefundAudit{ID: "update-2", RequestID: testRequestID, Operator: "bob",
		Reason: "again"}); err != nil {
		t.Fatal(err)
	}

	got, err := st.AdminRefunds(ctx, testRequestID)
	if err != nil || len(got) != 2 {
		t.Fatalf("refunds: %+v %v", got, err)
	}
	first := got[0]
	if first.ID != "update-1" || first.Operator != "alice" || first.Reason != "fill stuck" || first.Recipient != a.Recipient ||
		!first.RequestedAt.Equal(at) || first.TxHash != "" || first.ChainID != 0 || first.Amount != "" || first.CompletedAt != nil {
		t.Fatalf("first refund: %+v", first)
	}
	if got[1].ID != "update-2" || got[1].Recipient != "" || time.Since(got[1].RequestedAt) > time.Minute {
		t.Fatalf("second refund: %+v", got[1])
	}

	const hash = "0xabababababababababababababababababababababababababababababababab"
	if err := st.CompleteAdminRefund(ctx, intent.AdminRefundCompletion{ID: "update-1", TxHash: hash, ChainID: 31337, Amount: "1000000"}); err != nil {
		t.Fatal(err)
	}
	got, _ = st.AdminRefunds(ctx, testRequestID)
	done := got[0]
	if done.TxHash != hash || done.ChainID != 31337 || done.Amount != "1000000" || done.CompletedAt == nil {
		t.Fatalf("completed refund: %+v", done)
	}
	// Completing again (a retried activity) keeps the first completion time.
	if err := st.CompleteAdminRefund(ctx, intent.AdminRefundCompletion{ID: "update-1", TxHash: hash, ChainID: 31337, Amount: "1000000"}); err != nil {
		t.Fatal(err)
	}
	got, _ = st.AdminRefunds(ctx, testRequestID)
	if got[0].CompletedAt == nil || !got[0].CompletedAt.Equal(*done.CompletedAt) {
		t.Fatalf("completion time moved: %v -> %v", done.CompletedAt, got[0].CompletedAt)
	}
	if err := st.CompleteAdminRefund(ctx, intent.AdminRefundCompletion{ID: "no-such-update", TxHash: hash, ChainID: 31337, Amount: "1"}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("complete unknown: %v", err)
	}
	if err := st.RecordAdminRefund(ctx, intent.AdminRefundAudit{ID: "update-3", RequestID: "0xunknown", Operator: "x",
		Reason: "y"}); err == nil {
		t.Fatal("audit row for an unknown request accepted")
	}
}

// 0003 widens the solver transaction kinds: a manual refund is stored like a fill or a refund,
// and other kinds are still refused.
func TestSolverTransactionKindManualRefund(t *testing.T) {
	ctx := context.Background()
	st := newStoreWithRequest(t)
	sign := func(hash string) func(uint64) (string, []byte, error) {
		return func(uint64) (string, []byte, error) { return hash, []byte{1}, nil }
	}
	tx, err := st.PrepareSolverTx(ctx, testRequestID, "manual_refund", 31337, "0xSolver", 0, intent.Commitment{}, nil,
		sign("0x0101010101010101010101010101010101010101010101010101010101010101"))
	if err != nil || tx.Kind != "manual_refund" {
		t.Fatalf("manual_refund: %+v %v", tx, err)
	}
	if _, err := st.PrepareSolverTx(ctx, testRequestID, "bogus", 31337, "0xSolver", 0, intent.Commitment{}, nil,
		sign("0x0202020202020202020202020202020202020202020202020202020202020202")); err == nil {
		t.Fatal("kind bogus accepted")
	}
}
