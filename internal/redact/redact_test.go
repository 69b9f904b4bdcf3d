package redact

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
)

// Review L4: RPC URLs, which carry provider keys in their path or query, never reach logs; the
// error of a real HTTP call to such a URL keeps its host and loses the rest, and still unwraps.
func TestURLsLoseEverythingButSchemeAndHost(t *testing.T) {
	for in, want := range map[string]string{
		"https://eth-mainnet.example/v2/SECRETKEY":   "https://eth-mainnet.example/***",
		"https://rpc.example:8545/?apikey=SECRETKEY": "https://rpc.example:8545/***",
		"wss://user:SECRETKEY@rpc.example/ws":        "wss://***@rpc.example/***",
		"http://127.0.0.1:8545":                      "http://127.0.0.1:8545",
		"http://127.0.0.1:8545/":                     "http://127.0.0.1:8545",
		"mailto:someone@example.com":                 "***",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, "http://127.0.0.1:1/v2/SECRETKEY?key=SECRETQUERY", nil)
	_, err := http.DefaultClient.Do(req)
	if err == nil || !strings.Contains(err.Error(), "SECRETKEY") {
		t.Fatalf("the unredacted error %v should name the URL", err)
	}
	red := Error(err)
	if strings.Contains(red.Error(), "SECRET") || !strings.Contains(red.Error(), "http://127.0.0.1:1/***") ||
		!strings.Contains(red.Error(), "connection refused") {
		t.Fatalf("redacted: %q", red)
	}
	if !errors.Is(red, err) {
		t.Fatal("the redacted error does not unwrap to the original")
	}
	plain := errors.New("no url here")
	if Error(plain) != plain || Error(nil) != nil {
		t.Fatal("an error without a URL is changed")
	}
}
