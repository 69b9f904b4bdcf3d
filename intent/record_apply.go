package intent

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// Attested actions and the idempotency key of protocol.deposit.attestation.execution: the
// oracle attests one Deposit event, identified by its chain, transaction and log index.
const attestedDepositAction = "depository-deposit"

// DepositIdempotencyKey names one Deposit event: "<chainId>:<txHash>:<logIndex>".
func DepositIdempotencyKey(d Deposit) string {
	return fmt.Sprintf("%d:%s:%d", d.ChainID, strings.ToLower(d.TxHash), d.LogIndex)
}

// UpsertTx writes a mined transaction item into inTxs or outTxs: a new item is appended, an
// item already there (same hash and chain) takes every field the new one knows, so a later
// fact completes an earlier write. A pending transaction is never an item (items are success
// or failure only): it reports false and changes nothing.
func (r *Record) UpsertTx(x Tx) bool {
	status := x.Status
	if status == "" {
		status = TxSuccess
	}
	if status == TxPending {
		return false
	}
	list := &r.Data.InTxs
	if x.Direction == TxOut {
		list = &r.Data.OutTxs
	}
	for i := range *list {
		it := &(*list)[i]
		if it.ChainID == x.ChainID && strings.EqualFold(it.TxHash, x.Hash) {
			if x.Fee != "" {
				it.Fee = x.Fee
			}
			if x.FeeUsd != "" {
				it.FeeUsd = x.FeeUsd
			}
			if x.Block != 0 {
				it.Block = x.Block
			}
			if x.Timestamp != 0 {
				it.Timestamp = x.Timestamp
			}
			it.Status = string(status)
			return true
		}
	}
	fee := x.Fee
	if fee == "" {
		fee = "0"
	}
	*list = append(*list, TxItem{TxHash: x.Hash, Fee: fee, FeeUsd: x.FeeUsd, Block: x.Block, Type: "onchain",
		ChainID: x.ChainID, Timestamp: x.Timestamp, Status: string(status)})
	return true
}

// ApplyFacts writes on the record what a transition knows beyond its status: the deposit
// (protocol.deposit.origin, route.actual before a fill), the oracle's attestation, the landed
// fill (fees.actual, route.actual, protocol.settlement fills), landed refunds, a reverted fill
// (failedTxHash, failedTxBlockNumber, failedCallData), the screened addresses of a BLOCKED_WALLET
// failure (blockedAddresses), and protocol.isWithdrawable; for a request funded by a deposit
// address, the payment's transaction (depositAddress.depositTxHash). Every
// write is idempotent: applying a transition twice gives the same record.
func (r *Record) ApplyFacts(t Transition) {
	if d := t.Deposit; d != nil {
		// A deposit that names its request is the payment the watcher saw at the request's
		// deposit address (ArrivalDeposit; the sweep's deposit, written later, does not): the
		// spec's depositTxHash, "null until the watcher sees the transfer". Kept once set.
		if da := r.DepositAddress; da != nil && da.DepositTxHash == nil && d.RequestID != "" && d.TxHash != "" {
			h := d.TxHash
			da.DepositTxHash = &h
		}
		depository := t.Depository
		if depository == "" && t.Attestation != nil {
			depository = t.Attestation.Depository
		}
		pd := r.protocolDeposit()
		if pd.Origin != nil && depository == "" {
			depository = pd.Origin.Depository
		}
		pd.Origin = &DepositOrigin{Amount: d.Amount, ChainID: d.ChainID, Currency: d.Currency, Depositor: d.Depositor,
			Depository: depository, OnchainID: d.OrderID, TransactionID: d.TxHash}
		if a := t.Attestation; a != nil {
			sigs := a.Signatures
			if len(sigs) == 0 {
				sigs = []SignerSignature{{Signer: a.Signer, Signature: a.Signature}}
			}
			pd.Attestation = &ProtocolAttestation{
				Execution: AttestationExecution{Actions: []string{attestedDepositAction}, IdempotencyKey: DepositIdempotencyKey(*d)}}
			for _, s := range sigs {
				pd.Attestation.Attestations = append(pd.Attestation.Attestations, OracleAttestation{OracleChainID: strconv.FormatUint(a.ChainID, 10),
					OracleContract: a.Depository, SignerAddress: s.Signer, Signature: s.Signature})
			}
		}
		if rt := r.Data.Route; rt != nil && rt.Quoted != nil && !r.filled() {
			dest := rt.Quoted.Destination
			rt.Actual = &RouteActual{
				Origin:      ActualLeg{InputCurrency: r.depositAmount(*d), Router: rt.Quoted.Origin.Router},
				Destination: ActualLeg{InputCurrency: &dest.InputCurrency, OutputCurrency: &dest.OutputCurrency, Router: dest.Router},
			}
		}
	}
	for _, x := range t.Txs {
		if x.Direction != TxOut || (x.Status != "" && x.Status != TxSuccess) {
			continue
		}
		st := SettlementTx{ChainID: x.ChainID, TransactionID: x.Hash}
		switch x.Kind {
		case "", TxKindFill:
			s := r.settlement()
			s.Fills = addSettlementTx(s.Fills, st)
			r.fillLanded()
		case TxKindRefund, TxKindManualRefund:
			s := r.settlement()
			s.Refunds = addSettlementTx(s.Refunds, st)
		}
	}
	if f := t.FailedTx; f != nil {
		r.Data.FailedTxHash, r.Data.FailedTxBlockNumber = f.Hash, f.Block
		if f.Call != nil {
			c := *f.Call
			r.Data.FailedCallData = &c
		}
	}
	// The spec: the addresses whose screening caused the failure, for failReason BLOCKED_WALLET
	// only (null once an operator's refund has ended the request with another).
	switch {
	case r.Data.FailReason != FailReasonBlockedWallet:
		r.Data.BlockedAddresses = nil
	case len(t.BlockedAddresses) > 0:
		r.Data.BlockedAddresses = slices.Clone(t.BlockedAddresses)
	}
	r.Protocol.IsWithdrawable = r.Status == StatusFailure && r.Protocol.Deposit != nil &&
		r.Protocol.Deposit.Attestation != nil && !r.settled()
}

func (r *Record) protocolDeposit() *ProtocolDeposit {
	if r.Protocol.Deposit == nil {
		r.Protocol.Deposit = &ProtocolDeposit{}
	}
	return r.Protocol.Deposit
}

func (r *Record) settlement() *SettlementDestination {
	if r.Protocol.Settlement == nil {
		r.Protocol.Settlement = &ProtocolSettlement{Destination: SettlementDestination{Fills: []SettlementTx{}, Refunds: []SettlementTx{}}}
	}
	return &r.Protocol.Settlement.Destination
}

// filled reports whether a fill of the request has landed.
func (r *Record) filled() bool {
	return r.Protocol.Settlement != nil && len(r.Protocol.Settlement.Destination.Fills) > 0
}

// settled reports whether a fill or a refund took the deposit.
func (r *Record) settled() bool {
	s := r.Protocol.Settlement
	return s != nil && (len(s.Destination.Fills) > 0 || len(s.Destination.Refunds) > 0)
}

func addSettlementTx(list []SettlementTx, x SettlementTx) []SettlementTx {
	for _, y := range list {
		if y.ChainID == x.ChainID && strings.EqualFold(y.TransactionID, x.TransactionID) {
			return list
		}
	}
	return append(list, x)
}

// fillLanded writes the actual side of a landed fill. The solver pays exactly the quoted output
// out of exactly the quoted input, so fees.actual is the quoted split, and route.actual is the
// quoted route with the deposit as its origin input and the rate it made.
func (r *Record) fillLanded() {
	d := &r.Data
	if d.Fees != nil {
		actual := d.Fees.Quoted
		d.Fees.Actual = &actual
	}
	rt := d.Route
	if rt == nil || rt.Quoted == nil {
		return
	}
	q := rt.Quoted
	in := q.Origin.InputCurrency
	if rt.Actual != nil && rt.Actual.Origin.InputCurrency != nil {
		in = *rt.Actual.Origin.InputCurrency
	}
	originOut, destIn, destOut := q.Origin.OutputCurrency, q.Destination.InputCurrency, q.Destination.OutputCurrency
	rt.Actual = &RouteActual{
		Origin:      ActualLeg{InputCurrency: &in, OutputCurrency: &originOut, Router: q.Origin.Router},
		Destination: ActualLeg{InputCurrency: &destIn, OutputCurrency: &destOut, Router: q.Destination.Router},
		Rate:        formattedRate(in, destOut),
	}
}

// formattedRate is out per unit of in, in whole units; "" when in is zero or unreadable.
func formattedRate(in, out AmountObject) string {
	a, err1 := decimal.NewFromString(in.AmountFormatted)
	b, err2 := decimal.NewFromString(out.AmountFormatted)
	if err1 != nil || err2 != nil || a.IsZero() {
		return ""
	}
	return b.DivRound(a, 18).String()
}

// depositAmount is the deposit as an amount object: in the quoted input currency (with its
// metadata and the quote's USD price) when it is that currency, else named by chain and address
// only, with no USD value.
func (r *Record) depositAmount(d Deposit) *AmountObject {
	amount, ok := new(big.Int).SetString(d.Amount, 10)
	if !ok {
		amount = new(big.Int)
	}
	cur := Currency{ChainID: d.ChainID, Address: d.Currency}
	var price decimal.Decimal
	usd := ""
	if q := r.Data.CurrencyIn; q != nil && q.Currency.ChainID == d.ChainID && SameAddress(q.Currency.Address, d.Currency) {
		cur = q.Currency
		if p := r.Data.QuoteOraclePrice; p != nil {
			price, _ = decimal.NewFromString(p.InputCurrency.AmountUsd)
		}
		usd = USDValue(amount, cur.Decimals, price).StringFixed(6)
	}
	return &AmountObject{Currency: cur, Amount: amount.String(), AmountFormatted: FormatUnits(amount, cur.Decimals),
		AmountUsd: usd, MinimumAmount: amount.String()}
}
