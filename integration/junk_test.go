package integration

import (
	"context"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/chains/evm/bindings"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/quote"
	"github.com/intentd/intentd/testkit/e2e"
)

// junkDeposits is how many deposits of a worthless token the attack sends in one transaction.
const junkDeposits = 200

// Issue 33, point 1 (review H1): "anyone can deploy an ERC-20 whose transfer burns gas and send
// one transaction with thousands of depositErc20(randomOrderId, junk, 1) calls; each becomes an
// orphan DepositRefund that the oracles attest and the worker pays ... until the solver's native
// balance is gone. Make it impossible". A gas-burning token (GasBurnerToken: its transfer, which
// a refund calls, burns two million gas) is deposited 200 times in ONE transaction
// (DepositBatcher). The solver's native balance and nonce do not move: the bounded amount the
// attack costs the solver is zero. Each deposit is recorded for an operator: its request ends
// in failure with MANUAL_REFUND_REQUIRED, a row of refund_holds, counted by
// intentd_refunds_held_total, and findable in the Temporal Web UI with RefundHold =
// "UNLISTED_CURRENCY"; none is attested, so the oracles sign nothing for them. An operator's
// refund of one is the moment it is attested, and its refund is refused before anything is
// signed (its gas is over the ERC-20 ceiling): the solver still pays nothing.
//
// The same stack shows the orphan refund budget (ORPHAN_REFUND_BUDGET=1/24h here): "past which
// they wait for an operator". A depositor's first orphaned ETH deposit is refunded, its second
// waits (REFUND_BUDGET_EXCEEDED) until an operator refunds it.
func TestJunkDepositsCostTheSolverNothingAndWaitForAnOperator(t *testing.T) {
	s := startStack(t, map[string]string{"ORPHAN_REFUND_BUDGET": "1/24h"})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	admin := s.Admin
	attacker := &e2e.Wallet{Key: devnet.TestAccounts()[9].Key, RPCs: s.RPCs}
	burner, err := attacker.Deploy(ctx, 31337, &bindings.GasBurnerTokenMetaData, bindings.NewGasBurnerToken().PackConstructor(big.NewInt(2_000_000)))
	if err != nil {
		t.Fatal(err)
	}
	batcher, err := attacker.Deploy(ctx, 31337, &bindings.DepositBatcherMetaData, nil)
	if err != nil {
		t.Fatal(err)
	}
	solver := devnet.SolverAddress()
	balanceBefore, nonceBefore := s.balance(t, 31337, common.Address{}, solver), s.solverNonce(t, 31337)
	before := scrape(t)

	r, err := attacker.SendTx(ctx, quote.TxData{ChainID: 31337, To: batcher.Hex(), Value: "0", Data: hexutil.Encode(
		bindings.NewDepositBatcher().PackDepositMany(devnet.DepositoryAddress, burner, big.NewInt(junkDeposits), crypto.Keccak256Hash([]byte(t.Name()))))})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, l := range r.Logs {
		if l.Address == devnet.DepositoryAddress {
			ids = append(ids, intent.DepositRefundRequestID(31337, r.TxHash.Hex(), l.Index))
		}
	}
	if len(ids) != junkDeposits {
		t.Fatalf("the transaction made %d deposits, want %d", len(ids), junkDeposits)
	}

	// Every deposit is recorded for an operator, and findable by its search attribute.
	held := func() int {
		var n int
		if err := s.Sys.Pool.QueryRow(ctx, `SELECT count(*) FROM requests r JOIN refund_holds h ON h.request_id = r.id
			WHERE h.reason = 'UNLISTED_CURRENCY' AND h.currency = lower($1) AND r.status = 'failure'
			AND r.fail_reason = 'ORPHANED_DEPOSIT_REFUND' AND r.refund_fail_reason = 'MANUAL_REFUND_REQUIRED'`, burner.Hex()).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	listed := func() int {
		n := 0
		var token []byte
		for {
			res, err := s.Sys.Temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{PageSize: 1000, NextPageToken: token,
				Query: `RefundHold = "UNLISTED_CURRENCY" AND ExecutionStatus = "Running"`})
			if err != nil {
				t.Fatal(err)
			}
			n += len(res.GetExecutions())
			if token = res.GetNextPageToken(); len(token) == 0 {
				return n
			}
		}
	}
	for held() < junkDeposits || listed() < junkDeposits {
		select {
		case <-ctx.Done():
			t.Fatalf("%d of %d junk deposits held and %d listed by RefundHold", held(), junkDeposits, listed())
		case <-time.After(time.Second):
		}
	}
	after := scrape(t)
	if got := value(after, `intentd_refunds_held_total{chain_id="31337",reason="UNLISTED_CURRENCY"}`) -
		value(before, `intentd_refunds_held_total{chain_id="31337",reason="UNLISTED_CURRENCY"}`); got != junkDeposits {
		t.Errorf("intentd_refunds_held_total grew by %v, want %d", got, junkDeposits)
	}
	if got, was := depositAttestations(after), depositAttestations(before); got != was {
		t.Errorf("the oracles answered %v deposit attestations for junk deposits, want none", got-was)
	}
	requireSolverUntouched := func(when string) {
		t.Helper()
		if b, n := s.balance(t, 31337, common.Address{}, solver), s.solverNonce(t, 31337); b.Cmp(balanceBefore) != 0 || n != nonceBefore {
			t.Fatalf("%s: the solver's balance went from %s to %s and its nonce from %d to %d; want both unchanged", when, balanceBefore, b, nonceBefore, n)
		}
	}
	requireSolverUntouched("after 200 junk deposits")
	st, err := s.Sys.Store.Status(ctx, ids[0])
	if err != nil || st.Status != intent.StatusFailure || st.RefundFailReason != intent.RefundFailReasonManualRefundRequired {
		t.Fatalf("a junk deposit's status %+v, %v", st, err)
	}

	// An operator refunds one: it is attested now, and refused before anything is signed.
	var body map[string]any
	code, err := admin.Do(ctx, "POST", "/admin/requests/"+ids[0]+"/refund", map[string]any{"reason": "user asked", "operator": "alice"}, &body)
	if err != nil || code != 502 || body["errorCode"] != "REFUND_FAILED" || !strings.Contains(fmt.Sprint(body["message"]), "ceiling") {
		t.Fatalf("admin refund of a junk deposit: %d %v %v; want 502 REFUND_FAILED over its gas ceiling", code, body, err)
	}
	if got := depositAttestations(scrape(t)); got <= depositAttestations(after) {
		t.Errorf("the operator's refund did not have the deposit attested")
	}
	requireSolverUntouched("after an operator's refund of one")
	if n := s.Refunds(t, 31337, ids[0]); n != 0 {
		t.Fatalf("%d refunds of a junk deposit", n)
	}

	// The orphan refund budget: one automatic refund per depositor and chain here.
	depositor := devnet.TestAccounts()[7]
	w := &e2e.Wallet{Key: depositor.Key, RPCs: s.RPCs}
	amount := big.NewInt(20_000_000_000_000_000)
	var orphans []string
	for i := range 2 {
		r, err := w.SendTx(ctx, quote.TxData{ChainID: 31337, To: devnet.DepositoryAddress.Hex(), Value: amount.String(),
			Data: hexutil.Encode(evm.DepositoryABI.PackDepositNative(crypto.Keccak256Hash([]byte(t.Name()), []byte{byte(i)})))})
		if err != nil {
			t.Fatal(err)
		}
		orphans = append(orphans, depositRefundID(t, 31337, r))
		// One after the other, so that the first claims the budget.
		if _, _, err := s.API.WaitStatus(ctx, orphans[i], "failure", "refund"); err != nil {
			t.Fatal(err)
		}
	}
	first, _, err := s.API.WaitStatus(ctx, orphans[0], "refund")
	if err != nil || first.FailReason != string(intent.FailReasonOrphanedDepositRefund) {
		t.Fatalf("the first orphaned deposit ended %+v, %v; want refunded", first, err)
	}
	second, err := s.Sys.Store.Status(ctx, orphans[1])
	if err != nil || second.Status != intent.StatusFailure || second.RefundFailReason != intent.RefundFailReasonManualRefundRequired {
		t.Fatalf("the second orphaned deposit %+v, %v; want failure waiting for an operator", second, err)
	}
	var reason string
	if err := s.Sys.Pool.QueryRow(ctx, `SELECT reason FROM refund_holds WHERE request_id = $1`, orphans[1]).Scan(&reason); err != nil ||
		reason != string(intent.RefundHoldBudgetExceeded) {
		t.Fatalf("the second orphaned deposit's hold %q, %v", reason, err)
	}
	if n := s.Refunds(t, 31337, orphans[1]); n != 0 {
		t.Fatalf("%d refunds of a deposit past its depositor's budget before an operator acted", n)
	}
	code, err = admin.Do(ctx, "POST", "/admin/requests/"+orphans[1]+"/refund", map[string]any{"reason": "second deposit, checked", "operator": "alice"}, &body)
	if err != nil || code != 200 || body["status"] != "refund" || !strings.EqualFold(fmt.Sprint(body["recipient"]), depositor.Address.Hex()) {
		t.Fatalf("admin refund of a held orphan: %d %v %v", code, body, err)
	}
	if _, _, err := s.API.WaitStatus(ctx, orphans[1], "refund"); err != nil {
		t.Fatal(err)
	}
	s.recordHistory(t, orphans[1], "deposit-refund-held-then-admin-refund")
	for _, id := range orphans {
		if n := s.Refunds(t, 31337, id); n != 1 {
			t.Fatalf("%d refunds of %s, want exactly 1", n, id)
		}
	}
}

// depositAttestations is the number of deposit attestations the stack's oracles answered, by
// every outcome, in a scrape.
func depositAttestations(scrape string) float64 {
	n := 0.0
	for _, m := range regexp.MustCompile(`(?m)^intentd_oracle_attestations_total\{endpoint="/attestations/depository-deposits/v1",[^}]*\} (\S+)$`).
		FindAllStringSubmatch(scrape, -1) {
		v, _ := strconv.ParseFloat(m[1], 64)
		n += v
	}
	return n
}

// solverNonce is the solver's pending nonce on a chain.
func (s *stack) solverNonce(t *testing.T, chainID uint64) uint64 {
	t.Helper()
	c, err := s.Devnet.Chain(chainID).Dial(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n, err := c.PendingNonceAt(context.Background(), devnet.SolverAddress())
	if err != nil {
		t.Fatal(err)
	}
	return n
}
