package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"go.temporal.io/sdk/converter"

	"github.com/intentd/intentd/activities"
	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/oracle/oracleapi"
	"github.com/intentd/intentd/testkit"
	"github.com/intentd/intentd/testkit/e2e"
	"github.com/intentd/intentd/workflows"
)

// tieredStack runs the engine with the issue's tiers on every chain ("≤100: 1, ≤1000: 2, else
// 4": 4 confirmations for a final deposit) in the chain file the engine and the oracles share,
// and exposureCapUsd capUSD ("" for EXPOSURE_CAP_USD's default). The devnet's ETH is worth 3000
// USD by its feed, which the worker and the oracles each read.
func tieredStack(t *testing.T, capUSD string) *stack {
	t.Helper()
	return &stack{testkit.Start(t, testkit.Options{Chain: func(c *chains.Chain) {
		c.Confirmations = 4
		c.ConfirmationTiers = []chains.ConfirmationTier{{MaxUSD: "100", Confirmations: 1}, {MaxUSD: "1000", Confirmations: 2}}
		c.ExposureCapUSD = capUSD
	}})}
}

// tieredOrigin is tieredStack with the test's context and the origin chain 31337 and a client of
// it; the chain goes on sealing blocks when the test ends.
func tieredOrigin(t *testing.T, capUSD string) (*stack, context.Context, *devnet.Chain, *ethclient.Client) {
	t.Helper()
	s := tieredStack(t, capUSD)
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	t.Cleanup(cancel)
	origin := s.Devnet.Chain(31337)
	t.Cleanup(origin.Resume)
	cl, err := origin.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return s, ctx, origin, cl
}

// head is the chain's head.
func head(t *testing.T, ctx context.Context, cl *ethclient.Client) uint64 {
	t.Helper()
	n, err := cl.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestEachTierIsFilledAtItsConfirmations holds the issue's "per chain, required confirmations
// tiered by the deposit's USD value (≤100: 1, ≤1000: 2, else 4)", and the task's "a deposit below
// 100 USD attested/filled after 1 confirmation, etc.: prove it by the block the fill waits for,
// not by time". The origin chain seals a block only when the test does. For each deposit, at
// every head below its tier the oracle refuses to sign it (its own rule, from its own prices:
// without two oracles' signatures the engine cannot fill), and at its tier's head, with no further
// block sealed, the request reaches success.
func TestEachTierIsFilledAtItsConfirmations(t *testing.T) {
	s, ctx, origin, cl := tieredOrigin(t, "")
	oracle := oracleapi.NewClient(s.Sys.Config.OracleURL, testkit.OracleAPIKey, nil)
	acct := devnet.TestAccounts()[5]
	wallet := &e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}

	origin.Pause()
	for _, tc := range []struct {
		name          string
		wei           string
		confirmations uint64
	}{
		{"0.02 ETH, 60 USD: one confirmation", "20000000000000000", 1},
		{"0.2 ETH, 600 USD: two confirmations", "200000000000000000", 2},
		{"1 ETH, 3000 USD: the chain's four", "1000000000000000000", 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := s.ethBridge(t, ctx, acct.Address, freshAddress(t), freshAddress(t), tc.wei)
			dep := depositInOneBlock(t, ctx, origin, cl, wallet, q)
			block := dep.BlockNumber.Uint64()
			for depth := uint64(1); depth < tc.confirmations; depth++ {
				_, err := oracle.AttestDeposit(ctx, 31337, dep.TxHash)
				e, ok := oracleapi.AsError(err)
				if !ok || e.Code != oracleapi.CodeNotConfirmed || !strings.Contains(e.Message, fmt.Sprintf("has %d of %d", depth, tc.confirmations)) {
					t.Fatalf("at %d confirmations the oracle answered %v, want a refusal: %d of %d", depth, err, depth, tc.confirmations)
				}
				if st, _, err := s.API.Status(ctx, q.RequestID); err == nil && st.Status != "waiting" {
					t.Fatalf("at %d confirmations of %d the request is %s", depth, tc.confirmations, st.Status)
				}
				origin.Mine()
			}
			final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
			if err != nil {
				t.Fatal(err)
			}
			if final.Status != "success" {
				t.Fatalf("final %+v (seen %v), want success", final, seen)
			}
			if got, want := head(t, ctx, cl), block+tc.confirmations-1; got != want {
				t.Fatalf("filled with the origin's head at %d, want %d: the deposit's block %d and %d confirmations", got, want, block, tc.confirmations)
			}
		})
	}
}

// TestASecondFillWaitsPendingUntilTheFirstDepositIsFinal holds the issue's "a cap on the total
// USD value filled against deposits not yet final on each origin chain; past the cap, fills wait
// (status pending, never a loss)", with the task's "with a small cap: a second fill waits pending
// until the first deposit is final, then fills", proved by the block. The cap is 100 USD; A and B
// are 60 USD each, relied on at one confirmation. A fills in its own block N. B, in block N+1, is
// attested there but its share does not fit: it waits, pending, in AwaitExposure, and has not
// filled when the wait has seen block N+2; it fills at N+3, A's fourth confirmation, before its
// own deposit is final (N+4).
func TestASecondFillWaitsPendingUntilTheFirstDepositIsFinal(t *testing.T) {
	s, ctx, origin, cl := tieredOrigin(t, "100")
	acct := devnet.TestAccounts()[4]
	wallet := &e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}
	const wei = "20000000000000000" // 0.02 ETH, 60 USD
	qa := s.ethBridge(t, ctx, acct.Address, freshAddress(t), freshAddress(t), wei)
	qb := s.ethBridge(t, ctx, acct.Address, freshAddress(t), freshAddress(t), wei)

	origin.Pause()
	a := depositInOneBlock(t, ctx, origin, cl, wallet, qa)
	n := a.BlockNumber.Uint64()
	if final, seen, err := s.API.WaitStatus(ctx, qa.RequestID, "success", "failure", "refund"); err != nil || final.Status != "success" {
		t.Fatalf("A: %+v (seen %v), %v", final, seen, err)
	}
	if got := head(t, ctx, cl); got != n {
		t.Fatalf("A filled at head %d, its block is %d", got, n)
	}
	exposure, err := s.Sys.Store.ChainExposure(ctx, 31337, n)
	if err != nil || exposure.String() != "60" {
		t.Fatalf("exposure after A: %s, %v", exposure, err)
	}

	b := depositInOneBlock(t, ctx, origin, cl, wallet, qb)
	if got := b.BlockNumber.Uint64(); got != n+1 {
		t.Fatalf("B in block %d, want %d", got, n+1)
	}
	s.awaitPendingActivity(t, ctx, qb.RequestID, "AwaitExposure")
	st, _, err := s.API.Status(ctx, qb.RequestID)
	if err != nil || st.Status != "pending" {
		t.Fatalf("B waiting for the cap: %+v, %v", st, err)
	}

	origin.Mine() // N+2: A has three confirmations of four
	s.awaitExposureCheck(t, ctx, qb.RequestID, n+2)
	if st, _, err := s.API.Status(ctx, qb.RequestID); err != nil || st.Status != "pending" {
		t.Fatalf("B at N+2: %+v, %v", st, err)
	}
	if fills := s.fills(t, 31338, common.HexToHash(qb.Protocol.V2.OrderID)); fills != 0 {
		t.Fatalf("B filled %d times before A is final", fills)
	}

	origin.Mine() // N+3: A is final
	final, seen, err := s.API.WaitStatus(ctx, qb.RequestID, "success", "failure", "refund")
	if err != nil || final.Status != "success" {
		t.Fatalf("B: %+v (seen %v), %v", final, seen, err)
	}
	if got := head(t, ctx, cl); got != n+3 {
		t.Fatalf("B filled at head %d, want %d", got, n+3)
	}
	s.recordHistory(t, qb.RequestID, "fill-waits-under-the-exposure-cap")
	for _, s := range seen {
		if s == "refund" || s == "failure" {
			t.Fatalf("B went through %v", seen)
		}
	}
	if exposure, err = s.Sys.Store.ChainExposure(ctx, 31337, n+3); err != nil || exposure.String() != "60" {
		t.Fatalf("exposure at N+3 (B's share, A's ended): %s, %v", exposure, err)
	}
}

// awaitExposureCheck waits until the request's AwaitExposure wait reports, in its heartbeat
// details, that it has checked the chain at head: it saw the block and is still waiting.
func (s *stack) awaitExposureCheck(t *testing.T, ctx context.Context, requestID string, head uint64) {
	t.Helper()
	for {
		desc, err := s.Sys.Temporal.DescribeWorkflowExecution(ctx, workflows.IntentWorkflowID(requestID), "")
		if err != nil {
			t.Fatal(err)
		}
		for _, pa := range desc.GetPendingActivities() {
			if pa.GetActivityType().GetName() != "AwaitExposure" || len(pa.GetHeartbeatDetails().GetPayloads()) == 0 {
				continue
			}
			var c activities.ExposureCheck
			if err := converter.GetDefaultDataConverter().FromPayload(pa.GetHeartbeatDetails().GetPayloads()[0], &c); err == nil && c.Head >= head {
				return
			}
		}
		sleep(t, ctx, 100*time.Millisecond)
	}
}
