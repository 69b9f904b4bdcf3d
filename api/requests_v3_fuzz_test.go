package api

import (
	"net/url"
	"testing"
)

// FuzzRequestsV3Query: any query string is parsed into a search or refused with 400
// INVALID_INPUT and a message, never a panic.
func FuzzRequestsV3Query(f *testing.F) {
	for _, seed := range []string{
		"", "limit=20&sortBy=updatedAt&sortDirection=asc", "limit=-1", "limit=99999999999999999999",
		"filters=%5B%7B%22status%22%3A%5B%22success%22%2Cnull%5D%7D%5D", "apiKeyId=,", "startTimestamp=1e9",
		"amountUsdMin=NaN", "status=success,,failure", "chainId=0", "continuation=%00", "includeTotal=yes",
		"term=%27%20OR%201%3D1", "features=a,b", "startBlock=5&endBlock=4",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return // the router answers a malformed query string before the handler
		}
		p, e := parseV3(v)
		switch {
		case e == nil && p == nil:
			t.Fatal("no search and no error")
		case e != nil && (e.Status() != 400 || e.Code != CodeInvalidInput || e.Message == ""):
			t.Fatalf("rejection %+v, want 400 INVALID_INPUT with a message", e)
		}
	})
}
