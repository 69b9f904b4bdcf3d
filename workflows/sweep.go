package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/intentd/intentd/activities"
	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
)

// Requests funded by a deposit address (intent.FundingDepositAddress, docs/deposit-addresses.md,
// "Watching and sweeping"). The scanner sees a payment arrive at the request's address and
// delivers it as a deposit that names the request (intent.Deposit.RequestID). It is not in the
// depository yet, so nothing can attest or refund it as it is: the fund phase has the origin's
// family sweep the address into the depository under the address's order id and depositor
// (chains.Sweeper), signed by the solver once and kept before it is broadcast, waits for the
// sweep to be mined and takes the depository's Deposit event it made as the request's deposit.
// The attestation, the checks against the order, the fill and any refund use that deposit, as
// for a deposit made to the depository directly.

// arrived reports whether the run's deposit d is a payment that arrived at the request's deposit
// address, to sweep before anything else (version depositAddresses on).
func (r *intentRun) arrived(d intent.Deposit) bool {
	return r.hasMinVersion(depositAddresses) && d.RequestID != ""
}

// otherArrival reports whether d, delivered after the run's first deposit, is a payment at the
// deposit address rather than a deposit in the depository: the first payment again (its sweep
// made the run's deposit), or a later one, which the watcher does not route to a request it
// funded already (docs/deposit-addresses.md, "Watching and sweeping"). Neither is an
// extra deposit to refund: it is not in the depository.
func (r *intentRun) otherArrival(ctx workflow.Context, d intent.Deposit) bool {
	if !r.hasMinVersion(depositAddresses) || d.RequestID == "" {
		return false
	}
	if a := r.state.Arrival; a == nil || !d.SameEvent(*a) {
		workflow.GetLogger(ctx).Warn("another payment at the deposit address: not refunded as an extra deposit", "requestId",
			r.in.Execution.RequestID, "chainId", d.ChainID, "tx", d.TxHash)
	}
	return true
}

// payer is who paid the request's deposit: the sender of the payment that arrived at its deposit
// address, else the deposit's depositor. The sweep's deposit names the address's depositor (its
// salt), who is not who paid: the fill screens the payer, and a refund to the zero address
// (refund the depositor) pays the payer back.
func (r *intentRun) payer() string {
	if a := r.state.Arrival; a != nil {
		return a.Depositor
	}
	return r.state.Deposit.Depositor
}

// sweep sweeps the payment that arrived at the request's deposit address into the depository
// and makes the sweep's deposit the request's; the payment and the sweep are both incoming
// transactions of the request (the sweep's recorded with the next write). A sweep that cannot
// be made or that moved nothing ends the request in failure: the payment is still at the
// address, or in the depository under the address's order, for an operator or a reindex.
func (r *intentRun) sweep(ctx workflow.Context) (done bool, err error) {
	arrival := *r.state.Deposit
	r.state.Arrival = &arrival
	ex := r.in.Execution
	da := ex.DepositAddress
	if da == nil {
		workflow.GetLogger(ctx).Error("a payment at a deposit address for a request funded otherwise", "requestId", ex.RequestID,
			"tx", arrival.TxHash)
		return true, r.fail(ctx, intent.FailReasonUnknown)
	}
	in := activities.SweepInput{RequestID: ex.RequestID, ChainID: arrival.ChainID, Family: chains.VMType(arrival.Family),
		Address: da.Address, OrderID: da.OrderID, Depositor: da.Depositor, Currency: arrival.Currency, Amount: arrival.Amount}
	sent, done, err := r.sendSweep(ctx, in)
	if done || err != nil {
		return true, err
	}
	swept, err := r.awaitSweep(ctx, in, sent)
	if err != nil {
		return true, err
	}
	inc := swept.Included
	if swept.Deposit == nil {
		workflow.GetLogger(ctx).Error("the sweep moved nothing into the depository", "requestId", ex.RequestID, "sweep", inc.Hash,
			"success", inc.Success, "cancel", inc.Cancel, "voided", inc.Voided)
		if inc.Hash != "" {
			r.moreTxs = append(r.moreTxs, sweepTx(arrival.ChainID, inc, intent.TxFailure, 0))
		}
		reason := intent.FailReasonUnknown
		if inc.Hash != "" && !inc.Success && !inc.Cancel && !inc.Voided {
			reason = intent.FailReasonTransactionReverted
		}
		return true, r.fail(ctx, reason)
	}
	dep := *swept.Deposit
	r.state.Deposit = &dep
	r.moreTxs = append(r.moreTxs, sweepTx(dep.ChainID, inc, intent.TxSuccess, int(dep.LogIndex)))
	return false, nil
}

// sendSweep signs and broadcasts the sweep (a local activity: SweepDepositAddress is
// idempotent, a retry broadcasts the kept sweep again). A sweep refused before it was signed
// ends the request in failure; one the chain or the signer stayed unavailable for through every
// attempt is waited for when it was signed all the same, since it may have reached a node.
func (r *intentRun) sendSweep(ctx workflow.Context, in activities.SweepInput) (sent activities.SweepSent, done bool, err error) {
	err = workflow.ExecuteLocalActivity(r.sendingLocalActivity(ctx), chainActs.SweepDepositAddress, in).Get(ctx, &sent)
	if err == nil {
		return sent, false, nil
	}
	if isNonRetryable(err) {
		workflow.GetLogger(ctx).Error("sweep refused", "requestId", in.RequestID, "error", err)
		return sent, true, r.fail(ctx, reasonOf(err))
	}
	var stored activities.StoredTx
	if err := workflow.ExecuteActivity(r.sendingActivity(ctx), chainActs.StoredSolverTx, activities.StoredTxInput{
		RequestID: in.RequestID, Kind: intent.TxKindSweep}).Get(ctx, &stored); err != nil {
		return sent, true, fmt.Errorf("stored sweep: %w", err)
	}
	if !stored.Found {
		workflow.GetLogger(ctx).Error("sweep not signed after every attempt", "requestId", in.RequestID, "error", err)
		return sent, true, r.fail(ctx, intent.FailReasonTransactionSubmissionFailed)
	}
	return activities.SweepSent{TxHash: stored.Hash}, false, nil
}

// awaitSweep waits for one attempt of the sweep to be mined and reads the deposit it made.
// Each time FillBumpAfter passes without one, the family replaces the sweep by its policy, as a
// fill's (EVM: the same nonce at higher fees, after FillMaxBumps a cancellation, which sweeps
// nothing and leaves the payment at the address); once the family answers that its replacement
// was the last, the wait goes on until an attempt is mined.
func (r *intentRun) awaitSweep(ctx workflow.Context, in activities.SweepInput, sent activities.SweepSent) (*activities.Swept, error) {
	policy := r.in.Policy.WithDefaults()
	attempt, final := 0, false
	for {
		var swept activities.Swept
		err := r.wait(ctx, policy.FillBumpAfter, chainActs.AwaitSweep, activities.AwaitSweepInput{Sweep: in, TxHash: sent.TxHash}, &swept)
		if err == nil {
			return &swept, nil
		}
		if !isTimeout(err) {
			return nil, fmt.Errorf("await sweep: %w", err)
		}
		if final {
			continue
		}
		if err := r.publishAttrs(ctx); err != nil {
			return nil, err
		}
		var rep activities.Replaced
		if err := workflow.ExecuteActivity(r.sendingActivity(ctx), chainActs.ReplaceTx, activities.ReplaceInput{
			RequestID: in.RequestID, Kind: intent.TxKindSweep, ChainID: in.ChainID, Family: in.Family, After: attempt,
			MaxBumps: policy.FillMaxBumps,
		}).Get(ctx, &rep); err != nil {
			workflow.GetLogger(ctx).Warn("sweep not replaced", "requestId", in.RequestID, "attempt", attempt, "error", err)
			continue
		}
		attempt, final = rep.Attempt, rep.Final
	}
}

// sweptPayment is, for d the deposit the run's sweep made (version sweptPaymentDepth on), the
// payment it moved, which its attestation counts the deposit's confirmations from
// (docs/deposit-addresses.md, "Confirmations of a sweep's deposit"); nil for any other deposit.
func (r *intentRun) sweptPayment(d *intent.Deposit) *activities.SweptPayment {
	a := r.state.Arrival
	if !r.hasMinVersion(sweptPaymentDepth) || a == nil || d == nil || d != r.state.Deposit || d.SameEvent(*a) ||
		a.ChainID != d.ChainID || a.TxHash == "" {
		return nil
	}
	return &activities.SweptPayment{TxHash: a.TxHash, BlockNumber: a.BlockNumber, BlockHash: a.BlockHash}
}

// sweepTx is the mined sweep as an incoming transaction of the request: the transaction whose
// Deposit event (at logIndex) is the request's deposit.
func sweepTx(chainID uint64, inc activities.TxIncluded, status intent.TxStatus, logIndex int) intent.Tx {
	return intent.Tx{Direction: intent.TxIn, Kind: intent.TxKindDeposit, ChainID: chainID, Hash: inc.Hash, LogIndex: logIndex,
		Block: inc.Block, Timestamp: inc.Timestamp, Fee: inc.Fee, Status: status}
}
