package door

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	lru "github.com/hashicorp/golang-lru/v2"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/metrics"
	"github.com/intentd/intentd/internal/sharedread"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/workflows"
)

// Deliver hands one deposit to its request's workflow, starting it with the deposit if there is
// none (one workflow id per request, so the scanner, a client's hint and a retry all land on one
// workflow), signalling it otherwise. No deposit
// is left behind: a deposit for an unknown order is refunded as an orphaned deposit, and a
// deposit for a request whose workflow has closed is refunded as a duplicate unless it is that
// request's own deposit (a rescan or a client's hint); an open workflow refunds extra deposits
// itself.
//
// Two kinds of deposit are not the depository's deposits of an order. A payment that arrived at
// a request's deposit address names its request (RequestID): it is delivered to that request's
// workflow, which sweeps it into the depository, and never refunded here, where it is not in the
// depository. The deposit a sweep made (SweptFrom) reaches its request through the workflow that
// swept it: delivered, it would be a second deposit of the order, and it is skipped.
func (d *Door) Deliver(ctx context.Context, dep intent.Deposit) error {
	if dep.SweptFrom != "" {
		d.logger().Debug("a deposit address's sweep: not delivered", "chainId", dep.ChainID, "tx", dep.TxHash, "address", dep.SweptFrom)
		return nil
	}
	q, err := d.quoteOf(ctx, dep)
	if errors.Is(err, store.ErrNotFound) && dep.RequestID != "" {
		d.logger().Error("a payment at a deposit address for an unknown request: left at the address", "chainId", dep.ChainID,
			"tx", dep.TxHash, "requestId", dep.RequestID)
		return nil
	}
	if errors.Is(err, store.ErrNotFound) {
		d.logger().Warn("deposit for an unknown order: refunding it", "chainId", dep.ChainID, "tx", dep.TxHash, "orderId", dep.OrderID)
		return d.startRefund(ctx, workflows.NewDepositRefund(dep, "", "", d.Policy))
	}
	if err != nil {
		return err
	}
	exec := q.Execution
	// A deposit its workflow already holds is not signalled again (the scanner after a client's
	// hint, a rescan): a signal that reaches a workflow in the middle of its run costs it the
	// run's workflow task, which the server refuses to complete while a new event waits, so the
	// run is done again from its start (its local activities too: a second attestation, its
	// transitions written twice). The check is a read of the read model, which a workflow
	// started a moment ago has not written yet: a second router at that moment finds the
	// deposit in the started workflow's input instead (startedWith, below). A failed read
	// goes on to the start.
	if held, err := d.holds(ctx, q.RequestID, dep); err == nil && held {
		d.logger().Debug("deposit already with its workflow", "requestId", q.RequestID, "tx", dep.TxHash)
		return nil
	}
	// The workflow starts with the deposit in its input, eagerly unless configured otherwise:
	// a worker of this process runs its first workflow task from the start's answer (no trip
	// through matching, one write fewer on the server). A workflow already there takes the
	// deposit as a signal, unless it has closed.
	id := workflows.IntentWorkflowID(q.RequestID)
	_, err = d.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                                       id,
		TaskQueue:                                workflows.TaskQueue,
		WorkflowIDReusePolicy:                    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		WorkflowExecutionErrorWhenAlreadyStarted: true,
		EnableEagerStart:                         d.EagerStart,
		TypedSearchAttributes:                    workflows.InitialSearchAttributes(exec, q.APIKeyID),
	}, workflows.Intent, workflows.IntentInput{Execution: exec, APIKeyID: q.APIKeyID, Policy: d.Policy, Deposit: &dep})
	var already *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &already) {
		// Two routers delivering one deposit at the same moment (a client's hint and the
		// scanner): the workflow one of them started holds it already, before the read model
		// says so, and a signal would cost the run its workflow task.
		if first, err := d.startedWith(ctx, id); err == nil && first != nil && first.SameEvent(dep) {
			d.logger().Debug("deposit started its workflow already", "requestId", q.RequestID, "tx", dep.TxHash)
			return nil
		}
		err = d.Temporal.SignalWorkflow(ctx, id, "", workflows.SignalDeposit, dep)
		var closed *serviceerror.NotFound
		if errors.As(err, &closed) {
			return d.closedRequestDeposit(ctx, q, dep)
		}
		if err != nil {
			return fmt.Errorf("signal deposit %s: %w", q.RequestID, err)
		}
	} else if err != nil {
		return fmt.Errorf("start %s: %w", q.RequestID, err)
	}
	d.logger().Info("deposit routed", "requestId", q.RequestID, "chainId", dep.ChainID, "tx", dep.TxHash)
	return nil
}

// quoteOf is the quote of the request a deposit funds: the one it names, else its order's.
func (d *Door) quoteOf(ctx context.Context, dep intent.Deposit) (*store.StoredQuote, error) {
	if dep.RequestID != "" {
		return d.Requests.QuoteByRequestID(ctx, dep.RequestID)
	}
	return d.Requests.QuoteByOrderID(ctx, dep.OrderID)
}

// startedWith returns the deposit a workflow was started with (nil for a workflow started by a
// signal, before the deposit came in the input): the input of its first event.
func (d *Door) startedWith(ctx context.Context, workflowID string) (*intent.Deposit, error) {
	it := d.Temporal.GetWorkflowHistory(ctx, workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	if !it.HasNext() {
		return nil, nil
	}
	ev, err := it.Next()
	if err != nil {
		return nil, err
	}
	payloads := ev.GetWorkflowExecutionStartedEventAttributes().GetInput().GetPayloads()
	if len(payloads) == 0 {
		return nil, nil
	}
	var in workflows.IntentInput
	if err := converter.GetDefaultDataConverter().FromPayload(payloads[0], &in); err != nil {
		return nil, err
	}
	return in.Deposit, nil
}

// closedRequestDeposit settles a deposit for a request whose workflow has closed: its own
// deposit seen again (a rescan, a client's hint) is nothing to do, any other is refunded as a
// request of its own.
func (d *Door) closedRequestDeposit(ctx context.Context, q *store.StoredQuote, dep intent.Deposit) error {
	held, err := d.holds(ctx, q.RequestID, dep)
	if err != nil {
		return fmt.Errorf("deposits of closed request %s: %w", q.RequestID, err)
	}
	if held {
		d.logger().Debug("deposit of a closed request seen again", "requestId", q.RequestID, "tx", dep.TxHash)
		return nil
	}
	if dep.RequestID != "" {
		// Not in the depository: nothing a refund of it could pay back until it is swept.
		d.logger().Warn("a payment at the deposit address of a closed request: left at the address", "requestId", q.RequestID,
			"chainId", dep.ChainID, "tx", dep.TxHash)
		return nil
	}
	// The refund goes to the request's refundTo only when the request's own depositor paid again.
	parentDepositor := q.Execution.User
	if rec, err := d.Requests.Record(ctx, q.RequestID); err != nil {
		return fmt.Errorf("record of closed request %s: %w", q.RequestID, err)
	} else if pd := rec.Protocol.Deposit; pd != nil && pd.Origin != nil {
		parentDepositor = pd.Origin.Depositor
	}
	refundTo := workflows.ExtraDepositRefundTo(dep, q.Execution.RefundTo, parentDepositor)
	d.logger().Warn("another deposit for a closed request: refunding it", "requestId", q.RequestID, "tx", dep.TxHash)
	return d.startRefund(ctx, workflows.NewDepositRefund(dep, q.RequestID, refundTo, d.Policy))
}

// holds reports whether the request's workflow has taken dep. The status read is shared with
// the reads of the moment (a block's deposits are routed together), and only a request that
// names the deposit's transaction is asked about the deposit itself (its log: one transaction
// can hold two deposits for one order, and the second is an extra one to refund).
func (d *Door) holds(ctx context.Context, requestID string, dep intent.Deposit) (bool, error) {
	st, err := d.Requests.Status(ctx, requestID)
	if err != nil || !slices.ContainsFunc(st.InTxHashes, func(h string) bool { return strings.EqualFold(h, dep.TxHash) }) {
		return false, err
	}
	return d.Requests.HasDeposit(ctx, requestID, dep)
}

// startRefund starts the DepositRefund of one deposit, once: its workflow id derives from the
// deposit, so a deposit delivered again finds it started.
func (d *Door) startRefund(ctx context.Context, in workflows.DepositRefundInput) error {
	_, err := d.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: workflows.IntentWorkflowID(in.RequestID), TaskQueue: workflows.TaskQueue,
		WorkflowIDReusePolicy:                    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		WorkflowExecutionErrorWhenAlreadyStarted: true,
		TypedSearchAttributes:                    workflows.DepositRefundSearchAttributes(in),
	}, workflows.DepositRefund, in)
	var already *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &already) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("start refund request %s: %w", in.RequestID, err)
	}
	d.logger().Info("refund request started", "refundRequestId", in.RequestID, "parent", in.ParentRequestID, "tx", in.Deposit.TxHash)
	return nil
}

// ErrNotMined is returned for a reported transaction that has no receipt yet; the scanner will
// find it once it is mined.
var ErrNotMined = errors.New("transaction is not mined yet")

// ErrInvalidTxID is returned for a reported transaction id that is not one of its chain's
// (chains.Notation.ParseTxID): the error says what the chain's ids look like.
var ErrInvalidTxID = errors.New("invalid transaction id")

// DefaultHintMaxDeposits is how many deposits of one transaction a hint routes
// (HINT_MAX_DEPOSITS): a client's transaction holds one deposit, a batch a few.
const DefaultHintMaxDeposits = 16

// hintMemory is how many hinted transactions a door remembers having routed (about 100 bytes
// each): far more than the hints of the minutes in which the scanner routes them anyway.
const hintMemory = 1 << 16

// hintKey names a hinted transaction: its id in its chain family's canonical form.
type hintKey struct {
	chainID uint64
	tx      string
}

// hintProgress is how far the hints of a transaction routed its deposits: the first routed
// (in log order) were delivered, and done says those were all a hint routes.
type hintProgress struct {
	routed int
	done   bool
}

// IndexTransaction delivers the deposits of one transaction a client reported (POST
// /transactions/index), and returns how many it routed. A hint is anyone's to send, as often as
// the rate limits allow, so what it costs is bounded:
//   - it routes at most HintMaxDeposits deposits of the transaction, in log order; the scanner
//     routes the others when it reaches the block, as it routes every deposit (a hint only
//     makes a deposit's routing earlier);
//   - a transaction it routed is remembered (an LRU of hintMemory transactions): the same hint
//     again is answered from memory, without reading the chain, the database or Temporal; a
//     hint that failed half way (Temporal slow to answer) is remembered as far as it went, and
//     the next one goes on from there;
//   - the same hint arriving while it is routed waits for that routing instead of doing it too.
//
// tx is the transaction's id as its chain family writes it (chains.Notation.ParseTxID: a 0x-hex
// hash on EVM chains, in any case): ErrInvalidTxID when it is not one, an error wrapping
// chains.ErrUnknownChain for a chain the registry does not have or has disabled.
func (d *Door) IndexTransaction(ctx context.Context, chainID uint64, tx string) (int, error) {
	if d.Chains == nil {
		return 0, errors.New("indexing transactions is not configured")
	}
	ch, err := d.Chains.Registry().Get(chainID)
	if err != nil {
		return 0, err
	}
	id, err := ch.Notation().ParseTxID(tx)
	if err != nil {
		return 0, fmt.Errorf("%w: %q %v", ErrInvalidTxID, tx, err)
	}
	key := hintKey{chainID, id}
	if p, ok := d.routedHints().Get(key); ok && p.done {
		metrics.TransactionHints.WithLabelValues("remembered").Inc()
		return p.routed, nil
	}
	return sharedread.Do(ctx, &d.hintReads, fmt.Sprintf("%d:%s", chainID, id), 0, func(ctx context.Context) (int, error) {
		return d.indexTransaction(ctx, key)
	})
}

// indexTransaction routes a hinted transaction's deposits, at most HintMaxDeposits of them, from
// where an earlier hint of it stopped, and remembers how far it went.
func (d *Door) indexTransaction(ctx context.Context, key hintKey) (int, error) {
	p, _ := d.routedHints().Get(key)
	if p.done { // routed while this one waited for its turn
		return p.routed, nil
	}
	if ch, err := d.Chains.Registry().Get(key.chainID); err != nil {
		return 0, err
	} else if ch.Disabled {
		return 0, fmt.Errorf("%w: chain %d is disabled", chains.ErrUnknownChain, key.chainID)
	}
	c, err := chains.Capability[chains.DepositReader](d.Chains, key.chainID)
	if err != nil {
		return 0, err
	}
	deps, err := c.DepositsInTx(ctx, key.tx)
	if errors.Is(err, chains.ErrNotFound) {
		return 0, ErrNotMined
	}
	if err != nil {
		return 0, err
	}
	outcome := "routed"
	if limit := d.hintMaxDeposits(); len(deps) > limit {
		d.logger().Info("transaction hint capped: the scanner routes the other deposits", "chainId", key.chainID,
			"tx", key.tx, "deposits", len(deps), "routed", limit)
		deps, outcome = deps[:limit], "capped"
	}
	for i := min(p.routed, len(deps)); i < len(deps); i++ {
		if err := d.Deliver(ctx, deps[i]); err != nil {
			d.routedHints().Add(key, hintProgress{routed: i})
			return 0, err
		}
	}
	d.routedHints().Add(key, hintProgress{routed: len(deps), done: true})
	metrics.TransactionHints.WithLabelValues(outcome).Inc()
	return len(deps), nil
}

func (d *Door) hintMaxDeposits() int {
	if d.HintMaxDeposits > 0 {
		return d.HintMaxDeposits
	}
	return DefaultHintMaxDeposits
}

// routedHints is the door's memory of the transactions its hints routed.
func (d *Door) routedHints() *lru.Cache[hintKey, hintProgress] {
	d.hintsOnce.Do(func() { d.hints, _ = lru.New[hintKey, hintProgress](hintMemory) }) // only a size below 1 fails
	return d.hints
}
