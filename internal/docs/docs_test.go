package docs

import (
	"bufio"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// maxREADMELines keeps the README an introduction; reference material
// goes to docs/.
const maxREADMELines = 200

// historyRules are the phrases of a lab notebook, not of a reference:
// issue numbers and numbered passes of work. "pass" alone is a word of
// docket's domain (multi-pass problems, validation_passes), so only the
// numbered or ordinal forms are refused; a multi-pass page says "pass 2",
// not "the second pass".
var historyRules = []struct {
	name string
	re   *regexp.Regexp
}{
	{"an issue number", regexp.MustCompile(`(?i)\bissues?\s*#?\d+`)},
	{"a numbered pass of work", regexp.MustCompile(`(?i)\b(\d+(st|nd|rd|th)|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth)\s+pass\b`)},
	{"a pass of an issue", regexp.MustCompile(`(?i)\b(\d+|issues?)'s\s+(\w+\s+){0,2}pass(es)?\b`)},
}

// inlineLink matches [text](target "title") and ![alt](target);
// refLink matches a reference definition, [label]: target.
var (
	inlineLink = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	refLink    = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?`)
	urlScheme  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
	codeSpan   = regexp.MustCompile("`+[^`]*`+")
)

// moduleRoot is the directory holding docket's go.mod, found upwards from
// the test's working directory (the package directory under go test).
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.Contains(string(mod), "module github.com/docketjudge/docket\n") {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod of github.com/docketjudge/docket above the working directory")
		}
		dir = parent
	}
}

// documents lists README.md and every Markdown file under docs/, relative
// to root.
func documents(t *testing.T, root string) []string {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".md") {
			rel, err := filepath.Rel(root, path)
			files = append(files, rel)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func readDoc(t *testing.T, root, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// countLines counts lines as an editor shows them: a last line without a
// newline counts too.
func countLines(text string) int {
	n := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		n++
	}
	return n
}

// historyFindings names each history phrase in text, by line.
func historyFindings(text string) []string {
	var out []string
	for i, line := range strings.Split(text, "\n") {
		for _, r := range historyRules {
			for _, m := range r.re.FindAllString(line, -1) {
				out = append(out, fmt.Sprintf("line %d: %s: %q", i+1, r.name, m))
			}
		}
	}
	return out
}

// linkTargets returns the targets of the Markdown links in text, by line,
// outside fenced code blocks and code spans, where brackets are code.
func linkTargets(text string) map[int][]string {
	targets := map[int][]string{}
	fence := ""
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if f := fenceMarker(line); f != "" {
			if fence == "" {
				fence = f
			} else if strings.HasPrefix(f, fence) {
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		line = codeSpan.ReplaceAllString(line, "")
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			targets[n] = append(targets[n], m[1])
		}
		if m := refLink.FindStringSubmatch(line); m != nil {
			targets[n] = append(targets[n], m[1])
		}
	}
	return targets
}

// fenceMarker returns the run of backticks or tildes that opens or closes
// a fenced code block on line, or "".
func fenceMarker(line string) string {
	s := strings.TrimLeft(line, " ")
	if len(line)-len(s) > 3 {
		return ""
	}
	for _, c := range []string{"```", "~~~"} {
		if strings.HasPrefix(s, c) {
			return s[:len(s)-len(strings.TrimLeft(s, c[:1]))]
		}
	}
	return ""
}

// linkProblem says what is wrong with a link to target from the document
// at rel (relative to root), or "" when it names an existing file or
// directory of the repository. URLs with a scheme and in-page anchors are
// not checked here.
func linkProblem(root, rel, target string) string {
	if urlScheme.MatchString(target) || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "//") {
		return ""
	}
	p, _, _ := strings.Cut(target, "#")
	p, _, _ = strings.Cut(p, "?")
	if unescaped, err := url.PathUnescape(p); err == nil {
		p = unescaped
	}
	var abs string
	if strings.HasPrefix(p, "/") {
		abs = filepath.Join(root, p)
	} else {
		abs = filepath.Join(root, filepath.Dir(rel), p)
	}
	inside, err := filepath.Rel(root, abs)
	if err != nil || inside == ".." || strings.HasPrefix(inside, ".."+string(filepath.Separator)) {
		return "points outside the repository"
	}
	if _, err := os.Stat(abs); err != nil {
		return "names no file of the repository (" + inside + ")"
	}
	return ""
}

// linkFindings names each relative link of the document rel that is
// broken, by line.
func linkFindings(root, rel, text string) []string {
	var out []string
	targets := linkTargets(text)
	for n := 1; n <= countLines(text); n++ {
		for _, target := range targets[n] {
			if p := linkProblem(root, rel, target); p != "" {
				out = append(out, fmt.Sprintf("line %d: link %q %s", n, target, p))
			}
		}
	}
	return out
}

func TestREADMEIsAnIntroduction(t *testing.T) {
	root := moduleRoot(t)
	if n := countLines(readDoc(t, root, "README.md")); n > maxREADMELines {
		t.Errorf("README.md has %d lines, over %d: move reference material to docs/", n, maxREADMELines)
	}
}

func TestDocsNameNoIssueOrPass(t *testing.T) {
	root := moduleRoot(t)
	for _, rel := range documents(t, root) {
		for _, f := range historyFindings(readDoc(t, root, rel)) {
			t.Errorf("%s: %s (history goes to CHANGELOG.md)", rel, f)
		}
	}
}

func TestDocsRelativeLinksExist(t *testing.T) {
	root := moduleRoot(t)
	for _, rel := range documents(t, root) {
		for _, f := range linkFindings(root, rel, readDoc(t, root, rel)) {
			t.Errorf("%s: %s", rel, f)
		}
	}
}
