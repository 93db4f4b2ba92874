package verdict

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docketjudge/docket/langs"
)

// A compile step sends the compiler's stdout and stderr into one log. The
// log must hold them in the order the compiler wrote them, which takes one
// pipe for both; with two, two goroutines write the one buffer at once,
// a data race the race leg of make test reports.
func TestCompileLogKeepsOrder(t *testing.T) {
	slot := testJudge(t).Slot
	const n = 200
	lang := &langs.Language{
		ID: "shlog", Name: "a compiler writing to both streams", Extensions: []string{".sh"}, Source: "main.sh",
		Compile: []string{"/bin/sh", "-c", fmt.Sprintf(`i=0; while [ $i -lt %d ]; do echo "out $i"; echo "err $i" >&2; i=$((i+1)); done`, n)},
		Run:     []string{"/bin/true"},
	}
	_, cr, err := build(slot, lang, map[string][]byte{"main.sh": nil}, filepath.Join(t.TempDir(), "box"), false)
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&want, "out %d\nerr %d\n", i, i)
	}
	if !cr.OK || cr.Log != want.String() {
		t.Errorf("compile OK %v; log of %d bytes, want %d bytes with the streams in the order written:\n%.300s",
			cr.OK, len(cr.Log), want.Len(), cr.Log)
	}
}
