package langs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A languages file's error names the line in the file, not in the entry.
func TestLoadErrorNamesFileLine(t *testing.T) {
	head := "languages:\n  - id: lua\n    run: [x]\n  - id: foo\n"
	for body, want := range map[string]string{
		"    extensions: .x\n    run: [y]\n":        "line 5: cannot unmarshal",
		"    run: [y]\n    bogus: 1\n":              `line 6: unknown field "bogus"`,
		"    run: [y]\n    compile_time: 3\n":       "line 6: time: missing unit",
		"    compile: [a]\n":                        "line 4: language \"foo\" needs id, source and run",
		"    run: [y]\n    source: a\n    env: 1\n": "line 7: cannot unmarshal",
	} {
		path := filepath.Join(t.TempDir(), "langs.yaml")
		os.WriteFile(path, []byte(head+body), 0o644)
		_, err := Load(path)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
}
