package intent

import (
	"slices"
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
