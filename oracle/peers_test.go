package oracle

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/oracle/oracleapi"
)

// The peer aggregation rules of the spec, each tested on oracle instances serving real HTTP on
// loopback listeners, each with its own key, asking each other over HTTP. Their chain is a
// stubbed node (the same answers for every instance, one instance's failing on demand) so that
// every test has a two-message answer (a transaction with two deposits) and can fail one
// instance's chain without touching the others'. The faulty peers (slow, failing, lying) are
// HTTP servers in front of real instances.

// peerTx is the transaction every instance attests: two deposits in one receipt.
var peerTx = common.HexToHash("0xfeed")

func twoDepositReader() *stubReader {
	header := &types.Header{Number: big.NewInt(10), Difficulty: big.NewInt(0)}
	return &stubReader{head: 10, header: header, receipt: &types.Receipt{Status: types.ReceiptStatusSuccessful,
		BlockNumber: big.NewInt(10), BlockHash: header.Hash(), Logs: []*types.Log{
			depositLog(stubDepository, 1, common.HexToHash("0x1"), 100),
			depositLog(stubDepository, 2, common.HexToHash("0x2"), 200),
		}}}
}

// failingReader is a chain whose RPC fails: the instance's own attestation fails with 503.
func failingReader() *stubReader { return &stubReader{receiptErr: errors.New("connection refused")} }

// node is one oracle instance of a cluster.
type node struct {
	srv  *Server
	url  string
	addr common.Address
	key  *ecdsa.PrivateKey
	logs *syncBuffer
}

// nodeSpec configures one instance: env adds or overrides variables (PEERS, ORACLE_SIGNERS,
// ...), reader is its chain (twoDepositReader by default).
type nodeSpec struct {
	env    map[string]string
	reader *stubReader
}

// cluster starts len(specs) instances; listeners are bound first so that each instance's PEERS
// can name the others (peersOf).
func cluster(t *testing.T, specs ...func(urls []string, addrs []common.Address) nodeSpec) []*node {
	t.Helper()
	n := len(specs)
	nodes := make([]*node, n)
	lns := make([]net.Listener, n)
	urls := make([]string, n)
	addrs := make([]common.Address, n)
	for i := range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		lns[i], urls[i] = ln, "http://"+ln.Addr().String()
		key, err := crypto.GenerateKey()
		require.NoError(t, err)
		nodes[i] = &node{url: urls[i], key: key, addr: crypto.PubkeyToAddress(key.PublicKey), logs: &syncBuffer{}}
		addrs[i] = nodes[i].addr
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	for i, spec := range specs {
		s := spec(urls, addrs)
		env := map[string]string{EnvEnvironment: "test", EnvPrivateKey: hex.EncodeToString(crypto.FromECDSA(nodes[i].key)),
			EnvRateLimitMax: "1000", EnvAPIKeys: testAPIKey + ":peer", EnvPeerRequestTimeoutMS: "2000"}
		for k, v := range s.env {
			env[k] = v
		}
		cfg, err := ConfigFromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
		require.NoError(t, err, "node %d", i)
		srv, err := NewServer(cfg, registry(t, chains.Chain{ID: testChainID, Name: "stub", HTTPRPCURL: "http://127.0.0.1:1",
			Confirmations: 1, Depository: stubDepository.Hex(), Currency: chains.Currency{Symbol: "ETH", Decimals: 18}}), debugLogger(nodes[i].logs))
		require.NoError(t, err)
		if s.reader == nil {
			s.reader = twoDepositReader()
		}
		srv.clients = s.reader
		nodes[i].srv = srv
		wg.Add(1)
		go func() { defer wg.Done(); _ = srv.Serve(ctx, lns[i]) }()
	}
	return nodes
}

// peersOf is a PEERS value naming urls with the dedicated test key.
func peersOf(urls ...string) string {
	var parts []string
	for _, u := range urls {
		parts = append(parts, u+"|"+testAPIKey)
	}
	return strings.Join(parts, ";")
}

func signersOf(addrs ...common.Address) string {
	var parts []string
	for _, a := range addrs {
		parts = append(parts, a.Hex())
	}
	return strings.Join(parts, ";")
}

// attestWithPeers asks n for the deposits of peerTx with requestPeerSignatures and returns the
// answer, its status and how long it took.
func attestWithPeers(t *testing.T, n *node) (response, *oracleapi.DepositAttestation, time.Duration) {
	t.Helper()
	start := time.Now()
	r := do(t, http.MethodPost, n.url+oracleapi.PathDepositAttestation,
		`{"chainId":31337,"transactionId":"`+peerTx.Hex()+`","requestPeerSignatures":true}`, map[string]string{oracleapi.HeaderAPIKey: testAPIKey})
	took := time.Since(start)
	if r.status != http.StatusOK {
		return r, nil, took
	}
	var att oracleapi.DepositAttestation
	require.NoError(t, json.Unmarshal(r.body, &att), string(r.body))
	require.NoError(t, oracleapi.VerifyAttestation(&att), "every signature returned verifies")
	return r, &att, took
}

// signers lists, per message, the signers of att.
func signers(att *oracleapi.DepositAttestation) [][]common.Address {
	var out [][]common.Address
	for _, m := range att.Messages {
		var s []common.Address
		for _, sig := range m.Signatures {
			s = append(s, sig.Signer)
		}
		out = append(out, s)
	}
	return out
}

// assertSigners checks that every message of att is signed by want, in any order, and only by
// them.
func assertSigners(t *testing.T, att *oracleapi.DepositAttestation, want []common.Address, msgAndArgs ...any) {
	t.Helper()
	for _, got := range signers(att) {
		assert.ElementsMatch(t, want, got, msgAndArgs...)
	}
}

func both(want ...common.Address) []common.Address { return want }

// fakePeer serves handler on a loopback listener and returns its URL.
func fakePeer(t *testing.T, handler http.HandlerFunc) string {
	hs := httptest.NewServer(handler)
	t.Cleanup(hs.Close)
	return hs.URL
}

// relay forwards a request to target and returns the answer, mutated by edit when it is an
// attestation; delay is waited first.
func relay(t *testing.T, target string, delay time.Duration, edit func(*oracleapi.DepositAttestation)) string {
	return relayObserved(t, target, delay, edit, nil)
}

// relayObserved is relay that also hands every request's body and headers to observe.
func relayObserved(t *testing.T, target string, delay time.Duration, edit func(*oracleapi.DepositAttestation),
	observe func(body []byte, header http.Header)) string {
	return fakePeer(t, func(w http.ResponseWriter, r *http.Request) {
		// The body is read first: the server notices a caller that gave up (its context ends)
		// only once the body is consumed.
		body, _ := io.ReadAll(r.Body)
		if observe != nil {
			observe(body, r.Header.Clone())
		}
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, target+r.URL.Path, bytes.NewReader(body))
		req.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if edit != nil && resp.StatusCode == http.StatusOK {
			var att oracleapi.DepositAttestation
			if json.Unmarshal(raw, &att) == nil {
				edit(&att)
				raw, _ = json.Marshal(att)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(resp.StatusCode)
		_, _ = w.Write(raw)
	})
}

// Rule 1: "Responses are combined only when attestation payloads, signing domains and
// non-signature array order match. Responses failing the endpoint schema are skipped."
func TestPeerRule1CombinedOnlyWhenPayloadDomainAndOrderMatch(t *testing.T) {
	backs := cluster(t,
		func([]string, []common.Address) nodeSpec { return nodeSpec{} },
		// Another deployment: the same facts under another domain (its salt).
		func([]string, []common.Address) nodeSpec {
			return nodeSpec{env: map[string]string{EnvEnvironment: "other"}}
		},
	)
	reordered := relay(t, backs[0].url, 0, func(a *oracleapi.DepositAttestation) { slices.Reverse(a.Messages) })
	schemaless := fakePeer(t, func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"messages":"not an array","domain":{}}`))
	})
	front := cluster(t, func([]string, []common.Address) nodeSpec {
		return nodeSpec{env: map[string]string{EnvPeers: peersOf(backs[0].url, backs[1].url, reordered, schemaless)}}
	})[0]

	r, att, _ := attestWithPeers(t, front)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assertSigners(t, att, both(front.addr, backs[0].addr), "only the peer with the same payload, domain and order is merged")
	logs := front.logs.String()
	for _, u := range []string{backs[1].url, reordered, schemaless} {
		assert.Contains(t, logs, u, "the skipped peer is named in a warning")
	}
	assert.Contains(t, logs, "invalid answer", "the answer failing the schema is skipped")
}

// Rule 2: "Aggregation excludes duplicate signatures, signatures of non-allowlisted signers
// (when ORACLE_SIGNERS is set), and signers missing from any signature array of a
// multi-message response."
func TestPeerRule2ExcludesDuplicatesStrangersAndSignersMissingFromAnArray(t *testing.T) {
	backs := cluster(t,
		func([]string, []common.Address) nodeSpec { return nodeSpec{} },
		func([]string, []common.Address) nodeSpec { return nodeSpec{} },
		func([]string, []common.Address) nodeSpec { return nodeSpec{} },
	)
	// Peer 1 repeats its signature; peer 2 signed the first message only; peer 3 is not
	// allowlisted here.
	dup := relay(t, backs[0].url, 0, func(a *oracleapi.DepositAttestation) {
		for i := range a.Messages {
			a.Messages[i].Signatures = append(a.Messages[i].Signatures, a.Messages[i].Signatures[0])
		}
	})
	partial := relay(t, backs[1].url, 0, func(a *oracleapi.DepositAttestation) { a.Messages[1].Signatures = a.Messages[1].Signatures[:0] })
	front := cluster(t, func(_ []string, addrs []common.Address) nodeSpec {
		return nodeSpec{env: map[string]string{EnvPeers: peersOf(dup, partial, backs[2].url),
			EnvOracleSigners: signersOf(addrs[0], backs[0].addr, backs[1].addr), EnvOracleSignersThreshold: "3"}}
	})[0]
	r, att, _ := attestWithPeers(t, front)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assertSigners(t, att, both(front.addr, backs[0].addr),
		"the duplicate counts once, the stranger and the signer missing from the second message not at all")
	assert.Contains(t, front.logs.String(), `"matched":2`)
}

// Rule 3: "With ORACLE_SIGNERS set, the service returns early once a response group reaches
// the threshold of unique allowlisted signatures; the local oracle has no privilege, so remote
// peers alone can satisfy it. The local signature counts toward the threshold (2-of-3 uses
// threshold 2)."
func TestPeerRule3EarlyReturnAtTheThresholdRemotePeersAlone(t *testing.T) {
	backs := cluster(t,
		func([]string, []common.Address) nodeSpec { return nodeSpec{} },
		func([]string, []common.Address) nodeSpec { return nodeSpec{} },
	)
	slow := relay(t, backs[1].url, 1500*time.Millisecond, nil)
	allow := func(self common.Address) string { return signersOf(self, backs[0].addr, backs[1].addr) }

	t.Run("the local signature and one peer make 2-of-3 without waiting for the slow peer", func(t *testing.T) {
		front := cluster(t, func(_ []string, addrs []common.Address) nodeSpec {
			return nodeSpec{env: map[string]string{EnvPeers: peersOf(backs[0].url, slow), EnvOracleSigners: allow(addrs[0]),
				EnvOracleSignersThreshold: "2"}}
		})[0]
		r, att, took := attestWithPeers(t, front)
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		assertSigners(t, att, both(front.addr, backs[0].addr))
		assert.Less(t, took, time.Second, "returned before the slow peer answered")
	})
	t.Run("remote peers alone reach the threshold when the local attestation fails", func(t *testing.T) {
		front := cluster(t, func(_ []string, addrs []common.Address) nodeSpec {
			return nodeSpec{reader: failingReader(), env: map[string]string{EnvPeers: peersOf(backs[0].url, backs[1].url),
				EnvOracleSigners: allow(addrs[0]), EnvOracleSignersThreshold: "2"}}
		})[0]
		r, att, _ := attestWithPeers(t, front)
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		assert.Equal(t, 2, len(att.Messages[0].Signatures))
		assert.ElementsMatch(t, []common.Address{backs[0].addr, backs[1].addr}, signers(att)[0])
		assert.ElementsMatch(t, signers(att)[0], signers(att)[1])
	})
}

// Rule 4: "The threshold does not enforce quorum. When no group reaches it, the strongest
// valid partial group can be returned with a success response and the matched and required
// counts are logged."
func TestPeerRule4StrongestPartialGroupReturnedWithCountsLogged(t *testing.T) {
	backs := cluster(t, func([]string, []common.Address) nodeSpec { return nodeSpec{} })
	down := "http://127.0.0.1:" + strconv.Itoa(freePort(t))
	ghost, err := crypto.GenerateKey()
	require.NoError(t, err)
	front := cluster(t, func(_ []string, addrs []common.Address) nodeSpec {
		return nodeSpec{env: map[string]string{EnvPeers: peersOf(backs[0].url, down),
			EnvOracleSigners:          signersOf(addrs[0], backs[0].addr, crypto.PubkeyToAddress(ghost.PublicKey)),
			EnvOracleSignersThreshold: "3"}}
	})[0]
	r, att, _ := attestWithPeers(t, front)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assertSigners(t, att, both(front.addr, backs[0].addr))
	logs := front.logs.String()
	assert.Contains(t, logs, "signer threshold not reached")
	assert.Contains(t, logs, `"matched":2`)
	assert.Contains(t, logs, `"required":3`)
}

// Rule 5: "Each instance applies its own allowlist and never sends it to peers." And
// Authentication rule 4: "Peers authenticate to each other with a dedicated per-peer key ...
// or pass-through."
func TestPeerRule5AllowlistNeverSentToPeers(t *testing.T) {
	backs := cluster(t,
		func([]string, []common.Address) nodeSpec { return nodeSpec{} },
		func([]string, []common.Address) nodeSpec { return nodeSpec{} },
	)
	type seen struct {
		body   string
		header http.Header
	}
	var mu sync.Mutex
	var got []seen
	capture := func(target string) string {
		return relayObserved(t, target, 0, nil, func(body []byte, header http.Header) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, seen{string(body), header})
		})
	}
	dedicated, passThrough := capture(backs[0].url), capture(backs[1].url)
	front := cluster(t, func(_ []string, addrs []common.Address) nodeSpec {
		return nodeSpec{env: map[string]string{EnvPeers: dedicated + "|peer-key-of-0;" + passThrough + "|pass-through",
			EnvOracleSigners: signersOf(addrs[0], backs[0].addr, backs[1].addr), EnvOracleSignersThreshold: "3",
			EnvAPIKeys: testAPIKey + ":caller"}}
	})[0]
	r, att, _ := attestWithPeers(t, front)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assert.Len(t, att.Messages[0].Signatures, 3)
	require.Len(t, got, 2)
	for _, g := range got {
		all := strings.ToLower(g.body + strings.Join(slices.Collect(func(yield func(string) bool) {
			for k, v := range g.header {
				if !yield(k + ":" + strings.Join(v, ",")) {
					return
				}
			}
		}), "\n"))
		for _, a := range []common.Address{front.addr, backs[0].addr, backs[1].addr} {
			assert.NotContains(t, all, strings.ToLower(a.Hex()[2:]), "an allowlisted address reached a peer")
		}
		assert.NotContains(t, all, "signers")
		assert.NotContains(t, all, "threshold")
		var body map[string]any
		require.NoError(t, json.Unmarshal([]byte(g.body), &body))
		assert.Equal(t, false, body["requestPeerSignatures"], "peers answer alone and never fan out in turn")
	}
	keys := []string{got[0].header.Get(oracleapi.HeaderAPIKey), got[1].header.Get(oracleapi.HeaderAPIKey)}
	assert.ElementsMatch(t, []string{"peer-key-of-0", testAPIKey}, keys, "the dedicated key, and the caller's key passed through")
}

// Rule 6: "Without ORACLE_SIGNERS, the threshold is ignored, the service waits for the local
// result and every peer (bounded by PEER_REQUEST_TIMEOUT_MS), aggregates only peer responses
// matching the local unsigned payload, and fails if the local attestation fails."
func TestPeerRule6WithoutAllowlistWaitsForAllAndFailsOnLocalFailure(t *testing.T) {
	backs := cluster(t,
		func([]string, []common.Address) nodeSpec { return nodeSpec{} },
		func([]string, []common.Address) nodeSpec {
			return nodeSpec{env: map[string]string{EnvEnvironment: "other"}}
		},
	)
	slow := relay(t, backs[0].url, 700*time.Millisecond, nil)
	hung := relay(t, backs[0].url, time.Hour, nil)
	t.Run("waits for every peer, bounded by the timeout, and merges the matching ones", func(t *testing.T) {
		front := cluster(t, func([]string, []common.Address) nodeSpec {
			return nodeSpec{env: map[string]string{EnvPeers: peersOf(slow, backs[1].url, hung), EnvOracleSignersThreshold: "1",
				EnvPeerRequestTimeoutMS: "1500"}}
		})[0]
		r, att, took := attestWithPeers(t, front)
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		assertSigners(t, att, both(front.addr, backs[0].addr), "the slow peer waited for; the other payload left out")
		assert.GreaterOrEqual(t, took, 1500*time.Millisecond, "waited for the hung peer until the timeout")
		assert.Less(t, took, 5*time.Second)
	})
	t.Run("fails with the local failure although peers attest", func(t *testing.T) {
		front := cluster(t, func([]string, []common.Address) nodeSpec {
			return nodeSpec{reader: failingReader(), env: map[string]string{EnvPeers: peersOf(backs[0].url)}}
		})[0]
		r, _, _ := attestWithPeers(t, front)
		require.Equal(t, http.StatusServiceUnavailable, r.status, string(r.body))
		assert.Equal(t, oracleapi.CodeChainUnavailable, r.errorBody(t).Code)
	})
}

// Rule 7: "With an allowlist, a local failure is logged but does not fail the request alone;
// it fails only when no valid allowlisted group exists."
func TestPeerRule7LocalFailureAloneDoesNotFailWithAllowlist(t *testing.T) {
	backs := cluster(t, func([]string, []common.Address) nodeSpec { return nodeSpec{} })
	stranger := cluster(t, func([]string, []common.Address) nodeSpec { return nodeSpec{} })[0]
	t.Run("an allowlisted peer stands in", func(t *testing.T) {
		front := cluster(t, func(_ []string, addrs []common.Address) nodeSpec {
			return nodeSpec{reader: failingReader(), env: map[string]string{EnvPeers: peersOf(backs[0].url),
				EnvOracleSigners: signersOf(addrs[0], backs[0].addr), EnvOracleSignersThreshold: "2"}}
		})[0]
		r, att, _ := attestWithPeers(t, front)
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		assertSigners(t, att, both(backs[0].addr))
		assert.Contains(t, front.logs.String(), "local attestation failed")
	})
	t.Run("no allowlisted group: the local failure is the answer", func(t *testing.T) {
		front := cluster(t, func(_ []string, addrs []common.Address) nodeSpec {
			return nodeSpec{reader: failingReader(), env: map[string]string{EnvPeers: peersOf(stranger.url),
				EnvOracleSigners: signersOf(addrs[0], backs[0].addr)}}
		})[0]
		r, _, _ := attestWithPeers(t, front)
		require.Equal(t, http.StatusServiceUnavailable, r.status, string(r.body))
		assert.Equal(t, oracleapi.CodeChainUnavailable, r.errorBody(t).Code)
	})
}

// Rule 8: "A peer that times out, errors, fails validation or returns a non-matching payload
// is skipped with a warning." And Errors rule 2: "A peer failure never surfaces as a caller
// error by itself."
func TestPeerRule8FaultyPeersSkippedWithAWarning(t *testing.T) {
	backs := cluster(t,
		func([]string, []common.Address) nodeSpec { return nodeSpec{} },
		func([]string, []common.Address) nodeSpec {
			return nodeSpec{env: map[string]string{EnvEnvironment: "other"}}
		},
	)
	slow := relay(t, backs[0].url, 3*time.Second, nil)
	failing := fakePeer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"code":"INTERNAL_ERROR","message":"boom"}`))
	})
	forged := relay(t, backs[0].url, 0, func(a *oracleapi.DepositAttestation) {
		a.Messages[0].Data.Amount = oracleapi.NewAmount(big.NewInt(1)) // its signature no longer verifies
	})
	nonMatching := backs[1].url
	for _, withAllowlist := range []bool{false, true} {
		t.Run("allowlist "+strconv.FormatBool(withAllowlist), func(t *testing.T) {
			front := cluster(t, func(_ []string, addrs []common.Address) nodeSpec {
				env := map[string]string{EnvPeers: peersOf(slow, failing, forged, nonMatching), EnvPeerRequestTimeoutMS: "500"}
				if withAllowlist {
					env[EnvOracleSigners] = signersOf(addrs[0], backs[0].addr, backs[1].addr)
					env[EnvOracleSignersThreshold] = "2"
				}
				return nodeSpec{env: env}
			})[0]
			r, att, _ := attestWithPeers(t, front)
			require.Equal(t, http.StatusOK, r.status, string(r.body))
			assertSigners(t, att, both(front.addr))
			logs := front.logs.String()
			for what, u := range map[string]string{"timed out": slow, "failing": failing, "invalid": forged, "non-matching": nonMatching} {
				assert.Contains(t, logs, u, "the %s peer is named in a warning", what)
			}
			assert.Contains(t, logs, "no answer within 500ms")
			assert.Contains(t, logs, "answered 500 INTERNAL_ERROR")
			assert.Contains(t, logs, "recovers to")
			assert.Contains(t, logs, `"level":"WARN"`)
			assertNoSecrets(t, logs)
		})
	}
}

// Without requestPeerSignatures, or without PEERS, only the local signature is returned and no
// peer is asked.
func TestPeersAskedOnlyWhenRequested(t *testing.T) {
	var calls sync.Map
	peer := fakePeer(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Store(r.URL.Path, true)
		w.WriteHeader(http.StatusInternalServerError)
	})
	front := cluster(t, func([]string, []common.Address) nodeSpec {
		return nodeSpec{env: map[string]string{EnvPeers: peersOf(peer)}}
	})[0]
	r := do(t, http.MethodPost, front.url+oracleapi.PathDepositAttestation, `{"chainId":31337,"transactionId":"`+peerTx.Hex()+`"}`, nil)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	_, asked := calls.Load(oracleapi.PathDepositAttestation)
	assert.False(t, asked)
}

// Review L18: "A keyless requestPeerSignatures:true request is re-sent to every peer with the
// dedicated peer key, which skips the peers' rate limits." The oracle fans out for callers with
// a valid key only; a keyless caller gets the local attestation, and no peer is asked.
func TestKeylessRequestPeerSignaturesIsAnsweredLocallyWithoutAskingPeers(t *testing.T) {
	var mu sync.Mutex
	asked := 0
	back := cluster(t, func([]string, []common.Address) nodeSpec { return nodeSpec{} })[0]
	peer := relayObserved(t, back.url, 0, nil, func([]byte, http.Header) { mu.Lock(); asked++; mu.Unlock() })
	front := cluster(t, func(_ []string, addrs []common.Address) nodeSpec {
		return nodeSpec{env: map[string]string{EnvPeers: peersOf(peer), EnvOracleSigners: signersOf(addrs[0], back.addr),
			EnvOracleSignersThreshold: "2"}}
	})[0]
	body := `{"chainId":31337,"transactionId":"` + peerTx.Hex() + `","requestPeerSignatures":true}`

	r := do(t, http.MethodPost, front.url+oracleapi.PathDepositAttestation, body, nil)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	var att oracleapi.DepositAttestation
	require.NoError(t, json.Unmarshal(r.body, &att))
	assertSigners(t, &att, both(front.addr), "the local signature only")
	assert.Equal(t, 0, asked, "no peer is asked for a keyless caller")
	assert.Contains(t, front.logs.String(), "peer signatures are gathered for callers with an API key only")

	// An invalid key is no key.
	r = do(t, http.MethodPost, front.url+oracleapi.PathDepositAttestation, body, map[string]string{oracleapi.HeaderAPIKey: "not-a-key"})
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assert.Equal(t, 0, asked)

	// With a valid key the peers are asked.
	r, got, _ := attestWithPeers(t, front)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assertSigners(t, got, both(front.addr, back.addr))
	assert.Equal(t, 1, asked)
}

// A deposit still collecting its confirmations is refused by every oracle alike: the request
// answers the local 409, and neither the local refusal nor the peers' is logged at WARN (a
// healthy intent logs no warnings), while a failing peer still is.
func TestPeerRefusalsOfUnconfirmedFactsAreNotWarnings(t *testing.T) {
	pending := func() *stubReader { return &stubReader{receiptErr: ethereum.NotFound, pending: true} }
	backs := cluster(t,
		func([]string, []common.Address) nodeSpec { return nodeSpec{reader: pending()} },
		func([]string, []common.Address) nodeSpec { return nodeSpec{reader: pending()} },
	)
	front := cluster(t, func(_ []string, addrs []common.Address) nodeSpec {
		return nodeSpec{reader: pending(), env: map[string]string{EnvPeers: peersOf(backs[0].url, backs[1].url),
			EnvOracleSigners: signersOf(addrs[0], backs[0].addr, backs[1].addr), EnvOracleSignersThreshold: "2"}}
	})[0]
	r, _, _ := attestWithPeers(t, front)
	require.Equal(t, http.StatusConflict, r.status, string(r.body))
	assert.Equal(t, oracleapi.CodeNotConfirmed, r.errorBody(t).Code)
	assert.NotContains(t, front.logs.String(), `"level":"WARN"`)
	assert.Contains(t, front.logs.String(), "answered 409 TRANSACTION_NOT_CONFIRMED", "named at DEBUG")
}
