package langs

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"
)

// ProbeCached probes side by side (probeParallel at once) into one slice
// and one version cache: each language gets its own answer, in catalog
// order, and the second round comes from the cache. make race runs it
// under the race detector.
func TestProbeCachedSideBySide(t *testing.T) {
	c := &Catalog{byID: map[string]*Language{}, alias: map[string]string{}}
	for i := 0; i < 2*probeParallel; i++ {
		id := fmt.Sprintf("t%d", i)
		c.add(&Language{ID: id, Source: "main.x", Run: []string{"sh", "{main}"},
			Version: []string{"sh", "-c", "echo " + id + " 1.0"}})
	}
	c.add(&Language{ID: "gone", Source: "main.x", Run: []string{"docket-no-such-runtime", "{main}"}})
	vc := OpenVersionCache(filepath.Join(t.TempDir(), "versions.json"))
	var first map[string]versionEntry // the cache after round 1
	for round := 1; round <= 2; round++ {
		got := c.ProbeCached(context.Background(), vc)
		if len(got) != len(c.IDs()) {
			t.Fatalf("round %d: %d answers for %d languages", round, len(got), len(c.IDs()))
		}
		for i, id := range c.IDs() {
			a := got[i]
			switch {
			case a.Language == nil || a.Language.ID != id:
				t.Errorf("round %d: answer %d is %+v, want language %s", round, i, a, id)
			case id == "gone":
				if a.Available || !strings.Contains(a.Reason, "docket-no-such-runtime") {
					t.Errorf("round %d: %+v, want unavailable naming the runtime", round, a)
				}
			case !a.Available || a.Version != id+" 1.0":
				t.Errorf("round %d: %+v, want available, version %q", round, a, id+" 1.0")
			}
		}
		if round == 1 {
			first = maps.Clone(vc.entries)
		} else if !maps.Equal(vc.entries, first) {
			t.Error("round 2 asked a version again: every answer was in the cache")
		}
	}
	if len(first) != 2*probeParallel {
		t.Errorf("%d versions cached, want %d", len(first), 2*probeParallel)
	}
}
