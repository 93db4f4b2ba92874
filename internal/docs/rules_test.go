package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The rules themselves, on text made up for them: each refused phrase is
// found, and docket's own uses of "pass" are not.
func TestHistoryRules(t *testing.T) {
	refused := []string{
		"as issue 14 asked",
		"Issues #9 and #10",
		"(issue#3)",
		"### Issue 14, fifth pass: a run's path",
		"before (eleventh pass)",
		"the 2nd pass of the sandbox work",
		"issue 14's twelfth pass",
		"14's last pass",
		"the issue's final passes",
	}
	for _, s := range refused {
		if len(historyFindings(s)) == 0 {
			t.Errorf("%q: not refused", s)
		}
	}
	allowed := []string{
		"multi-pass problems run the submission once per pass",
		"`limits.validation_passes` (default 2)",
		"each pass gets the validator's nextpass.in; pass 2 reads it",
		"every test passes; the run passed",
		"a compile that passes its syntax check",
		"the issue tracker of CMS",
	}
	for _, s := range allowed {
		if f := historyFindings(s); len(f) != 0 {
			t.Errorf("%q: refused: %v", s, f)
		}
	}
}

func TestHistoryFindingsNameTheLine(t *testing.T) {
	f := historyFindings("# title\n\nfine\nsee issue 7\n")
	if len(f) != 1 || !strings.HasPrefix(f[0], "line 4: an issue number") {
		t.Errorf("findings %q, want one on line 4", f)
	}
}

func TestCountLines(t *testing.T) {
	for text, want := range map[string]int{"": 0, "a": 1, "a\n": 1, "a\nb": 2, "a\n\n": 2} {
		if got := countLines(text); got != want {
			t.Errorf("countLines(%q) = %d, want %d", text, got, want)
		}
	}
}

// linkFindings on a small tree: links to files and directories that exist
// pass, with or without an anchor; missing files, paths out of the tree
// and ../shared are refused; URLs, anchors and code are not links to check.
func TestLinkFindings(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"docs/a.md", "docs/b c.md", "bridge/README.md", "LICENSE"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	doc := strings.Join([]string{
		"[a](a.md) [a's part](a.md#part) [b](b%20c.md) [bridge](../bridge/README.md) [dir](../bridge/)", // 1: fine
		"[license](/LICENSE) ![img](a.md \"title\") [web](https://example.com/x.md) [top](#top)",        // 2: fine
		"[gone](missing.md)",              // 3: missing
		"[up](../../etc/passwd)",          // 4: outside
		"[shared](../../shared/notes.md)", // 5: outside
		"`[code](nothing.md)`",            // 6: code span
		"```",                             // 7
		"[in a fence](nothing.md)",        // 8: fenced
		"```",                             // 9
		"[ref]: gone-too.md",              // 10: missing reference definition
		"[see also](a.md) and [x](y.md)",  // 11: second missing
	}, "\n")
	got := linkFindings(root, "docs/index.md", doc)
	want := []string{"line 3: ", "line 4: ", "line 5: ", "line 10: ", "line 11: "}
	if len(got) != len(want) {
		t.Fatalf("findings %q, want lines 3, 4, 5, 10, 11", got)
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("finding %d %q, want %s...", i, got[i], w)
		}
	}
	if !strings.Contains(got[1], "outside the repository") || !strings.Contains(got[0], "names no file") {
		t.Errorf("findings do not say why: %q", got)
	}
}
