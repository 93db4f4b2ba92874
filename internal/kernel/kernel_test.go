package kernel

import (
	"strconv"
	"strings"
	"testing"
)

// TestAtLeast: the running release is at least itself and not at least
// the next minor release.
func TestAtLeast(t *testing.T) {
	release, err := Release()
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.SplitN(release, ".", 3)
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(strings.TrimRightFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	if err1 != nil || err2 != nil {
		t.Fatalf("release %q: %v %v", release, err1, err2)
	}
	if ok, _, err := AtLeast(major, minor); !ok || err != nil {
		t.Errorf("AtLeast(%d, %d) on %s = %v, %v; want true", major, minor, release, ok, err)
	}
	if ok, _, err := AtLeast(major, minor+1); ok || err != nil {
		t.Errorf("AtLeast(%d, %d) on %s = %v, %v; want false", major, minor+1, release, ok, err)
	}
	if ok, _, err := AtLeast(major+1, 0); ok || err != nil {
		t.Errorf("AtLeast(%d, 0) on %s = %v, %v; want false", major+1, release, ok, err)
	}
}
