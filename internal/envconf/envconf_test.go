package envconf

import (
	"strings"
	"testing"
	"time"
)

func TestListSplitsTrimsAndCountsPositions(t *testing.T) {
	entries, err := List{Sep: ";", KV: ":", KeyOnly: true}.Parse(" a : x ;; b ;c:")
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{{N: 1, Text: "a : x", Key: "a", Value: "x"}, {N: 3, Text: "b", Key: "b"}, {N: 4, Text: "c:", Key: "c"}}
	if len(entries) != len(want) {
		t.Fatalf("%+v", entries)
	}
	for i, e := range entries {
		if e.N != want[i].N || e.Text != want[i].Text || e.Key != want[i].Key || e.Value != want[i].Value {
			t.Errorf("entry %d: %+v, want %+v", i, e, want[i])
		}
	}
	plain, err := List{Sep: ","}.Parse("x, y=1 ,")
	if err != nil || len(plain) != 2 || plain[1].Value != "y=1" || plain[1].Key != "" {
		t.Fatalf("%+v %v", plain, err)
	}
	empty, err := (List{Sep: ","}).Parse(" , ")
	if err != nil || len(empty) != 0 {
		t.Fatalf("%+v %v", empty, err)
	}
}

func TestListErrorsNameTheEntry(t *testing.T) {
	l := List{Sep: ",", KV: "=", Item: "price", Form: "SYMBOL=USD", Key: "symbol", UpperKeys: true, Unique: true}
	for in, want := range map[string]string{
		"ETH=1,BTC":       `price "BTC" is not SYMBOL=USD`,
		"=3":              `price "=3" has no symbol`,
		"ETH=1, eth = 2 ": "price of ETH is listed twice",
	} {
		if _, err := l.Parse(in); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %s", in, err, want)
		}
	}
	entries, err := l.Parse("eth=free")
	if err != nil || entries[0].Key != "ETH" {
		t.Fatalf("%+v %v", entries, err)
	}
	if err := entries[0].Errorf("is not a positive decimal"); err.Error() != `price "eth=free" is not a positive decimal` {
		t.Fatal(err)
	}
}

func TestSecretListsNameEntriesByPosition(t *testing.T) {
	l := List{Sep: ";", KV: ":", Secret: true, Key: "key", Unique: true}
	for in, want := range map[string]string{
		"k1:a;;s3cr3t":      "entry 3 is malformed",
		"k1:a;:s3cr3t":      "entry 2 has no key",
		"s3cr3t:a;s3cr3t":   "entry 2 is malformed",
		"s3cr3t:a;s3cr3t:b": "entry 2 repeats the key of an earlier entry",
	} {
		_, err := l.Parse(in)
		if err == nil || err.Error() != want || strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("%q: %v, want %s", in, err, want)
		}
	}
}

func TestSymbolAmounts(t *testing.T) {
	m, err := SymbolAmounts(" eth=3000 , USDC=1,, wbtc = 65000.125 ", "price", "USD")
	if err != nil || len(m) != 3 || m["WBTC"].String() != "65000.125" || m["ETH"].String() != "3000" {
		t.Fatalf("%v %v", m, err)
	}
	for in, want := range map[string]string{
		"":                  "price list is empty",
		"ETH":               "SYMBOL=USD",
		"ETH=0":             "positive decimal",
		"ETH=":              "positive decimal",
		"=3000":             "no symbol",
		"ETH=3000,eth=2900": "twice",
	} {
		if _, err := SymbolAmounts(in, "price", "USD"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %s", in, err, want)
		}
	}
}

func TestVarsCollectEveryProblem(t *testing.T) {
	env := map[string]string{"A": "", "D": "soon", "N": "21", "L": "loud", "OK": "5s"}
	v := New(func(k string) (string, bool) { s, ok := env[k]; return s, ok }, map[string]string{"A": "from-defaults"})
	if got := v.Get("A", "def"); got != "from-defaults" {
		t.Fatalf("empty counts as unset: %q", got)
	}
	if got := v.Get("B", "def"); got != "def" {
		t.Fatalf("unset: %q", got)
	}
	if d := v.PositiveDuration("OK", "1s"); d != 5*time.Second {
		t.Fatal(d)
	}
	if v.Err() != nil {
		t.Fatal(v.Err())
	}
	v.PositiveDuration("D", "1s")
	v.IntRange("N", "3", 1, 20)
	v.Level("L", "info")
	v.Bad("S", "is required")
	err := v.Err()
	if err == nil {
		t.Fatal("problems not reported")
	}
	for _, want := range []string{"D: must be a positive duration, like 1s", "N: must be a whole number from 1 to 20",
		"L: must be debug, info, warn or error", "S: is required"} {
		if !strings.Contains(err.Error(), "\n  "+want) {
			t.Errorf("%q missing from:\n%v", want, err)
		}
	}
}
