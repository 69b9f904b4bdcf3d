package integration

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/internal/process"
	"github.com/intentd/intentd/testkit"
	"github.com/intentd/intentd/testkit/e2e"
)

// Issue 16, "Done when": an intent on the devnet settles with a 2-of-3 attestation from three
// running oracle processes. The three oracles are `intentd oracle` processes, peers of each
// other; the worker asks the first with requestPeerSignatures and relies on the deposit only
// with two accepted signatures. With the third oracle stopped, the first and the second must
// both sign: the record shows exactly their two signatures.
func TestIntentSettlesWithTwoOfThreeOracleProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds intentd and runs three oracle processes")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	bin, err := process.BuildIntentd(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := &stack{testkit.Start(t, testkit.Options{OracleBinary: bin})}
	if len(s.OracleProcesses) != devnet.OracleCount {
		t.Fatalf("%d oracle processes", len(s.OracleProcesses))
	}
	s.OracleProcesses[2].Close(5 * time.Second)

	acct, recipient := devnet.TestAccounts()[6], devnet.TestAccounts()[8].Address
	q := s.ethBridge(t, ctx, acct.Address, recipient, common.Address{}, "200000000000000000")
	if _, err := (&e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}).ExecuteSteps(ctx, q); err != nil {
		t.Fatal(err)
	}
	final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
	if err != nil || final.Status != "success" {
		t.Fatalf("final %+v (seen %v): %v", final, seen, err)
	}
	rec := storedRecord(t, s, q.RequestID)
	sigs := isArray(t, isObject(t, rec, "protocol.deposit.attestation"), "attestations")
	var signers []common.Address
	for _, sig := range sigs {
		signers = append(signers, common.HexToAddress(isString(t, sig, "signerAddress")))
	}
	want := devnet.OracleAddresses()[:2]
	if len(signers) != 2 || !slices.Contains(signers, want[0]) || !slices.Contains(signers, want[1]) {
		t.Fatalf("attestation signers %v, want the two running oracles %v", signers, want)
	}
}
