package records

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/intentd/intentd/intent"
)

// The v2 record (GET /requests/v2, deprecated): the spec's "Request record, version 2" table,
// in the shapes of the public SDK's type where the table leaves them open.

// V2Record is one element of `requests` in GET /requests/v2.
type V2Record struct {
	ID             string            `json:"id"`
	Status         string            `json:"status"`
	User           string            `json:"user"`
	Recipient      string            `json:"recipient"`
	DepositAddress *V2DepositAddress `json:"depositAddress"`
	Data           V2Data            `json:"data"`
	CreatedAt      string            `json:"createdAt"`
	UpdatedAt      string            `json:"updatedAt"`
}

// V2DepositAddress is v2's depositAddress: the v3 record's with its type named
// depositAddressType; null for a request paid into the depository directly.
type V2DepositAddress struct {
	Address            string  `json:"address"`
	DepositAddressType string  `json:"depositAddressType"`
	Depositor          *string `json:"depositor"`
	DepositTxHash      *string `json:"depositTxHash"`
}

// V2Data is the v2 record's `data`.
type V2Data struct {
	SlippageTolerance     string               `json:"slippageTolerance"`
	FailReason            intent.FailReason    `json:"failReason"`
	RefundFailReason      string               `json:"refundFailReason"`
	SupersededByRequestID *string              `json:"supersededByRequestId"`
	FailedTxHash          string               `json:"failedTxHash,omitempty"`
	FailedTxBlockNumber   uint64               `json:"failedTxBlockNumber,omitempty"`
	FailedCallData        *intent.CallData     `json:"failedCallData,omitempty"`
	SubsidizedRequest     bool                 `json:"subsidizedRequest"`
	Fees                  V2Fees               `json:"fees"`
	FeesUsd               V2Fees               `json:"feesUsd"`
	InTxs                 []V2Tx               `json:"inTxs"`
	OutTxs                []V2Tx               `json:"outTxs"`
	Currency              string               `json:"currency"`
	CurrencyObject        *intent.Currency     `json:"currencyObject,omitempty"`
	FeeCurrency           string               `json:"feeCurrency"`
	FeeCurrencyObject     *intent.Currency     `json:"feeCurrencyObject,omitempty"`
	AppFeeCurrencyObject  *intent.Currency     `json:"appFeeCurrencyObject,omitempty"`
	RefundCurrencyData    *intent.AmountObject `json:"refundCurrencyData,omitempty"`
	AppFees               []V2AppFee           `json:"appFees"`
	Price                 string               `json:"price"`
	UsesExternalLiquidity bool                 `json:"usesExternalLiquidity"`
	ExpandedPriceImpact   *V2PriceImpact       `json:"expandedPriceImpact,omitempty"`
	OrderData             json.RawMessage      `json:"orderData,omitempty"`
}

// V2Fees is v2's deprecated fee object: gas (the execution fee), fixed (always-added), price
// (the dynamic fee: platform and swap), gateway (taken by a gateway: none here), in wei of the
// fee currency, or in USD in feesUsd.
type V2Fees struct {
	Gas     string `json:"gas"`
	Fixed   string `json:"fixed"`
	Price   string `json:"price"`
	Gateway string `json:"gateway"`
}

// V2Tx is a v2 transaction item: `hash` where v3 says `txHash`.
type V2Tx struct {
	Fee          string `json:"fee"`
	Data         any    `json:"data"`
	StateChanges any    `json:"stateChanges"`
	Hash         string `json:"hash"`
	Block        uint64 `json:"block"`
	Type         string `json:"type"`
	ChainID      uint64 `json:"chainId"`
	Timestamp    int64  `json:"timestamp"`
	Status       string `json:"status,omitempty"`
}

// V2AppFee is one app fee of v2.
type V2AppFee struct {
	Recipient *string `json:"recipient"`
	Bps       *string `json:"bps"`
	Amount    *string `json:"amount"`
}

// V2PriceImpact is v3's `fees` breakdown as v2 names it: the platform component is `service`.
type V2PriceImpact struct {
	Swap      intent.FeeAmount `json:"swap"`
	Execution intent.FeeAmount `json:"execution"`
	Service   intent.FeeAmount `json:"service"`
	App       intent.FeeAmount `json:"app"`
	Sponsored intent.FeeAmount `json:"sponsored"`
}

// V2 turns a stored v3 record into the v2 record; orderData is attached only when given
// (includeOrderData, and never for a public request that is not final: the caller decides).
func V2(stored []byte, orderData json.RawMessage) (*V2Record, error) {
	var rec intent.Record
	if err := json.Unmarshal(stored, &rec); err != nil {
		return nil, fmt.Errorf("stored record: %w", err)
	}
	d := rec.Data
	out := &V2Record{ID: rec.ID, Status: rec.Status.V2(), User: rec.User, Recipient: rec.Recipient,
		CreatedAt: rec.CreatedAt, UpdatedAt: rec.UpdatedAt, Data: V2Data{
			SlippageTolerance: d.SlippageTolerance, FailReason: d.FailReason, RefundFailReason: string(d.RefundFailReason.OrNA()),
			FailedTxHash: d.FailedTxHash, FailedTxBlockNumber: d.FailedTxBlockNumber, FailedCallData: d.FailedCallData,
			InTxs: v2Txs(d.InTxs, true), OutTxs: v2Txs(d.OutTxs, false), AppFees: []V2AppFee{},
			RefundCurrencyData: d.RefundCurrency, OrderData: orderData, SupersededByRequestID: rec.SupersededByRequestID,
			Fees: V2Fees{Gas: "0", Fixed: "0", Price: "0", Gateway: "0"}, FeesUsd: V2Fees{Gas: "0", Fixed: "0", Price: "0", Gateway: "0"},
		}}
	if out.Data.FailReason == "" {
		out.Data.FailReason = intent.FailReasonNA
	}
	if da := rec.DepositAddress; da != nil {
		out.DepositAddress = &V2DepositAddress{Address: da.Address, DepositAddressType: string(da.Type), Depositor: da.Depositor,
			DepositTxHash: da.DepositTxHash}
	}
	if d.CurrencyIn != nil {
		c := d.CurrencyIn.Currency
		out.Data.Currency, out.Data.CurrencyObject = strings.ToLower(c.Symbol), &c
	}
	if d.Fees != nil {
		c := d.Fees.Currency
		out.Data.FeeCurrency, out.Data.FeeCurrencyObject = strings.ToLower(c.Symbol), &c
		q := d.Fees.Quoted
		if d.Fees.Actual != nil {
			q = *d.Fees.Actual
		}
		out.Data.Fees = V2Fees{Gas: orZero(q.Execution.Amount), Fixed: "0", Price: sum(q.Platform.Amount, q.Swap.Amount), Gateway: "0"}
		out.Data.FeesUsd = V2Fees{Gas: orZero(q.Execution.USD), Fixed: "0", Price: sum(q.Platform.USD, q.Swap.USD), Gateway: "0"}
		out.Data.ExpandedPriceImpact = &V2PriceImpact{Swap: q.Swap, Execution: q.Execution, Service: q.Platform, App: q.App, Sponsored: q.Sponsored}
		out.Data.SubsidizedRequest = !isZero(q.Sponsored.Amount)
	}
	if d.AppFees != nil {
		c := d.AppFees.Currency
		out.Data.AppFeeCurrencyObject = &c
		fees := d.AppFees.Actual
		if len(fees) == 0 {
			fees = d.AppFees.Quoted
		}
		for _, f := range fees {
			out.Data.AppFees = append(out.Data.AppFees, V2AppFee{Recipient: &f.Recipient, Bps: &f.Bps, Amount: &f.Amount})
		}
	}
	if d.QuoteOraclePrice != nil {
		out.Data.Price = d.QuoteOraclePrice.Rate
	}
	return out, nil
}

// v2Txs renames the items; only inTxs carry status in v2.
func v2Txs(items []intent.TxItem, withStatus bool) []V2Tx {
	out := make([]V2Tx, 0, len(items))
	for _, t := range items {
		x := V2Tx{Fee: t.Fee, Data: t.Data, Hash: t.TxHash, Block: t.Block, Type: "onchain", ChainID: t.ChainID, Timestamp: t.Timestamp}
		if withStatus {
			x.Status = t.Status
		}
		out = append(out, x)
	}
	return out
}

func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

func isZero(s string) bool {
	d, err := decimal.NewFromString(s)
	return err != nil || d.IsZero()
}

// sum adds two decimal strings (empty is zero).
func sum(a, b string) string {
	x, _ := decimal.NewFromString(orZero(a))
	y, _ := decimal.NewFromString(orZero(b))
	return x.Add(y).String()
}
