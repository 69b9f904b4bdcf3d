package integration

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/intentd/intentd/records"
)

// walkRecordV2 walks the spec's "Request record, version 2" table on the v2 view of a real
// intent's stored record (what GET /requests/v2 serves until its sunset): each field's JSON
// type, and its value where the v3 record or the chains know it.
func walkRecordV2(t *testing.T, s *stack, w recordWant) {
	t.Helper()
	var raw []byte
	if err := s.Sys.Pool.QueryRow(context.Background(), `SELECT record FROM requests WHERE id = $1`, w.requestID).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	v2, err := records.V2(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v2)
	var rec obj
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	equal(t, "v2 id is the requestId", isString(t, rec, "id"), w.requestID)
	equal(t, "v2 status (refund, waiting, depositing, failure, pending, success)", isString(t, rec, "status"), w.status)
	sameHex(t, "v2 user", isString(t, rec, "user"), w.user.Hex())
	isString(t, rec, "recipient")
	if v, ok := rec["depositAddress"]; !ok || v != nil {
		t.Errorf("v2 depositAddress %v: nullable, null without a deposit address", v)
	}
	isString(t, rec, "createdAt")
	isString(t, rec, "updatedAt")
	data := isObject(t, rec, "data")
	isString(t, data, "slippageTolerance")
	fail := w.failReason
	if fail == "" {
		fail = "N/A"
	}
	equal(t, "v2 data.failReason keeps N/A", isString(t, data, "failReason"), fail)
	equal(t, "v2 data.refundFailReason defaults to N/A", isString(t, data, "refundFailReason"), "N/A")
	if v, ok := data["supersededByRequestId"]; !ok || v != nil {
		t.Errorf("v2 data.supersededByRequestId %v: nullable string, null here", v)
	}
	isBool(t, data, "subsidizedRequest")
	isBool(t, data, "usesExternalLiquidity")
	for _, f := range []string{"fees", "feesUsd"} {
		fees := isObject(t, data, f)
		for _, k := range []string{"gas", "fixed", "price", "gateway"} {
			isString(t, fees, k)
		}
	}
	isArray(t, data, "appFees")
	if w.hasRoute {
		equal(t, "v2 data.currency is the input's symbol", isString(t, data, "currency"), "eth")
		isObject(t, data, "currencyObject")
		isString(t, data, "feeCurrency")
		isObject(t, data, "feeCurrencyObject")
		isString(t, data, "price")
		impact := isObject(t, data, "expandedPriceImpact")
		for _, k := range []string{"swap", "execution", "service", "app", "sponsored"} {
			isObject(t, impact, k)
		}
		absent(t, impact, "platform", "data.expandedPriceImpact")
	}
	check := func(item any, path string, r *types.Receipt, chainID uint64, withStatus bool) {
		o, ok := item.(obj)
		if !ok {
			t.Fatalf("v2 %s is not an object: %v", path, item)
		}
		sameHex(t, "v2 "+path+".hash (v3's txHash)", isString(t, o, "hash"), r.TxHash.Hex())
		absent(t, o, "txHash", path)
		equal(t, "v2 "+path+".type is onchain", isString(t, o, "type"), "onchain")
		equal(t, "v2 "+path+".chainId", uint64(isNumber(t, o, "chainId")), chainID)
		equal(t, "v2 "+path+".block", uint64(isNumber(t, o, "block")), r.BlockNumber.Uint64())
		isNumber(t, o, "timestamp")
		if fee := isString(t, o, "fee"); fee == "" || strings.HasPrefix(fee, "-") {
			t.Errorf("v2 %s.fee %q", path, fee)
		}
		if withStatus {
			equal(t, "v2 "+path+".status on inTxs", isString(t, o, "status"), "success")
		} else {
			absent(t, o, "status", path)
		}
	}
	in := isArray(t, data, "inTxs")
	if len(in) != 1 {
		t.Fatalf("v2 inTxs %v, want the deposit", in)
	}
	check(in[0], "data.inTxs[0]", w.deposit, 31337, true)
	out := isArray(t, data, "outTxs")
	want, chain := w.outReceipts()
	if len(out) != len(want) {
		t.Fatalf("v2 outTxs %v, want %d", out, len(want))
	}
	for i, r := range want {
		check(out[i], "data.outTxs["+strconv.Itoa(i)+"]", r, chain, false)
	}
}

// outReceipts are the mined transactions a request's outTxs list, and their chain: the fill on
// the destination, or the refund on the origin.
func (w recordWant) outReceipts() ([]*types.Receipt, uint64) {
	var out []*types.Receipt
	var chain uint64
	if w.fill != nil {
		out, chain = append(out, w.fill), 31338
	}
	if w.refund != nil {
		out, chain = append(out, w.refund), 31337
	}
	return out, chain
}
