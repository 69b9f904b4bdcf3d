package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/intentd/intentd/door"
	"github.com/intentd/intentd/intent"
	"github.com/intentd/intentd/store"
	"github.com/intentd/intentd/testkit/testenv"
)

func TestMain(m *testing.M) {
	gin.SetMode(gin.TestMode)
	os.Exit(m.Run())
}

const (
	adminToken   = "s3cret-admin-token-0123456789abcdef"
	adminReqID   = "0x3333333333333333333333333333333333333333333333333333333333333333"
	adminReqPath = "/admin/requests/" + adminReqID + "/refund"
)

// fakeRefunder records what it was asked and answers with result or err.
type fakeRefunder struct {
	calls     int
	requestID string
	req       intent.AdminRefund
	result    *intent.AdminRefundResult
	err       error
}

func (f *fakeRefunder) AdminRefund(_ context.Context, requestID string, req intent.AdminRefund) (*intent.AdminRefundResult, error) {
	f.calls++
	f.requestID, f.req = requestID, req
	return f.result, f.err
}

type adminCall struct {
	path, auth, body string
}

// serveAdmin runs one request against a server whose admin token hash is hash (nil: none
// configured) and returns the response and everything logged.
func serveAdmin(t *testing.T, f *fakeRefunder, hash []byte, call adminCall) (*httptest.ResponseRecorder, string) {
	t.Helper()
	var logs bytes.Buffer
	s := &Server{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Admin: f, AdminTokenSHA256: hash}
	if call.path == "" {
		call.path = adminReqPath
	}
	r := httptest.NewRequest(http.MethodPost, call.path, strings.NewReader(call.body))
	r.Header.Set("Content-Type", "application/json")
	if call.auth != "" {
		r.Header.Set("Authorization", call.auth)
	}
	w := httptest.NewRecorder()
	s.AdminHandler().ServeHTTP(w, r)
	return w, logs.String()
}

func tokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

func messageOf(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	var body struct {
		Message   string `json:"message"`
		ErrorCode string `json:"errorCode"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || body.Message == "" || statuses[body.ErrorCode] != w.Code {
		t.Fatalf("response %d is not {message, errorCode} with the table's status: %s", w.Code, w.Body)
	}
	return body.Message
}

const goodBody = `{"reason": "fill stuck behind a reorg", "operator": "alice"}`

func TestAdminRefundNeedsTheToken(t *testing.T) {
	for name, auth := range map[string]string{
		"missing":      "",
		"wrong":        "Bearer not-the-token",
		"empty bearer": "Bearer ",
		"basic scheme": "Basic " + adminToken,
		"no scheme":    adminToken,
		"token prefix": "Bearer " + adminToken[:10],
	} {
		t.Run(name, func(t *testing.T) {
			f := &fakeRefunder{}
			w, logs := serveAdmin(t, f, tokenHash(adminToken), adminCall{auth: auth, body: goodBody})
			if w.Code != http.StatusUnauthorized {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			messageOf(t, w)
			if f.calls != 0 {
				t.Fatal("refund sent without a valid token")
			}
			if w.Header().Get("WWW-Authenticate") == "" {
				t.Error("no WWW-Authenticate header")
			}
			for _, secret := range []string{adminToken, adminToken[:10], "not-the-token"} {
				if strings.Contains(w.Body.String(), secret) || strings.Contains(logs, secret) {
					t.Fatalf("token echoed or logged:\nbody %s\nlogs %s", w.Body, logs)
				}
			}
		})
	}
}

// An integrator's API key is no admin credential, neither in x-api-key nor as a bearer token.
func TestAdminRefundRefusesAnAPIKey(t *testing.T) {
	st := store.New(testenv.Pool(t))
	key, _ := createKey(t, st, "acme", store.NewKey{Label: "integrator"})
	f := &fakeRefunder{}
	s := &Server{Store: st, Logger: slog.New(slog.DiscardHandler), Admin: f, AdminTokenSHA256: tokenHash(adminToken)}
	h := s.AdminHandler()
	for _, hdr := range []map[string]string{{"x-api-key": key}, {"Authorization": "Bearer " + key}} {
		r := httptest.NewRequest(http.MethodPost, adminReqPath, strings.NewReader(goodBody))
		for k, v := range hdr {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusUnauthorized || f.calls != 0 || strings.Contains(w.Body.String(), key) {
			t.Fatalf("%v: status %d: %s", hdr, w.Code, w.Body)
		}
	}
}

func TestAdminRefundDoesNotExistWithoutAHash(t *testing.T) {
	f := &fakeRefunder{}
	w, _ := serveAdmin(t, f, nil, adminCall{auth: "Bearer " + adminToken, body: goodBody})
	if w.Code != http.StatusNotFound || f.calls != 0 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	// The same answer as a path that does not exist.
	unknown, _ := serveAdmin(t, f, nil, adminCall{path: "/admin/nothing", body: goodBody})
	if w.Body.String() != unknown.Body.String() {
		t.Fatalf("disabled endpoint %q differs from an unknown path %q", w.Body, unknown.Body)
	}
}

func TestAdminRefundBadBody(t *testing.T) {
	for name, body := range map[string]string{
		"empty reason":      `{"reason": "", "operator": "alice"}`,
		"blank reason":      `{"reason": "   ", "operator": "alice"}`,
		"no operator":       `{"reason": "stuck"}`,
		"bad recipient":     `{"reason": "stuck", "operator": "alice", "recipient": "0x1234"}`,
		"misspelt field":    `{"reason": "stuck", "operator": "alice", "reciptient": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"}`,
		"not json":          `reason=stuck`,
		"empty":             ``,
		"wrong type":        `{"reason": 5, "operator": "alice"}`,
		"two objects":       goodBody + goodBody,
		"too large":         `{"reason": "` + strings.Repeat("x", adminBodyLimit) + `", "operator": "alice"}`,
		"array":             `[]`,
		"reason over limit": fmt.Sprintf(`{"reason": %q, "operator": "alice"}`, strings.Repeat("y", door.MaxReasonLen+1)),
	} {
		t.Run(name, func(t *testing.T) {
			f := &fakeRefunder{}
			w, _ := serveAdmin(t, f, tokenHash(adminToken), adminCall{auth: "Bearer " + adminToken, body: body})
			if w.Code != http.StatusBadRequest {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			messageOf(t, w)
			if f.calls != 0 {
				t.Fatal("refund sent for a bad body")
			}
		})
	}
}

func TestAdminRefundUnknownRequest(t *testing.T) {
	// A malformed id never reaches the workflow; a well-formed one without a workflow is 404 too.
	f := &fakeRefunder{}
	w, _ := serveAdmin(t, f, tokenHash(adminToken), adminCall{path: "/admin/requests/0x1234/refund", auth: "Bearer " + adminToken,
		body: goodBody})
	if w.Code != http.StatusNotFound || f.calls != 0 {
		t.Fatalf("malformed id: status %d", w.Code)
	}
	f = &fakeRefunder{err: fmt.Errorf("%w: intent-%s", door.ErrNotFound, adminReqID)}
	w, _ = serveAdmin(t, f, tokenHash(adminToken), adminCall{auth: "Bearer " + adminToken, body: goodBody})
	if w.Code != http.StatusNotFound {
		t.Fatalf("no workflow: status %d: %s", w.Code, w.Body)
	}
	messageOf(t, w)
}

func TestAdminRefundNotRefundable(t *testing.T) {
	f := &fakeRefunder{err: &door.NotRefundableError{Reason: "the fill was broadcast and may still land"}}
	w, _ := serveAdmin(t, f, tokenHash(adminToken), adminCall{auth: "Bearer " + adminToken, body: goodBody})
	if w.Code != http.StatusConflict {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	if m := messageOf(t, w); m != "the fill was broadcast and may still land" {
		t.Fatalf("message %q is not the validator's", m)
	}
}

func TestAdminRefundTimeoutAndInternalErrors(t *testing.T) {
	f := &fakeRefunder{err: fmt.Errorf("%w: update u on workflow w may still be running", door.ErrTimeout)}
	w, _ := serveAdmin(t, f, tokenHash(adminToken), adminCall{auth: "Bearer " + adminToken, body: goodBody})
	if w.Code != http.StatusGatewayTimeout || !strings.Contains(messageOf(t, w), "/intents/status/v3?requestId="+adminReqID) {
		t.Fatalf("timeout: status %d: %s", w.Code, w.Body)
	}
	f = &fakeRefunder{err: fmt.Errorf("dial tcp 10.0.0.7:7233: connection refused")}
	w, logs := serveAdmin(t, f, tokenHash(adminToken), adminCall{auth: "Bearer " + adminToken, body: goodBody})
	if w.Code != http.StatusInternalServerError || strings.Contains(w.Body.String(), "10.0.0.7") {
		t.Fatalf("internal error: status %d: %s", w.Code, w.Body)
	}
	messageOf(t, w)
	if !strings.Contains(logs, "connection refused") {
		t.Fatalf("cause not logged: %s", logs)
	}
}

func TestAdminRefundSuccess(t *testing.T) {
	want := intent.AdminRefundResult{RequestID: adminReqID, Status: intent.StatusRefund, ChainID: 31337,
		TxHash: "0x4444444444444444444444444444444444444444444444444444444444444444", Recipient: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
		Currency: "0x0000000000000000000000000000000000000000", Amount: "1000000000000000"}
	f := &fakeRefunder{result: &want}
	w, logs := serveAdmin(t, f, tokenHash(adminToken), adminCall{auth: "bearer " + adminToken,
		body: `{"reason": " fill stuck behind a reorg ", "operator": "alice", "recipient": "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"}`})
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	if f.calls != 1 || f.requestID != adminReqID ||
		f.req != (intent.AdminRefund{Operator: "alice", Reason: "fill stuck behind a reorg", Recipient: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"}) {
		t.Fatalf("refunder asked %d times with %s %+v", f.calls, f.requestID, f.req)
	}
	var got map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"requestId", "status", "chainId", "txHash", "recipient", "currency", "amount"} {
		if _, ok := got[k]; !ok {
			t.Errorf("response lacks %s: %s", k, w.Body)
		}
	}
	if got["status"] != "refund" || got["txHash"] != want.TxHash || got["chainId"] != float64(31337) || got["amount"] != want.Amount {
		t.Fatalf("response %s", w.Body)
	}
	if strings.Contains(logs, adminToken) {
		t.Fatalf("token logged: %s", logs)
	}
}

// runAPI runs s as `intentd api` does (Run) on a free loopback address and returns that address
// once it answers; the server stops when the test ends.
func runAPI(t *testing.T, s *Server) string {
	t.Helper()
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	// A Run that fails shows as the API not answering below; its shutdown's error is not this test's.
	go func() { defer close(done); _ = s.Run(ctx, addr) }()
	t.Cleanup(func() { cancel(); <-done })
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/lives")
		if err == nil {
			_ = resp.Body.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("the API did not answer on %s: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Review L6: "The admin API (/admin/*) is served on its own listener (an internal address by
// default), never on the public port." Run serves it on AdminAddr: there the refund route and
// the integrators' routes answer behind the token; on the public port every /admin/ path is 404
// NOT_FOUND, with or without the token, as a path the API does not serve. Without a token there
// is no admin listener at all.
func TestTheAdminAPIIsServedOnItsOwnListenerOnly(t *testing.T) {
	st := store.New(testenv.Pool(t))
	f := &fakeRefunder{result: &intent.AdminRefundResult{TxHash: "0xabc"}}
	adminAddr := freeAddr(t)
	s := &Server{Store: st, Logger: slog.New(slog.DiscardHandler), Admin: f, AdminTokenSHA256: tokenHash(adminToken), AdminAddr: adminAddr}
	public := runAPI(t, s)
	do := func(addr, method, path, body string) (int, map[string]any) {
		r, _ := http.NewRequest(method, "http://"+addr+path, strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+adminToken)
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatalf("%s %s on %s: %v", method, path, addr, err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	for _, c := range []struct{ method, path, body string }{{"POST", adminReqPath, goodBody}, {"GET", "/admin/integrators", ""}} {
		code, body := do(public, c.method, c.path, c.body)
		checkError(t, "the public port's "+c.path, code, body, CodeNotFound)
	}
	if f.calls != 0 {
		t.Fatal("the public port sent a refund")
	}
	if code, body := do(adminAddr, "POST", adminReqPath, goodBody); code != http.StatusOK || f.calls != 1 {
		t.Fatalf("the admin listener's refund: %d %v", code, body)
	}
	if code, body := do(adminAddr, "GET", "/admin/integrators", ""); code != http.StatusOK {
		t.Fatalf("the admin listener's integrators: %d %v", code, body)
	}
	if code, _ := do(adminAddr, "GET", "/chains", ""); code != http.StatusNotFound {
		t.Fatalf("the admin listener serves the public API: %d", code)
	}

	noToken := freeAddr(t)
	runAPI(t, &Server{Store: st, Logger: slog.New(slog.DiscardHandler), Admin: f, AdminAddr: noToken})
	if resp, err := http.Get("http://" + noToken + "/admin/integrators"); err == nil {
		_ = resp.Body.Close()
		t.Fatalf("without an admin token something listens on ADMIN_ADDR: %d", resp.StatusCode)
	}
}

// Review L6: the admin failure budget "is counted per /64 and does not lock everyone out once
// many IPs are tracked". Failures from addresses of one IPv6 /64 share one budget; once more
// clients than the table holds have failed, a new client still tries its token (before, a full
// table refused every new address with 429).
func TestAdminFailureBudgetIsPer64AndNeverLocksEveryoneOut(t *testing.T) {
	a := newAdminFailures()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	a.now = func() time.Time { return now }
	for i := range adminFailureBurst {
		a.fail(fmt.Sprintf("2001:db8:5:5::%x", i+1))
	}
	if a.wait("2001:db8:5:5:abcd::1") == 0 {
		t.Fatal("another address of the /64 has a budget of its own")
	}
	if a.wait("2001:db8:5:6::1") != 0 {
		t.Fatal("another /64 is limited")
	}
	for i := range adminFailureClients + 10 {
		ip := fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)
		for range adminFailureBurst {
			a.fail(ip)
		}
	}
	if w := a.wait("198.51.100.77"); w != 0 {
		t.Fatalf("a new client after %d limited ones must wait %v", adminFailureClients+10, w)
	}
}
