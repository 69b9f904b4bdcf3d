//go:build bench

// Package engineshare measures the engine's share of an intent's latency on the devnet: from
// the block that includes the deposit to the moment the engine broadcasts the fill, and the
// part of it beyond the confirmations the oracle requires (the block that gives the deposit its
// last required confirmation). Block times come from the devnet itself (devnet.Options.OnBlock);
// the broadcast is the engine's first eth_sendRawTransaction of the fill, seen by a proxy in
// front of the destination chain's RPC. Run it with `make bench-engine` (BENCHMARKS.md).
package engineshare

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/testkit"
	"github.com/intentd/intentd/testkit/e2e"
)

// clock keeps the wall-clock times of blocks and of the engine's broadcasts.
type clock struct {
	mu     sync.Mutex
	blocks map[uint64]map[uint64]time.Time // chain -> number -> sealed at
	sent   map[common.Hash]time.Time       // tx -> first eth_sendRawTransaction
}

func (c *clock) block(chainID, number uint64, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.blocks[chainID] == nil {
		c.blocks[chainID] = map[uint64]time.Time{}
	}
	c.blocks[chainID][number] = at
}

func (c *clock) blockAt(chainID, number uint64) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.blocks[chainID][number]
	return t, ok
}

func (c *clock) sentAt(h common.Hash) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.sent[h]
	return t, ok
}

// proxy forwards JSON-RPC to target and records when each raw transaction is first sent.
func (c *clock) proxy(target string) string {
	u, err := url.Parse(target)
	if err != nil {
		panic(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		at := time.Now()
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var calls []struct {
			Method string            `json:"method"`
			Params []json.RawMessage `json:"params"`
		}
		if bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) {
			_ = json.Unmarshal(body, &calls)
		} else {
			calls = make([]struct {
				Method string            `json:"method"`
				Params []json.RawMessage `json:"params"`
			}, 1)
			_ = json.Unmarshal(body, &calls[0])
		}
		for _, call := range calls {
			if call.Method != "eth_sendRawTransaction" || len(call.Params) == 0 {
				continue
			}
			var raw hexutil.Bytes
			var tx types.Transaction
			if json.Unmarshal(call.Params[0], &raw) == nil && tx.UnmarshalBinary(raw) == nil {
				c.mu.Lock()
				if _, seen := c.sent[tx.Hash()]; !seen {
					c.sent[tx.Hash()] = at
				}
				c.mu.Unlock()
			}
		}
		rp.ServeHTTP(w, r)
	}))
	return srv.URL
}

type sample struct {
	total  time.Duration // deposit's block -> fill broadcast
	beyond time.Duration // block of the last required confirmation -> fill broadcast
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// TestEngineShare runs ENGINESHARE_INTENTS intents (default 100), ENGINESHARE_CONCURRENCY at a
// time (default 1), each an ETH bridge 31337 -> 31338 to success, and reports the percentiles.
func TestEngineShare(t *testing.T) {
	n, conc := envInt("ENGINESHARE_INTENTS", 100), envInt("ENGINESHARE_CONCURRENCY", 1)
	ck := &clock{blocks: map[uint64]map[uint64]time.Time{}, sent: map[common.Hash]time.Time{}}
	s := testkit.Start(t, testkit.Options{OnBlock: ck.block, RPC: func(chainID uint64, u string) string {
		if chainID == 31338 {
			return ck.proxy(u)
		}
		return u
	}})
	ch, err := s.Sys.Chains.Registry().Get(31337)
	if err != nil {
		t.Fatal(err)
	}
	confirmations := max(ch.Confirmations, 1)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	samples := make([]sample, n)
	work := make(chan int)
	errs := make(chan error, n+1)
	var wg sync.WaitGroup
	for w := range conc {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			acct := devnet.TestAccounts()[1+w%8]
			wallet := &e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}
			for i := range work {
				sm, err := runOne(ctx, s, wallet, ck, confirmations)
				if err != nil {
					errs <- fmt.Errorf("intent %d: %w", i, err)
					continue
				}
				samples[i] = sm
			}
		}(w)
	}
	// A warm-up intent first: it pays for first connections and cold caches.
	if _, err := runOne(ctx, s, &e2e.Wallet{Key: devnet.TestAccounts()[9].Key, RPCs: s.RPCs}, ck, confirmations); err != nil {
		t.Fatalf("warm-up intent: %v", err)
	}
	start := time.Now()
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	report(t, samples, conc, confirmations, time.Since(start))
}

// runOne quotes, deposits and waits for success, then reads the times off the clock.
func runOne(ctx context.Context, s *testkit.Stack, w *e2e.Wallet, ck *clock, confirmations uint64) (sample, error) {
	q, err := s.API.Quote(ctx, map[string]any{"user": w.Address().Hex(), "originChainId": 31337, "destinationChainId": 31338,
		"originCurrency": common.Address{}.Hex(), "destinationCurrency": common.Address{}.Hex(),
		"amount": "100000000000000000", "tradeType": "EXACT_INPUT"})
	if err != nil {
		return sample{}, err
	}
	receipt, err := w.ExecuteSteps(ctx, q)
	if err != nil {
		return sample{}, err
	}
	st, _, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
	if err != nil {
		return sample{}, err
	}
	if st.Status != "success" || len(st.TxHashes) == 0 {
		return sample{}, fmt.Errorf("ended %s (%s)", st.Status, st.FailReason)
	}
	block := receipt.BlockNumber.Uint64()
	included, ok1 := ck.blockAt(31337, block)
	confirmed, ok2 := ck.blockAt(31337, block+confirmations-1)
	var sent time.Time
	for _, h := range st.TxHashes {
		if at, ok := ck.sentAt(common.HexToHash(h)); ok && (sent.IsZero() || at.Before(sent)) {
			sent = at
		}
	}
	if !ok1 || !ok2 || sent.IsZero() {
		return sample{}, fmt.Errorf("times missing: block %d %v, confirmation %v, fill sent %v", block, ok1, ok2, !sent.IsZero())
	}
	return sample{total: sent.Sub(included), beyond: sent.Sub(confirmed)}, nil
}

func pct(d []time.Duration, p float64) time.Duration {
	i := int(float64(len(d)-1) * p / 100)
	return d[i]
}

func report(t *testing.T, samples []sample, conc int, confirmations uint64, elapsed time.Duration) {
	var total, beyond []time.Duration
	for _, s := range samples {
		total, beyond = append(total, s.total), append(beyond, s.beyond)
	}
	slices.Sort(total)
	slices.Sort(beyond)
	ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) }
	lines := []string{
		fmt.Sprintf("engine share: %d intents, %d at a time, ETH bridge 31337 -> 31338, 250 ms blocks, %d confirmations, %s", len(samples), conc, confirmations, elapsed.Round(time.Second)),
		"| span | p50 ms | p90 ms | p99 ms | max ms |",
		"| --- | --- | --- | --- | --- |",
		fmt.Sprintf("| deposit's block -> fill broadcast | %s | %s | %s | %s |", ms(pct(total, 50)), ms(pct(total, 90)), ms(pct(total, 99)), ms(total[len(total)-1])),
		fmt.Sprintf("| last required confirmation's block -> fill broadcast | %s | %s | %s | %s |", ms(pct(beyond, 50)), ms(pct(beyond, 90)), ms(pct(beyond, 99)), ms(beyond[len(beyond)-1])),
	}
	for _, l := range lines {
		fmt.Println(l)
	}
}
