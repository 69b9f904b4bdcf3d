package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

// statusFixture is one request row of the read model, written straight into the table.
type statusFixture struct {
	id         string
	status     intent.Status
	failReason intent.FailReason
}

var (
	statusCreated = time.UnixMilli(1_780_000_000_123).UTC()
	statusUpdated = time.UnixMilli(1_780_000_042_456).UTC()
	statusInTx    = "0x" + fmt.Sprintf("%064x", 0xaa)
	statusOutTx   = "0x" + fmt.Sprintf("%064x", 0xbb)
)

// statusServer serves a fresh read model holding one request per status (ids 0x…01 onwards,
// in the order of fixtures).
func statusServer(t *testing.T) (http.Handler, []statusFixture) {
	t.Helper()
	pool := testenv.Pool(t)
	var fixtures []statusFixture
	for i, st := range []intent.Status{intent.StatusWaiting, intent.StatusDepositing, intent.StatusPending, intent.StatusSubmitted,
		intent.StatusDelayed, intent.StatusSuccess, intent.StatusRefund, intent.StatusFailure} {
		f := statusFixture{id: fmt.Sprintf("0x%064x", i+1), status: st, failReason: intent.FailReasonNA}
		if st == intent.StatusRefund || st == intent.StatusFailure {
			f.failReason = "EXECUTION_REVERTED"
		}
		if _, err := pool.Exec(context.Background(), `INSERT INTO requests (id, status, "user", recipient, origin_chain_id,
			destination_chain_id, order_id, record, fail_reason, in_tx_hashes, out_tx_hashes, created_at, updated_at)
			VALUES ($1, $2, 'u', 'r', 31337, 31338, $1, '{}', $3, $4, $5, $6, $7)`,
			f.id, string(st), string(f.failReason), []string{statusInTx}, []string{statusOutTx}, statusCreated, statusUpdated); err != nil {
			t.Fatal(err)
		}
		fixtures = append(fixtures, f)
	}
	s := &Server{Store: store.New(pool), Logger: slog.New(slog.DiscardHandler)}
	return s.Handler(), fixtures
}

func getJSON(t *testing.T, h http.Handler, path string) (int, map[string]any) {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
	var out map[string]any
	dec := json.NewDecoder(bytes.NewReader(w.Body.Bytes()))
	dec.UseNumber() // millisecond times compare exactly
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("%s: %d %s is not a JSON object", path, w.Code, w.Body)
	}
	return w.Code, out
}

// checkShape fails unless body has exactly the keys of want and, for each non-nil value of
// want, that value.
func checkShape(t *testing.T, path string, body map[string]any, want map[string]any) {
	t.Helper()
	if got, keys := slices.Sorted(maps.Keys(body)), slices.Sorted(maps.Keys(want)); !slices.Equal(got, keys) {
		t.Fatalf("%s: keys %v, want %v (%v)", path, got, keys, body)
	}
	for k, v := range want {
		if v == nil {
			continue
		}
		if fmt.Sprint(body[k]) != fmt.Sprint(v) {
			t.Errorf("%s: %s = %v, want %v", path, k, body[k], v)
		}
	}
}

// Each status path answers its own shape and vocabulary from the same row (docs/api.md,
// "GET /intents/status/v3, /v2 and the legacy GET /intents/status").
func TestStatusEndpointsEachAnswerTheirOwnShape(t *testing.T) {
	h, fixtures := statusServer(t)
	hashes := func() map[string]any {
		return map[string]any{"inTxHashes": []any{statusInTx}, "txHashes": []any{statusOutTx},
			"originChainId": 31337, "destinationChainId": 31338}
	}

	t.Run("v1: waiting -> pending; depositing, pending, submitted, delayed -> received; success -> success; refund -> fallback; failure -> failure; time is updatedAt in ms", func(t *testing.T) {
		want := map[intent.Status]string{"waiting": "pending", "depositing": "received", "pending": "received", "submitted": "received",
			"delayed": "received", "success": "success", "refund": "fallback", "failure": "failure"}
		for _, f := range fixtures {
			path := "/intents/status?requestId=" + f.id
			code, body := getJSON(t, h, path)
			if code != http.StatusOK {
				t.Fatalf("%s: %d %v", path, code, body)
			}
			shape := hashes()
			shape["status"], shape["time"] = want[f.status], statusUpdated.UnixMilli()
			checkShape(t, path+" ("+string(f.status)+")", body, shape)
		}
	})

	t.Run("v2: submitted and delayed -> pending, other statuses as stored; time is updatedAt and quoteCreatedAt the creation time, in ms", func(t *testing.T) {
		want := map[intent.Status]string{"waiting": "waiting", "depositing": "depositing", "pending": "pending", "submitted": "pending",
			"delayed": "pending", "success": "success", "refund": "refund", "failure": "failure"}
		for _, f := range fixtures {
			path := "/intents/status/v2?requestId=" + f.id
			code, body := getJSON(t, h, path)
			if code != http.StatusOK {
				t.Fatalf("%s: %d %v", path, code, body)
			}
			shape := hashes()
			shape["status"], shape["time"], shape["quoteCreatedAt"] = want[f.status], statusUpdated.UnixMilli(), statusCreated.UnixMilli()
			checkShape(t, path+" ("+string(f.status)+")", body, shape)
		}
	})

	t.Run("v3: the creation time is quoteCreatedAt (ms), not createdAt; status as stored; failReason N/A except on failure and refund", func(t *testing.T) {
		for _, f := range fixtures {
			path := "/intents/status/v3?requestId=" + f.id
			code, body := getJSON(t, h, path)
			if code != http.StatusOK {
				t.Fatalf("%s: %d %v", path, code, body)
			}
			shape := hashes()
			shape["status"], shape["updatedAt"], shape["quoteCreatedAt"] = string(f.status), statusUpdated.UnixMilli(), statusCreated.UnixMilli()
			shape["failReason"], shape["refundFailReason"] = string(f.failReason), "N/A"
			checkShape(t, path+" ("+string(f.status)+")", body, shape)
		}
	})

	t.Run("every version: an unknown or malformed requestId is 404 REQUEST_NOT_FOUND, a missing one 400 INVALID_INPUT, each {message, errorCode}", func(t *testing.T) {
		for _, p := range []string{"/intents/status", "/intents/status/v2", "/intents/status/v3"} {
			for id, want := range map[string]string{"?requestId=0x" + fmt.Sprintf("%064x", 0xdead): CodeRequestNotFound,
				"?requestId=nope": CodeRequestNotFound, "": CodeInvalidInput} {
				code, body := getJSON(t, h, p+id)
				checkError(t, p+id, code, body, want)
			}
		}
	})
}
