package integration

import (
	"context"
	"crypto/rand"
	"math/big"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/intentd/intentd/chains/evm/bindings"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/door"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/internal/metrics"
	"github.com/intentd/intentd/oracle/oracleapi"
)

// temporalCalls sums the Temporal client requests of the process whose operation contains one
// of ops, from the SDK's temporal_request counter (a request retried counts once).
func temporalCalls(t *testing.T, ops ...string) float64 {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n float64
	for _, f := range families {
		if f.GetName() != "temporal_request" && f.GetName() != "temporal_request_total" { // not _attempt, _failure, _latency
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "operation" && slices.ContainsFunc(ops, func(op string) bool { return strings.Contains(l.GetValue(), op) }) {
					// The SDK's counters reach Prometheus as gauges (OpenTelemetry up-down counters).
					n += m.GetCounter().GetValue() + m.GetGauge().GetValue()
				}
			}
		}
	}
	return n
}

// Issue 33, point 2, "No amplifiers (M1, M2)": "POST /transactions/index handles at most a small
// number of deposits per hint, remembers what it already routed (answering 200 without touching
// Temporal) … an attestation request names the deposit it wants … A test sends a transaction
// with 300 deposits and shows linear, bounded work."
//
// One transaction of a batching contract (DepositBatcher) makes 300 deposits, each for an order
// nobody quoted, while the worker (and its deposit scanner) is stopped. A hint of it routes 16
// of them (HINT_MAX_DEPOSITS); the same hint again is answered from memory without a Temporal
// call; once the worker is back its scanner routes all 300 (none is lost), with about one
// Temporal call each; and each deposit's attestation costs the oracles a signature each for
// that deposit alone: the three oracles sign 2 or 3 times per deposit (a retry may add a
// round), not the 300 × 300 × 3 of every deposit's attestation asking for the whole transaction.
//
// The batcher is one depositor, whose orphan refunds past ORPHAN_REFUND_BUDGET are held without an
// attestation; the budget is lifted here so that every deposit is attested and the oracles' work
// is measured on all 300.
func TestOneTransactionOf300DepositsCostsBoundedLinearWork(t *testing.T) {
	const n = 300
	s := startStack(t, map[string]string{"ORPHAN_REFUND_BUDGET": "1000/24h"})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	acct := devnet.TestAccounts()[6]
	ec, err := ethclient.DialContext(ctx, s.RPCs[31337])
	if err != nil {
		t.Fatal(err)
	}
	defer ec.Close()
	opts := bind.NewKeyedTransactor(acct.Key, big.NewInt(31337))
	opts.Context = ctx
	batcherAddr, deploy, err := bind.DeployContract(opts, common.FromHex(bindings.DepositBatcherMetaData.Bin), ec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bind.WaitDeployed(ctx, ec, deploy.Hash()); err != nil {
		t.Fatal(err)
	}

	// The worker stops first, so that the hint is alone in routing (the scanner would start the
	// same workflows at the same moment, and on two busy cores the hint's 16 starts then wait
	// beyond the API's 10 s for the scanner's 300).
	s.stopWorker()

	orders := make([][32]byte, n)
	for i := range orders {
		_, _ = rand.Read(orders[i][:])
	}
	signatures := metrics.OracleSignatures.WithLabelValues(oracleapi.PathDepositAttestation)
	signedBefore := testutil.ToFloat64(signatures)
	capped, remembered := metrics.TransactionHints.WithLabelValues("capped"), metrics.TransactionHints.WithLabelValues("remembered")
	cappedBefore, rememberedBefore := testutil.ToFloat64(capped), testutil.ToFloat64(remembered)
	// What the door asks of Temporal: starts and signals of workflows, and the read of a started
	// workflow's input (Deliver, startRefund, startedWith).
	doorCalls := []string{"StartWorkflowExecution", "SignalWorkflowExecution", "GetWorkflowExecutionHistory"}
	routings := []string{"StartWorkflowExecution", "SignalWorkflowExecution"}
	routingsStart := temporalCalls(t, routings...)

	batcher := bindings.NewDepositBatcher()
	opts.Value, opts.GasLimit = big.NewInt(n), 15_000_000 // 1 wei a deposit
	tx, err := bind.Transact(batcher.Instance(ec, batcherAddr), opts, batcher.PackDepositNativeMany(devnet.DepositoryAddress, orders, big.NewInt(1)))
	if err != nil {
		t.Fatal(err)
	}
	rcpt, err := bind.WaitMined(ctx, ec, tx.Hash())
	if err != nil || rcpt.Status != 1 {
		t.Fatalf("the batch: %+v, %v", rcpt, err)
	}
	var ids []string
	for _, l := range rcpt.Logs {
		if l.Address == devnet.DepositoryAddress {
			ids = append(ids, intent.DepositRefundRequestID(31337, tx.Hash().Hex(), l.Index))
		}
	}
	if len(ids) != n {
		t.Fatalf("%d deposits in the batch, want %d", len(ids), n)
	}
	t.Logf("one transaction of %d deposits, %d gas", n, rcpt.GasUsed)

	hint := map[string]any{"chainId": 31337, "txHash": tx.Hash().Hex()}
	var first map[string]any
	if code, err := s.API.Do(ctx, http.MethodPost, "/transactions/index", hint, &first); err != nil || code != http.StatusOK {
		t.Fatalf("the hint: %d %v %v", code, first, err)
	}
	if first["deposits"] != float64(door.DefaultHintMaxDeposits) {
		t.Fatalf("the hint routed %v deposits, want at most %d of the %d", first["deposits"], door.DefaultHintMaxDeposits, n)
	}
	if got := testutil.ToFloat64(capped) - cappedBefore; got != 1 {
		t.Fatalf("capped hints: %v, want 1", got)
	}

	// The same hint again is answered from memory: no Temporal call (nor chain read, nor
	// database read) however often it is sent.
	temporalBefore := temporalCalls(t, doorCalls...)
	for range 5 {
		var again map[string]any
		if code, err := s.API.Do(ctx, http.MethodPost, "/transactions/index", hint, &again); err != nil || code != http.StatusOK ||
			again["deposits"] != first["deposits"] {
			t.Fatalf("the hint again: %d %v %v", code, again, err)
		}
	}
	if after := temporalCalls(t, doorCalls...); after != temporalBefore {
		t.Fatalf("the hints again made %v Temporal calls, want none", after-temporalBefore)
	}
	if got := testutil.ToFloat64(remembered) - rememberedBefore; got != 5 {
		t.Fatalf("remembered hints: %v, want 5", got)
	}

	// No deposit is lost: the worker's scanner routes all 300, and each is attested.
	s.startWorker(t)
	deadline := time.Now().Add(4 * time.Minute)
	for _, id := range ids {
		for {
			rec, err := s.Sys.Store.Record(ctx, id)
			if err == nil && rec.Protocol.Deposit != nil && rec.Protocol.Deposit.Attestation != nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("deposit request %s not attested in time: %+v, %v", id, rec, err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	signed := testutil.ToFloat64(signatures) - signedBefore
	t.Logf("the oracles signed %v deposit messages for %d deposits (%.2f each)", signed, n, signed/n)
	if signed < 2*n || signed > 6*n {
		t.Fatalf("the oracles signed %v deposit messages for %d deposits; want between %d (2 of 3 each) and %d, not about %d",
			signed, n, 2*n, 6*n, 3*n*n)
	}

	// Routing the 300 took one workflow start each, and one more for each the hint and the
	// scanner both routed (the second refused as already started): about n+2·16. A scan pass
	// that ran out of time on a loaded machine is done again and routes its deposits again
	// (each refused as already started, nothing signalled twice), so the bound allows each
	// deposit to be routed up to three times: linear work, never the n² of a hint per deposit.
	calls := temporalCalls(t, routings...) - routingsStart
	t.Logf("%v workflow starts and signals for %d deposits", calls, n)
	if calls < n || calls > 3*n+2*door.DefaultHintMaxDeposits {
		t.Fatalf("%v workflow starts and signals for %d deposits, want between %d and %d", calls, n, n, 3*n+2*door.DefaultHintMaxDeposits)
	}
}
