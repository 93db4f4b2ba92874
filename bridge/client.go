package bridge

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Header names a proxy may carry the client's address in.
const (
	HeaderXForwardedFor = "X-Forwarded-For"
	HeaderForwarded     = "Forwarded"
)

// maxHops bounds how many addresses of a forwarding header are examined,
// from the right: a header of thousands of hops costs no more than this.
const maxHops = 32

// ParseTrustedProxies reads proxy addresses and CIDRs ("10.0.0.7",
// "10.0.0.0/8", "::1", "fd00::/8"). An IPv4-mapped IPv6 address counts as
// its IPv4 address.
func ParseTrustedProxies(list []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if strings.Contains(s, "/") {
			p, err := netip.ParsePrefix(s)
			if err != nil {
				return nil, fmt.Errorf("trusted proxy %q: not an address or CIDR", s)
			}
			if p.Addr().Is4In6() && p.Bits() >= 96 {
				p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" {
			return nil, fmt.Errorf("trusted proxy %q: not an address or CIDR", s)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// clientAddr is the default Config.ClientIP. The client is the TCP peer,
// unless the peer is a trusted proxy: then it is the right-most address
// of the forwarding header that is not a trusted proxy, as nginx's
// real_ip_recursive finds it. Walking from the right matters because
// every proxy appends what it saw, so only the entries the trusted
// proxies wrote can be believed; whatever the client sent is on their
// left. An entry that is not an address (garbage, "unknown", an
// obfuscated identifier) stops the walk: the client is then the trusted
// proxy that wrote it, so a hostile or opaque header can only put its
// sender under its proxy's limit, never invent a new client.
func (b *Bridge) clientAddr(r *http.Request) string {
	peer, ok := parseNode(r.RemoteAddr)
	if !ok {
		return r.RemoteAddr
	}
	if !b.trusted(peer) {
		return peer.String()
	}
	hops := forwardedHops(r.Header, b.cfg.ForwardedHeader)
	client := peer
	for i := len(hops) - 1; i >= 0 && i >= len(hops)-maxHops; i-- {
		a, ok := parseNode(hops[i])
		if !ok {
			break
		}
		client = a
		if !b.trusted(a) {
			break
		}
	}
	return client.String()
}

func (b *Bridge) trusted(a netip.Addr) bool {
	for _, p := range b.cfg.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// forwardedHops is the list of hop addresses in the forwarding header
// name, left (first proxy's client) to right (last proxy's peer), over
// all lines of the header in order.
func forwardedHops(h http.Header, name string) []string {
	var hops []string
	for _, line := range h.Values(name) {
		for _, el := range splitOutsideQuotes(line, ',') {
			if name == HeaderForwarded {
				el = forwardedFor(el)
			}
			hops = append(hops, strings.TrimSpace(el))
		}
	}
	return hops
}

// forwardedFor is the value of the for= parameter of one element of an
// RFC 7239 Forwarded header, unquoted; "" when there is none.
func forwardedFor(el string) string {
	for _, pair := range splitOutsideQuotes(el, ';') {
		k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "for") {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			v = strings.ReplaceAll(v[1:len(v)-1], `\`, "")
		}
		return v
	}
	return ""
}

// splitOutsideQuotes splits s at sep where sep is not inside a quoted
// string (RFC 7239 allows quoted values, which may hold sep).
func splitOutsideQuotes(s string, sep byte) []string {
	var parts []string
	quoted, escaped, start := false, false, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case escaped:
			escaped = false
		case c == '\\' && quoted:
			escaped = true
		case c == '"':
			quoted = !quoted
		case c == sep && !quoted:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// parseNode reads one hop's address: "192.0.2.1", "192.0.2.1:4711",
// "2001:db8::1", "[2001:db8::1]", "[2001:db8::1]:4711". Zones are
// dropped and IPv4-mapped IPv6 addresses read as IPv4, so that one client
// has one key. Anything else (a name, "unknown", "_hidden") is not an
// address.
func parseNode(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return netip.Addr{}, false
		}
		rest := s[end+1:]
		if rest != "" && !validPort(strings.TrimPrefix(rest, ":")) || rest != "" && rest[0] != ':' {
			return netip.Addr{}, false
		}
		s = s[1:end]
	} else if strings.Count(s, ":") == 1 {
		host, port, err := net.SplitHostPort(s)
		if err != nil || !validPort(port) {
			return netip.Addr{}, false
		}
		s = host
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.WithZone("").Unmap(), true
}

// validPort accepts a decimal port, or an RFC 7239 obfuscated port
// ("_abc"), which says nothing about the client but is well-formed.
func validPort(p string) bool {
	if p == "" || len(p) > 16 {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !(c >= '0' && c <= '9' || p[0] == '_' && (c == '_' || c == '.' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')) {
			return false
		}
	}
	return true
}
