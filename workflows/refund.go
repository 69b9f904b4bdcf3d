package workflows

import (
	"fmt"
	"math/big"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/intentd/intentd/activities"
	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
)

// refund pays the deposit back on the chain it was made on, to refundTo (the depositor, who
// paid, when the quote named none: payer), and ends the request in status refund with reason. A refund the
// workflow cannot make ends in failure with the refundFailReason recorded; unless it is worth
// less than its gas, the request then waits for an operator's adminRefund.
func (r *intentRun) refund(ctx workflow.Context, reason intent.FailReason) error {
	recipient := r.in.Execution.RefundTo
	r.refunding = true
	r.state.FailReason = reason
	r.releaseSponsorship(ctx)
	r.relayEnded(ctx)
	if noAutomaticRefund(r.in.Execution) {
		// An open deposit address quoted without refundTo: no refund is made by itself (not to
		// the payer either); the deposit waits in the depository for an operator's adminRefund.
		r.state.RefundFailReason = intent.RefundFailReasonManualRefundRequired
		if err := r.write(ctx, intent.StatusFailure, reason); err != nil {
			return err
		}
		return r.awaitOperator(ctx)
	}
	if intent.IsZeroAddress(recipient) {
		recipient = r.payer()
	}
	tx, err := r.payRefund(ctx, intent.TxKindRefund, recipient)
	if err == nil {
		return r.write(ctx, intent.StatusRefund, reason, tx)
	}
	r.state.RefundFailReason = refundReasonOf(err)
	workflow.GetLogger(ctx).Warn("refund not made", "requestId", r.in.Execution.RequestID, "refundFailReason",
		r.state.RefundFailReason, "error", err)
	if err := r.write(ctx, intent.StatusFailure, reason); err != nil {
		return err
	}
	// A refund that could not be priced is not known to be worth less than its gas: it waits
	// for an operator like one the chain refused.
	if r.state.RefundFailReason == intent.RefundFailReasonAmountTooLowToRefund && !unpriced(err) {
		return nil
	}
	return r.awaitOperator(ctx)
}

// payRefund sends a refund of the deposit and waits for it to be mined. It returns the refund
// transaction for the read model, or an error whose type is the refundFailReason. Every refund
// of a run, automatic or manual, pays under the deposit's withdrawal id, the one the oracle's
// withdrawal authorizations name, so a deposit is never refunded twice.
func (r *intentRun) payRefund(ctx workflow.Context, kind intent.TxKind, recipient string) (intent.Tx, error) {
	dep, ex := r.state.Deposit, r.in.Execution
	var sub activities.RefundSubmitted
	amount, err := r.refundAmount()
	if err != nil {
		return intent.Tx{}, err
	}
	if err := r.publishAttrs(ctx); err != nil {
		return intent.Tx{}, err
	}
	in := activities.RefundInput{
		RequestID: ex.RequestID, Kind: kind, ChainID: dep.ChainID, Family: chains.VMType(dep.Family), Currency: dep.Currency, Recipient: recipient, Amount: amount,
		DepositTx: dep.TxHash, DepositLogIndex: dep.LogIndex,
	}
	err = workflow.ExecuteActivity(r.sendingActivity(ctx), chainActs.SubmitRefund, in).Get(ctx, &sub)
	if err != nil {
		return intent.Tx{}, err
	}
	r.state.RefundTx = sub.TxHash
	var inc activities.TxIncluded
	if err := workflow.ExecuteActivity(waitingActivity(ctx, defaultWaitTimeout), chainActs.AwaitTx, activities.AwaitTxInput{
		RequestID: ex.RequestID, Kind: kind, ChainID: dep.ChainID, Family: chains.VMType(dep.Family), TxHash: sub.TxHash,
	}).Get(ctx, &inc); err != nil {
		return intent.Tx{}, temporal.NewNonRetryableApplicationError("the refund was not mined",
			string(intent.RefundFailReasonManualRefundRequired), err)
	}
	if inc.Voided {
		return intent.Tx{}, temporal.NewNonRetryableApplicationError("the refund was signed for a chain that has since been reset",
			string(intent.RefundFailReasonManualRefundRequired), nil)
	}
	if !inc.Success {
		return intent.Tx{}, temporal.NewNonRetryableApplicationError("the refund reverted on chain",
			string(intent.RefundFailReasonManualRefundRequired), nil)
	}
	return intent.Tx{Direction: intent.TxOut, Kind: kind, ChainID: dep.ChainID, Hash: sub.TxHash, LogIndex: -1, Block: inc.Block,
		Timestamp: inc.Timestamp, Fee: inc.Fee}, nil
}

// refundAmount is what a refund of the deposit pays: all of it, or for a refund leg the payment
// less the leg's fee (its sweep and refund gas, priced when it was routed: DepositRefundInput.LegFee),
// automatic or an operator's alike, since the sweep's gas is spent either way. A fee that leaves
// nothing is NEGATIVE_NEW_AMOUNT_AFTER_FEES (the scanner routes no such payment, so it is a
// fee that cannot be read).
func (r *intentRun) refundAmount() (string, error) {
	amount := r.state.Deposit.Amount
	if r.legFee == "" {
		return amount, nil
	}
	paid, ok1 := new(big.Int).SetString(amount, 10)
	fee, ok2 := new(big.Int).SetString(r.legFee, 10)
	if !ok1 || !ok2 || fee.Sign() < 0 || paid.Cmp(fee) <= 0 {
		return "", temporal.NewNonRetryableApplicationError(fmt.Sprintf("the refund leg's fee %s leaves nothing of %s", r.legFee, amount),
			string(intent.RefundFailReasonNegativeNewAmountAfterFees), nil)
	}
	return paid.Sub(paid, fee).String(), nil
}

// blockedWallet ends a run whose depositor, recipient or both screening found on the blocklist
// (r.blocked): failure with BLOCKED_WALLET and the addresses on the record
// (data.blockedAddresses), nothing filled and nothing refunded on its own. The refund leg needs
// an operator (refundFailReason MANUAL_REFUND_REQUIRED, counted by
// intentd_refunds_awaiting_operator): the request waits for an adminRefund, whose recipient is
// screened again before anything is signed (the depositor by default; an operator names another).
func (r *intentRun) blockedWallet(ctx workflow.Context) error {
	r.releaseSponsorship(ctx)
	r.releaseExposure(ctx) // nothing is paid against the deposit
	r.state.RefundFailReason = intent.RefundFailReasonManualRefundRequired
	workflow.GetLogger(ctx).Warn("blocked by screening: waiting for an operator", "requestId", r.in.Execution.RequestID,
		"blocked", r.blocked)
	if err := r.write(ctx, intent.StatusFailure, intent.FailReasonBlockedWallet); err != nil {
		return err
	}
	return r.awaitOperator(ctx)
}

// noAutomaticRefund reports whether the request's quote disabled its automatic refund: an open
// deposit address quoted without refundTo (docs/deposit-addresses.md). The zero address is a
// refundTo (refund the payer); only an absent one disables it.
func noAutomaticRefund(ex intent.Execution) bool {
	return ex.DepositAddress != nil && ex.DepositAddress.Type == intent.DepositAddressOpen && ex.RefundTo == ""
}
