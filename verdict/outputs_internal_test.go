package verdict

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// Each test gets an empty output file, the two names in turn; the file
// made ahead for a name is a new file, not the last test's truncated (a
// reader of the old one still reads its output); close waits for what is
// still being made.
func TestTestOutputs(t *testing.T) {
	o := newTestOutputs(filepath.Join(t.TempDir(), "output"))
	var names []string
	old := map[string]*os.File{} // each name's last output, open for reading
	const text = "the last test's output\n"
	for i := 0; i < 6; i++ {
		f, err := o.take()
		if err != nil {
			t.Fatal(err)
		}
		if st, err := f.Stat(); err != nil || st.Size() != 0 {
			t.Fatalf("test %d: %s: %v, want an empty file", i, f.Name(), err)
		}
		if prev := old[f.Name()]; prev != nil {
			if b, err := io.ReadAll(prev); err != nil || string(b) != text {
				t.Errorf("test %d: the last output at %s now reads %q (%v): truncated, not replaced", i, f.Name(), b, err)
			}
			prev.Close()
		}
		names = append(names, f.Name())
		if _, err := f.WriteString(text); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if old[f.Name()], err = os.Open(f.Name()); err != nil {
			t.Fatal(err)
		}
		defer old[f.Name()].Close()
		if i < 5 {
			o.done(f) // the last is left as an abandoned test leaves it
		}
	}
	for i := 2; i < len(names); i++ {
		if names[i] != names[i-2] || names[i] == names[i-1] {
			t.Fatalf("names %v: want two in turn", names)
		}
	}
	o.close() // test 4's name is being made again
	if o.ahead[0] != nil || o.ahead[1] != nil {
		t.Error("close left files being made")
	}
	if b, err := os.ReadFile(names[4]); err != nil || len(b) != 0 {
		t.Errorf("%s: %q %v: want the empty file made after test 4", names[4], b, err)
	}
	if b, err := os.ReadFile(names[5]); err != nil || string(b) != text {
		t.Errorf("%s: %q %v: the last test's output should stay until the workspace goes", names[5], b, err)
	}
}
