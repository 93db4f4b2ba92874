package bridge

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func TestClientAddr(t *testing.T) {
	trusted, err := ParseTrustedProxies([]string{"10.0.0.0/8", " 192.0.2.7", "fd00::/8", "::ffff:198.51.100.0/120", ""})
	if err != nil {
		t.Fatal(err)
	}
	xff := &Bridge{cfg: Config{TrustedProxies: trusted, ForwardedHeader: HeaderXForwardedFor}}
	fwd := &Bridge{cfg: Config{TrustedProxies: trusted, ForwardedHeader: HeaderForwarded}}
	many := strings.Repeat("10.1.1.1, ", 1000) + "10.1.1.2"
	cases := []struct {
		b          *Bridge
		peer, want string
		headers    []string // "Name: value", each one line
	}{
		// An untrusted peer's headers are ignored.
		{xff, "203.0.113.9:5000", "203.0.113.9", []string{"X-Forwarded-For: 1.2.3.4"}},
		{fwd, "203.0.113.9:5000", "203.0.113.9", []string{"Forwarded: for=1.2.3.4"}},
		{xff, "[2001:db8::9]:5000", "2001:db8::9", nil},
		// A trusted peer: the right-most address that is not a proxy.
		{xff, "10.0.0.1:5000", "198.18.0.1", []string{"X-Forwarded-For: 6.6.6.6, 198.18.0.1"}},
		{xff, "10.0.0.1:5000", "198.18.0.1", []string{"X-Forwarded-For: 6.6.6.6, 198.18.0.1, 10.9.9.9, 192.0.2.7"}},
		{xff, "10.0.0.1:5000", "198.18.0.1", []string{"X-Forwarded-For: 6.6.6.6", "X-Forwarded-For: 198.18.0.1"}},
		{xff, "192.0.2.7:1", "2001:db8::1", []string{"X-Forwarded-For: [2001:db8::1]:443"}},
		{xff, "192.0.2.7:1", "2001:db8::1", []string{"X-Forwarded-For: 2001:db8::1"}},
		{xff, "192.0.2.7:1", "2001:db8::1", []string{"X-Forwarded-For: fe80::1%eth0, 2001:db8::1%eth0"}},
		{xff, "192.0.2.7:1", "198.18.0.1", []string{"X-Forwarded-For: 198.18.0.1:8443"}},
		{xff, "[::ffff:10.0.0.1]:1", "198.18.0.1", []string{"X-Forwarded-For: ::ffff:198.18.0.1"}},
		{xff, "[::ffff:198.51.100.3]:1", "198.18.0.1", []string{"X-Forwarded-For: 198.18.0.1"}},
		// No header, an empty one, garbage or an opaque hop: the proxy
		// that wrote it is the client.
		{xff, "10.0.0.1:5000", "10.0.0.1", nil},
		{xff, "10.0.0.1:5000", "10.0.0.1", []string{"X-Forwarded-For: "}},
		{xff, "10.0.0.1:5000", "10.0.0.1", []string{"X-Forwarded-For: 1.2.3.4, garbage"}},
		{xff, "10.0.0.1:5000", "10.0.0.1", []string{"X-Forwarded-For: 1.2.3.4, unknown"}},
		{xff, "10.0.0.1:5000", "10.0.0.1", []string{"X-Forwarded-For: 1.2.3.4,"}},
		{xff, "10.0.0.1:5000", "10.0.0.1", []string{"X-Forwarded-For: [2001:db8::1"}},
		{xff, "10.0.0.1:5000", "10.0.0.1", []string{"X-Forwarded-For: [2001:db8::1]x"}},
		{xff, "10.0.0.1:5000", "10.0.0.1", []string{"X-Forwarded-For: 1.2.3.4:99999999999999999999"}},
		{xff, "10.0.0.1:5000", "10.0.0.9", []string{"X-Forwarded-For: garbage, 10.0.0.9"}},
		// Only the configured header is read.
		{xff, "10.0.0.1:5000", "10.0.0.1", []string{"Forwarded: for=1.2.3.4"}},
		{fwd, "10.0.0.1:5000", "10.0.0.1", []string{"X-Forwarded-For: 1.2.3.4"}},
		// Hops beyond maxHops from the right are not examined.
		{xff, "10.0.0.1:5000", "10.1.1.1", []string{"X-Forwarded-For: 6.6.6.6, " + many}},
		// RFC 7239.
		{fwd, "10.0.0.1:5000", "198.18.0.1", []string{"Forwarded: for=6.6.6.6, for=198.18.0.1;proto=https;by=10.0.0.1"}},
		{fwd, "10.0.0.1:5000", "2001:db8:cafe::17", []string{`Forwarded: For="[2001:db8:cafe::17]:4711"`}},
		{fwd, "10.0.0.1:5000", "198.18.0.1", []string{`Forwarded: for="198.18.0.1:_obf"`}},
		{fwd, "10.0.0.1:5000", "10.0.0.1", []string{"Forwarded: for=_hidden"}},
		{fwd, "10.0.0.1:5000", "10.0.0.1", []string{"Forwarded: for=unknown"}},
		{fwd, "10.0.0.1:5000", "10.0.0.1", []string{"Forwarded: proto=https"}},
		{fwd, "10.0.0.1:5000", "10.0.0.1", []string{`Forwarded: for="1.2.3.4, for=5.6.7.8"`}},
		{fwd, "10.0.0.1:5000", "198.18.0.1", []string{`Forwarded: for="x;y,z", for=198.18.0.1`}},
		{fwd, "10.0.0.1:5000", "10.0.0.1", []string{`Forwarded: for="unterminated, for=1.2.3.4`}},
	}
	for _, c := range cases {
		r, _ := http.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = c.peer
		for _, h := range c.headers {
			k, v, _ := strings.Cut(h, ":")
			r.Header.Add(k, strings.TrimSpace(v))
		}
		if got := c.b.clientAddr(r); got != c.want {
			t.Errorf("%s peer %s %q: client %q, want %q", c.b.cfg.ForwardedHeader, c.peer, c.headers, got, c.want)
		}
	}
}

func TestParseTrustedProxiesRefusesGarbage(t *testing.T) {
	for _, s := range []string{"10.0.0.0/33", "example.com", "1.2.3", "fe80::1%eth0", "10.0.0.1:80"} {
		if _, err := ParseTrustedProxies([]string{s}); err == nil || !strings.Contains(err.Error(), s) {
			t.Errorf("%q: error %v, want one naming it", s, err)
		}
	}
}

func TestForwardedHeaderSetting(t *testing.T) {
	js := startNATS(t)
	for _, h := range []string{"", "x-forwarded-for", "forwarded"} {
		if _, err := New(js, Config{Token: testToken, ForwardedHeader: h}); err != nil {
			t.Errorf("%q: %v", h, err)
		}
	}
	if _, err := New(js, Config{Token: testToken, ForwardedHeader: "X-Real-IP"}); err == nil {
		t.Error("X-Real-IP accepted")
	}
}

// TestPerClientLimitBehindProxy opens streams through a "proxy" on
// 127.0.0.1: with it trusted, each forwarded client has its own limit;
// without, they all share the proxy's.
func TestPerClientLimitBehindProxy(t *testing.T) {
	lo, _ := ParseTrustedProxies([]string{"127.0.0.0/8", "::1"})
	e := newEnv(t, func(c *Config) { c.MaxConnsPerClient = 1; c.TrustedProxies = lo })
	e.openSSE("s-1", opAuth, "X-Forwarded-For: 6.6.6.6, 198.18.0.1")
	e.openSSE("s-1", opAuth, "X-Forwarded-For: 198.18.0.2")
	if _, code := e.tryOpenSSE("/v1/submissions/s-1/events", opAuth, "X-Forwarded-For: 7.7.7.7, 198.18.0.1"); code != 429 {
		t.Fatalf("second stream of 198.18.0.1 behind the proxy: %d, want 429", code)
	}
	plain := newEnv(t, func(c *Config) { c.MaxConnsPerClient = 1 })
	plain.openSSE("s-1", opAuth, "X-Forwarded-For: 198.18.0.1")
	if _, code := plain.tryOpenSSE("/v1/submissions/s-1/events", opAuth, "X-Forwarded-For: 198.18.0.2"); code != 429 {
		t.Fatalf("untrusted peer's X-Forwarded-For was believed: %d, want 429", code)
	}
}

func TestPerTokenLimit(t *testing.T) {
	e := newEnv(t, func(c *Config) {
		c.MaxConnsPerToken = 2
		c.ClientIP = func(r *http.Request) string { return r.Header.Get("X-Test-Client") }
	})
	tok := SubmissionToken([]byte(testSecret), "s-1")
	first := e.openSSE("s-1"+tokenQuery("s-1"), "X-Test-Client: a")
	// The same token in the header and in upper case is the same token.
	e.openSSE("s-1", "Authorization: Bearer "+strings.ToUpper(tok), "X-Test-Client: b")
	resp := e.request(http.MethodGet, "/v1/submissions/s-1/events"+tokenQuery("s-1"), "X-Test-Client: c")
	body := make([]byte, 512)
	n, _ := resp.Body.Read(body)
	resp.Body.Close()
	if resp.StatusCode != 429 || !strings.Contains(string(body[:n]), "with this token (limit 2)") || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("third stream of one token: %d %s", resp.StatusCode, body[:n])
	}
	// Another submission's token, and the operator token, are not held up.
	e.openSSE("s-2"+tokenQuery("s-2"), "X-Test-Client: c")
	for i := 0; i < 3; i++ {
		e.openSSE("s-1", opAuth, "X-Test-Client: op")
	}
	first.close()
	eventually(t, "token slot freed", func() (bool, string) {
		c, code := e.tryOpenSSE("/v1/submissions/s-1/events"+tokenQuery("s-1"), "X-Test-Client: d")
		if c != nil {
			c.close()
		}
		return code == 200, fmt.Sprint(code)
	})
}
