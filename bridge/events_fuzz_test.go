package bridge

import (
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzLastEventID(f *testing.F) {
	for _, s := range []string{
		"0", "1", "42", "007", "18446744073709551615", "18446744073709551616", "99999999999999999999999",
		"-1", "+1", "1.5", "1e3", "0x10", "1_000", " 1", "1 ", "abc", "１", "\xff", strings.Repeat("9", 100),
	} {
		f.Add(s, false)
	}
	f.Add("5", true)
	f.Fuzz(func(t *testing.T, v string, inQuery bool) {
		seq, err := parseLastEventID("Last-Event-ID", v)
		digits := v != "" && len(v) <= 20 && strings.Trim(v, "0123456789") == ""
		if err != nil {
			if digits && len(strings.TrimLeft(v, "0")) < 20 {
				t.Fatalf("%q refused: %v", v, err)
			}
			msg := err.Error()
			if len(msg) > 250 || strings.Contains(msg, "\n") || !utf8.ValidString(msg) {
				t.Fatalf("error message of %d bytes: %q", len(msg), msg)
			}
			return
		}
		if !digits && strings.Trim(v, "0123456789") != "" {
			t.Fatalf("%q accepted as %d", v, seq)
		}
		if strings.TrimLeft(v, "0") != strings.TrimLeft(strconv.FormatUint(seq, 10), "0") {
			t.Fatalf("%q read as %d", v, seq)
		}
		// The request path agrees with the pure parser, from the header or
		// from the query parameter.
		r := httptest.NewRequest("GET", "/v1/submissions/s/events", nil)
		if inQuery {
			r.URL.RawQuery = "last_event_id=" + url.QueryEscape(v)
		} else {
			r.Header.Set("Last-Event-ID", v)
		}
		got, ok, err := lastEventID(r)
		if err != nil || !ok || got != seq {
			t.Fatalf("lastEventID(%q) = %d, %v, %v; want %d", v, got, ok, err, seq)
		}
	})
}
