package workflows

import "go.temporal.io/sdk/workflow"

// intentVersion is what a run of this package's workflows does, as a number that only grows. A
// run reads its version once, as it starts (readVersion), and keeps it to its end, so that a run
// started by older code takes on newer code the path it took when it started. In the style of
// Temporal's own scheduler workflow: a change to what a run does adds a named version below,
// raises newestVersion to it, and takes its new path only where r.hasMinVersion(thatVersion);
// the run of an older version keeps the older path. Every version has a recorded history of
// each workflow (workflows/testdata/histories, named v<version>-…), which replay_test.go
// replays on every build; docs/operations.md, "Versioning the workflow", says how to record one.
type intentVersion int

const (
	// baseline is the first compatible release: the lifecycle of intent.go (fund, attest, pay
	// and the refunds), its money-safety steps (screening, confirmations by value and the
	// exposure cap, held refunds, voided fills) and its throughput work (the fill signed as a
	// local activity, waits inline first, the pending write beside the signing, transitions
	// versioned by the run's start). Every run in flight is at baseline or later.
	baseline intentVersion = 1

	// depositAddresses runs requests funded by a deposit address (issue 35): a deposit that is
	// a payment arriving at the request's address (intent.Deposit.RequestID) is swept into the
	// depository before anything else (sweep.go), the sweep's deposit is the one attested,
	// filled and refunded from then on, and the payment is neither refunded as an extra deposit
	// nor taken for one. Runs at baseline never receive such a payment.
	depositAddresses intentVersion = 2

	// strictReuse refunds a later payment at a strict deposit address (issue 35, "strict: a
	// second deposit is refunded, DOUBLE_SPEND") as a DepositRefund of its own that sweeps the
	// payment into the depository first (depositrefund_strict.go) and refunds the sweep's deposit
	// with failReason DOUBLE_SPEND. Runs before it are never started for such a payment (the
	// watcher left it unrouted).
	strictReuse intentVersion = 3

	// sweptPaymentDepth attests a sweep's deposit at its payment's depth (issue 35, point 7:
	// docs/deposit-addresses.md, "Confirmations of a sweep's deposit"): the attestation of the
	// deposit a deposit address's sweep made names the payment the sweep moved
	// (activities.AttestInput.SweptPayment), so the engine and the oracle count its confirmations
	// from the payment's block once the sweep is mined. Runs before it attest the sweep's deposit
	// at its own depth, one block later.
	sweptPaymentDepth intentVersion = 4

	// newestVersion is the version a new run takes: the last one named above.
	newestVersion = sweptPaymentDepth
)

// versionChangeID is the change id of the package's one workflow.GetVersion call (readVersion).
// It is recorded once per run, with the run's version, as the history's Version marker.
const versionChangeID = "intent"

// readVersion is the version of the run: newestVersion for a new run, the recorded one when a
// run is replayed. Versions before baseline were never released; a history without the marker
// fails to replay.
func readVersion(ctx workflow.Context) intentVersion {
	return intentVersion(workflow.GetVersion(ctx, versionChangeID, workflow.Version(baseline), workflow.Version(newestVersion)))
}

// hasMinVersion reports whether the run is at version v or later: whether it takes the path v
// introduced.
func (r *intentRun) hasMinVersion(v intentVersion) bool {
	return r.version >= v
}
