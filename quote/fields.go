package quote

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// The field rule of a quote body (docs/api.md, "Unknown and misspelt fields").
//
// SDKs add request options faster than this engine learns them, so a key that is not a field
// of Request is ignored. Two kinds of key are refused instead (400 INVALID_INPUT, naming the
// key and the field it resembles):
//
//  1. A key that differs from a field of Request only in letter case ("Recipient", "AMOUNT").
//     encoding/json matches keys case-insensitively and would quietly set the field from it;
//     the exact spelling is the contract. This applies to every field (and to the fields of an
//     appFees entry), with encoding/json's own folding (bytes.EqualFold).
//  2. A key that looks like a misspelling of a money field: a field whose loss would change
//     who is paid, how much, or at what price (moneyFields; for an appFees entry its recipient
//     and fee). "Looks like" is, comparing the key with the field's name:
//     a. equal ignoring case once every '_' and '-' is removed from the key ("refund_to",
//     "Slippage-Tolerance"); or
//     b. within the optimal-string-alignment distance (one insertion, deletion, substitution or
//     swap of two adjacent bytes per step) of 1 for a name of 5 to 9 characters, or 2 for a name
//     of 10 or more, after ASCII lower-casing and removing '_' and '-' from the key
//     ("recipent", "amuont", "slipageTolerence"). Shorter names (user) only get rule a.
//
// A misspelt money field is refused rather than ignored because ignoring it changes the quote:
// a misspelt recipient pays the user, a misspelt slippageTolerance takes the default.

// moneyFields are the fields of Request whose misspellings are refused (rule 2).
var moneyFields = []string{
	"user", "recipient", "refundTo", "originChainId", "destinationChainId", "originCurrency", "destinationCurrency",
	"amount", "tradeType", "slippageTolerance", "appFees", "referrer",
	"subsidizeFees", "sponsoredFeeComponents", "subsidizationBps", "maxSubsidizationAmount",
	// A deposit address's: a misspelling would give calldata steps instead of an address, an
	// open address instead of a strict one, or no recovery address.
	"useDepositAddress", "strict", "recoveryAddress",
	// A gasless quote's: a misspelling would price the quote without the relayed origin
	// transaction's gas, which the relayer would then pay.
	"originGasOverhead",
}

// fieldSet is what the rule knows of one object: its fields and which of them carry money.
type fieldSet struct {
	known  map[string]bool
	names  []string     // the known fields, for the case-variant check
	money  []string     // the money fields, for the misspelling checks
	arrays []arrayField // fields holding an array of objects whose keys are checked too
}

// arrayField is a field holding an array of objects of another field set.
type arrayField struct {
	name string
	set  *fieldSet
}

var (
	appFeeFields  = newFieldSet(reflect.TypeFor[AppFeeRequest](), []string{"recipient", "fee"}, nil)
	requestFields = newFieldSet(reflect.TypeFor[Request](), moneyFields, []arrayField{{"appFees", appFeeFields}})
)

// newFieldSet reads the fields of a struct from its json tags, so a field added to the struct
// is known at once.
func newFieldSet(t reflect.Type, money []string, arrays []arrayField) *fieldSet {
	fs := &fieldSet{known: map[string]bool{}, arrays: arrays}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			panic(fmt.Sprintf("quote: field %s of %s has no json name", f.Name, t))
		}
		fs.known[name] = true
		fs.names = append(fs.names, name)
	}
	for _, m := range money {
		if !fs.known[m] {
			panic(fmt.Sprintf("quote: money field %q is not a field of %s", m, t))
		}
	}
	fs.money = money
	return fs
}

// array is the array field named key, if any.
func (fs *fieldSet) array(key []byte) *arrayField {
	for i := range fs.arrays {
		if string(key) == fs.arrays[i].name {
			return &fs.arrays[i]
		}
	}
	return nil
}

// at names an object for messages: the body (the zero value) or element idx of an array of
// the body, and in, when the object is within the value of a field of those (at any depth).
type at struct {
	array string
	idx   int
	in    string
}

// check applies the rule to one key of an object; a key that is a field or is ignored is nil.
func (fs *fieldSet) check(key []byte, where at) *Error {
	if fs.known[string(key)] { // no allocation: the conversion is only a map key
		return nil
	}
	k := string(key)
	ascii := isASCII(key)
	for _, f := range fs.names {
		// Field names are ASCII, and a rune that folds onto an ASCII letter is never shorter
		// than it: an ASCII key must have the name's length, any key at least that length.
		if len(k) < len(f) || ascii && len(k) != len(f) {
			continue
		}
		if strings.EqualFold(k, f) {
			return invalid(CodeInvalidInput, "field %s is not %q: field names are case-sensitive", fieldPath(where, k), f)
		}
	}
	var b1, b2 [64]byte
	stripped := appendStripped(b1[:0], k, false)
	lower := appendStripped(b2[:0], k, true)
	for _, f := range fs.money {
		if strings.EqualFold(string(stripped), f) || nearMiss(lower, f) {
			return invalid(CodeInvalidInput, "field %s looks like a misspelling of %q; it is refused rather than ignored because ignoring it would change the quote",
				fieldPath(where, k), f)
		}
	}
	return nil
}

func fieldPath(where at, key string) string {
	var in string
	if where.in != "" {
		in = fmt.Sprintf(" within %q", truncate(where.in))
	}
	if where.array == "" {
		return fmt.Sprintf("%q%s", truncate(key), in)
	}
	return fmt.Sprintf("%q%s in %s[%d]", truncate(key), in, where.array, where.idx)
}

// appendStripped appends s without its '_' and '-' bytes, ASCII-lower-cased when lower is set.
func appendStripped(dst []byte, s string, lower bool) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || c == '-':
			continue
		case lower && 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// nearMiss reports whether key (stripped and lower-cased) is within the rule's distance of the
// field name: 1 for names of 5 to 9 characters, 2 for longer ones, none for shorter ones.
func nearMiss(key []byte, name string) bool {
	limit := 0
	switch {
	case len(name) >= 10:
		limit = 2
	case len(name) >= 5:
		limit = 1
	default:
		return false
	}
	if d := len(key) - len(name); d > limit || -d > limit {
		return false
	}
	return osaWithin(key, name, limit)
}

// maxNameLen bounds the distance computation; no field name is this long.
const maxNameLen = 40

// osaWithin reports whether the optimal-string-alignment distance between a and b (b in
// lower case) is at most limit; b is shorter than maxNameLen.
// Three rows on the stack: no allocation.
func osaWithin(a []byte, b string, limit int) bool {
	if len(b) >= maxNameLen {
		return false
	}
	var rows [3][maxNameLen + 1]int
	prev2, prev, cur := &rows[0], &rows[1], &rows[2]
	for j := 0; j <= len(b); j++ {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == lowerASCII(b[j-1]) {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == lowerASCII(b[j-2]) && a[i-2] == lowerASCII(b[j-1]) {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			best = min(best, v)
		}
		if best > limit {
			return false
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)] <= limit
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// checkFields applies the field rule to the keys of the body's object and of the objects in
// its appFees array, and refuses a key given twice in any object of the body, at any depth
// (review L2: encoding/json keeps the last of `{"recipient":A,"recipient":B}`, so a proxy or
// WAF that checks the first would be bypassed). The body has been through encoding/json
// already, so it is valid JSON; the walk stops quietly at anything it does not expect. One
// pass, no allocation for a body whose keys are all fields and whose objects have at most
// smallObject keys.
func checkFields(body []byte) *Error {
	w := walker{b: body}
	w.ws()
	if w.peek() != '{' {
		return nil
	}
	return w.object(requestFields, at{})
}

// walker reads a JSON text from b at i.
type walker struct {
	b []byte
	i int
}

func (w *walker) peek() byte {
	if w.i < len(w.b) {
		return w.b[w.i]
	}
	return 0
}

func (w *walker) ws() {
	for w.i < len(w.b) {
		switch w.b[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

// smallObject is how many keys of one object are compared pairwise; past it they go in a map,
// so a body of one object with thousands of keys costs linear time.
const smallObject = 16

// seenKeys are the keys of one object so far, to find one given twice.
type seenKeys struct {
	small [smallObject][]byte
	n     int
	big   map[string]struct{}
}

// add records key and reports whether the object already had it.
func (s *seenKeys) add(key []byte) bool {
	if s.big != nil {
		if _, dup := s.big[string(key)]; dup {
			return true
		}
		s.big[string(key)] = struct{}{}
		return false
	}
	for _, k := range s.small[:s.n] {
		if string(k) == string(key) {
			return true
		}
	}
	if s.n < smallObject {
		s.small[s.n] = key
		s.n++
		return false
	}
	s.big = make(map[string]struct{}, 2*smallObject)
	for _, k := range s.small[:s.n] {
		s.big[string(k)] = struct{}{}
	}
	s.big[string(key)] = struct{}{}
	return false
}

// object walks the object at i: each key is checked against fs (nil: an object the engine does
// not read, whose keys are only checked for duplicates) and each value walked in turn.
func (w *walker) object(fs *fieldSet, where at) *Error {
	w.i++ // {
	var seen seenKeys
	for {
		w.ws()
		switch w.peek() {
		case '}':
			w.i++
			return nil
		case ',':
			w.i++
			continue
		case '"':
		default:
			return nil
		}
		key, ok := w.key()
		if !ok {
			return nil
		}
		if seen.add(key) {
			return invalid(CodeInvalidInput, "key %s is given twice in one object of the body: a duplicated key is refused, not read as its last value",
				fieldPath(where, string(key)))
		}
		if fs != nil {
			if err := fs.check(key, where); err != nil {
				return err
			}
		}
		w.ws()
		if w.peek() != ':' {
			return nil
		}
		w.i++
		w.ws()
		if fs != nil {
			if a := fs.array(key); a != nil && w.peek() == '[' {
				if err := w.array(a.set, at{array: a.name}); err != nil {
					return err
				}
				continue
			}
		}
		switch w.peek() {
		case '{', '[':
			inner := where
			if fs != nil {
				inner.in = string(key) // the field whose value holds the objects within
			}
			if ok, err := w.value(inner); err != nil || !ok {
				return err
			}
		default:
			if !w.skip() {
				return nil
			}
		}
	}
}

// value walks the value at i; objects and arrays in it are walked for duplicated keys. ok is
// false when the walk cannot go on.
func (w *walker) value(where at) (ok bool, err *Error) {
	switch w.peek() {
	case '{':
		return true, w.object(nil, where)
	case '[':
		return true, w.array(nil, where)
	default:
		return w.skip(), nil
	}
}

// array walks an array at i. With fs, it is the field set's array named where.array, whose
// object elements are checked against fs; without, an array the engine does not read, whose
// objects are checked for duplicated keys only.
func (w *walker) array(fs *fieldSet, where at) *Error {
	w.i++ // [
	for n := 0; ; {
		w.ws()
		switch w.peek() {
		case ']':
			w.i++
			return nil
		case ',':
			w.i++
			n++
		case 0:
			return nil
		default:
			el := where
			if fs != nil {
				el.idx = n
			}
			if w.peek() == '{' {
				if err := w.object(fs, el); err != nil {
					return err
				}
				continue
			}
			if ok, err := w.value(el); err != nil || !ok {
				return err
			}
		}
	}
}

// key reads the string at i as a key: its bytes, unescaped the way encoding/json does when it
// has escapes (a key such as "\u0052ecipient" is "Recipient" to the decoder too).
func (w *walker) key() ([]byte, bool) {
	start := w.i
	raw, esc, ok := w.str()
	if !ok || !esc {
		return raw, ok
	}
	var s string
	if err := json.Unmarshal(w.b[start:w.i], &s); err != nil {
		return nil, false
	}
	return []byte(s), true
}

// str reads the string at i: its raw contents and whether it has escapes.
func (w *walker) str() (raw []byte, esc, ok bool) {
	start := w.i + 1
	for j := start; j < len(w.b); j++ {
		switch w.b[j] {
		case '\\':
			esc = true
			j++
		case '"':
			w.i = j + 1
			return w.b[start:j], esc, true
		}
	}
	return nil, false, false
}

// skip steps over the scalar at i (objects and arrays are walked by value).
func (w *walker) skip() bool {
	if w.peek() == '"' {
		_, _, ok := w.str()
		return ok
	}
	for w.i < len(w.b) {
		switch w.b[w.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return true
		}
		w.i++
	}
	return true
}
