package api

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestAdminFailedAttemptsAreLimitedPerIP: ten wrong tokens from one IP within a minute, then
// that IP is refused with 429 and Retry-After, the right token too, while another IP is not;
// a failure's budget comes back after adminFailureEvery. The token never reaches the log.
func TestAdminFailedAttemptsAreLimitedPerIP(t *testing.T) {
	var logs bytes.Buffer
	f := &fakeRefunder{}
	s := &Server{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Admin: f, AdminTokenSHA256: tokenHash(adminToken)}
	h := s.AdminHandler()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	s.adminFailures.now = func() time.Time { return now }
	call := func(ip, token string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, adminReqPath, strings.NewReader(`{"reason": 5}`))
		r.RemoteAddr = ip + ":40000"
		r.Header.Set("Authorization", "Bearer "+token)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	const guess = "guess-0123456789-not-the-admin-token"
	for i := range adminFailureBurst {
		if w := call("198.51.100.7", guess); w.Code != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d %s", i+1, w.Code, w.Body)
		}
	}
	for _, token := range []string{guess, adminToken} {
		w := call("198.51.100.7", token)
		if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "6" {
			t.Fatalf("over the limit: %d Retry-After %q %s", w.Code, w.Header().Get("Retry-After"), w.Body)
		}
		messageOf(t, w)
	}
	// Another address has its own budget; a right token from it goes through (400: bad body).
	if w := call("203.0.113.9", adminToken); w.Code != http.StatusBadRequest {
		t.Fatalf("another IP: %d %s", w.Code, w.Body)
	}
	now = now.Add(adminFailureEvery)
	if w := call("198.51.100.7", adminToken); w.Code != http.StatusBadRequest {
		t.Fatalf("after %s: %d %s", adminFailureEvery, w.Code, w.Body)
	}
	if f.calls != 0 {
		t.Fatal("a refund was sent")
	}
	if strings.Contains(logs.String(), guess) || strings.Contains(logs.String(), adminToken) {
		t.Fatalf("a token was logged:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "client=198.51.100.7") {
		t.Fatalf("the client IP is not logged:\n%s", logs.String())
	}
}
