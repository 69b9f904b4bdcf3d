package intent

import (
	"slices"
	"strings"
	"testing"
)

// The spec's blockedAddresses: "for requests with failReason = BLOCKED_WALLET, the address(es)
// whose screening caused the failure; null for other failures or when none was recorded". A
// BLOCKED_WALLET transition writes them; once an operator's refund ends the request with
// MANUAL_ADMIN_REFUND they are gone again.
func TestBlockedAddressesAreOnTheRecordOnlyWhileItsFailReasonIsBlockedWallet(t *testing.T) {
	var r Record
	apply := func(status Status, reason FailReason) {
		// As the store applies a transition: its status and reasons, then its facts.
		r.Status, r.Data.FailReason = status, reason
		r.ApplyFacts(Transition{Status: status, FailReason: reason, BlockedAddresses: []string{"0xB10cced"}})
	}
	apply(StatusFailure, FailReasonDepositedAmountTooLowToFill)
	if r.Data.BlockedAddresses != nil {
		t.Fatalf("blockedAddresses %v on a failure for another reason", r.Data.BlockedAddresses)
	}
	apply(StatusFailure, FailReasonBlockedWallet)
	if !slices.Equal(r.Data.BlockedAddresses, []string{"0xB10cced"}) {
		t.Fatalf("blockedAddresses %v on a BLOCKED_WALLET failure", r.Data.BlockedAddresses)
	}
	apply(StatusRefund, FailReasonManualAdminRefund)
	if r.Data.BlockedAddresses != nil {
		t.Fatalf("blockedAddresses %v after the operator's refund", r.Data.BlockedAddresses)
	}
}

// The spec's record table: depositAddress.depositTxHash is "null until the watcher sees the
// transfer". Issue 35, point 7: the SDK case pays a strict address by a plain transfer and reads
// the record; the payment (the deposit that names its request) writes its hash, the sweep's
// deposit after it leaves it, and a request paid into the depository has no depositAddress.
func TestDepositTxHashIsThePaymentTheWatcherSawAndTheSweepKeepsIt(t *testing.T) {
	payment, sweep := "0x"+strings.Repeat("a", 64), "0x"+strings.Repeat("b", 64)
	r := Record{DepositAddress: &RecordDepositAddress{Address: "0x5D82FbECe20F7A67540beFe0fB9DB5881E65E95f", Type: DepositAddressStrict}}
	r.ApplyFacts(Transition{Status: StatusWaiting})
	if r.DepositAddress.DepositTxHash != nil {
		t.Fatalf("depositTxHash %q before any payment", *r.DepositAddress.DepositTxHash)
	}
	r.ApplyFacts(Transition{Status: StatusWaiting, Deposit: &Deposit{ChainID: 31337, TxHash: payment, RequestID: "0x01"}})
	if h := r.DepositAddress.DepositTxHash; h == nil || *h != payment {
		t.Fatalf("depositTxHash %v after the payment %s", h, payment)
	}
	r.ApplyFacts(Transition{Status: StatusPending, Deposit: &Deposit{ChainID: 31337, TxHash: sweep, LogIndex: 3}})
	if h := r.DepositAddress.DepositTxHash; h == nil || *h != payment {
		t.Fatalf("depositTxHash %v after the sweep's deposit; want the payment %s", h, payment)
	}
	var plain Record
	plain.ApplyFacts(Transition{Status: StatusWaiting, Deposit: &Deposit{ChainID: 31337, TxHash: sweep}})
	if plain.DepositAddress != nil {
		t.Fatal("a request paid into the depository got a depositAddress")
	}
}
