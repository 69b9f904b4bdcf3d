package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// Transaction item (spec): status is success or failure. A fill written pending at submitted is
// not an item of the record (its hash is in the status endpoint's txHashes), and the write of
// the same fill once mined completes it, by the item's key, with its block, timestamp and fee;
// a late pending write does not take the mined status back.
func TestFillWrittenPendingThenMinedIsOneCompleteSuccessItem(t *testing.T) {
	ctx := context.Background()
	st := newStoreWithRequest(t)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	fill := intent.Tx{Direction: intent.TxOut, Kind: intent.TxKindFill, ChainID: 31338, Hash: "0xfill", LogIndex: -1}
	pending := fill
	pending.Status = intent.TxPending
	mined := fill
	mined.Status, mined.Block, mined.Timestamp, mined.Fee, mined.FeeUsd = intent.TxSuccess, 42, 1767323045, "21000000000000", "0.063000"
	writes := []struct {
		status intent.Status
		tx     intent.Tx
	}{{intent.StatusSubmitted, pending}, {intent.StatusSuccess, mined}, {intent.StatusSuccess, pending}}
	for i, w := range writes {
		if _, err := st.ApplyTransition(ctx, intent.Transition{RequestID: testRequestID, Version: int64(i + 1), Status: w.status,
			Txs: []intent.Tx{w.tx}, At: at.Add(time.Duration(i) * time.Second)}); err != nil {
			t.Fatal(err)
		}
		rec, err := st.Record(ctx, testRequestID)
		if err != nil {
			t.Fatal(err)
		}
		row, err := st.Status(ctx, testRequestID)
		if err != nil {
			t.Fatal(err)
		}
		if len(row.TxHashes) != 1 || row.TxHashes[0] != "0xfill" {
			t.Fatalf("write %d: status txHashes %v, want the fill's hash from submitted on", i, row.TxHashes)
		}
		if i == 0 {
			if len(rec.Data.OutTxs) != 0 {
				t.Fatalf("submitted: outTxs %+v, want no pending item", rec.Data.OutTxs)
			}
			continue
		}
		if len(rec.Data.OutTxs) != 1 {
			t.Fatalf("write %d: outTxs %+v, want one item", i, rec.Data.OutTxs)
		}
		got := rec.Data.OutTxs[0]
		if got.Status != "success" || got.Block != 42 || got.Timestamp != 1767323045 || got.Fee != "21000000000000" ||
			got.FeeUsd != "0.063000" || got.Type != "onchain" || got.ChainID != 31338 {
			t.Fatalf("write %d: item %+v, want the mined fill complete", i, got)
		}
	}
	var status string
	if err := st.Pool().QueryRow(ctx, `SELECT status FROM request_transactions WHERE tx_hash = '0xfill'`).Scan(&status); err != nil ||
		status != "success" {
		t.Fatalf("request_transactions status %q, %v: want success", status, err)
	}
}

// data.failedTxHash, failedTxBlockNumber and failedCallData name a fill that was mined and
// reverted; the reverted fill is a failure item; a failed request whose attested deposit
// nothing took is withdrawable (protocol.isWithdrawable), and not once a refund landed.
func TestRevertedFillIsRecordedAsFailedTx(t *testing.T) {
	ctx := context.Background()
	st := newStoreWithRequest(t)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	dep := &intent.Deposit{ChainID: 31337, TxHash: "0xdep", OrderID: "0xorder", Depositor: "0xu", Currency: "0x0", Amount: "5"}
	att := &intent.Attestation{ChainID: 31337, Depository: "0xdepository", Signer: "0xsigner", Signature: "0xsig"}
	call := &intent.CallData{From: "0xsolver", To: "0xsettler", Data: "0xabcdef", Value: "7"}
	reverted := intent.Tx{Direction: intent.TxOut, Kind: intent.TxKindFill, ChainID: 31338, Hash: "0xbad", LogIndex: -1, Block: 9,
		Timestamp: 100, Fee: "3", Status: intent.TxFailure}
	if _, err := st.ApplyTransition(ctx, intent.Transition{RequestID: testRequestID, Version: 1, Status: intent.StatusFailure,
		Txs: []intent.Tx{reverted}, At: at, Deposit: dep, Attestation: att,
		FailedTx: &intent.FailedTx{Hash: "0xbad", Block: 9, Call: call}}); err != nil {
		t.Fatal(err)
	}
	rec, err := st.Record(ctx, testRequestID)
	if err != nil {
		t.Fatal(err)
	}
	d := rec.Data
	if d.FailedTxHash != "0xbad" || d.FailedTxBlockNumber != 9 || d.FailedCallData == nil || *d.FailedCallData != *call {
		t.Fatalf("failedTx %q %d %+v", d.FailedTxHash, d.FailedTxBlockNumber, d.FailedCallData)
	}
	if len(d.OutTxs) != 1 || d.OutTxs[0].Status != "failure" {
		t.Fatalf("outTxs %+v, want the reverted fill as a failure", d.OutTxs)
	}
	p := rec.Protocol
	if !p.IsWithdrawable || p.Deposit == nil || p.Deposit.Origin == nil || p.Deposit.Origin.Depository != "0xdepository" ||
		p.Deposit.Attestation == nil || p.Deposit.Attestation.Attestations[0].SignerAddress != "0xsigner" ||
		!strings.HasPrefix(p.Deposit.Attestation.Execution.IdempotencyKey, "31337:0xdep:") {
		t.Fatalf("protocol %+v", p)
	}
	if p.Settlement != nil && len(p.Settlement.Destination.Fills) != 0 {
		t.Fatalf("a reverted fill settled: %+v", p.Settlement)
	}
	refund := intent.Tx{Direction: intent.TxOut, Kind: intent.TxKindManualRefund, ChainID: 31337, Hash: "0xrefund", LogIndex: -1,
		Block: 11, Timestamp: 120, Fee: "2"}
	if _, err := st.ApplyTransition(ctx, intent.Transition{RequestID: testRequestID, Version: 2, Status: intent.StatusRefund,
		Txs: []intent.Tx{refund}, At: at.Add(time.Second), Deposit: dep, Attestation: att}); err != nil {
		t.Fatal(err)
	}
	if rec, err = st.Record(ctx, testRequestID); err != nil {
		t.Fatal(err)
	}
	if rec.Protocol.IsWithdrawable || len(rec.Protocol.Settlement.Destination.Refunds) != 1 || rec.Data.FailedTxHash != "0xbad" {
		t.Fatalf("after the refund: %+v, failedTxHash %q", rec.Protocol, rec.Data.FailedTxHash)
	}
}

// The columns the request lists filter on (referrer, type, currencies, parent) agree with the
// record after every write that can touch what they read: the quote's insert, a transition, a
// refund request's insert and the duplicate deposit that names its parent. They are filled at
// the insert, not generated: Postgres computes generated columns again at every UPDATE, and a
// transition is an UPDATE of the whole record (migration 0014).
func TestTheColumnsListsFilterOnAgreeWithTheRecordAndAreNotGenerated(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Pool(t)
	st := store.New(pool)
	cur := func(chain uint64, addr, sym string) *intent.AmountObject {
		return &intent.AmountObject{Currency: intent.Currency{ChainID: chain, Address: addr, Symbol: sym}, Amount: "1"}
	}
	rec := intent.Record{ID: testRequestID, Status: intent.StatusWaiting, User: "0xu", Recipient: "0xr", RequestType: "swap",
		Data: intent.RecordData{Referrer: "app.example", CurrencyIn: cur(31337, "0xAbC", "USDC"), CurrencyOut: cur(31338, "0xDeF", "WETH")}}
	if err := st.InsertQuote(ctx, intent.NewQuote{Record: rec, OrderID: "0xorder", ExpiresAt: time.Now().Add(time.Minute),
		Origin: 31337, Dest: 31338, VolumeUSD: decimal.NewFromInt(1)}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ApplyTransition(ctx, intent.Transition{RequestID: testRequestID, Version: 1, Status: intent.StatusPending,
		At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	refund := intent.RefundRequest{ID: "0xrefund", ParentID: testRequestID, Depositor: "0xu", RefundTo: "0xu", ChainID: 31337, At: time.Now()}
	if err := st.InsertRefundRequest(ctx, refund); err != nil {
		t.Fatal(err)
	}
	var got [3]string
	if err := pool.QueryRow(ctx, `SELECT referrer || ' ' || request_type || ' ' || currency_in_chain_id || ' ' || currency_in_address
			|| ' ' || currency_in_symbol || ' ' || currency_out_chain_id || ' ' || currency_out_address || ' ' || currency_out_symbol
			|| ' ' || parent_request_id FROM requests WHERE id = $1`, testRequestID).Scan(&got[0]); err != nil {
		t.Fatal(err)
	}
	if want := "app.example swap 31337 0xabc usdc 31338 0xdef weth " + testRequestID; got[0] != want {
		t.Fatalf("the parent's columns: %q, want %q", got[0], want)
	}
	if err := pool.QueryRow(ctx, `SELECT request_type || ' ' || parent_request_id || ' ' || (referrer IS NULL)::text
			FROM requests WHERE id = '0xrefund'`).Scan(&got[1]); err != nil {
		t.Fatal(err)
	}
	if want := "refund " + testRequestID + " true"; got[1] != want {
		t.Fatalf("the refund request's columns: %q, want %q", got[1], want)
	}
	if err := pool.QueryRow(ctx, `SELECT coalesce(string_agg(attname, ','), '') FROM pg_attribute
			WHERE attrelid = 'requests'::regclass AND attgenerated <> ''`).Scan(&got[2]); err != nil {
		t.Fatal(err)
	}
	if got[2] != "" {
		t.Fatalf("generated columns of requests: %s; each UPDATE computes them again", got[2])
	}
}
