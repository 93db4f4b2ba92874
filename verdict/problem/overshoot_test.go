package problem

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docketjudge/docket/verdict/overshoot"
)

// docket.wall_overshoot sets the package's wall-clock margin; without it
// the Limits field is unset, for the worker's to apply; a bad one refuses
// the package with an error that names the key and matches ErrSyntax.
func TestWallOvershootKey(t *testing.T) {
	tests := map[string]string{"data/secret/1.in": "", "data/secret/1.ans": ""}
	load := func(yaml string) (*Problem, error) {
		d := filepath.Join(t.TempDir(), "p")
		files := map[string]string{"problem.yaml": yaml}
		for k, v := range tests {
			files[k] = v
		}
		write(t, d, files)
		return Load(d)
	}
	p, err := load("limits: {time_limit: 5}\ndocket:\n  wall_overshoot: 2s+50%\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Limits.WallOvershoot.Wall(p.Limits.Time); got != 9500*time.Millisecond {
		t.Errorf("wall limit of a 5 s problem with 2s+50%%: %v, want 9.5s", got)
	}
	p, err = load("name: plain\n")
	if err != nil {
		t.Fatal(err)
	}
	if !p.Limits.WallOvershoot.IsZero() {
		t.Errorf("no key, yet the overshoot is set: %q", p.Limits.WallOvershoot)
	}
	for _, bad := range []string{"forever", "-1s", "5", "1s|"} {
		_, err := load("docket:\n  wall_overshoot: \"" + bad + "\"\n")
		if !errors.Is(err, overshoot.ErrSyntax) || !strings.Contains(err.Error(), "docket.wall_overshoot") {
			t.Errorf("wall_overshoot %q: %v; want an error naming the key and matching overshoot.ErrSyntax", bad, err)
		}
	}
}
