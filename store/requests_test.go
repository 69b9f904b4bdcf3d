package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
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

// A server with no connection slot left answers a new connection with SQLSTATE 53300 (too many
// connections): the request could not be taken this time, so it is intent.ErrUnavailable (the
// quote engine's 503, "retry shortly"), not a failure for good (500 UNKNOWN_ERROR). A role
// allowed no connection gets the same answer from any server.
func TestAFullServerIsUnavailableNotAFailure(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Pool(t)
	role := fmt.Sprintf("full_%d", time.Now().UnixNano())
	if _, err := pool.Exec(ctx, `CREATE ROLE `+role+` LOGIN CONNECTION LIMIT 0`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = pool.Exec(context.Background(), `DROP ROLE `+role) })
	cfg := pool.Config().Copy()
	cfg.ConnConfig.User = role
	full, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(full.Close)
	q := intent.NewQuote{Record: intent.Record{ID: testRequestID, Status: intent.StatusWaiting, User: "0xu", Recipient: "0xr"},
		OrderID: "0xorder", ExpiresAt: time.Now().Add(time.Minute), Origin: 31337, Dest: 31338, VolumeUSD: decimal.NewFromInt(1)}
	err = store.New(full).InsertQuote(ctx, q)
	if !errors.Is(err, intent.ErrUnavailable) || !strings.Contains(err.Error(), "53300") {
		t.Fatalf("a quote written to a full server: %v, want ErrUnavailable carrying SQLSTATE 53300", err)
	}
}
