package prices

import (
	"context"
	"fmt"
	"math/big"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/chains"
)

type failingSource struct{}

func (failingSource) USDPrice(context.Context, string) (decimal.Decimal, error) {
	return decimal.Zero, fmt.Errorf("%w: the feed's RPC is down", ErrUnavailable)
}

// TestDepositDepth: "the deposit's USD value comes from the prices package; an unlisted currency
// or a missing price takes the highest tier (never the lowest)".
func TestDepositDepth(t *testing.T) {
	const usdc = "0x3F88d0F5403139753a203e6F36BFaE0CeAE3bF42"
	reg, err := chains.NewRegistry([]chains.Chain{{ID: 1, HTTPRPCURL: "http://rpc", Confirmations: 4,
		Currency:          chains.Currency{Symbol: "ETH", Decimals: 18},
		ERC20:             []chains.Currency{{Symbol: "USDC", Address: usdc, Decimals: 6}},
		ConfirmationTiers: []chains.ConfirmationTier{{MaxUSD: "100", Confirmations: 1}, {MaxUSD: "1000", Confirmations: 2}}}})
	require.NoError(t, err)
	ch, _ := reg.Get(1)
	eth := func(milli int64) *big.Int { return new(big.Int).Mul(big.NewInt(milli), big.NewInt(1e15)) }
	table := Table{"ETH": decimal.NewFromInt(1000)}
	ctx := context.Background()

	for _, tc := range []struct {
		name     string
		src      Source
		currency string
		amount   *big.Int
		want     uint64
		priced   bool
	}{
		{"0.05 ETH is 50 USD", table, chains.NativeAddress, eth(50), 1, true},
		{"0.1 ETH is 100 USD: the tier's maximum is inclusive", table, chains.NativeAddress, eth(100), 1, true},
		{"0.5 ETH is 500 USD", table, chains.NativeAddress, eth(500), 2, true},
		{"5 ETH is 5000 USD", table, chains.NativeAddress, eth(5000), 4, true},
		{"a listed currency without a price", table, usdc, big.NewInt(1), 4, false},
		{"a currency the chain does not list", table, "0x00000000000000000000000000000000000000aa", big.NewInt(1), 4, false},
		{"a price source that fails", failingSource{}, chains.NativeAddress, eth(1), 4, false},
		{"no price source", nil, chains.NativeAddress, eth(1), 4, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := DepositDepth(ctx, tc.src, ch, tc.currency, tc.amount)
			require.Equal(t, tc.want, d.Confirmations)
			require.Equal(t, uint64(4), d.Final)
			require.Equal(t, tc.priced, d.Priced)
			require.Equal(t, tc.priced, d.Err == nil, "%v", d.Err)
		})
	}

	reg, err = chains.NewRegistry([]chains.Chain{{ID: 2, HTTPRPCURL: "http://rpc", Confirmations: 3,
		Currency: chains.Currency{Symbol: "ETH", Decimals: 18}}})
	require.NoError(t, err)
	plain, _ := reg.Get(2)
	d := DepositDepth(ctx, failingSource{}, plain, chains.NativeAddress, eth(1))
	require.Equal(t, Depth{Confirmations: 3, Final: 3}, d, "a chain without tiers is not priced")
}
