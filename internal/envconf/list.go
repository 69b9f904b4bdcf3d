package envconf

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
)

// List describes the syntax of a list-valued variable, so that every list is split, trimmed and
// checked the same way and its errors name the offending entry; the caller parses the values.
// The zero value of every field but Sep is usable.
type List struct {
	// Sep separates the entries: "," or ";". Empty entries (",,", a trailing ",") are skipped.
	Sep string
	// KV separates an entry's key from its value ("=", ":", "|"); empty: an entry is one value
	// (Entry.Value), with no key.
	KV string
	// KeyOnly accepts an entry without KV as a key with an empty value (API_KEYS' optional label);
	// otherwise such an entry is an error.
	KeyOnly bool
	// Item names an entry in errors ("price", "feed"); default "entry".
	Item string
	// Form is an entry's shape, for errors ("SYMBOL=USD").
	Form string
	// Key names the key in errors ("symbol"); default "key". An empty key is an error.
	Key string
	// UpperKeys upper-cases the keys (currency symbols).
	UpperKeys bool
	// Unique makes a key listed twice an error.
	Unique bool
	// Secret says the entries hold secrets: errors name an entry by its position, never by its
	// content.
	Secret bool
}

// Entry is one entry of a list.
type Entry struct {
	// N is the entry's position in the list, from 1; skipped empty entries count.
	N int
	// Text is the whole entry, trimmed.
	Text string
	// Key and Value are the trimmed halves of the entry (Value alone when List.KV is empty).
	Key, Value string

	list *List
}

// Parse splits s into its entries. It reports an entry without List.KV (unless KeyOnly), an
// empty key and, with Unique, a key listed twice. An empty list is no error: callers that need
// an entry say so in their own words.
func (l List) Parse(s string) ([]Entry, error) {
	var out []Entry
	seen := map[string]bool{}
	for i, text := range strings.Split(s, l.Sep) {
		e := Entry{N: i + 1, Text: strings.TrimSpace(text), list: &l}
		if e.Text == "" {
			continue
		}
		if l.KV == "" {
			e.Value = e.Text
			out = append(out, e)
			continue
		}
		key, value, ok := strings.Cut(e.Text, l.KV)
		if !ok && !l.KeyOnly {
			return nil, e.Malformed()
		}
		e.Key, e.Value = strings.TrimSpace(key), strings.TrimSpace(value)
		if l.UpperKeys {
			e.Key = strings.ToUpper(e.Key)
		}
		if e.Key == "" {
			return nil, e.Errorf("has no %s", or(l.Key, "key"))
		}
		if l.Unique && seen[e.Key] {
			if l.Secret {
				return nil, e.Errorf("repeats the %s of an earlier entry", or(l.Key, "key"))
			}
			return nil, fmt.Errorf("%s of %s is listed twice", l.item(), e.Key)
		}
		seen[e.Key] = true
		out = append(out, e)
	}
	return out, nil
}

// Errorf is an error about the entry: its name (`price "ETH=free"`, or `entry 2` in a secret
// list) followed by the message.
func (e Entry) Errorf(format string, args ...any) error {
	return fmt.Errorf("%s %s", e.name(), fmt.Sprintf(format, args...))
}

// Malformed is the error of an entry that does not have the list's form.
func (e Entry) Malformed() error {
	if e.list.Form == "" {
		return e.Errorf("is malformed")
	}
	return e.Errorf("is not %s", e.list.Form)
}

func (e Entry) name() string {
	if e.list.Secret {
		return fmt.Sprintf("%s %d", e.list.item(), e.N)
	}
	return fmt.Sprintf("%s %q", e.list.item(), e.Text)
}

func (l List) item() string { return or(l.Item, "entry") }

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// SymbolAmounts parses a list of SYMBOL=amount pairs such as "ETH=3000,USDC=1", each amount a
// positive decimal: PRICES_USD and SOLVER_MAX_FILL. Symbols are upper-cased; an empty list, an
// empty symbol, an amount that is not a positive decimal or a symbol listed twice is an error.
// item names an entry and unit its amount in errors ("price", "USD").
func SymbolAmounts(s, item, unit string) (map[string]decimal.Decimal, error) {
	entries, err := List{Sep: ",", KV: "=", Item: item, Form: "SYMBOL=" + unit, Key: "symbol", UpperKeys: true, Unique: true}.Parse(s)
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf("%s list is empty", item)
	}
	out := make(map[string]decimal.Decimal, len(entries))
	for _, e := range entries {
		d, err := decimal.NewFromString(e.Value)
		if err != nil || d.Sign() <= 0 {
			return nil, e.Errorf("is not a positive decimal")
		}
		out[e.Key] = d
	}
	return out, nil
}
