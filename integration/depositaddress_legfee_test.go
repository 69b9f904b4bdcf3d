package integration

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/intentd/intentd/testkit"
)

// legFee checks a refund leg's money exactly (issue 35, point 6: "the solver pays sweep gas only
// within the quote's fee"; the public service refunds a deposit address's payment "minus gas"):
// the leg's fee, priced as the payment was routed and carried in its refund request's start
// input (workflows.DepositRefundInput.LegFee), is positive; the solver's gas for the leg's sweep
// and refund, as their receipts on chainID show, is no more than it; and refundTo received
// exactly the payment less it (want, its balance before being zero). It returns the fee.
func (s *stack) legFee(t *testing.T, ctx context.Context, legID string, chainID uint64, currency, refundTo common.Address,
	payment *big.Int) *big.Int {
	t.Helper()
	fee, err := testkit.LegFee(ctx, s.Sys.Temporal, legID)
	if err != nil {
		t.Fatal(err)
	}
	if fee == nil || fee.Sign() <= 0 || fee.Cmp(payment) >= 0 {
		t.Fatalf("the leg's fee %v of a payment of %s, want a positive fee below it", fee, payment)
	}
	c, err := s.Devnet.Chain(chainID).Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rows, err := s.Sys.Pool.Query(ctx, `SELECT kind, tx_hash FROM solver_transactions WHERE request_id = $1 AND chain_id = $2`, legID, chainID)
	if err != nil {
		t.Fatal(err)
	}
	spent, mined := new(big.Int), map[string]int{}
	for rows.Next() {
		var kind, hash string
		if err := rows.Scan(&kind, &hash); err != nil {
			t.Fatal(err)
		}
		rc, err := c.TransactionReceipt(ctx, common.HexToHash(hash))
		if err != nil {
			continue // a replaced attempt: never mined
		}
		mined[kind]++
		spent.Add(spent, new(big.Int).Mul(new(big.Int).SetUint64(rc.GasUsed), rc.EffectiveGasPrice))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if mined["sweep"] != 1 || mined["refund"] != 1 {
		t.Fatalf("the leg's mined transactions %v, want one sweep and one refund", mined)
	}
	// The fee is in the payment's currency; the gas in the native currency: compare them only
	// for a native payment, where they are the same unit.
	if currency == (common.Address{}) && spent.Cmp(fee) > 0 {
		t.Errorf("the solver spent %s wei of gas on the leg, more than its fee %s", spent, fee)
	}
	want := new(big.Int).Sub(payment, fee)
	if got := s.balance(t, chainID, currency, refundTo); got.Cmp(want) != 0 {
		t.Errorf("refundTo received %s, want exactly the payment %s less the leg's fee %s = %s", got, payment, fee, want)
	}
	t.Logf("leg %s: payment %s, fee %s, the solver's gas %s, refunded %s", legID, payment, fee, spent, want)
	return fee
}
