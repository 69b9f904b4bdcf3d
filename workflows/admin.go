package workflows

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
