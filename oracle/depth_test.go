package oracle

import (
	"math/big"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/oracle/oracleapi"
)

// TestTheOracleAttestsADepositAtItsValuesTierByItsOwnPrices holds the issue's rule "per chain,
// required confirmations tiered by the deposit's USD value (≤100: 1, ≤1000: 2, else 4)" on the
// oracle's side, and the task's "the oracle must never sign at a depth lower than its own rule
// allows": the oracle prices each deposit itself (the devnet's ETH/USD feed, 3000 USD, read
// through its own RPC client), from its own chain file's tiers, and an oracle without prices
// attests nothing before the chain's full confirmations. Each depth is proved by the block: the
// chain seals blocks only when the test commits one.
func TestTheOracleAttestsADepositAtItsValuesTierByItsOwnPrices(t *testing.T) {
	tc := startChain(t, testChainID)
	ch := tc.chainConfig(4)
	ch.ConfirmationTiers = []chains.ConfirmationTier{{MaxUSD: "100", Confirmations: 1}, {MaxUSD: "1000", Confirmations: 2}}
	reg := registry(t, ch)
	priced := mustConfig(t, map[string]string{EnvRateLimitMax: "1000", EnvPriceSource: "feeds",
		EnvPriceFeeds: devnet.PriceFeedsConfig(testChainID)})
	_, withPrices := newTestServer(t, priced, reg, nil)
	_, without := newTestServer(t, mustConfig(t, map[string]string{EnvRateLimitMax: "1000"}), reg, nil)

	// Three deposits in one block: 0.01 ETH (30 USD), 0.1 ETH (300 USD) and 1 ETH (3000 USD).
	user := crypto.PubkeyToAddress(tc.user.PublicKey)
	first, err := tc.client.PendingNonceAt(t.Context(), user)
	require.NoError(t, err)
	milli := func(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e15)) }
	var txs []common.Hash
	for i, amount := range []*big.Int{milli(10), milli(100), milli(1000)} {
		txs = append(txs, tc.depositNativeAt(t, crypto.Keccak256Hash([]byte{byte(i)}), amount, new(big.Int).SetUint64(first+uint64(i))))
	}
	require.Eventually(t, func() bool {
		pending, err := tc.client.PendingNonceAt(t.Context(), user)
		return err == nil && pending == first+3
	}, 10*time.Second, 5*time.Millisecond, "the three deposits in the node's pool")
	small, medium, large := txs[0], txs[1], txs[2]

	attest := func(url string, tx common.Hash) (int, string) {
		r := do(t, http.MethodPost, url+oracleapi.PathDepositAttestation, attestBody(testChainID, tx), nil)
		if r.status == http.StatusOK {
			return r.status, ""
		}
		e := r.errorBody(t)
		require.Equal(t, oracleapi.CodeNotConfirmed, e.Code, e.Message)
		return r.status, e.Message
	}
	expect := func(url string, tx common.Hash, status int, message string) {
		t.Helper()
		got, msg := attest(url, tx)
		require.Equal(t, status, got, msg)
		require.Contains(t, msg, message)
	}

	tc.commit(1) // the deposits' block: one confirmation
	expect(withPrices.URL, small, http.StatusOK, "")
	expect(withPrices.URL, medium, http.StatusConflict, "1 of 2 confirmations")
	expect(withPrices.URL, large, http.StatusConflict, "1 of 4 confirmations")
	expect(without.URL, small, http.StatusConflict, "1 of 4 confirmations") // no prices: the highest tier

	tc.commit(1) // two confirmations
	expect(withPrices.URL, medium, http.StatusOK, "")
	expect(withPrices.URL, large, http.StatusConflict, "2 of 4 confirmations")
	expect(without.URL, small, http.StatusConflict, "2 of 4 confirmations")

	tc.commit(2) // four: final
	expect(withPrices.URL, large, http.StatusOK, "")
	expect(without.URL, small, http.StatusOK, "")
}

// TestTheOraclesPricesAreValidatedAtStart: PRICE_SOURCE names a source, each source needs its
// list, and a feed on a chain the oracle does not serve stops the start.
func TestTheOraclesPricesAreValidatedAtStart(t *testing.T) {
	for name, vars := range map[string]map[string]string{
		"an unknown source":     {EnvPriceSource: "oracle"},
		"a table without table": {EnvPriceSource: "table"},
		"feeds without feeds":   {EnvPriceSource: "feeds"},
		"a bad table":           {EnvPriceSource: "table", EnvPricesUSD: "ETH=-1"},
		"a bad maximum age":     {EnvPriceMaxAge: "soon"},
	} {
		_, err := ConfigFromEnv(env(baseEnv(vars)))
		require.Error(t, err, name)
	}
	cfg := mustConfig(t, map[string]string{EnvPriceSource: "feeds", EnvPriceFeeds: devnet.PriceFeedsConfig(31999)})
	tc := chains.Chain{ID: testChainID, HTTPRPCURL: "http://127.0.0.1:1", Confirmations: 2,
		Currency: chains.Currency{Symbol: "ETH", Decimals: 18}}
	_, err := NewServer(cfg, registry(t, tc), nil)
	require.ErrorContains(t, err, "chain 31999")
	// Without prices the oracle starts, and says that its tiered chains wait their full depth.
	tc.ConfirmationTiers = []chains.ConfirmationTier{{MaxUSD: "100", Confirmations: 1}}
	srv, err := NewServer(mustConfig(t, nil), registry(t, tc), nil)
	require.NoError(t, err)
	require.Contains(t, srv.cfg.Warnings[len(srv.cfg.Warnings)-1], "full 2 confirmations")
}
