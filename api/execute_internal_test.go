package api

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"go.temporal.io/sdk/client"

	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/door"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// Issue 37 point 3, the spec's and the public service's 500 for POST /execute: `{"error":
// "Internal server error"}` and nothing more, whatever failed inside. Here the engine's Temporal
// client names a namespace the real server does not have, so looking up whether the request
// already runs fails; the answer says only that, and no workflow is started.
func TestExecuteAnswersAnInternalFailureWith500AndOnlyTheInternalServerErrorString(t *testing.T) {
	r := newDARig(t, nil)
	ts := testenv.TemporalServer(t)
	tc, err := client.NewLazyClient(client.Options{HostPort: ts.GetFrontendHostPort(), Namespace: "no-such-namespace"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tc.Close)
	var logs bytes.Buffer
	r.srv.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	r.srv.Gasless = &door.Door{Temporal: tc, Requests: r.st, Logger: slog.New(slog.DiscardHandler)}

	key, _ := createKey(t, r.st, "acme", store.NewKey{Label: "wallet"})
	code, q := daCall(t, r.h, "POST", "/quote/v2", key, gaslessBody(map[string]any{"originGasOverhead": 80_000}))
	if code != http.StatusOK {
		t.Fatalf("quote: %d %v", code, q)
	}
	requestID, _ := q["requestId"].(string)
	body := map[string]any{
		"executionKind":    "rawCalls",
		"data":             map[string]any{"chainId": 31337, "to": devnet.BatchExecutorAddress().Hex(), "data": "0x", "value": "0"},
		"executionOptions": map[string]any{"subsidizeFees": false},
		"requestId":        requestID,
	}
	code, out := daCall(t, r.h, "POST", "/execute", key, body)
	if code != http.StatusInternalServerError {
		t.Fatalf("POST /execute: %d %v, want 500", code, out)
	}
	if want := map[string]any{"error": "Internal server error"}; !reflect.DeepEqual(out, want) {
		t.Fatalf("POST /execute answered %v, want exactly %v", out, want)
	}
	// The operator's log says why; the client's answer does not.
	if !strings.Contains(logs.String(), "no-such-namespace") {
		t.Errorf("the log does not say why POST /execute failed:\n%s", logs.String())
	}
	// Nothing was started: the real server's default namespace has no workflow for it.
	ok := ts.GetDefaultClient()
	if started, err := (&door.Door{Temporal: ok, Requests: r.st}).Started(context.Background(), requestID); err != nil || started {
		t.Fatalf("a workflow runs for %s after a 500 (started %v, err %v)", requestID, started, err)
	}
}
