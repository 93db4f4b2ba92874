package execcli

import (
	"encoding/binary"
	"errors"
	"reflect"
	"testing"
)

func TestRequestRoundTrip(t *testing.T) {
	want := request{Dir: "/home/u", Env: map[string]string{"DOCKET_SANDBOX_DIR": "/x", "DOCKET_CGROUP_VERSION": ""},
		Args: []string{"--json", "", "--", "/bin/echo", "a b", "--help"}}
	head, body := want.encode()
	n, err := requestLength(head)
	if err != nil || n != len(body) {
		t.Fatalf("length %d (%v), body %d bytes", n, err, len(body))
	}
	got, err := parseRequest(body)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v (%v), want %+v", got, err, want)
	}
	// No arguments at all is a request too (the command says "no command").
	_, body = request{Dir: "/", Env: map[string]string{}}.encode()
	if got, err := parseRequest(body); err != nil || len(got.Args) != 0 {
		t.Errorf("no arguments: %+v, %v", got, err)
	}
}

func TestMalformedRequests(t *testing.T) {
	for name, body := range map[string]string{
		"empty":            "",
		"no final NUL":     requestMagic + "\x00/\x00\x00x",
		"other magic":      "docket-exec-client 2\x00/\x00\x00",
		"relative dir":     requestMagic + "\x00home\x00\x00",
		"no dir":           requestMagic + "\x00",
		"not DOCKET_":      requestMagic + "\x00/\x00PATH=/bin\x00\x00",
		"no =":             requestMagic + "\x00/\x00DOCKET_X\x00\x00",
		"no end of vars":   requestMagic + "\x00/\x00DOCKET_X=1\x00",
		"magic as a field": "\x00" + requestMagic + "\x00/\x00\x00",
	} {
		if r, err := parseRequest([]byte(body)); !errors.Is(err, errRequest) {
			t.Errorf("%s: %+v, %v (want errRequest)", name, r, err)
		}
	}
	for _, n := range []uint32{0, maxRequest + 1, 1 << 31} {
		if _, err := requestLength(binary.LittleEndian.AppendUint32(nil, n)); !errors.Is(err, errRequest) {
			t.Errorf("length %d: %v (want errRequest)", n, err)
		}
	}
	if _, err := requestLength([]byte{1, 0}); !errors.Is(err, errRequest) {
		t.Errorf("a 2-byte length: %v", err)
	}
}

// FuzzParseRequest: any bytes give a request or errRequest, never a
// panic, and a request read back encodes to bytes that read the same.
func FuzzParseRequest(f *testing.F) {
	_, body := request{Dir: "/tmp", Env: map[string]string{"DOCKET_A": "1"}, Args: []string{"--", "/bin/true"}}.encode()
	f.Add(body)
	f.Add([]byte(requestMagic + "\x00/\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseRequest(b)
		if err != nil {
			if !errors.Is(err, errRequest) {
				t.Fatalf("%q: %v is not errRequest", b, err)
			}
			return
		}
		_, again := r.encode()
		r2, err := parseRequest(again)
		if err != nil || r2.Dir != r.Dir || !reflect.DeepEqual(r2.Env, r.Env) || len(r2.Args) != len(r.Args) {
			t.Fatalf("%q read as %+v, encoded and read again as %+v (%v)", b, r, r2, err)
		}
	})
}
