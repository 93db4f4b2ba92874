package worker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/docketjudge/docket/verdict/problem"
)

// A package with tests to build is uploaded with them (PackTarWith):
// the archive a worker unpacks loads with every test a file, nothing
// to build. Without them it is refused before anything is uploaded.
func TestPushBuiltTests(t *testing.T) {
	dir := "../problems/polygon-groups"
	p, err := problem.Load(dir)
	if err != nil || p.Generation == nil {
		t.Fatalf("%v: want tests to build", err)
	}
	if _, _, err := PushBuilt(context.Background(), nil, dir, nil); !errors.Is(err, ErrTestsNotBuilt) {
		t.Errorf("pushed without its tests: %v", err)
	}
	built := map[string]string{}
	tmp := t.TempDir()
	for i, bt := range p.Generation.Tests {
		for _, rel := range []string{bt.Input, bt.Answer} {
			if _, err := os.Stat(filepath.Join(dir, rel)); err == nil {
				continue // a file of the package already
			}
			host := filepath.Join(tmp, fmt.Sprintf("%d-%s", i, filepath.Base(rel)))
			os.WriteFile(host, []byte("1\n1\n"), 0o644)
			built[rel] = host
		}
	}
	data, err := PackTarWith(dir, built)
	if err != nil {
		t.Fatal(err)
	}
	q, err := loadPacked(data, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if q.Generation != nil || len(q.Tests) != len(p.Tests) || q.Digest == p.Digest {
		t.Errorf("unpacked: generation %v, %d tests, digest %s (source %s)", q.Generation, len(q.Tests), q.Digest, p.Digest)
	}
}
