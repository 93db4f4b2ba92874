package termsafe

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text, ×2 time, 日本\n\tindented", "plain text, ×2 time, 日本\n\tindented"},
		{"\x1b]0;pwned\x07title", `\x1b]0;pwned\x07title`},
		{"\x1b]52;c;cGF5bG9hZA==\x07", `\x1b]52;c;cGF5bG9hZA==\x07`},
		{"\x1b[2J\x1b[H", `\x1b[2J\x1b[H`},
		{"over\rwrite\bx\x7f", `over\x0dwrite\x08x\x7f`},
		{"c1 \u009b31m", `c1 \x9b31m`},
		{"bidi \u202eevil", `bidi \u{202e}evil`},
		{"zero\u200bwidth", `zero\u{200b}width`},
		{"bad \xff\xfe utf8", `bad \xff\xfe utf8`},
		{"\u00ff\ufffd", "\u00ff\ufffd"},
	} {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// JSON leaves a document's meaning as it was: the escaped document
// decodes to the same value, and holds no raw rune a terminal acts on.
func TestJSON(t *testing.T) {
	in := map[string]string{"log": "a\x1b[2Jb\u009b\u202e\x7f\U000e0041 ok ×\n", "name": "plain"}
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	raw = append(raw, '\n')
	got := JSON(raw)
	for _, bad := range []string{"\x1b", "\u009b", "\u202e", "\x7f", "\U000e0041"} {
		if bytes.Contains(got, []byte(bad)) {
			t.Errorf("%q holds %q raw", got, bad)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(got, &back); err != nil || back["log"] != in["log"] || back["name"] != in["name"] {
		t.Fatalf("%s decodes to %q (%v), want %q", got, back, err, in)
	}
	if !bytes.HasSuffix(got, []byte("\n")) || !bytes.Contains(got, []byte("×")) {
		t.Errorf("%q: newline or printable rune changed", got)
	}
}

func TestWriters(t *testing.T) {
	var b bytes.Buffer
	if n, err := Writer(&b).Write([]byte("x\x1by\n")); err != nil || n != 4 || b.String() != `x\x1by`+"\n" {
		t.Errorf("Writer: %d %v %q", n, err, b.String())
	}
	b.Reset()
	if n, err := JSONWriter(&b).Write([]byte("{\"a\":\"\u009b\"}\n")); err != nil || n != 11 || b.String() != `{"a":"\u009b"}`+"\n" {
		t.Errorf("JSONWriter: %d %v %q", n, err, b.String())
	}
}

func FuzzText(f *testing.F) {
	f.Add("\x1b]0;x\x07\u009b\xff")
	f.Fuzz(func(t *testing.T, s string) {
		out := Text(s)
		for _, r := range out {
			if !safe(r, true) {
				t.Fatalf("Text(%q) = %q holds %U", s, out, r)
			}
		}
	})
}
