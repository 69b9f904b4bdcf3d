package screening

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/internal/metrics"
)

const (
	listed   = "0x8589427373D6D84E98730D7795D8f6f8731FDA16"
	unlisted = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
	solana   = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"
)

// write replaces the file at path with text, dated at (so that a change is seen whatever the
// file system's clock granularity).
func write(t *testing.T, path, text string, at time.Time) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

func open(t *testing.T, text string) (*List, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "blocklist.txt")
	write(t, path, text, time.Unix(1_700_000_000, 0))
	l, err := Open(path, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return l, path
}

// The documented format (docs/operations.md, "Screening"): one address a line, '#' comments and
// blank lines ignored, EVM addresses compared without regard to case, a family prefix for the
// other chain families, whose addresses are compared exactly.
func TestTheListFormatComparesEVMAddressesWithoutCaseAndOtherFamiliesExactly(t *testing.T) {
	l, _ := open(t, "# sanctions list, 2026-05\n\n"+strings.ToLower(listed)+"   # lower case in the file\n"+
		"evm:0xAb5801a7D398351b8bE11C439e05C5B3259aeC9B\n"+
		"svm:"+solana+"\n")
	if l.Len() != 3 {
		t.Fatalf("%d addresses, want 3", l.Len())
	}
	for _, a := range []string{listed, strings.ToUpper("0x" + listed[2:]), "0xab5801a7d398351b8be11c439e05c5b3259aec9b"} {
		if !l.Blocked(chains.VMTypeEVM, a) {
			t.Errorf("%s is listed but not blocked", a)
		}
	}
	if l.Blocked(chains.VMTypeEVM, unlisted) || l.Blocked(chains.VMTypeEVM, "not an address") {
		t.Error("an address not on the list is blocked")
	}
	if !l.Blocked(chains.VMTypeSVM, solana) || !l.Blocked(chains.VMFamilySolana, solana) {
		t.Error("the Solana address is not blocked")
	}
	if l.Blocked(chains.VMTypeSVM, strings.ToLower(solana)) {
		t.Error("a Solana address in another case is blocked: base58 is case-sensitive")
	}
	if l.Blocked(chains.VMTypeEVM, solana) || l.Blocked(chains.VMTypeSVM, listed) {
		t.Error("an address is blocked in a family it is not listed for")
	}
}

// A malformed file is refused whole, naming the line: a list half read would unblock what its
// bad lines hold.
func TestAMalformedListIsRefusedNamingTheLine(t *testing.T) {
	for _, text := range []string{
		listed + "\n0x1234\n",                       // too short
		listed + "\n" + listed + "00\n",             // too long
		"tron:TJRabPrwbZy45sbavfcjinPJC18kjpRTv8\n", // a family the list does not know
		"svm:0OIl" + solana[4:] + "\n",              // not base58
	} {
		if _, err := Parse(strings.NewReader(text)); err == nil || !strings.Contains(err.Error(), "line ") {
			t.Errorf("%q: %v, want an error naming the line", text, err)
		}
	}
}

// Configured, the file must be there at start: a process does not run without its list.
func TestAnAbsentFileAtStartIsAnError(t *testing.T) {
	if _, err := Open(filepath.Join(t.TempDir(), "missing.txt"), slog.New(slog.DiscardHandler)); err == nil {
		t.Fatal("Open of an absent file succeeded")
	}
}

// settle checks the file twice, as two polls of Watch would: a change is taken once the file has
// stayed the same for a check.
func settle(l *List) error {
	_ = l.Reload()
	return l.Reload()
}

// "Reloaded without a restart" (issue 33, point 6): a changed file replaces the list; a bad or
// vanished file keeps the last good list in force, and says so in the log and the metrics.
func TestReloadTakesAChangedFileAndKeepsTheLastGoodListOnABadOne(t *testing.T) {
	l, path := open(t, listed+"\n")
	if err := settle(l); err != nil || !l.Blocked(chains.VMTypeEVM, listed) || l.Blocked(chains.VMTypeEVM, unlisted) {
		t.Fatalf("an unchanged file: %v", err)
	}

	write(t, path, listed+"\n"+unlisted+"\n", time.Unix(1_700_000_100, 0))
	if err := settle(l); err != nil || !l.Blocked(chains.VMTypeEVM, unlisted) {
		t.Fatalf("the address added to the file is not blocked after a reload: %v", err)
	}
	if got := testutil.ToFloat64(metrics.ScreeningAddresses); got != 2 {
		t.Fatalf("intentd_screening_addresses %v, want 2", got)
	}

	errorsBefore := testutil.ToFloat64(metrics.ScreeningReloads.WithLabelValues("error"))
	write(t, path, "0xnot-an-address\n", time.Unix(1_700_000_200, 0))
	if err := settle(l); err == nil {
		t.Fatal("a malformed file reloaded")
	}
	if !l.Blocked(chains.VMTypeEVM, listed) || !l.Blocked(chains.VMTypeEVM, unlisted) || l.Len() != 2 {
		t.Fatal("a malformed file replaced the last good list")
	}
	if testutil.ToFloat64(metrics.ScreeningReloadFailing) != 1 ||
		testutil.ToFloat64(metrics.ScreeningReloads.WithLabelValues("error")) != errorsBefore+1 {
		t.Fatal("the failed reload is not in the metrics")
	}
	_ = l.Reload() // the same bad file again: counted once
	if got := testutil.ToFloat64(metrics.ScreeningReloads.WithLabelValues("error")); got != errorsBefore+1 {
		t.Fatalf("the same bad file counted again: %v", got)
	}

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := settle(l); err == nil || !l.Blocked(chains.VMTypeEVM, listed) {
		t.Fatalf("a removed file: %v; the last good list must stay in force", err)
	}

	write(t, path, unlisted+"\n", time.Unix(1_700_000_300, 0))
	if err := settle(l); err != nil || l.Blocked(chains.VMTypeEVM, listed) || !l.Blocked(chains.VMTypeEVM, unlisted) {
		t.Fatalf("the good file written back is not the list: %v", err)
	}
	if testutil.ToFloat64(metrics.ScreeningReloadFailing) != 0 {
		t.Fatal("intentd_screening_reload_failing stays 1 after a good reload")
	}
}

// A file caught while it is rewritten in place (truncated, then written) is not taken: the list
// in force never loses its addresses to a half-written file.
func TestAFileCaughtWhileItIsWrittenIsNotTaken(t *testing.T) {
	l, path := open(t, listed+"\n")
	write(t, path, "", time.Unix(1_700_000_100, 0)) // truncated: the poll sees an empty file
	if err := l.Reload(); err != nil || !l.Blocked(chains.VMTypeEVM, listed) {
		t.Fatalf("the list in force after a check that saw the file truncated: %v", err)
	}
	write(t, path, listed+"\n"+unlisted+"\n", time.Unix(1_700_000_101, 0)) // then written
	if err := l.Reload(); err != nil || !l.Blocked(chains.VMTypeEVM, listed) || l.Blocked(chains.VMTypeEVM, unlisted) {
		t.Fatalf("the list after a check that saw the file change again: %v", err)
	}
	if err := l.Reload(); err != nil || !l.Blocked(chains.VMTypeEVM, listed) || !l.Blocked(chains.VMTypeEVM, unlisted) {
		t.Fatalf("the file, unchanged for a check, is not the list: %v", err)
	}
}

// Watch polls the file: an address added while it runs is blocked once the next poll has read
// it (no restart).
func TestWatchReloadsTheFileWhileItRuns(t *testing.T) {
	l, path := open(t, listed+"\n")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { l.Watch(ctx, time.Millisecond); close(done) }()
	write(t, path, listed+"\n"+unlisted+"\n", time.Unix(1_700_000_100, 0))
	for !l.Blocked(chains.VMTypeEVM, unlisted) {
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-done
}

// Each place's hits are counted once per check, however many of its addresses are listed; a
// nil list (screening not configured) blocks nothing.
func TestCheckReturnsTheListedAddressesAndCountsAHitOfItsPlace(t *testing.T) {
	l, _ := open(t, listed+"\n")
	before := testutil.ToFloat64(metrics.ScreeningHits.WithLabelValues(string(PlaceRefund)))
	got := l.Check(PlaceRefund, chains.VMTypeEVM, unlisted, listed, strings.ToLower(listed), "")
	if len(got) != 1 || got[0] != listed {
		t.Fatalf("Check %v, want [%s]", got, listed)
	}
	if n := testutil.ToFloat64(metrics.ScreeningHits.WithLabelValues(string(PlaceRefund))); n != before+1 {
		t.Fatalf("hits %v, want one more than %v", n, before)
	}
	if got := l.Check(PlaceRefund, chains.VMTypeEVM, unlisted); got != nil {
		t.Fatalf("Check of an unlisted address: %v", got)
	}
	var off *List
	if off.Blocked(chains.VMTypeEVM, listed) || off.Check(PlaceQuote, chains.VMTypeEVM, listed) != nil || off.Len() != 0 {
		t.Fatal("a nil list blocks")
	}
}
