// Package deposits finds deposits on chain and hands each to its request's Intent workflow. The
// Scanner reads the depository's events from a block cursor kept in Postgres; the Router maps a
// deposit's order id to its request and signal-with-starts the workflow, which is also what a
// client's transaction hint (POST /transactions/index) uses to speed detection up.
package deposits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/workflows"
)

// Starter is the Temporal calls the router makes.
type Starter interface {
	SignalWithStartWorkflow(ctx context.Context, workflowID string, signalName string, signalArg interface{},
		options client.StartWorkflowOptions, workflow interface{}, workflowArgs ...interface{}) (client.WorkflowRun, error)
	ExecuteWorkflow(ctx context.Context, options client.StartWorkflowOptions, workflow interface{}, args ...interface{}) (client.WorkflowRun, error)
}

// Router routes deposits to workflows.
type Router struct {
	Store    *store.Store
	Temporal Starter
	Chains   *evm.Pool
	// Policy is handed to every intent the router starts.
	Policy workflows.Policy
	Logger *slog.Logger
}

// Route hands one deposit to its request's workflow, starting it if needed. No deposit is left
// behind: a deposit for an unknown order is refunded as an orphaned deposit, and a deposit for
// a request whose workflow has closed is refunded as a duplicate unless it is that request's own
// deposit (a rescan or a client's hint); an open workflow refunds extra deposits itself.
func (r *Router) Route(ctx context.Context, d evm.Deposit) error {
	sig := workflows.Deposit{ChainID: d.ChainID, TxHash: d.TxHash.Hex(), LogIndex: d.LogIndex, BlockNumber: d.BlockNumber,
		BlockHash: d.BlockHash.Hex(), OrderID: d.OrderID.Hex(), Depositor: d.Depositor.Hex(), Currency: d.Currency.Hex(),
		Amount: d.Amount.String()}
	q, err := r.Store.QuoteByOrderID(ctx, d.OrderID.Hex())
	if errors.Is(err, store.ErrNotFound) {
		r.Logger.Warn("deposit for an unknown order: refunding it", "chainId", d.ChainID, "tx", d.TxHash.Hex(), "orderId", d.OrderID.Hex())
		return r.startRefund(ctx, workflows.NewDepositRefund(sig, "", "", r.Policy))
	}
	if err != nil {
		return err
	}
	var exec intent.Execution
	if err := json.Unmarshal(q.Quote, &exec); err != nil {
		return fmt.Errorf("quote of %s: %w", q.RequestID, err)
	}
	_, err = r.Temporal.SignalWithStartWorkflow(ctx, workflows.IntentWorkflowID(q.RequestID), workflows.SignalDeposit, sig,
		client.StartWorkflowOptions{
			TaskQueue:             workflows.TaskQueue,
			WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
			TypedSearchAttributes: workflows.InitialSearchAttributes(exec, q.APIKeyID),
		}, workflows.Intent, workflows.IntentInput{Execution: exec, APIKeyID: q.APIKeyID, Policy: r.Policy})
	var already *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &already) {
		st, err := r.Store.Status(ctx, q.RequestID)
		if err != nil {
			return fmt.Errorf("status of closed request %s: %w", q.RequestID, err)
		}
		if slices.ContainsFunc(st.InTxHashes, func(h string) bool { return strings.EqualFold(h, sig.TxHash) }) {
			r.Logger.Debug("deposit of a closed request seen again", "requestId", q.RequestID, "tx", sig.TxHash)
			return nil
		}
		r.Logger.Warn("another deposit for a closed request: refunding it", "requestId", q.RequestID, "tx", sig.TxHash)
		return r.startRefund(ctx, workflows.NewDepositRefund(sig, q.RequestID, exec.RefundTo, r.Policy))
	}
	if err != nil {
		return fmt.Errorf("signal-with-start %s: %w", q.RequestID, err)
	}
	r.Logger.Info("deposit routed", "requestId", q.RequestID, "chainId", d.ChainID, "tx", d.TxHash.Hex())
	return nil
}

// startRefund starts the DepositRefund of one deposit, once: its workflow id derives from the
// deposit, so a deposit routed again finds it started.
func (r *Router) startRefund(ctx context.Context, in workflows.DepositRefundInput) error {
	_, err := r.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
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
	r.Logger.Info("refund request started", "refundRequestId", in.RequestID, "parent", in.ParentRequestID, "tx", in.Deposit.TxHash)
	return nil
}

// ErrNotMined is returned for a hinted transaction that has no receipt yet; the scanner will
// find it once it is mined.
var ErrNotMined = errors.New("transaction is not mined yet")

// IndexTransaction routes the deposits of one transaction a client reported.
func (r *Router) IndexTransaction(ctx context.Context, chainID uint64, tx common.Hash) (int, error) {
	c, err := r.Chains.Client(chainID)
	if err != nil {
		return 0, err
	}
	deps, err := c.DepositsInTx(ctx, tx)
	if err != nil {
		if errors.Is(err, evm.ErrUnavailable) {
			return 0, err
		}
		return 0, ErrNotMined
	}
	for _, d := range deps {
		if err := r.Route(ctx, d); err != nil {
			return 0, err
		}
	}
	return len(deps), nil
}

// Scanner follows every enabled chain's depository from the stored cursor.
type Scanner struct {
	Chains   *evm.Pool
	Store    *store.Store
	Router   *Router
	Interval time.Duration // poll period; about one block
	MaxRange uint64        // blocks per log query
	Logger   *slog.Logger
}

// Run scans until ctx ends, one goroutine per chain.
func (s *Scanner) Run(ctx context.Context) {
	done := make(chan struct{})
	chains := s.Chains.Registry().Enabled()
	for _, ch := range chains {
		go func(id uint64) {
			defer func() { done <- struct{}{} }()
			s.follow(ctx, id)
		}(ch.ID)
	}
	for range chains {
		<-done
	}
}

func (s *Scanner) follow(ctx context.Context, chainID uint64) {
	interval := s.Interval
	if interval <= 0 {
		interval = time.Second
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := s.ScanOnce(ctx, chainID); err != nil && ctx.Err() == nil {
			s.Logger.Warn("deposit scan failed; retrying", "chainId", chainID, "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// ScanOnce routes the deposits between the cursor and the head and advances the cursor. The
// cursor only moves after every deposit up to it was routed, so a crash re-routes, never skips.
func (s *Scanner) ScanOnce(ctx context.Context, chainID uint64) error {
	c, err := s.Chains.Client(chainID)
	if err != nil {
		return err
	}
	head, err := c.Head(ctx)
	if err != nil {
		return err
	}
	genesis, err := c.BlockHash(ctx, 0)
	if err != nil {
		return err
	}
	from, err := s.resume(ctx, c, chainID, head, genesis.Hex())
	if err != nil {
		return err
	}
	maxRange := s.MaxRange
	if maxRange == 0 {
		maxRange = 2000
	}
	for from <= head {
		to := min(head, from+maxRange-1)
		// The range's last block is read before and after its logs: if a reorg replaced it in
		// between, the logs may come from the old branch, so the cursor stays and the range is
		// scanned again (routing a deposit twice is harmless).
		hash, err := c.BlockHash(ctx, to)
		if err != nil {
			return err
		}
		deps, err := c.Deposits(ctx, from, to)
		if err != nil {
			return err
		}
		for _, d := range deps {
			if err := s.Router.Route(ctx, d); err != nil {
				return err
			}
		}
		if again, err := c.BlockHash(ctx, to); err != nil {
			return err
		} else if again != hash {
			s.Logger.Warn("reorg during a scan: scanning the range again", "chainId", chainID, "from", from, "to", to)
			return nil
		}
		if err := s.Store.SetCursor(ctx, store.Cursor{ChainID: chainID, GenesisHash: genesis.Hex(), Block: to, BlockHash: hash.Hex()}); err != nil {
			return err
		}
		from = to + 1
	}
	return nil
}

// reorgDepth is how far the scan steps back when the chain no longer has the cursor's block.
// Routing is idempotent, so scanning a block twice is harmless.
const reorgDepth = 64

// resume returns the first block to scan. A cursor whose block the chain no longer has (a reorg)
// steps back reorgDepth blocks; a different genesis, or a head far behind the cursor (a devnet
// that was restarted), starts again from block 0.
func (s *Scanner) resume(ctx context.Context, c *evm.Client, chainID, head uint64, genesis string) (uint64, error) {
	cur, err := s.Store.Cursor(ctx, chainID)
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if cur.GenesisHash != genesis || head+reorgDepth < cur.Block {
		s.Logger.Warn("chain was reset; rescanning from block 0", "chainId", chainID, "cursor", cur.Block, "head", head)
		return 0, nil
	}
	if cur.Block <= head {
		hash, err := c.BlockHash(ctx, cur.Block)
		if err != nil {
			return 0, err
		}
		if hash.Hex() == cur.BlockHash {
			return cur.Block + 1, nil
		}
	}
	back := uint64(0)
	if cur.Block > reorgDepth {
		back = cur.Block - reorgDepth
	}
	s.Logger.Warn("cursor block is no longer canonical; stepping back", "chainId", chainID, "cursor", cur.Block, "from", back)
	return back, nil
}
