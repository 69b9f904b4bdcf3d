package prices

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/chains"
	_ "github.com/intentd/intentd/chains/evm" // the EVM family, whose notation reads the feeds' addresses
)

func TestParseTable(t *testing.T) {
	tab, err := ParseTable(" eth=3000 , USDC=1,, wbtc = 65000.125 ")
	require.NoError(t, err)
	require.Len(t, tab, 3)
	require.True(t, tab["ETH"].Equal(decimal.NewFromInt(3000)))
	require.True(t, tab["USDC"].Equal(decimal.NewFromInt(1)))
	require.True(t, tab["WBTC"].Equal(decimal.RequireFromString("65000.125")))

	p, err := tab.USDPrice(context.Background(), "eth")
	require.NoError(t, err)
	require.True(t, p.Equal(decimal.NewFromInt(3000)))
	_, err = tab.USDPrice(context.Background(), "DOGE")
	require.ErrorIs(t, err, ErrNoSource, "a symbol not in the table has no price source")
	require.NotErrorIs(t, err, ErrUnavailable, "no price source is not a transient failure")
	require.ErrorContains(t, err, "DOGE")

	for in, want := range map[string]string{
		"":                  "empty",
		" , ,":              "empty",
		"ETH":               "SYMBOL=USD",
		"ETH=free":          "positive decimal",
		"ETH=0":             "positive decimal",
		"ETH=-3000":         "positive decimal",
		"ETH=":              "positive decimal",
		"=3000":             "no symbol",
		"ETH=3000,eth=2900": "twice",
	} {
		_, err := ParseTable(in)
		require.ErrorContains(t, err, want, "input %q", in)
	}
}

func TestParseFeeds(t *testing.T) {
	eth := "0xb5704cb42a6cFc04fb7F6eF09782f07338EB9AD6"
	usdc := "0x8c19D0C06866bAB258AB6cf5480077FFc8f4E857"
	feeds, err := ParseFeeds("eth=31337:" + eth + ", USDC = 31338:" + usdc + ",")
	require.NoError(t, err)
	require.Equal(t, map[string]FeedRef{
		"ETH":  {ChainID: 31337, Address: eth},
		"USDC": {ChainID: 31338, Address: usdc},
	}, feeds)

	for in, want := range map[string]string{
		"":                   "empty",
		"ETH":                "SYMBOL=CHAINID:ADDRESS",
		"ETH=" + eth:         "SYMBOL=CHAINID:ADDRESS",
		"ETH=31337:":         "SYMBOL=CHAINID:ADDRESS",
		"=31337:" + eth:      "no symbol",
		"ETH=0:" + eth:       "chain id",
		"ETH=-1:" + eth:      "chain id",
		"ETH=mainnet:" + eth: "chain id",
		"ETH=31337:" + eth + ",eth=31338:" + usdc: "twice",
	} {
		_, err := ParseFeeds(in)
		require.ErrorContains(t, err, want, "input %q", in)
	}
}

// A feed's address is read by its chain's family once the registry is known (EVM: 0x and 40
// hex digits, one case or checksummed, never the zero address), and kept in the family's
// canonical form; a feed on a chain the registry lacks is left to fail when it is read.
func TestCheckFeedsReadsEachAddressByItsChainsFamily(t *testing.T) {
	reg, err := chains.ParseRegistry([]byte(`{"chains": [{"id": 31337, "httpRpcUrl": "http://127.0.0.1:1",
		"currency": {"symbol": "ETH", "decimals": 18}}]}`), func(string) (string, bool) { return "", false })
	require.NoError(t, err)
	eth := "0xb5704cb42a6cFc04fb7F6eF09782f07338EB9AD6"
	feeds, err := CheckFeeds(reg, map[string]FeedRef{"ETH": {ChainID: 31337, Address: strings.ToLower(eth)},
		"BTC": {ChainID: 999, Address: "anything"}})
	require.NoError(t, err)
	require.Equal(t, map[string]FeedRef{"ETH": {ChainID: 31337, Address: eth}, "BTC": {ChainID: 999, Address: "anything"}}, feeds)

	last := strings.LastIndexAny(eth, "abcdefABCDEF")
	for addr, want := range map[string]string{
		eth[2:]:  "not a valid EVM address",
		"0x1234": "not a valid EVM address",
		"0x0000000000000000000000000000000000000000":       "zero address",
		eth[:last] + string(eth[last]^0x20) + eth[last+1:]: "EIP-55",
	} {
		_, err := CheckFeeds(reg, map[string]FeedRef{"ETH": {ChainID: 31337, Address: addr}})
		require.ErrorContains(t, err, want, "address %q", addr)
		require.ErrorContains(t, err, "ETH", "address %q", addr)
	}
}

func TestCheckRound(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	round := func(answer, updatedAt int64, roundID, answeredIn int64) chains.FeedRound {
		return chains.FeedRound{
			RoundID: big.NewInt(roundID), Answer: big.NewInt(answer), StartedAt: big.NewInt(updatedAt),
			UpdatedAt: big.NewInt(updatedAt), AnsweredInRound: big.NewInt(answeredIn),
		}
	}
	p, err := checkRound("ETH", round(300_012_345_678, now.Unix()-10, 7, 7), 8, now, time.Hour)
	require.NoError(t, err)
	require.Equal(t, "3000.12345678", p.String())
	p, err = checkRound("USDC", round(999_900, now.Unix(), 1, 1), 6, now, time.Hour)
	require.NoError(t, err)
	require.Equal(t, "0.9999", p.String())

	// Exactly maxAge old is still fresh; a second more is stale.
	_, err = checkRound("ETH", round(1, now.Unix()-3600, 1, 1), 8, now, time.Hour)
	require.NoError(t, err)
	_, err = checkRound("ETH", round(1, now.Unix()-3601, 1, 1), 8, now, time.Hour)
	require.ErrorIs(t, err, ErrStale)
	require.ErrorContains(t, err, "ETH")
	// The future is fresh, however far.
	_, err = checkRound("ETH", round(1, now.Unix()+86400, 1, 1), 8, now, time.Hour)
	require.NoError(t, err)
	far := round(1, 0, 1, 1)
	far.UpdatedAt = new(big.Int).Lsh(big.NewInt(1), 200)
	_, err = checkRound("ETH", far, 8, now, time.Hour)
	require.NoError(t, err)

	for name, tc := range map[string]struct {
		r    chains.FeedRound
		want error
	}{
		"zero answer":          {round(0, now.Unix(), 1, 1), ErrUnavailable},
		"negative answer":      {round(-5, now.Unix(), 1, 1), ErrUnavailable},
		"updatedAt 0":          {round(1, 0, 1, 1), ErrUnavailable},
		"answered in an older": {round(1, now.Unix(), 5, 4), ErrStale},
	} {
		_, err := checkRound("ETH", tc.r, 8, now, time.Hour)
		require.ErrorIs(t, err, tc.want, name)
		require.ErrorContains(t, err, "ETH", name)
	}
}
