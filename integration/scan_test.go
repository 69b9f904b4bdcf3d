package integration

import (
	"context"
	"testing"
	"time"

	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/testkit/e2e"
)

// The scanner reads a chain on each of its new blocks, not only every SCAN_INTERVAL: a deposit
// is routed to its workflow within about one head poll of its block. SCAN_INTERVAL is an hour
// here, so without the wake on new heads the deposit would wait for the next tick (the scan at
// start has passed) and the request would stay waiting.
func TestADepositIsRoutedOnItsBlockNotOnTheScanInterval(t *testing.T) {
	s := startStack(t, map[string]string{"SCAN_INTERVAL": "1h"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	acct := devnet.TestAccounts()[0]
	q := s.ethBridge(t, ctx, acct.Address, freshAddress(t), freshAddress(t), "100000000000000000")
	rcpt, err := (&e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}).ExecuteSteps(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	mined := time.Now()
	wctx, wcancel := context.WithTimeout(ctx, 20*time.Second)
	defer wcancel()
	final, seen, err := s.API.WaitStatus(wctx, q.RequestID, "success", "failure", "refund")
	if err != nil {
		t.Fatalf("deposit in block %d not filled within 20 s with SCAN_INTERVAL=1h (statuses seen %v): %v",
			rcpt.BlockNumber, seen, err)
	}
	if final.Status != "success" {
		t.Fatalf("final %+v (seen %v), want success", final, seen)
	}
	t.Logf("deposit mined -> success in %s", time.Since(mined).Round(time.Millisecond))
}
