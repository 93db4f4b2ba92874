package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// moduleRoot is the repository root, seen from this package.
const moduleRoot = "../../.."

// docs/performance.md and the README's figures block are what `make docs`
// generates from the committed results file: a table edited by hand, or
// a results file recorded without `make docs`, fails here.
func TestPerformanceDocsUpToDate(t *testing.T) {
	res, err := readResults(filepath.Join(moduleRoot, "docs", "bench", "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(moduleRoot, perfDoc))
	if err != nil {
		t.Fatalf("%s: %v (run `make docs`)", perfDoc, err)
	}
	if want := performanceDoc(res); string(got) != want {
		t.Errorf("%s differs from what docs/bench/results.json generates at line %d: run `make docs`", perfDoc, firstDiff(string(got), want))
	}
	readme, err := os.ReadFile(filepath.Join(moduleRoot, readmeFile))
	if err != nil {
		t.Fatal(err)
	}
	want, err := replaceBlock(string(readme), readmeBlock(res))
	if err != nil {
		t.Fatalf("README.md: %v", err)
	}
	if string(readme) != want {
		t.Errorf("README.md's figures block differs from what docs/bench/results.json generates at line %d: run `make docs`", firstDiff(string(readme), want))
	}
}

func firstDiff(a, b string) int {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	i := 0
	for i < len(al) && i < len(bl) && al[i] == bl[i] {
		i++
	}
	return i + 1
}

// The block between the markers is replaced and nothing else; markers
// missing, twice or out of order are an error.
func TestReplaceBlock(t *testing.T) {
	readme := "# x\n\ntext\n" + beginMarker + "\nold\nold\n" + endMarker + "\nafter\n"
	got, err := replaceBlock(readme, "new\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "# x\n\ntext\n" + beginMarker + "\nnew\n" + endMarker + "\nafter\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, bad := range []string{
		"no markers\n",
		beginMarker + "\nonly begin\n",
		endMarker + "\n" + beginMarker + "\n",
		beginMarker + "\n" + beginMarker + "\n" + endMarker + "\n",
		beginMarker + "\n" + endMarker + "\n" + endMarker + "\n",
	} {
		if _, err := replaceBlock(bad, "new\n"); !errors.Is(err, errMarkers) {
			t.Errorf("%q: error %v, want errMarkers", bad, err)
		}
	}
}

// The page lists every figure, says which were not measured, and shows
// the host and the commit; the README block has only the headline
// figures. Text from the results file cannot break a table row.
func TestDocsRender(t *testing.T) {
	res := sampleResults(t)
	res.Figures[0].Name = "a | b\nc"
	page := performanceDoc(res)
	rows := tableRows(page, "| figure | benchmark |")
	if len(rows) != len(res.Figures) {
		t.Fatalf("%d figure rows, want %d:\n%s", len(rows), len(res.Figures), page)
	}
	for _, r := range rows {
		if n := strings.Count(strings.ReplaceAll(r, `\|`, ""), "|"); n != 8 {
			t.Errorf("row with %d cell separators, want 8: %s", n, r)
		}
	}
	for _, want := range []string{
		"| queue | `BenchmarkBurst` | not measured in this run | bare pipeline: not measured in this run | - | ≥ 0.95 | - |",
		"| docket exec -- /bin/true | `BenchmarkExecCommand` | 17.46 ms | isolate --run: not measured in this run | - | ≤ 1 | - |",
		"| Communication test, 2 processes | `BenchmarkCommunication` | 6.614 ms | 3 batch tests: 6.792 ms | 0.9738 | &lt; 1 | yes |",
		"| commit | `8cef06512345` |", "Test CPU, 2 cores", "### `BenchmarkBurst`",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("performance.md lacks %q:\n%s", want, page)
		}
	}
	block := readmeBlock(res)
	headlines := 0
	for _, f := range res.Figures {
		if f.Headline {
			headlines++
		}
	}
	if n := len(tableRows(block, "| figure |")); n != headlines || headlines == 0 {
		t.Errorf("README block has %d rows, want the %d headline figures:\n%s", n, headlines, block)
	}
	if !strings.Contains(block, "(docs/performance.md)") || !strings.Contains(block, "`8cef06512345`") {
		t.Errorf("README block does not link the page or name the commit:\n%s", block)
	}
}

// tableRows are the body rows of the table whose header starts with head.
func tableRows(doc, head string) []string {
	_, after, ok := strings.Cut(doc, head)
	if !ok {
		return nil
	}
	lines := strings.Split(after, "\n")[2:] // the header's rest, the separator
	var rows []string
	for _, l := range lines {
		if !strings.HasPrefix(l, "|") {
			break
		}
		rows = append(rows, l)
	}
	return rows
}

// writeDocs writes both files under the root it is given, and leaves
// both alone when the README has no markers.
func TestWriteDocs(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	resPath := filepath.Join(root, "results.json")
	if err := writeResults(resPath, sampleResults(t)); err != nil {
		t.Fatal(err)
	}
	readme := filepath.Join(root, readmeFile)
	if err := os.WriteFile(readme, []byte("# r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeDocs(root, resPath); !errors.Is(err, errMarkers) {
		t.Fatalf("README without markers: error %v, want errMarkers", err)
	}
	if _, err := os.Stat(filepath.Join(root, perfDoc)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("performance.md written although the README could not be: %v", err)
	}
	if err := os.WriteFile(readme, []byte("# r\n"+beginMarker+"\n"+endMarker+"\ntail\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeDocs(root, resPath); err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(filepath.Join(root, perfDoc))
	got, _ := os.ReadFile(readme)
	if string(page) != performanceDoc(sampleResults(t)) || !strings.Contains(string(got), "| figure |") || !strings.HasSuffix(string(got), endMarker+"\ntail\n") {
		t.Errorf("page or README not generated:\n%s", got)
	}
}
