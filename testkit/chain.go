package testkit

import (
	"context"
	"fmt"
	"math/big"
	"testing"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/oracle/oracleapi"
	"github.com/intentd/intentd/workflows"
)

// Balance reads a native or ERC-20 balance on a devnet chain.
func (s *Stack) Balance(t testing.TB, chainID uint64, currency, account common.Address) *big.Int {
	t.Helper()
	c, err := s.Devnet.Chain(chainID).Dial(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if currency == (common.Address{}) {
		b, err := c.BalanceAt(context.Background(), account, nil)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	out, err := c.CallContract(context.Background(), ethereum.CallMsg{To: &currency, Data: evm.ERC20ABI.PackBalanceOf(account)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := evm.ERC20ABI.UnpackBalanceOf(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Events counts a contract's events of one kind on a devnet chain by their first indexed topic
// (an order or payout id).
func (s *Stack) Events(t testing.TB, chainID uint64, contract common.Address, event common.Hash) map[common.Hash]int {
	t.Helper()
	c, err := s.Devnet.Chain(chainID).Dial(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	logs, err := c.FilterLogs(context.Background(), ethereum.FilterQuery{FromBlock: big.NewInt(0), Addresses: []common.Address{contract},
		Topics: [][]common.Hash{{event}}})
	if err != nil {
		t.Fatalf("logs of %s on %d: %v", contract, chainID, err)
	}
	out := map[common.Hash]int{}
	for _, l := range logs {
		if len(l.Topics) > 1 && !l.Removed {
			out[l.Topics[1]]++
		}
	}
	return out
}

// Fills counts the output settler's Fill events for an order on a chain.
func (s *Stack) Fills(t testing.TB, chainID uint64, orderID common.Hash) int {
	t.Helper()
	return s.Events(t, chainID, devnet.OutputSettlerAddress, evm.OutputSettlerABI.GetABI().Events["Fill"].ID)[orderID]
}

// RefundIDs are the payout ids a request's refunds can pay under in the depository: its
// RefundID (a refund that names no payout scheme) and the withdrawal id of each deposit it recorded
// (oracleapi.WithdrawalIDOf, what later runs pay under). Counting the Withdrawal events under
// all of them counts the request's refunds whichever run made them.
func RefundIDs(ctx context.Context, pool *pgxpool.Pool, requestID string) ([]common.Hash, error) {
	ids := []common.Hash{intent.RefundID(requestID)}
	rows, err := pool.Query(ctx, `SELECT chain_id, tx_hash, log_index FROM request_transactions
		WHERE request_id = $1 AND direction = 'in' AND log_index >= 0`, requestID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var chainID int64
		var tx string
		var logIndex int
		if err := rows.Scan(&chainID, &tx, &logIndex); err != nil {
			return nil, err
		}
		ids = append(ids, oracleapi.WithdrawalIDOf(uint64(chainID), devnet.DepositoryAddress, common.HexToHash(tx), uint64(logIndex)))
	}
	return ids, rows.Err()
}

// Refunds counts the depository's Withdrawal events that refund a request on a chain, under any
// of its RefundIDs.
func (s *Stack) Refunds(t testing.TB, chainID uint64, requestID string) int {
	t.Helper()
	ids, err := RefundIDs(context.Background(), s.Sys.Pool, requestID)
	if err != nil {
		t.Fatal(err)
	}
	events := s.Events(t, chainID, devnet.DepositoryAddress, evm.DepositoryABI.GetABI().Events["Withdrawal"].ID)
	n := 0
	for _, id := range ids {
		n += events[id]
	}
	return n
}

// LegFee is the fee a refund leg of a deposit address keeps out of its refund
// (workflows.DepositRefundInput.LegFee), read from its workflow's start input: nil when it has
// none (a run started before legs were priced refunds in full).
func LegFee(ctx context.Context, tc client.Client, legID string) (*big.Int, error) {
	it := tc.GetWorkflowHistory(ctx, workflows.IntentWorkflowID(legID), "", false, 0)
	if !it.HasNext() {
		return nil, fmt.Errorf("no history for %s", legID)
	}
	first, err := it.Next()
	if err != nil {
		return nil, err
	}
	var in workflows.DepositRefundInput
	if err := converter.GetDefaultDataConverter().FromPayloads(first.GetWorkflowExecutionStartedEventAttributes().GetInput(), &in); err != nil {
		return nil, err
	}
	if in.LegFee == "" {
		return nil, nil
	}
	fee, ok := new(big.Int).SetString(in.LegFee, 10)
	if !ok {
		return nil, fmt.Errorf("the leg fee %q of %s", in.LegFee, legID)
	}
	return fee, nil
}
