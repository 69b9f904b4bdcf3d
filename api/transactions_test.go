package api

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/door"
)

// fakeIndexer records the transactions it is asked to index and answers with err.
type fakeIndexer struct {
	calls []indexCall
	err   error
}

type indexCall struct {
	chainID uint64
	tx      string
}

func (f *fakeIndexer) IndexTransaction(_ context.Context, chainID uint64, tx string) (int, error) {
	f.calls = append(f.calls, indexCall{chainID, tx})
	return 1, f.err
}

var (
	hintTx  = "0x" + strings.Repeat("ab", 32)
	hintReq = "0x" + strings.Repeat("cd", 32)
)

// postHint posts a raw body to a transaction hint endpoint of a server on the devnet's chain
// registry (31337, 31338) with f as its indexer.
func postHint(t *testing.T, f *fakeIndexer, path, body string) (int, map[string]any) {
	t.Helper()
	return postHintOn(t, unreachableChains(t).Registry(), f, path, body)
}

// postHintOn is postHint on the chains of reg.
func postHintOn(t *testing.T, reg *chains.Registry, f *fakeIndexer, path, body string) (int, map[string]any) {
	t.Helper()
	s := &Server{Chains: reg, Indexer: f, Logger: slog.New(slog.DiscardHandler)}
	r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, r)
	var out map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
		t.Fatalf("%s %s: %d %s is not JSON", path, body, w.Code, w.Body)
	}
	if m, _ := out["message"].(string); m == "" {
		t.Fatalf("%s %s: %d %v has no message", path, body, w.Code, out)
	}
	if w.Code >= 400 {
		checkError(t, path+" "+body, w.Code, out, fmt.Sprint(out["errorCode"]))
	}
	return w.Code, out
}

func TestTransactionsIndexAcceptsChainIdAsANumberOrADecimalStringAndAnOptionalRequestId(t *testing.T) {
	for _, body := range []string{
		`{"chainId": 31337, "txHash": "` + hintTx + `"}`,
		`{"chainId": "31337", "txHash": "` + hintTx + `"}`, // the SDK: chainId.toString()
		`{"chainId": "31337", "txHash": "` + hintTx + `", "requestId": "` + hintReq + `"}`,
		`{"chainId": "31337", "txHash": "` + hintTx + `", "referrer": "sdk-source"}`, // the SDK adds its source
		// The door gets the id in the chain family's canonical form (an EVM hash in lower case).
		`{"chainId": 31337, "txHash": "0x` + strings.ToUpper(hintTx[2:]) + `"}`,
	} {
		f := &fakeIndexer{}
		code, out := postHint(t, f, "/transactions/index", body)
		if code != http.StatusOK || out["deposits"] != float64(1) {
			t.Fatalf("%s: %d %v", body, code, out)
		}
		if len(f.calls) != 1 || f.calls[0] != (indexCall{31337, hintTx}) {
			t.Fatalf("%s: indexed %v", body, f.calls)
		}
	}
}

func TestTransactionsIndexBadBodyIs400WithMessage(t *testing.T) {
	for name, body := range map[string]string{
		"hex chain id":        `{"chainId": "0x7a69", "txHash": "` + hintTx + `"}`,
		"fractional chain id": `{"chainId": 31337.5, "txHash": "` + hintTx + `"}`,
		"padded chain id":     `{"chainId": " 31337", "txHash": "` + hintTx + `"}`,
		"leading zero":        `{"chainId": "031337", "txHash": "` + hintTx + `"}`,
		"negative chain id":   `{"chainId": "-1", "txHash": "` + hintTx + `"}`,
		"zero chain id":       `{"chainId": 0, "txHash": "` + hintTx + `"}`,
		"null chain id":       `{"chainId": null, "txHash": "` + hintTx + `"}`,
		"missing chain id":    `{"txHash": "` + hintTx + `"}`,
		"unknown chain":       `{"chainId": "1", "txHash": "` + hintTx + `"}`,
		"bad hash":            `{"chainId": "31337", "txHash": "0x1234"}`,
		"bad requestId":       `{"chainId": "31337", "txHash": "` + hintTx + `", "requestId": "r1"}`,
		"not json":            `chainId=31337`,
		"two objects":         `{"chainId": 31337, "txHash": "` + hintTx + `"} {}`,
	} {
		f := &fakeIndexer{}
		if code, out := postHint(t, f, "/transactions/index", body); code != http.StatusBadRequest || len(f.calls) != 0 {
			t.Errorf("%s: %d %v, indexed %v", name, code, out, f.calls)
		}
	}
}

func TestTransactionsSingleIndexesTheHashOfItsJSONEncodedTxLikeTransactionsIndex(t *testing.T) {
	// What the SDK posts for a same-chain request: the step item's data with the hash, as a
	// JSON string, and the chain id as a decimal string.
	txJSON := func(fields string) string {
		b, _ := json.Marshal(`{"from":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266","to":"0xB9733560ecF2E4E9C9d8c21B6b34B7A4f25277AA",` +
			`"data":"0x","value":"1","chainId":31337,` + fields + `}`)
		return string(b)
	}
	for name, body := range map[string]string{
		"chainId string": `{"requestId": "` + hintReq + `", "chainId": "31337", "tx": ` + txJSON(`"txHash":"`+hintTx+`"`) + `, "referrer": "sdk"}`,
		"chainId number": `{"requestId": "` + hintReq + `", "chainId": 31337, "tx": ` + txJSON(`"txHash":"`+hintTx+`"`) + `}`,
		// A replaced transaction: the SDK sends the new hash as replacementTxHash.
		"replacement": `{"requestId": "` + hintReq + `", "chainId": "31337", "tx": ` + txJSON(`"replacementTxHash":"`+hintTx+`"`) + `}`,
	} {
		f := &fakeIndexer{}
		code, out := postHint(t, f, "/transactions/single", body)
		if code != http.StatusOK || len(out) != 1 {
			t.Fatalf("%s: %d %v, want 200 {message}", name, code, out)
		}
		if len(f.calls) != 1 || f.calls[0] != (indexCall{31337, hintTx}) {
			t.Fatalf("%s: indexed %v", name, f.calls)
		}
	}

	// Not mined yet and chain unreadable answer as /transactions/index does.
	body := `{"requestId": "` + hintReq + `", "chainId": "31337", "tx": ` + txJSON(`"txHash":"`+hintTx+`"`) + `}`
	for err, want := range map[error]int{door.ErrNotMined: http.StatusAccepted, fmt.Errorf("rpc down"): http.StatusServiceUnavailable} {
		single, _ := postHint(t, &fakeIndexer{err: err}, "/transactions/single", body)
		index, _ := postHint(t, &fakeIndexer{err: err}, "/transactions/index", `{"chainId": "31337", "txHash": "`+hintTx+`"}`)
		if single != want || index != want {
			t.Errorf("%v: single %d, index %d, want %d", err, single, index, want)
		}
	}
}

// Review L8: "A hint for a disabled chain is routed and starts workflows that wait until they
// time out. Refuse Disabled chains." Both hint endpoints answer 400 UNSUPPORTED_CHAIN, the
// spec's error shape for a chain that is not supported, and index nothing.
func TestTransactionHintForADisabledChainIsUnsupportedChain(t *testing.T) {
	reg, err := chains.NewRegistry(devnet.ChainConfigs(map[uint64]string{31337: deadRPC, 31338: deadRPC}))
	if err != nil {
		t.Fatal(err)
	}
	ch, _ := reg.Get(31338)
	ch.Disabled = true
	tx := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	for path, body := range map[string]string{
		"/transactions/index":  `{"chainId": 31338, "txHash": "` + hintTx + `"}`,
		"/transactions/single": `{"requestId": "` + hintReq + `", "chainId": "31338", "tx": ` + tx(`{"txHash":"`+hintTx+`"}`) + `}`,
	} {
		f := &fakeIndexer{}
		code, out := postHintOn(t, reg, f, path, body)
		if code != http.StatusBadRequest || out["errorCode"] != CodeUnsupportedChain || len(f.calls) != 0 {
			t.Errorf("%s: %d %v, indexed %v", path, code, out, f.calls)
		}
	}
}

func TestTransactionsSingleBadBodyIs400WithMessage(t *testing.T) {
	tx := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	good := tx(`{"txHash":"` + hintTx + `"}`)
	for name, body := range map[string]string{
		"no requestId":       `{"chainId": "31337", "tx": ` + good + `}`,
		"bad requestId":      `{"requestId": "r1", "chainId": "31337", "tx": ` + good + `}`,
		"no chainId":         `{"requestId": "` + hintReq + `", "tx": ` + good + `}`,
		"unknown chain":      `{"requestId": "` + hintReq + `", "chainId": "1", "tx": ` + good + `}`,
		"hex chainId":        `{"requestId": "` + hintReq + `", "chainId": "0x7a69", "tx": ` + good + `}`,
		"no tx":              `{"requestId": "` + hintReq + `", "chainId": "31337"}`,
		"tx not a string":    `{"requestId": "` + hintReq + `", "chainId": "31337", "tx": {"txHash": "` + hintTx + `"}}`,
		"tx not JSON":        `{"requestId": "` + hintReq + `", "chainId": "31337", "tx": "0xdeadbeef"}`,
		"tx without hash":    `{"requestId": "` + hintReq + `", "chainId": "31337", "tx": ` + tx(`{"to":"0x1"}`) + `}`,
		"tx with a bad hash": `{"requestId": "` + hintReq + `", "chainId": "31337", "tx": ` + tx(`{"txHash":"0x12"}`) + `}`,
		"not json":           `requestId=1`,
		"too large":          `{"requestId": "` + hintReq + `", "chainId": "31337", "tx": ` + tx(`{"txHash":"`+hintTx+`","data":"`+strings.Repeat("0", txBodyLimit)+`"}`) + `}`,
	} {
		f := &fakeIndexer{}
		if code, out := postHint(t, f, "/transactions/single", body); code != http.StatusBadRequest || len(f.calls) != 0 {
			t.Errorf("%s: %d %v, indexed %v", name, code, out, f.calls)
		}
	}
}
