package events

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
)

// ErrBlockedAddress is a webhook URL, or an address it resolves to, that deliveries must not
// reach: outside dev mode only https to public addresses, so a webhook cannot be pointed at the
// service's own network (loopback, private, link-local, shared, multicast and reserved ranges).
var ErrBlockedAddress = errors.New("webhook address not allowed")

// URLPolicy decides which webhook URLs are allowed. AllowPrivate (dev mode only) also allows
// http and loopback or private addresses, for a receiver on the developer's machine.
type URLPolicy struct {
	AllowPrivate bool
	// Resolver looks host names up; nil is net.DefaultResolver.
	Resolver interface {
		LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
	}
}

// CheckURL validates a webhook URL when it is configured: absolute, https (http too with
// AllowPrivate), no user info, and every address its host resolves to allowed. Deliveries
// check the address again when they connect (DialControl), so a later DNS change cannot point
// an accepted URL at a blocked address.
func (p URLPolicy) CheckURL(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return fmt.Errorf("url must be an absolute http(s) URL")
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && p.AllowPrivate:
	default:
		return fmt.Errorf("url must use https")
	}
	if u.User != nil {
		return fmt.Errorf("url must not carry user info (send credentials as a custom header)")
	}
	if len(raw) > 2048 {
		return fmt.Errorf("url must be at most 2048 characters")
	}
	host := u.Hostname()
	if p.AllowPrivate {
		return nil
	}
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return fmt.Errorf("%w: %s is loopback", ErrBlockedAddress, host)
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return checkAddr(a)
	}
	r := p.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return fmt.Errorf("url host %s does not resolve", host)
	}
	for _, a := range addrs {
		if err := checkAddr(a); err != nil {
			return fmt.Errorf("%w (%s)", err, host)
		}
	}
	return nil
}

// blockedPrefixes are ranges netip's predicates do not name: "this network", shared address
// space (carrier-grade NAT), IETF protocol assignments, benchmarking, the documentation ranges,
// reserved, the IPv6 discard and documentation prefixes, and every IPv6 prefix that carries an
// IPv4 address inside it (review L14): 6to4, Teredo, NAT64 (well-known and local-use),
// IPv4-compatible and IPv4-translated, and IPv4-mapped (Unmap turns those into IPv4 already;
// listed so the table is whole). On a host with a route for one of them, an address in it
// reaches the IPv4 address it embeds, which may be private: none is a webhook receiver's
// address, so all are refused rather than decoded.
var blockedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("100::/64"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("2002::/16"),       // 6to4
	netip.MustParsePrefix("2001::/32"),       // Teredo
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64, well-known
	netip.MustParsePrefix("64:ff9b:1::/48"),  // NAT64, local use
	netip.MustParsePrefix("::/96"),           // IPv4-compatible (deprecated)
	netip.MustParsePrefix("::ffff:0:0:0/96"), // IPv4-translated (SIIT)
	netip.MustParsePrefix("::ffff:0:0/96"),   // IPv4-mapped
}

// checkAddr refuses an address deliveries must not reach.
func checkAddr(a netip.Addr) error {
	a = a.Unmap()
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() || !a.IsValid() {
		return fmt.Errorf("%w: %s is not a public address", ErrBlockedAddress, a)
	}
	for _, p := range blockedPrefixes {
		if p.Contains(a) {
			return fmt.Errorf("%w: %s is in %s", ErrBlockedAddress, a, p)
		}
	}
	return nil
}

// DialControl is the delivery dialer's Control: it runs with the address actually being
// connected to, after resolution, and refuses a blocked one (nil with AllowPrivate).
func (p URLPolicy) DialControl() func(network, address string, c syscall.RawConn) error {
	if p.AllowPrivate {
		return nil
	}
	return func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: %s", ErrBlockedAddress, address)
		}
		return checkAddr(ap.Addr())
	}
}
