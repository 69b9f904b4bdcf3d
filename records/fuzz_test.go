package records

import (
	"strings"
	"testing"
)

// FuzzParseFilters: the `filters` language never panics, and whatever it accepts compiles to
// SQL whose every value is a parameter (no value text appears in the statement).
func FuzzParseFilters(f *testing.F) {
	for _, seed := range []string{
		`[{"user":"0x00000000000000000000000000000000000a0001","status":"success"},{"originChainId":8453}]`,
		`[{"status":["waiting","failure"]}]`, `{"not:fillTxHash":null}`, `[{"status":["success",null]}]`,
		`[{"colour":"red"}]`, `[]`, `[{}]`, `[`, `null`, `[{"currencyInSymbol":"Usdc' OR 1=1 --"}]`,
		`[{"referrer":"x"},{"not:referrer":["a","b"]}]`, `[{"chainId":"1e3"}]`, `[{"id":{"a":1}}]`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		groups, err := ParseFilters(raw)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("a rejection without a message")
			}
			return
		}
		c := Compile(Query{Groups: groups, Sort: SortCreatedAt, Desc: true, Limit: DefaultLimit})
		for _, g := range groups {
			for _, cond := range g {
				for _, v := range cond.Values {
					if len(v) > 3 && strings.Contains(c.Page, v) {
						t.Fatalf("value %q spliced into the SQL: %s", v, c.Page)
					}
				}
			}
		}
	})
}

// FuzzDecodeCursor: any continuation string is decoded or refused, never a panic.
func FuzzDecodeCursor(f *testing.F) {
	f.Add(Cursor{Sort: SortCreatedAt, Desc: true, Value: "2026-11-23T00:00:00Z", ID: "0x" + strings.Repeat("ab", 32)}.Encode())
	f.Add("abc")
	f.Add("")
	f.Fuzz(func(t *testing.T, raw string) {
		if c, err := DecodeCursor(raw); err == nil && c == nil {
			t.Fatal("no cursor and no error")
		}
	})
}
