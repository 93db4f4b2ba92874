package sandbox

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/docketjudge/docket/sandbox/mount"
)

// The checks a run makes of what was prepared ahead read no entry where
// the host can mark them: the default binds, the worker's own binary as
// a mask, a box's source. A template whose mask is replaced, or a source
// written to, is then seen through the marks, as the stamps saw it.
func TestWatchesInUse(t *testing.T) {
	if !roomToHold() {
		t.Skip("RLIMIT_NOFILE below 4096: nothing is watched, the stamps are taken again")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if w := watchRoot(DefaultBinds, []string{exe}); w == nil {
		t.Error("the default binds and the worker's binary cannot be watched: every run stats them again")
	} else {
		w.Close()
	}

	dir := t.TempDir()
	mask, bound := filepath.Join(dir, "secret"), filepath.Join(dir, "data")
	os.WriteFile(mask, []byte("1"), 0o600)
	os.Mkdir(bound, 0o755)
	tpl := &template{built: time.Now(), watch: watchRoot([]mount.Bind{{Source: bound}}, []string{mask})}
	defer tpl.close()
	if tpl.watch == nil || !tpl.fresh(time.Now()) {
		t.Fatal("a new template is not fresh through its watch")
	}
	os.WriteFile(mask+".new", []byte("2"), 0o600)
	os.Rename(mask+".new", mask)
	if tpl.fresh(time.Now()) {
		t.Error("a template whose mask was replaced is still fresh")
	}

	src := filepath.Join(dir, "src")
	os.Mkdir(src, 0o755)
	os.WriteFile(filepath.Join(src, "prog"), []byte("v1"), 0o755)
	r := &readySpace{key: spaceKey{from: src}, watch: watchSource(src)}
	defer r.watch.Close()
	if r.watch == nil || !r.unchanged() {
		t.Fatal("a source just watched is not unchanged through its watch")
	}
	os.WriteFile(filepath.Join(src, "prog"), []byte("v2"), 0o755)
	if r.unchanged() {
		t.Error("a source written to is unchanged")
	}
}
