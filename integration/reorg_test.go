package integration

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/testkit/e2e"
	"github.com/intentd/intentd/workflows"
)

// The spec's rule: a deposit that disappears in a reorg before its confirmations ends in
// failure with DEPOSIT_REORGED and is never filled (nor refunded: nothing was deposited). The
// origin chain is paused so the deposit, mined in one block, stays below its confirmations;
// once the engine has seen it, a reorg of the simulated backend replaces its block and gives
// its nonce to another transaction, so it can never come back, and the chain goes on.
func TestDepositReorged(t *testing.T) {
	s := startStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	origin := s.Devnet.Chain(31337)
	acct := devnet.TestAccounts()[4]
	recipient := devnet.TestAccounts()[9].Address
	wallet := &e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}
	cl, err := origin.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	depositoryBefore := s.balance(t, 31337, common.Address{}, devnet.DepositoryAddress)

	q, err := s.API.Quote(ctx, map[string]any{"user": acct.Address.Hex(), "recipient": recipient.Hex(),
		"originChainId": 31337, "destinationChainId": 31338, "originCurrency": common.Address{}.Hex(),
		"destinationCurrency": common.Address{}.Hex(), "amount": "1000000000000000000", "tradeType": "EXACT_INPUT",
		"includeProtocolData": true})
	if err != nil {
		t.Fatal(err)
	}
	orderID := common.HexToHash(q.Protocol.V2.OrderID)

	origin.Pause()
	t.Cleanup(origin.Resume)
	deposit := depositInOneBlock(t, ctx, origin, cl, wallet, q)
	t.Logf("deposit %s in block %d (%s)", deposit.TxHash.Hex(), deposit.BlockNumber, deposit.BlockHash.Hex())

	// The engine has the deposit: the request shows it, and the attestation is waiting for
	// its confirmations and has seen it on chain (its heartbeat holds the block).
	seenAt := time.Now()
	for {
		st, _, err := s.API.Status(ctx, q.RequestID)
		if err == nil && st.Status == "waiting" && len(st.InTxHashes) == 1 && strings.EqualFold(st.InTxHashes[0], deposit.TxHash.Hex()) {
			break
		}
		if err == nil && st.Status != "waiting" {
			t.Fatalf("status %+v before the reorg", st)
		}
		sleep(t, ctx, 50*time.Millisecond)
	}
	awaitAttestationSawDeposit(t, ctx, s, q.RequestID)
	t.Logf("engine saw the deposit %s after it was mined", time.Since(seenAt).Round(time.Millisecond))

	reorged, err := origin.DropTx(ctx, deposit.TxHash)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("reorg: %d block(s) from %d replaced, new head %d; the deposit's nonce went to %s", len(reorged.Orphaned),
		reorged.Ancestor.Number.Uint64()+1, reorged.Head.Number.Uint64(), reorged.Replacements[deposit.TxHash].Hex())
	if _, err := cl.TransactionReceipt(ctx, deposit.TxHash); err != ethereum.NotFound {
		t.Fatalf("deposit receipt after the reorg: %v", err)
	}
	origin.Resume()

	reorgedAt := time.Now()
	final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("final status %s/%s %s after the reorg (seen %v)", final.Status, final.FailReason, time.Since(reorgedAt).Round(time.Millisecond), seen)
	if final.Status != "failure" || final.FailReason != string(intent.FailReasonDepositReorged) || final.RefundFailReason != "N/A" {
		t.Fatalf("final status %+v (seen %v), want failure with %s", final, seen, intent.FailReasonDepositReorged)
	}
	for _, st := range seen {
		if st != "waiting" && st != "failure" {
			t.Fatalf("statuses %v: the request went on with a reorged deposit", seen)
		}
	}

	// Never filled, nothing refunded, and the depository holds what it held.
	if n := s.fills(t, 31338, orderID); n != 0 {
		t.Fatalf("order filled %d times", n)
	}
	if n := depositoryWithdrawals(t, ctx, cl); n != 0 {
		t.Fatalf("%d withdrawals (refunds) on the origin chain", n)
	}
	if got := s.balance(t, 31337, common.Address{}, devnet.DepositoryAddress); got.Cmp(depositoryBefore) != 0 {
		t.Fatalf("depository holds %s, held %s before the deposit", got, depositoryBefore)
	}
}

// depositInOneBlock makes the quote's deposit from w on the paused origin chain and seals a
// block once the node's pool holds it (until it is in one: no empty block before it), and not
// one block more, so it keeps a single confirmation and the chain's head moves by one.
func depositInOneBlock(t *testing.T, ctx context.Context, origin *devnet.Chain, cl *ethclient.Client, w *e2e.Wallet,
	q *quote.Response) *types.Receipt {
	t.Helper()
	nonce, err := cl.NonceAt(ctx, w.Address(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		r   *types.Receipt
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := w.ExecuteSteps(ctx, q) // one step for ETH: the deposit; returns with its receipt
		done <- result{r, err}
	}()
	for {
		pending, err := cl.PendingNonceAt(ctx, w.Address())
		if err != nil {
			t.Fatal(err)
		}
		if pending > nonce {
			origin.Mine()
			n, err := cl.NonceAt(ctx, w.Address(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if n > nonce {
				break
			}
		}
		sleep(t, ctx, 10*time.Millisecond)
	}
	res := <-done
	if res.err != nil {
		t.Fatal(res.err)
	}
	head, err := cl.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if head != res.r.BlockNumber.Uint64() {
		t.Fatalf("deposit in block %d, head %d: it has more than one confirmation", res.r.BlockNumber, head)
	}
	return res.r
}

// depositoryWithdrawals counts every Withdrawal event of the depository on a chain.
func depositoryWithdrawals(t *testing.T, ctx context.Context, cl *ethclient.Client) int {
	t.Helper()
	logs, err := cl.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: big.NewInt(0), Addresses: []common.Address{devnet.DepositoryAddress},
		Topics: [][]common.Hash{{evm.DepositoryABI.GetABI().Events["Withdrawal"].ID}}})
	if err != nil {
		t.Fatal(err)
	}
	return len(logs)
}

// awaitAttestationSawDeposit waits until the request's AttestDeposit activity has found the
// deposit on chain, which its heartbeat details record.
func awaitAttestationSawDeposit(t *testing.T, ctx context.Context, s *stack, requestID string) {
	t.Helper()
	for {
		desc, err := s.Sys.Temporal.DescribeWorkflowExecution(ctx, workflows.IntentWorkflowID(requestID), "")
		if err == nil {
			for _, pa := range desc.GetPendingActivities() {
				if pa.GetActivityType().GetName() == "AttestDeposit" && len(pa.GetHeartbeatDetails().GetPayloads()) > 0 {
					return
				}
			}
		}
		sleep(t, ctx, 50*time.Millisecond)
	}
}

func sleep(t *testing.T, ctx context.Context, d time.Duration) {
	t.Helper()
	select {
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	case <-time.After(d):
	}
}
