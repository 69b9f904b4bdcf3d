package prices

import (
	"context"
	"errors"
	"log/slog"
	"math/big"
	"net"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/devnet"
)

// startDevnet runs one devnet chain (free port, loopback) with the feed heartbeat off, so a
// round a test posts stays in place.
func startDevnet(t *testing.T, ctx context.Context) (*devnet.Chain, *chains.Clients) {
	t.Helper()
	d, err := devnet.Start(ctx, devnet.Options{
		Chains:        []devnet.ChainOptions{{ID: 31337}},
		BlockTime:     100 * time.Millisecond,
		Logger:        slog.New(slog.DiscardHandler),
		FeedHeartbeat: -1,
	})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	reg, err := d.Registry()
	require.NoError(t, err)
	return d.Chain(31337), chains.NewClients(reg, evm.VM())
}

func devnetFeeds() map[string]FeedRef {
	feeds, err := ParseFeeds(devnet.PriceFeedsConfig(31337))
	if err != nil {
		panic(err)
	}
	return feeds
}

func TestFeeds(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	chain, pool := startDevnet(t, ctx)
	f := NewFeeds(pool, devnetFeeds(), time.Hour)
	eth := devnet.ETHUSDFeedAddress
	answer := func(usd int64) *big.Int { return big.NewInt(usd * 100_000_000) }
	reset := func(t *testing.T) {
		t.Helper()
		require.NoError(t, chain.SetPrice(ctx, eth, big.NewInt(devnet.ETHUSDAnswer), time.Time{}))
	}

	t.Run("reads the devnet feeds", func(t *testing.T) {
		p, err := f.USDPrice(ctx, "ETH")
		require.NoError(t, err)
		require.True(t, p.Equal(decimal.NewFromInt(devnet.ETHUSDPrice)), "ETH = %s", p)
		require.Equal(t, "3000", p.String())
		p, err = f.USDPrice(ctx, "usdc")
		require.NoError(t, err)
		require.True(t, p.Equal(decimal.NewFromInt(devnet.USDCUSDPrice)), "USDC = %s", p)
		f.mu.Lock()
		require.Equal(t, map[string]uint8{"ETH": devnet.FeedDecimals, "USDC": devnet.FeedDecimals}, f.decimals)
		f.mu.Unlock()
	})

	t.Run("follows a new answer", func(t *testing.T) {
		defer reset(t)
		require.NoError(t, chain.SetPrice(ctx, eth, big.NewInt(312_345_678_901), time.Time{}))
		p, err := f.USDPrice(ctx, "ETH")
		require.NoError(t, err)
		require.Equal(t, "3123.45678901", p.String())
	})

	t.Run("stale feed", func(t *testing.T) {
		defer reset(t)
		require.NoError(t, chain.SetPrice(ctx, eth, answer(3000), time.Now().Add(-2*time.Hour)))
		_, err := f.USDPrice(ctx, "ETH")
		require.ErrorIs(t, err, ErrStale)
		require.NotErrorIs(t, err, ErrUnavailable)
		require.ErrorContains(t, err, "ETH")

		// Within the bound it is fresh; so is an updatedAt in the future.
		require.NoError(t, chain.SetPrice(ctx, eth, answer(3000), time.Now().Add(-50*time.Minute)))
		_, err = f.USDPrice(ctx, "ETH")
		require.NoError(t, err)
		require.NoError(t, chain.SetPrice(ctx, eth, answer(3000), time.Now().Add(time.Hour)))
		_, err = f.USDPrice(ctx, "ETH")
		require.NoError(t, err)
	})

	t.Run("stale by the clock", func(t *testing.T) {
		g := NewFeeds(pool, devnetFeeds(), time.Minute)
		g.Now = func() time.Time { return time.Now().Add(2 * time.Minute) }
		_, err := g.USDPrice(ctx, "USDC")
		require.ErrorIs(t, err, ErrStale)
		require.ErrorContains(t, err, "USDC")
	})

	t.Run("zero, negative or incomplete answer", func(t *testing.T) {
		defer reset(t)
		for _, tc := range []struct {
			answer    *big.Int
			updatedAt time.Time
		}{
			{big.NewInt(0), time.Time{}},
			{big.NewInt(-300_000_000_000), time.Time{}},
			{answer(3000), time.Unix(0, 0)},
		} {
			require.NoError(t, chain.SetPrice(ctx, eth, tc.answer, tc.updatedAt))
			_, err := f.USDPrice(ctx, "ETH")
			require.ErrorIs(t, err, ErrUnavailable, "answer %s at %s", tc.answer, tc.updatedAt)
			require.ErrorContains(t, err, "ETH")
		}
	})

	t.Run("unknown symbol", func(t *testing.T) {
		_, err := f.USDPrice(ctx, "BTC")
		require.ErrorIs(t, err, ErrNoSource, "no feed configured for the symbol")
		require.NotErrorIs(t, err, ErrUnavailable, "no price source is not a transient failure")
		require.ErrorContains(t, err, "BTC")
	})

	t.Run("not a feed", func(t *testing.T) {
		for sym, ref := range map[string]FeedRef{
			"NOCODE": {ChainID: 31337, Address: devnet.SolverAddress().Hex()}, // an account: empty answer
			"TOKEN":  {ChainID: 31337, Address: devnet.USDCAddress.Hex()},     // has decimals(), reverts on latestRoundData
			"CHAIN":  {ChainID: 999, Address: eth.Hex()},                      // not in the registry
		} {
			g := NewFeeds(pool, map[string]FeedRef{sym: ref}, time.Hour)
			_, err := g.USDPrice(ctx, sym)
			require.ErrorIs(t, err, ErrUnavailable, sym)
			require.ErrorContains(t, err, sym)
		}
	})

	t.Run("behind a cache", func(t *testing.T) {
		defer reset(t)
		c := NewCached(f, time.Hour, 2*time.Hour)
		require.NoError(t, c.Warm(ctx, "ETH", "USDC"))
		require.NoError(t, chain.SetPrice(ctx, eth, answer(2500), time.Time{}))
		p, err := c.USDPrice(ctx, "ETH")
		require.NoError(t, err)
		require.Equal(t, "3000", p.String(), "a warm price is served from memory")
		err = c.Warm(ctx, "ETH", "BTC")
		require.ErrorIs(t, err, ErrNoSource)
		require.ErrorContains(t, err, "BTC")
		p, err = c.USDPrice(ctx, "ETH")
		require.NoError(t, err)
		require.Equal(t, "2500", p.String(), "Warm reads again")
	})

	t.Run("a stale feed behind a cache fails once the cache looks", func(t *testing.T) {
		defer reset(t)
		var ahead atomic.Int64 // how far the cache's clock runs ahead
		c := NewCached(f, time.Minute, time.Hour)
		c.Now = func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }
		require.NoError(t, c.Warm(ctx, "ETH"))
		require.NoError(t, chain.SetPrice(ctx, eth, answer(3000), time.Now().Add(-2*time.Hour)))
		p, err := c.USDPrice(ctx, "ETH")
		require.NoError(t, err)
		require.Equal(t, "3000", p.String(), "within ttl the cache does not look")

		ahead.Store(int64(2 * time.Minute)) // past ttl: the background read finds the feed stale
		_, _ = c.USDPrice(ctx, "ETH")
		require.Eventually(t, func() bool {
			_, err := c.USDPrice(ctx, "ETH")
			return errors.Is(err, ErrStale)
		}, 10*time.Second, 10*time.Millisecond)
	})
}

func TestFeedsRPCDown(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close()) // nothing listens there any more
	reg, err := chains.NewRegistry(devnet.ChainConfigs(map[uint64]string{
		31337: "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
	}))
	require.NoError(t, err)
	f := NewFeeds(chains.NewClients(reg, evm.VM()), map[string]FeedRef{"ETH": {ChainID: 31337, Address: "0xb5704cb42a6cFc04fb7F6eF09782f07338EB9AD6"}}, time.Hour)
	_, err = f.USDPrice(ctx, "eth")
	require.ErrorIs(t, err, ErrUnavailable)
	require.ErrorContains(t, err, "ETH")

	_, err = NewCached(f, time.Second, time.Minute).USDPrice(ctx, "ETH")
	require.ErrorIs(t, err, ErrUnavailable)
}

func TestNewFeedsDefaults(t *testing.T) {
	f := NewFeeds(nil, map[string]FeedRef{"eth": {ChainID: 1, Address: "0x0100000000000000000000000000000000000000"}}, 0)
	require.Equal(t, DefaultMaxAge, f.maxAge)
	require.Contains(t, f.feeds, "ETH")
}
