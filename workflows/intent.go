// Package workflows holds the durable workflows of the engine. Intent is one request's
// lifecycle as the spec tells it: the deposit (fund), its attestation (attest), the fill on the
// destination (pay), and the refund when the request cannot be filled. DepositRefund refunds a
// deposit no order can take. Workflow code is deterministic and does no I/O: everything that
// touches a chain, the oracle or the database is an activity (package activities), referenced as
// method values so the compiler checks calls. What a run does is fixed by its version
// (versions.go), read once as it starts.
package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/intentd/intentd/activities"
	"github.com/intentd/intentd/intent"
)

// IntentInput starts an Intent: the execution the quote committed to.
type IntentInput struct {
	Execution intent.Execution
	APIKeyID  string
	// Policy is the operator's configuration for this intent, fixed when it starts.
	Policy Policy
	// Deposit is the deposit the workflow was started for. The door starts a workflow with its
	// first deposit in the input, not a signal, so that the start can be eager: the worker
	// that starts it runs its first workflow task from the start's answer, without the trip
	// through matching. Nil in the inputs of runs started by signal-with-start; a deposit for
	// a workflow already open is still a signal.
	Deposit *intent.Deposit `json:",omitempty"`
	// Relay, for a gasless request (POST /execute), is the user's call the engine relays before
	// any deposit exists (relay.go).
	Relay *RelayFunding `json:",omitempty"`
}

// State is the live state the QueryState query returns to operators.
type State struct {
	RequestID        string
	Status           intent.Status
	FailReason       intent.FailReason
	RefundFailReason intent.RefundFailReason `json:",omitempty"`
	Deposit          *intent.Deposit
	// Arrival is, for a request funded by a deposit address, the payment that arrived there
	// (sweep.go); Deposit is the deposit its sweep made, once mined.
	Arrival  *intent.Deposit `json:",omitempty"`
	FillTx   string
	Attested bool
	// RefundTx is the refund transaction once one is sent.
	RefundTx string `json:",omitempty"`
	// AwaitingOperator is set while the request waits for a manual admin refund (after
	// MANUAL_REFUND_REQUIRED or REFUND_RECIPIENT_IS_BLOCKED).
	AwaitingOperator bool `json:",omitempty"`
	// AwaitingExposure is set while the fill waits, pending, for room under its origin chain's
	// exposure cap (exposure.go).
	AwaitingExposure bool `json:",omitempty"`
	// Hold is why the automatic refund of a deposit no order can take was not made and waits
	// for an operator (depositrefund.go); the deposit is attested only when an operator refunds
	// it.
	Hold intent.RefundHold `json:",omitempty"`
}

// IntentResult is the final state.
type IntentResult = State

// intentRun is the state of one run of Intent or DepositRefund.
type intentRun struct {
	in    IntentInput
	state State
	seq   int64
	// version is what the run does (versions.go), read once as it starts.
	version intentVersion
	// attrs are the IntentStatus and FailReason search attributes last set (its starter set
	// waiting and N/A); wantAttrs are those of the last write, upserted once the run waits
	// (write.go, publishAttrs).
	attrs, wantAttrs [2]string

	depositSeenAt time.Time
	// relayHeld is set while a gasless request holds a reservation of its relayed gas; relayFee
	// is the mined transaction's fee (wei) while its settlement waits for the deposit (relay.go).
	relayHeld bool
	relayFee  string
	// legFee is a refund leg's own cost (DepositRefundInput.LegFee), kept out of its refund.
	legFee string
	// filling is set before the fill is first signed: from then on nothing may be refunded by
	// hand, because the fill could still land.
	filling bool
	// refunding is set while a refund is being sent or once it has been.
	refunding bool
	// reserved is set while the request holds a sponsorship reservation (sponsorship.go).
	reserved bool
	// tiered is set (an Intent's attest phase) when the deposit may be relied on at its value's
	// tier; hold is the deposit's share of its chain's exposure as the attestation left it, and
	// exposed is set while the request holds it (exposure.go).
	tiered  bool
	hold    *activities.ExposureResult
	exposed bool
	// adminPending is set when an adminRefund update is accepted; admin is its request once
	// the audit row is written, adminDone its outcome.
	adminPending bool
	admin        *adminRequest
	adminDone    *adminOutcome

	// watchingDuplicates is set once extra deposits are refunded as DepositRefund children;
	// refundChildren are those started, startingChildren those not yet confirmed started.
	watchingDuplicates bool
	refundChildren     map[string]bool
	startingChildren   int

	// Facts for the record that every write carries: the oracle's attestation of the deposit,
	// and a fill that was mined and reverted. moreTxs are transactions the next write records
	// besides its own (the attempts of a fill that did not land).
	attestation *intent.Attestation
	failedFill  *intent.FailedTx
	moreTxs     []intent.Tx
	// blocked are the addresses screening found on the blocklist: the depositor as its deposit
	// was attested, or the recipient or depositor as the fill was to be signed. Every write from
	// then on carries them (data.blockedAddresses).
	blocked []string
}

// Intent runs one request: await the deposit, have it attested once confirmed, fill on the
// destination, and record every transition in the read model.
func Intent(ctx workflow.Context, in IntentInput) (*IntentResult, error) {
	r := &intentRun{in: in, state: State{RequestID: in.Execution.RequestID, Status: intent.StatusWaiting, FailReason: intent.FailReasonNA}}
	if err := r.setup(ctx); err != nil {
		return nil, err
	}
	err := r.run(ctx)
	if perr := r.publishAttrs(ctx); err == nil {
		err = perr
	}
	if r.watchingDuplicates {
		r.drainDuplicates(ctx)
	}
	// An adminRefund update still answering its caller finishes before the run closes.
	_ = workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
	return &r.state, err
}

// setup registers the operators' query and update before anything blocks, and reads the run's
// version.
func (r *intentRun) setup(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, QueryState, func() (State, error) { return r.state, nil }); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateAdminRefund, r.onAdminRefund,
		workflow.UpdateHandlerOptions{Validator: r.validateAdminRefund}); err != nil {
		return err
	}
	r.version = readVersion(ctx)
	// The starter set the search attributes (InitialSearchAttributes): status waiting, no
	// failReason. They are upserted again only when they change.
	r.attrs = [2]string{string(intent.StatusWaiting), string(intent.FailReasonNA)}
	r.wantAttrs = r.attrs
	return nil
}

// run is the request's lifecycle: fund (the deposit), attest (its confirmations and checks), pay
// (the fill). A phase that cannot go on ends the request itself, in failure or with a refund
// (refund.go), and reports done; the state it leaves is the run's result.
func (r *intentRun) run(ctx workflow.Context) error {
	if done, err := r.fund(ctx); done || err != nil {
		return err
	}
	if done, err := r.attest(ctx); done || err != nil {
		return err
	}
	return r.pay(ctx)
}

// fail ends the request in failure with reason: nothing is paid, so what the request held (a
// sponsorship, its share of the exposure) is given back.
func (r *intentRun) fail(ctx workflow.Context, reason intent.FailReason) error {
	r.releaseSponsorship(ctx)
	r.relayEnded(ctx)
	r.releaseExposure(ctx)
	return r.write(ctx, intent.StatusFailure, reason.ForStatus(intent.StatusFailure))
}
