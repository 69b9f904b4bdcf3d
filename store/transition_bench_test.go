package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// BenchmarkTransition is one read-model transition of a request whose record is a filled ETH
// bridge's (testdata/record-eth-bridge.json, 12 kB of JSON as the API serves it): the locked
// read, the record decoded, changed and written back, its transaction item and its outbox
// event, in one database transaction. Every intent makes four or more of these. The requests
// are cycled so that each write lands on a row of its own, as a burst's do.
//
//	go test -run '^$' -bench Transition -benchtime 2000x ./store
func BenchmarkTransition(b *testing.B) {
	ctx := context.Background()
	raw, err := os.ReadFile("testdata/record-eth-bridge.json")
	if err != nil {
		b.Fatal(err)
	}
	var rec intent.Record
	if err := json.Unmarshal(raw, &rec); err != nil {
		b.Fatal(err)
	}
	st := store.New(testenv.Pool(b))
	const rows = 200
	ids := make([]string, rows)
	for i := range ids {
		ids[i] = fmt.Sprintf("0x%064x", i+1)
		rec.ID, rec.Status = ids[i], intent.StatusWaiting
		if err := st.InsertQuote(ctx, intent.NewQuote{Record: rec, OrderID: ids[i], ExpiresAt: time.Now().Add(time.Hour),
			Origin: 31337, Dest: 31338, VolumeUSD: decimal.NewFromInt(30)}); err != nil {
			b.Fatal(err)
		}
	}
	statuses := []intent.Status{intent.StatusWaiting, intent.StatusPending, intent.StatusSubmitted, intent.StatusSuccess}
	b.ResetTimer()
	for i := range b.N {
		id := ids[i%rows]
		tx := intent.Tx{Direction: intent.TxOut, Kind: intent.TxKindFill, ChainID: 31338, Hash: fmt.Sprintf("0xfill%d", i%rows),
			LogIndex: -1, Status: intent.TxPending}
		if _, err := st.ApplyTransition(ctx, intent.Transition{RequestID: id, Version: int64(i + 1),
			Status: statuses[(i/rows)%len(statuses)], Txs: []intent.Tx{tx}, At: time.Now()}); err != nil {
			b.Fatal(err)
		}
	}
}
