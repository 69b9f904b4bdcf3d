package activities

import (
	"context"
	"log/slog"
	"math/big"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/chains/evm"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/prices"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// tieredChain is chain 31337's entry with 4 confirmations and the tiers (≤100 USD: 1,
// ≤1000 USD: 2), validated as the registry does.
func tieredChain(t *testing.T, cap string) *chains.Chain {
	t.Helper()
	reg, err := chains.NewRegistry([]chains.Chain{{ID: 31337, HTTPRPCURL: "http://127.0.0.1:1", Confirmations: 4,
		Currency:          chains.Currency{Symbol: "ETH", Decimals: 18},
		ConfirmationTiers: []chains.ConfirmationTier{{MaxUSD: "100", Confirmations: 1}, {MaxUSD: "1000", Confirmations: 2}},
		ExposureCapUSD:    cap}})
	require.NoError(t, err)
	ch, _ := reg.Get(31337)
	return ch
}

// tieredOracle is the engine's attestation of deposits of block 100 on tieredChain (with
// exposureCapUsd cap), valued at 1000 USD an ETH, its shares held in a test database.
func tieredOracle(t *testing.T, cap string) (*OracleActivities, *fakeChain, *store.Store) {
	ledger := store.New(testenv.Pool(t))
	c := &fakeChain{hashes: map[uint64]string{100: seenBlock.Hash},
		mined: &chains.Block{Number: 100, Hash: seenBlock.Hash}, confirms: 4, config: tieredChain(t, cap)}
	return &OracleActivities{chain: func(uint64) (depositChain, error) { return c, nil },
		Prices: prices.Table{"ETH": decimal.NewFromInt(1000)}, Exposure: ledger, ExposureCap: decimal.NewFromInt(10000)}, c, ledger
}

// weiOf is usd of ETH at 1000 USD, in wei.
func weiOf(usd int64) int64 { return usd * 1e15 }

// tieredCheck makes one check of AttestDeposit for a deposit of usd (ETH at 1000 USD) in block
// 100, the oracle attesting it whatever the depth, with the engine's head at head.
func tieredCheck(t *testing.T, a *OracleActivities, c *fakeChain, id string, usd int64, tiered bool, head uint64) (*AttestResult, string) {
	t.Helper()
	att, signer := signedAttestation(t, depositMsg(seenHash, 3, orderID, weiOf(usd)))
	a.Client, a.Signers = oracleStub(t, http.StatusOK, "", att), []string{signer.Hex()}
	in := attestIn(seenBlock.Hash)
	in.Amount, in.Tiered, in.RequestID = big.NewInt(weiOf(usd)).String(), tiered, id
	c.head = head
	res, why, _, err := checkOnce(t, a, in, Sighting{})
	require.NoError(t, err)
	return res, why
}

// TestTheEngineReliesOnADepositOnlyAtItsOwnDepth holds the issue's "required confirmations
// tiered by the deposit's USD value (≤100: 1, ≤1000: 2, else 4)" on the engine's side, and that
// the engine never relies on an attestation before its own rule's depth whatever depth the
// oracle signed it at: each deposit of block 100 is relied on at the first head that gives its
// tier's confirmations. A deposit relied on before it is final holds its share of the chain's
// exposure; one that is final at once holds none; a wait not Tiered waits
// for the chain's full confirmations, as before.
func TestTheEngineReliesOnADepositOnlyAtItsOwnDepth(t *testing.T) {
	a, c, ledger := tieredOracle(t, "")

	for _, tc := range []struct {
		id     string
		usd    int64
		tiered bool
		at     uint64 // the first head at which the engine relies on it
	}{
		{"small", 50, true, 100},
		{"medium", 500, true, 101},
		{"large", 5000, true, 103},
		{"not tiered", 50, false, 103},
	} {
		t.Run(tc.id, func(t *testing.T) {
			if tc.at > 100 {
				res, why := tieredCheck(t, a, c, tc.id, tc.usd, tc.tiered, tc.at-1)
				require.Nil(t, res, "relied on at head %d", tc.at-1)
				require.Contains(t, why, "not deep enough by the engine's own rule")
			}
			res, _ := tieredCheck(t, a, c, tc.id, tc.usd, tc.tiered, tc.at)
			require.NotNil(t, res, "not relied on at head %d", tc.at)
			if tc.at == 103 {
				require.Nil(t, res.Exposure, "final: no share of the exposure")
				return
			}
			require.NotNil(t, res.Exposure)
			require.True(t, res.Exposure.Reserved)
			require.Equal(t, uint64(103), res.Exposure.FinalBlock)
			require.True(t, res.Exposure.USD.Equal(decimal.NewFromInt(tc.usd)), res.Exposure.USD.String())
		})
	}
	v, err := ledger.ChainExposure(context.Background(), 31337, 102)
	require.NoError(t, err)
	require.Equal(t, "550", v.String(), "the small and medium deposits' shares")
}

// TestAFillPastTheCapIsTold: "past the cap, fills wait": the attestation of a deposit whose
// share does not fit under its chain's cap (exposureCapUsd 100) says so, and holds nothing.
func TestAFillPastTheCapIsTold(t *testing.T) {
	a, c, _ := tieredOracle(t, "100")
	first, _ := tieredCheck(t, a, c, "first", 60, true, 100)
	require.True(t, first.Exposure.Reserved)
	second, _ := tieredCheck(t, a, c, "second", 60, true, 100)
	require.NotNil(t, second, "attested")
	require.False(t, second.Exposure.Reserved, "120 USD under a cap of 100")
	require.Equal(t, uint64(103), second.Exposure.NextFinal, "the exposure drops when the first deposit is final")
}

// askLog records the real ledger's answers to each ask: the head the engine asked at, and
// whether the share was granted.
type askLog struct {
	ExposureLedger
	mu   sync.Mutex
	asks []intent.ExposureAsk
	got  []bool
}

func (l *askLog) ReserveExposure(ctx context.Context, a intent.ExposureAsk) (intent.ExposureAnswer, error) {
	ans, err := l.ExposureLedger.ReserveExposure(ctx, a)
	if err == nil {
		l.mu.Lock()
		l.asks, l.got = append(l.asks, a), append(l.got, ans.Reserved)
		l.mu.Unlock()
	}
	return ans, err
}

func (l *askLog) refusedAt(head uint64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, a := range l.asks {
		if a.Head == head && !l.got[i] {
			return true
		}
	}
	return false
}

// TestAFillPastTheCapWaitsUntilAnEarlierDepositIsFinal: "past the cap, fills wait ... until
// exposure drops as earlier deposits become final", proved by the block: on a devnet chain that
// seals a block only when the test does, deposit A (60 USD, block N, final at N+3) holds its
// share under a cap of 100; B (60 USD, block N+1) is refused at head N+1 and granted at N+3,
// when A is final (B itself is final only at N+4). Between, the wait does not ask Postgres on
// every block: nothing can change before A's final block.
func TestAFillPastTheCapWaitsUntilAnEarlierDepositIsFinal(t *testing.T) {
	d, err := devnet.Start(context.Background(), devnet.Options{Chains: []devnet.ChainOptions{{ID: 31337}}, BlockTime: time.Hour,
		Logger: slog.New(slog.DiscardHandler), FeedHeartbeat: -1})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	reg, err := d.Registry()
	require.NoError(t, err)
	ledger := &askLog{ExposureLedger: store.New(testenv.Pool(t))}
	a := &OracleActivities{Chains: chains.NewClients(reg, evm.VM()), Exposure: ledger, ExposureCap: decimal.NewFromInt(100)}
	chain := d.Chain(31337)
	ctx := context.Background()
	client, err := chain.Dial(ctx)
	require.NoError(t, err)
	t.Cleanup(client.Close)
	n, err := client.BlockNumber(ctx)
	require.NoError(t, err)
	hold := func(id string, block uint64) intent.ExposureHold {
		return intent.ExposureHold{RequestID: id, ChainID: 31337, USD: decimal.NewFromInt(60), DepositBlock: block, FinalBlock: block + 3}
	}
	got, err := ledger.ReserveExposure(ctx, intent.ExposureAsk{ExposureHold: hold("a", n), Head: n, Cap: decimal.NewFromInt(100)})
	require.NoError(t, err)
	require.True(t, got.Reserved)

	chain.Mine() // N+1: B's block
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(a)
	type outcome struct {
		res ExposureWaited
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		val, err := env.ExecuteActivity(a.AwaitExposure, ExposureInput{ExposureHold: hold("b", n+1)})
		o := outcome{err: err}
		if err == nil {
			o.err = val.Get(&o.res)
		}
		done <- o
	}()
	require.Eventually(t, func() bool { return ledger.refusedAt(n + 1) }, 20*time.Second, 10*time.Millisecond, "B refused at N+1")
	chain.Mine() // N+2
	chain.Mine() // N+3: A is final
	o := <-done
	require.NoError(t, o.err)
	require.Equal(t, ExposureWaited{Reserved: true}, o.res, "B holds its share once A is final, before B is")
	ledger.mu.Lock()
	defer ledger.mu.Unlock()
	for i, a := range ledger.asks {
		if a.RequestID == "b" && ledger.got[i] {
			require.Equal(t, n+3, a.Head, "B granted at the head that makes A final")
		}
	}
	require.LessOrEqual(t, len(ledger.asks), 4, "A's reservation, B's refusal, B's grant (and at most one recheck)")
}
