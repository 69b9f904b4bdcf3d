package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/testkit/testenv"
	"github.com/intentd/intentd/store"
)

// A quote the database refuses is an error of the statement; one it could not be reached for is
// intent.ErrUnavailable, which the quote engine answers with 503 and its callers retry.
func TestInsertQuoteTellsARefusedWriteFromAnUnreachableDatabase(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Pool(t)
	st := store.New(pool)
	q := intent.NewQuote{Record: intent.Record{ID: testRequestID, Status: intent.StatusWaiting, User: "0xu", Recipient: "0xr"},
		OrderID: "0xorder", ExpiresAt: time.Now().Add(time.Minute), Origin: 31337, Dest: 31338, VolumeUSD: decimal.NewFromInt(1)}
	if err := st.InsertQuote(ctx, q); err != nil {
		t.Fatal(err)
	}
	err := st.InsertQuote(ctx, q) // the same requestId again: the primary key refuses it
	if err == nil || errors.Is(err, intent.ErrUnavailable) {
		t.Fatalf("refused write: %v, want an error that is not ErrUnavailable", err)
	}
	pool.Close()
	if err := st.InsertQuote(ctx, q); !errors.Is(err, intent.ErrUnavailable) {
		t.Fatalf("closed pool: %v, want ErrUnavailable", err)
	}
}
