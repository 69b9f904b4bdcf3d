// Package screening is the engine's blocklist of addresses (SCREENING_BLOCKLIST_FILE): the
// wallets it does not serve. The quote engine refuses a quote whose user, recipient or refundTo is
// listed; the worker refuses to fill for a listed depositor or recipient and to refund to a listed
// address, and leaves each such request to an operator (docs/operations.md, "Screening").
//
// The list is a file, one address a line, read at start (a configured file that is absent or
// malformed stops the process) and checked for changes while the process runs (Watch): a file
// that changed, once it has stayed the same for one check, is read again and, when it parses,
// replaces the list; one that does not parse, or has gone, leaves the last good list in force
// and is logged and counted (intentd_screening_reload_failing). Addresses are compared in their chain family's canonical
// spelling (Normalize): EVM addresses without regard to case, the families whose addresses are
// case-sensitive (Solana's base58) exactly as written.
package screening

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/intentd/intentd/chains"
	"github.com/intentd/intentd/internal/metrics"
	"github.com/intentd/intentd/internal/pause"
)

// Place is where an address is screened: the label of intentd_screening_hits_total.
type Place string

// The places the engine screens.
const (
	// PlaceQuote: a quote's user, recipient and refundTo (400 SANCTIONED_WALLET_ADDRESS).
	PlaceQuote Place = "quote"
	// PlaceDeposit: the depositor, when the deposit is attested (failure BLOCKED_WALLET).
	PlaceDeposit Place = "deposit"
	// PlaceFill: the recipient (and the depositor again) before the fill is signed (failure
	// BLOCKED_WALLET).
	PlaceFill Place = "fill"
	// PlaceRefund: a refund's recipient before it is signed (REFUND_RECIPIENT_IS_BLOCKED).
	PlaceRefund Place = "refund"
)

// Normalize is address in the canonical spelling of its chain family, the form the list keeps
// and compares: an EVM address (0x and 40 hex digits) in lower case; a Solana address (base58
// of 32 bytes) as written, since base58 is case-sensitive. An address that is not one of its
// family, or a family the list does not know, is an error. A Solana address is read by its
// shape only: the list is chain-neutral and read in binaries that do not link the Solana
// family (chains/solana, which decodes keys with solana-go); every address the family accepts
// has that shape (chains/solana/notation_test.go).
func Normalize(vm chains.VMType, address string) (string, error) {
	switch family(vm) {
	case chains.VMTypeEVM:
		if !evmHex(address) {
			return "", fmt.Errorf("%q is not an EVM address (0x and 40 hex digits)", address)
		}
		return strings.ToLower(address), nil
	case chains.VMTypeSVM:
		if len(address) < 32 || len(address) > 44 || strings.Trim(address, base58) != "" {
			return "", fmt.Errorf("%q is not a Solana address (base58, 32 to 44 characters)", address)
		}
		return address, nil
	}
	return "", fmt.Errorf("chain family %q is not one the blocklist knows (evm, svm)", vm)
}

// evmHex reports whether s is an EVM address in any case: 0x (or 0X) and 40 hex digits. The list
// compares EVM addresses in lower case, so their checksum (EIP-55) is not its business.
func evmHex(s string) bool {
	if len(s) != 42 || s[0] != '0' || s[1] != 'x' && s[1] != 'X' {
		return false
	}
	return strings.Trim(strings.ToLower(s[2:]), "0123456789abcdef") == ""
}

// base58 is the alphabet of Solana's addresses (Bitcoin's: no 0, O, I or l).
const base58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// family is the chain family an entry or a lookup names, with the oracle spec's identifiers
// folded onto the registry's.
func family(vm chains.VMType) chains.VMType {
	switch vm {
	case "", chains.VMFamilyEthereum:
		return chains.VMTypeEVM
	case chains.VMFamilySolana:
		return chains.VMTypeSVM
	}
	return vm
}

// entries is one reading of the file: the normalised addresses by chain family.
type entries struct {
	byFamily map[chains.VMType]map[string]struct{}
	n        int
}

// Parse reads a blocklist: one address a line, optionally prefixed with its chain family
// ("svm:…"; an unprefixed line is an EVM address); blank lines and everything from a '#' on are
// ignored. Any other line is an error naming its line number, and the whole file is refused: a
// list half read would unblock what its bad lines hold.
func Parse(r io.Reader) (*entries, error) {
	e := &entries{byFamily: map[chains.VMType]map[string]struct{}{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		vm := chains.VMTypeEVM
		if fam, addr, ok := strings.Cut(text, ":"); ok {
			vm, text = family(chains.VMType(strings.ToLower(strings.TrimSpace(fam)))), strings.TrimSpace(addr)
		}
		a, err := Normalize(vm, text)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		set := e.byFamily[vm]
		if set == nil {
			set = map[string]struct{}{}
			e.byFamily[vm] = set
		}
		if _, dup := set[a]; !dup {
			set[a] = struct{}{}
			e.n++
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return e, nil
}

// ReadFile parses the blocklist at path (Parse); it is an error when the file cannot be read.
func ReadFile(path string) (n int, err error) {
	e, _, err := read(path)
	if err != nil {
		return 0, err
	}
	return e.n, nil
}

// stamp is what tells a changed file: its modification time and size (os.Stat follows a
// symbolic link, so a Kubernetes ConfigMap's swapped link shows as the new file's).
type stamp struct {
	mod  time.Time
	size int64
}

func read(path string) (*entries, stamp, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, stamp{}, err
	}
	defer func() { _ = f.Close() }()
	fi, err := f.Stat()
	if err != nil {
		return nil, stamp{}, err
	}
	e, err := Parse(f)
	if err != nil {
		return nil, stamp{}, fmt.Errorf("%s: %w", path, err)
	}
	return e, stamp{mod: fi.ModTime(), size: fi.Size()}, nil
}

// List is the blocklist in force. It is safe for concurrent use; a nil *List is screening
// switched off (no SCREENING_BLOCKLIST_FILE) and blocks nothing.
type List struct {
	path   string
	logger *slog.Logger
	cur    atomic.Pointer[entries]

	mu       sync.Mutex // serialises Reload
	loaded   stamp      // the file the list in force was read from
	settling stamp      // the file changed as the last check saw it
	lastErr  string     // why the file is not the list in force, logged once until it changes
}

// Open reads the blocklist at path; a file that is absent or does not parse is an error (the
// process does not start on a list it cannot read).
func Open(path string, logger *slog.Logger) (*List, error) {
	e, st, err := read(path)
	if err != nil {
		return nil, fmt.Errorf("screening blocklist: %w", err)
	}
	l := &List{path: path, logger: logger, loaded: st}
	l.cur.Store(e)
	metrics.ScreeningAddresses.Set(float64(e.n))
	metrics.ScreeningReloadFailing.Set(0)
	return l, nil
}

// Len is how many addresses the list in force holds.
func (l *List) Len() int {
	if l == nil {
		return 0
	}
	return l.cur.Load().n
}

// Reload checks the file and, when it changed, makes it the list in force once it parses. A
// change is taken at the check after the one that first saw it, if the file stayed the same in
// between (and while it was read): a file caught half written, or truncated before it is written
// again, is never taken, so an edit in place cannot leave the engine with a part of its list.
// A file that does not parse, or cannot be read, leaves the last good list in force: the error
// is returned, logged at ERROR once until it changes, and intentd_screening_reload_failing is 1
// until a good file is read.
func (l *List) Reload() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	fi, err := os.Stat(l.path)
	if err == nil {
		now := stamp{mod: fi.ModTime(), size: fi.Size()}
		switch {
		case now == l.loaded:
			l.settling = stamp{}
			l.failing(nil)
			return nil
		case now != l.settling:
			l.settling = now
			return nil // changed: taken at the next check if it stays so
		}
		var e *entries
		var st stamp
		if e, st, err = read(l.path); err == nil {
			if st != now {
				l.settling = st // written again while it was read
				return nil
			}
			prev := l.cur.Swap(e)
			l.loaded, l.settling = st, stamp{}
			metrics.ScreeningAddresses.Set(float64(e.n))
			metrics.ScreeningReloads.WithLabelValues("ok").Inc()
			l.failing(nil)
			l.logger.Info("screening blocklist reloaded", "file", l.path, "addresses", e.n, "before", prev.n)
			return nil
		}
	}
	l.failing(err)
	return err
}

// failing records the outcome of a check: err, the reason the file is not the list in force
// (logged and counted once until it changes), or nil.
func (l *List) failing(err error) {
	if err == nil {
		l.lastErr = ""
		metrics.ScreeningReloadFailing.Set(0)
		return
	}
	if msg := err.Error(); msg != l.lastErr {
		l.lastErr = msg
		metrics.ScreeningReloads.WithLabelValues("error").Inc()
		l.logger.Error("screening blocklist not reloaded: the last good list stays in force", "file", l.path,
			"addresses", l.cur.Load().n, "error", err)
	}
	metrics.ScreeningReloadFailing.Set(1)
}

// Watch reloads the list every interval (Reload) until ctx ends. A nil list returns at once.
func (l *List) Watch(ctx context.Context, every time.Duration) {
	if l == nil {
		return
	}
	for pause.For(ctx, every) == nil {
		_ = l.Reload()
	}
}

// Blocked reports whether address, of chain family vm, is on the list. An address that is not
// one of its family's cannot be on it.
func (l *List) Blocked(vm chains.VMType, address string) bool {
	_, ok := l.lookup(vm, address)
	return ok
}

// lookup is address's canonical spelling and whether the list holds it.
func (l *List) lookup(vm chains.VMType, address string) (string, bool) {
	if l == nil {
		return "", false
	}
	a, err := Normalize(vm, address)
	if err != nil {
		return "", false
	}
	_, ok := l.cur.Load().byFamily[family(vm)][a]
	return a, ok
}

// Check returns those of addresses (of chain family vm) that are on the list, as they were
// given and each once, and counts one hit of place when there is any.
func (l *List) Check(place Place, vm chains.VMType, addresses ...string) []string {
	var out, seen []string
	for _, a := range addresses {
		if key, ok := l.lookup(vm, a); ok && !slices.Contains(seen, key) {
			seen, out = append(seen, key), append(out, a)
		}
	}
	if len(out) > 0 {
		Hit(place)
	}
	return out
}

// Hit counts one screening hit at place (intentd_screening_hits_total).
func Hit(place Place) { metrics.ScreeningHits.WithLabelValues(string(place)).Inc() }
