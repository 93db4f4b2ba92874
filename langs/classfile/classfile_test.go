package classfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// The class files in testdata were compiled by javac 17 and kotlinc 1.3
// from the sources beside them.
func TestParse(t *testing.T) {
	for file, want := range map[string]Class{
		"Sol.class":          {Name: "contest.a.Sol", HasMain: true},
		"Helper.class":       {Name: "Helper", HasMain: false},
		"Helper$Inner.class": {Name: "Helper$Inner", HasMain: true},
		"TkKt.class":         {Name: "TkKt", HasMain: true},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		c, err := Parse(b)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		if *c != want {
			t.Errorf("%s: %+v, want %+v", file, *c, want)
		}
	}
}

// Every cut of a real class file is refused as malformed, and so are
// other files: never a panic, never a class.
func TestParseMalformed(t *testing.T) {
	b, err := os.ReadFile("testdata/Sol.class")
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(b); n++ {
		if c, err := Parse(b[:n]); !errors.Is(err, ErrMalformed) {
			t.Fatalf("first %d bytes: %+v, %v; want ErrMalformed", n, c, err)
		}
	}
	for _, bad := range [][]byte{nil, []byte("public class Sol {}"), {0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 61, 0xFF, 0xFF, 99}} {
		if _, err := Parse(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("%q: %v, want ErrMalformed", bad, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, n := range []string{"Sol.class", "Helper.class", "Helper$Inner.class", "TkKt.class"} {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Parse(b)
		if (c == nil) == (err == nil) {
			t.Fatalf("class %+v and error %v", c, err)
		}
		if err != nil && !errors.Is(err, ErrMalformed) {
			t.Fatalf("error %v does not wrap ErrMalformed", err)
		}
	})
}
