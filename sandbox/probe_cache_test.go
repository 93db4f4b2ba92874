package sandbox_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docketjudge/docket/sandbox"
)

// The namespace probe is kept per boot in the state directory; a forged
// entry can only lower the level, visibly, and a removed one is probed
// again. The file is a list of entries, one per key.
func TestProbeCache(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the full level this test compares against needs root")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "probe-namespaces.json")
	sb, err := sandbox.New(sandbox.Config{StateDir: dir, UIDBase: 63300})
	if err != nil {
		t.Fatalf("first sandbox: %v", err)
	}
	sb.Close()
	var entries []map[string]any
	b, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(b, &entries) != nil || len(entries) != 1 {
		t.Fatalf("not one probe entry after the first sandbox: %v %s", err, b)
	}
	entry := entries[0]
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("probe entry mode %v, want 0600", fi.Mode().Perm())
	}
	refused := entry["refused"].(map[string]any)
	if len(refused) != 6 {
		t.Fatalf("probe entry covers %d namespaces, want 6: %s", len(refused), b)
	}
	// The entry is used: a namespace it says is refused is reported
	// missing, and the level drops below full, which New refuses.
	refused["net"] = "forged: refused"
	b, _ = json.Marshal(entries)
	os.WriteFile(path, b, 0o600)
	sb, err = sandbox.New(sandbox.Config{StateDir: dir, UIDBase: 63300})
	var le *sandbox.LevelError
	if !errors.As(err, &le) || !strings.Contains(strings.Join(le.Missing, "\n"), "namespace:net: forged: refused") {
		t.Fatalf("sandbox from a forged probe entry: err %v, want a LevelError naming the net namespace", err)
	}
	if sb != nil {
		sb.Close()
	}
	// An entry for another boot (or binary, kernel, uid) is ignored.
	entry["key"] = "another boot"
	b, _ = json.Marshal(entries)
	os.WriteFile(path, b, 0o600)
	sb, err = sandbox.New(sandbox.Config{StateDir: dir, UIDBase: 63300})
	if err != nil {
		t.Fatalf("sandbox after a stale entry: %v", err)
	}
	sb.Close()
	checkProbeEntries(t, path)
}

// checkProbeEntries: after a probe under a new key, the new entry comes
// first and the other key's entry is kept (docket and docket-exec used by
// turns each find theirs), unused by this binary.
func checkProbeEntries(t *testing.T, path string) {
	t.Helper()
	var entries []map[string]any
	b, _ := os.ReadFile(path)
	if json.Unmarshal(b, &entries) != nil || len(entries) != 2 {
		t.Fatalf("want the new entry and the other key's: %s", b)
	}
	if entries[0]["key"] == "another boot" || strings.Contains(fmt.Sprint(entries[0]), "forged") || entries[1]["key"] != "another boot" {
		t.Errorf("the new probe is not the first entry, or the other key's was dropped: %s", b)
	}
}
