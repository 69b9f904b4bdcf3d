package integration

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/intentd/intentd/devnet"
	"github.com/intentd/intentd/testkit/e2e"
)

// logRecord is one captured log record, its attributes flattened to text.
type logRecord struct {
	Time  time.Time
	Level slog.Level
	Msg   string
	Attrs string
}

func (r logRecord) String() string {
	return fmt.Sprintf("%s %s %q %s", r.Time.Format("15:04:05.000"), r.Level, r.Msg, r.Attrs)
}

// logCapture is a slog.Handler that keeps every record at DEBUG and above, and echoes those at
// WARN and above to stderr.
type logCapture struct {
	mu      *sync.Mutex
	records *[]logRecord
	attrs   []slog.Attr
	groups  []string
	echo    slog.Handler
}

func newLogCapture() *logCapture {
	return &logCapture{mu: &sync.Mutex{}, records: &[]logRecord{},
		echo: slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})}
}

func (h *logCapture) Enabled(context.Context, slog.Level) bool { return true }

func (h *logCapture) Handle(ctx context.Context, r slog.Record) error {
	var b strings.Builder
	prefix := strings.Join(h.groups, ".")
	if prefix != "" {
		prefix += "."
	}
	for _, a := range h.attrs {
		fmt.Fprintf(&b, "%s=%v ", a.Key, a.Value)
	}
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, "%s%s=%v ", prefix, a.Key, a.Value)
		return true
	})
	h.mu.Lock()
	*h.records = append(*h.records, logRecord{Time: r.Time, Level: r.Level, Msg: r.Message, Attrs: strings.TrimSpace(b.String())})
	h.mu.Unlock()
	if r.Level >= slog.LevelWarn {
		return h.echo.Handle(ctx, r)
	}
	return nil
}

func (h *logCapture) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr{}, h.attrs...), attrs...)
	c.echo = h.echo.WithAttrs(attrs)
	return &c
}

func (h *logCapture) WithGroup(name string) slog.Handler {
	c := *h
	c.groups = append(append([]string{}, h.groups...), name)
	c.echo = h.echo.WithGroup(name)
	return &c
}

// snapshot returns the records captured so far.
func (h *logCapture) snapshot() []logRecord {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]logRecord(nil), (*h.records)...)
}

// A healthy intent (quote, deposit, its confirmations and attestation, the fill, success) logs
// nothing at WARN or above, anywhere in the stack: the devnet, the oracle, the engine and the
// Temporal SDK. Waiting for confirmations and for the fill to be mined is normal operation, not
// an error (operators saw "Activity error." twice per intent when waits were failed activities).
func TestHealthyIntentLogsNoWarningsOrErrors(t *testing.T) {
	logs := newLogCapture()
	s := startStackWith(t, stackOptions{logger: slog.New(logs)})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	acct := devnet.TestAccounts()[5]
	q := s.ethBridge(t, ctx, acct.Address, freshAddress(t), freshAddress(t), "300000000000000000")
	if _, err := (&e2e.Wallet{Key: acct.Key, RPCs: s.RPCs}).ExecuteSteps(ctx, q); err != nil {
		t.Fatal(err)
	}
	final, seen, err := s.API.WaitStatus(ctx, q.RequestID, "success", "failure", "refund")
	if err != nil {
		t.Fatal(err)
	}
	if final.Status != "success" {
		t.Fatalf("final %+v (seen %v), want success", final, seen)
	}
	// The stack's shutdown is not part of the intent: only what was logged until its success
	// counts.
	records := logs.snapshot()
	sdk, bad := 0, 0
	for _, r := range records {
		if strings.Contains(r.Attrs, "component=temporal-sdk") {
			sdk++
		}
		if r.Level >= slog.LevelWarn {
			bad++
			t.Errorf("logged at %s during a healthy intent: %s", r.Level, r)
		}
	}
	if sdk == 0 {
		t.Fatalf("no record of the Temporal SDK among %d captured: the capture misses the SDK's logger", len(records))
	}
	t.Logf("%d records captured (%d from the Temporal SDK), %d at WARN or above", len(records), sdk, bad)
}
