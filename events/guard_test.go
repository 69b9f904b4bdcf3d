package events

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
)

// fakeResolver answers host names from a table: name resolution is the machine's network, which
// tests cannot reach beyond loopback.
type fakeResolver map[string][]string

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	var out []netip.Addr
	for _, a := range f[host] {
		out = append(out, netip.MustParseAddr(a))
	}
	if len(out) == 0 {
		return nil, errors.New("no such host")
	}
	return out, nil
}

// Issue 15: "outside dev mode URLs must be https and must not resolve to loopback, private or
// link-local addresses".
func TestWebhookURLPolicyOutsideDevModeAllowsOnlyHTTPSToPublicAddresses(t *testing.T) {
	p := URLPolicy{Resolver: fakeResolver{
		"hooks.example.com": {"93.184.216.34"},
		"internal.example":  {"10.0.0.5"},
		"mixed.example":     {"93.184.216.34", "127.0.0.1"},
		"v6.example":        {"2606:2800:220:1:248:1893:25c8:1946"},
		"ula.example":       {"fd00::1"},
	}}
	for url, want := range map[string]string{
		"https://hooks.example.com/relay":    "",
		"https://v6.example/x":               "",
		"http://hooks.example.com/relay":     "https",
		"https://internal.example/":          "not a public address",
		"https://mixed.example/":             "not a public address",
		"https://ula.example/":               "not a public address",
		"https://127.0.0.1/":                 "not a public address",
		"https://[::1]/":                     "not a public address",
		"https://169.254.169.254/latest":     "not a public address",
		"https://[::ffff:127.0.0.1]/":        "not a public address",
		"https://100.64.1.1/":                "100.64.0.0/10",
		"https://0.0.0.0/":                   "not a public address",
		"https://localhost/":                 "loopback",
		"https://api.localhost/":             "loopback",
		"https://user:pw@hooks.example.com/": "user info",
		"https://nowhere.example/":           "does not resolve",
		"ftp://hooks.example.com/":           "https",
		"/relative":                          "absolute",
	} {
		err := p.CheckURL(context.Background(), url)
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v, want allowed", url, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: %v, want an error about %q", url, err, want)
		}
	}
	dev := URLPolicy{AllowPrivate: true}
	if err := dev.CheckURL(context.Background(), "http://127.0.0.1:9000/hook"); err != nil {
		t.Errorf("dev mode refuses a local receiver: %v", err)
	}
}

// Review L14 (issue 33, point 7): "block the IPv6 transition prefixes 2002::/16 (6to4), 2001::/32
// (Teredo), 64:ff9b::/96 and 64:ff9b:1::/48 (NAT64), ::/96 (IPv4-compatible) and ::ffff:0:0/96".
// Each embeds an IPv4 address a host with such a route would reach, private ones included; they
// are refused when the URL is set and when the dispatcher connects, public neighbours are not.
func TestWebhookAddressGuardRefusesTheIPv6PrefixesThatEmbedAnIPv4Address(t *testing.T) {
	ctl := URLPolicy{}.DialControl()
	for _, tc := range []struct {
		addr, why string
	}{
		{"2002:a00:1::1", "2002::/16"},                        // 6to4 of 10.0.0.1
		{"2002:5db8:d822::1", "2002::/16"},                    // 6to4 of a public address: refused all the same
		{"2001:0:4136:e378:8000:63bf:f5ff:fffe", "2001::/32"}, // Teredo (client 10.0.0.1, obfuscated)
		{"64:ff9b::a00:1", "64:ff9b::/96"},                    // NAT64 of 10.0.0.1
		{"64:ff9b::7f00:1", "64:ff9b::/96"},                   // NAT64 of 127.0.0.1
		{"64:ff9b:1::a9fe:a9fe", "64:ff9b:1::/48"},            // local NAT64 of 169.254.169.254
		{"::a00:1", "::/96"},                                  // IPv4-compatible 10.0.0.1
		{"::7f00:1", "::/96"},                                 // IPv4-compatible 127.0.0.1
		{"::ffff:0:a00:1", "::ffff:0:0:0/96"},                 // IPv4-translated 10.0.0.1
		{"::ffff:10.0.0.1", "not a public address"},           // IPv4-mapped: unmapped, then private
		{"::ffff:93.184.216.34", ""},                          // IPv4-mapped public: the IPv4 address itself
		{"2606:2800:220:1:248:1893:25c8:1946", ""},            // an ordinary public IPv6 address
		{"2001:4860:4860::8888", ""},                          // 2001::/32's neighbour, public
		{"64:ff9b:2::1", ""},                                  // past 64:ff9b:1::/48
	} {
		a := netip.MustParseAddr(tc.addr)
		for name, err := range map[string]error{
			"CheckURL":    URLPolicy{}.CheckURL(context.Background(), "https://"+netip.AddrPortFrom(a, 443).String()+"/hook"),
			"DialControl": ctl("tcp", netip.AddrPortFrom(a, 443).String(), nil),
		} {
			switch {
			case tc.why == "" && err != nil:
				t.Errorf("%s %s: %v, want allowed", name, tc.addr, err)
			case tc.why != "" && (!errors.Is(err, ErrBlockedAddress) || !strings.Contains(err.Error(), tc.why)):
				t.Errorf("%s %s: %v, want refused (%s)", name, tc.addr, err, tc.why)
			}
		}
	}
}

// The dialer's check sees the address actually connected to, so a name that resolved to a
// public address at configuration and to a private one now is refused at delivery.
func TestDialControlRefusesBlockedAddresses(t *testing.T) {
	ctl := URLPolicy{}.DialControl()
	for addr, blocked := range map[string]bool{"127.0.0.1:443": true, "10.1.2.3:443": true, "[fe80::1]:443": true,
		"93.184.216.34:443": false} {
		err := ctl("tcp", addr, nil)
		if blocked != (err != nil) || (blocked && !errors.Is(err, ErrBlockedAddress)) {
			t.Errorf("%s: %v", addr, err)
		}
	}
	if (URLPolicy{AllowPrivate: true}).DialControl() != nil {
		t.Error("dev mode dials anything")
	}
}

// The signature receivers check: lowercase hex HMAC-SHA256 of timestamp + "." + body.
func TestSignatureIsHexHMACOfTimestampDotBody(t *testing.T) {
	// Computed independently: printf '1774993296140.{"a":1}' | openssl dgst -sha256 -hmac whsec_test
	const want = "aec0fa46eb440a69f8ab003fbe624460649cbad6ab792966088b88ab5a68e666"
	got := Sign("whsec_test", 1774993296140, []byte(`{"a":1}`))
	if got != want {
		t.Fatalf("signature %q, want %q", got, want)
	}
	if !Verify("whsec_test", 1774993296140, []byte(`{"a":1}`), got) || Verify("other", 1774993296140, []byte(`{"a":1}`), got) {
		t.Fatal("verify")
	}
}
