package testkit

import (
	"context"
	"math/big"
	"testing"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/devnet"
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
