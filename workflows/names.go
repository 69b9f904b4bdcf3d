package workflows

import (
	"strings"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"

	"github.com/intentd/intentd/activities"
	"github.com/intentd/intentd/intent"
)

// Names shared by the API, the worker and operators.
const (
	TaskQueue     = "intents"
	SignalDeposit = "deposit"
	QueryState    = "state"
)

// UpdateAdminRefund is the Temporal Update support staff send to refund an intent by hand
// (`intentd admin refund`, POST /admin/requests/{requestId}/refund). Its validator accepts it
// only where a refund is possible: the deposit is attested, nothing has been paid out (no fill
// broadcast that could still land, no refund made), and no refund is running. The update
// completes when the refund transaction is mined; the request ends in status refund with
// failReason MANUAL_ADMIN_REFUND. Its argument is an intent.AdminRefund and its result an
// intent.AdminRefundResult.
const UpdateAdminRefund = "adminRefund"

// ErrTypeAdminRefundFailed is the error type the update answers with when it was accepted but
// the refund could not be made (the chain refused it before anything was signed, or the
// transaction reverted); the request keeps waiting for another attempt.
const ErrTypeAdminRefundFailed = "REFUND_FAILED"

// IntentWorkflowID derives the workflow id from the requestId, so the start (or signal) from the
// scanner, the hint endpoint and a retry all land on one workflow per request.
func IntentWorkflowID(requestID string) string { return "intent-" + requestID }

// Activity method values; nil receivers are fine, Temporal only uses the method names.
var (
	storeActs   *activities.StoreActivities
	chainActs   *activities.ChainActivities
	oracleActs  *activities.OracleActivities
	sponsorActs *activities.SponsorshipActivities
)

// Typed search attributes that make intents findable in the Temporal Web UI.
var (
	AttrIntentStatus       = temporal.NewSearchAttributeKeyKeyword("IntentStatus")
	AttrOriginChainID      = temporal.NewSearchAttributeKeyInt64("OriginChainId")
	AttrDestinationChainID = temporal.NewSearchAttributeKeyInt64("DestinationChainId")
	AttrAPIKeyID           = temporal.NewSearchAttributeKeyKeyword("ApiKeyId")
	AttrUser               = temporal.NewSearchAttributeKeyKeyword("User")
	AttrFailReason         = temporal.NewSearchAttributeKeyKeyword("FailReason")
	AttrDepositAddress     = temporal.NewSearchAttributeKeyKeyword("DepositAddress")
	// AttrRefundHold is set on a refund request whose automatic refund is held for an operator
	// (intent.RefundHold: UNLISTED_CURRENCY, REFUND_BUDGET_EXCEEDED); absent otherwise.
	AttrRefundHold = temporal.NewSearchAttributeKeyKeyword("RefundHold")
)

// InitialSearchAttributes are set when the workflow starts, so a request is findable in the
// Web UI before its first task runs.
func InitialSearchAttributes(ex intent.Execution, apiKeyID string) temporal.SearchAttributes {
	return temporal.NewSearchAttributes(searchAttributes(ex, apiKeyID)...)
}

// searchAttributes are an intent's search attributes as it starts: status waiting, no
// failReason; the run updates the two as the intent moves on (write.go).
// A request funded by a deposit address carries the address (DepositAddress), so that an
// operator finds every request of an address.
func searchAttributes(ex intent.Execution, apiKeyID string) []temporal.SearchAttributeUpdate {
	attrs := []temporal.SearchAttributeUpdate{
		AttrIntentStatus.ValueSet(string(intent.StatusWaiting)),
		AttrOriginChainID.ValueSet(int64(ex.OriginChainID)),
		AttrDestinationChainID.ValueSet(int64(ex.DestinationChainID)),
		AttrAPIKeyID.ValueSet(apiKeyID),
		AttrUser.ValueSet(strings.ToLower(ex.User)),
		AttrFailReason.ValueSet(string(intent.FailReasonNA)),
	}
	if da := ex.DepositAddress; da != nil {
		attrs = append(attrs, AttrDepositAddress.ValueSet(strings.ToLower(da.Address)))
	}
	return attrs
}

// SearchAttributeTypes lists the custom search attributes the namespace must have.
func SearchAttributeTypes() map[string]enumspb.IndexedValueType {
	return map[string]enumspb.IndexedValueType{
		AttrIntentStatus.GetName():       enumspb.INDEXED_VALUE_TYPE_KEYWORD,
		AttrOriginChainID.GetName():      enumspb.INDEXED_VALUE_TYPE_INT,
		AttrDestinationChainID.GetName(): enumspb.INDEXED_VALUE_TYPE_INT,
		AttrAPIKeyID.GetName():           enumspb.INDEXED_VALUE_TYPE_KEYWORD,
		AttrUser.GetName():               enumspb.INDEXED_VALUE_TYPE_KEYWORD,
		AttrFailReason.GetName():         enumspb.INDEXED_VALUE_TYPE_KEYWORD,
		AttrDepositAddress.GetName():     enumspb.INDEXED_VALUE_TYPE_KEYWORD,
		AttrRefundHold.GetName():         enumspb.INDEXED_VALUE_TYPE_KEYWORD,
	}
}
