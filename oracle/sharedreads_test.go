package oracle

import (
	"bytes"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/oracle/oracleapi"
)

// rpcCounter is a proxy in front of a chain's JSON-RPC that counts the calls by method and
// holds the head and header reads back a little, as a node under load answers, so that the
// attestations of one moment overlap.
type rpcCounter struct {
	mu    sync.Mutex
	calls map[string]int
}

func (c *rpcCounter) count(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[method]
}

func countingProxy(t *testing.T, target string) (*rpcCounter, string) {
	t.Helper()
	u, err := url.Parse(target)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(u)
	c := &rpcCounter{calls: map[string]int{}}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var call struct{ Method string }
		_ = json.Unmarshal(body, &call)
		c.mu.Lock()
		c.calls[call.Method]++
		c.mu.Unlock()
		if call.Method == "eth_blockNumber" || call.Method == "eth_getBlockByNumber" {
			time.Sleep(30 * time.Millisecond)
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	return c, hs.URL
}

// Issue 18, batching chain reads: the attestations of the deposits one block confirms arrive
// together, and they share the oracle's reads of the head and of that block's header instead of
// making one each; each still reads its own receipt, and each is attested.
func TestAttestationsOfOneBlockShareTheirHeadAndHeaderReads(t *testing.T) {
	tc := startChain(t, testChainID)
	counter, proxied := countingProxy(t, tc.rpcURL)
	conf := tc.chainConfig(1)
	conf.HTTPRPCURL = proxied
	cfg := mustConfig(t, map[string]string{EnvAPIKeys: testAPIKey + ":engine"})
	_, hs := newTestServer(t, cfg, registry(t, conf), debugLogger(io.Discard))
	const n = 20
	user := crypto.PubkeyToAddress(tc.user.PublicKey)
	first, err := tc.client.PendingNonceAt(t.Context(), user)
	require.NoError(t, err)
	var txs []common.Hash
	for i := range n {
		txs = append(txs, tc.depositNativeAt(t, crypto.Keccak256Hash([]byte{byte(i)}), big.NewInt(1e15), new(big.Int).SetUint64(first+uint64(i))))
	}
	// Every deposit in the node's pool before the block is sealed, so that one block holds them.
	require.Eventually(t, func() bool {
		pending, err := tc.client.PendingNonceAt(t.Context(), user)
		return err == nil && pending == first+n
	}, 10*time.Second, 5*time.Millisecond)
	tc.commit(1)
	client := oracleapi.NewClient(hs.URL, testAPIKey, nil)
	heads, headers := counter.count("eth_blockNumber"), counter.count("eth_getBlockByNumber")
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i, tx := range txs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = client.AttestDeposit(t.Context(), testChainID, tx)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, "deposit %d", i)
	}
	heads, headers = counter.count("eth_blockNumber")-heads, counter.count("eth_getBlockByNumber")-headers
	require.Equal(t, n, counter.count("eth_getTransactionReceipt"), "one receipt read per attestation")
	require.Less(t, heads, n/2, "head reads for %d attestations at once", n)
	require.Less(t, headers, n/2, "header reads for %d attestations of one block at once", n)
	t.Logf("%d attestations at once: %d head reads, %d header reads", n, heads, headers)
}
