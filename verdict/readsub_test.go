package verdict

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/docketjudge/docket/langs"
)

// ReadSubmission infers a language from the program's files alone,
// never from an output file (output_<codename>.txt); a submission of
// output files alone has none, and any other file whose language is
// unknown is still an error.
func TestReadSubmissionOutputFiles(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.py", "output_000.txt", "output_001.txt", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := func(names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, filepath.Join(dir, n))
		}
		return out
	}
	for _, c := range []struct {
		files []string
		lang  string
	}{
		{path("output_000.txt", "a.py"), "python3"},
		{path("output_000.txt", "output_001.txt"), ""},
	} {
		sub, err := ReadSubmission(langs.Builtin(), "", c.files)
		if err != nil || sub.Language != c.lang || len(sub.Files) != len(c.files) {
			t.Errorf("%v: language %q, %d files, %v; want %q", c.files, sub.Language, len(sub.Files), err, c.lang)
		}
	}
	if _, err := ReadSubmission(langs.Builtin(), "", path("output_000.txt", "notes.txt")); !errors.Is(err, langs.ErrUnknown) {
		t.Errorf("notes.txt: %v, want langs.ErrUnknown", err)
	}
}
